# collector/: sources and objects. The event store, the kernel-name table,
# configuration, the process lifecycle and CUPTI (dlopen'ed: the objects use
# only libc/libdl/libpthread and the CUPTI/CUDA headers of $(CUDA_HOME)).
# Linked into build/libcuprof.so (top Makefile); hidden visibility: the
# library exports only the hooks. Tests: tests/unit/unit.mk.
CUPTI_SRCS := collector/cupti.c collector/cupti_load.c collector/cupti_records.c collector/cbid.c
CUPTI_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(CUPTI_SRCS))
COLLECTOR_SRCS := collector/config.c collector/log.c collector/clock.c collector/buffers.c \
                  collector/kernels.c collector/strings.c collector/lifecycle.c collector/snapshot.c \
                  collector/process_signals.c collector/process_exec.c collector/capture.c collector/memheld.c \
                  collector/stacks.c collector/stacks_sym.c collector/pyframes.c collector/spawn.c collector/place.c \
                  collector/runfile.c collector/flight.c collector/job.c collector/shm.c $(CUPTI_SRCS)
COLLECTOR_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(COLLECTOR_SRCS))
# Newer CUPTI headers let a second subscriber share the callback API.
CUPTI_MULTI_SUB := $(shell grep -q allowMultipleSubscribers $(CUDA_HOME)/include/cupti_callbacks.h 2>/dev/null && echo -DCUPROF_CUPTI_MULTI_SUBSCRIBER)
# -fno-omit-frame-pointer: the stacks' frame-pointer walk (stacks.c) passes
# through the hooks and the collector on every call.
COLLECTOR_CFLAGS = $(CFLAGS) -fvisibility=hidden -fno-omit-frame-pointer -I.

$(B)/collector/%.o: collector/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(COLLECTOR_CFLAGS) -c -o $@ $<
$(CUPTI_OBJS): COLLECTOR_CFLAGS += $(CUPTI_MULTI_SUB)

# cbid -> name tables, generated from the toolkit's own headers:
# CUPTI_RUNTIME_TRACE_CBID_<name>_v<NNNNN> = <id>  ->  [<id>] = "<name>",
# CUPTI_DRIVER_TRACE_CBID_<name> = <id> (no version suffix), the same.
CBID_RUNTIME_INC := $(B)/collector/cbid_runtime_names.inc
CBID_DRIVER_INC  := $(B)/collector/cbid_driver_names.inc

$(CBID_RUNTIME_INC): $(CUDA_HOME)/include/cupti_runtime_cbid.h collector/collector.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_RUNTIME_TRACE_CBID_([A-Za-z0-9_]+)_v[0-9]+[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(CBID_DRIVER_INC): $(CUDA_HOME)/include/cupti_driver_cbid.h collector/collector.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_DRIVER_TRACE_CBID_([a-z][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(B)/collector/cbid.o: $(CBID_RUNTIME_INC) $(CBID_DRIVER_INC)
$(B)/collector/cbid.o: COLLECTOR_CFLAGS += -I$(B)/collector

ALL_TARGETS += $(COLLECTOR_OBJS)
