# collector/: sources and objects. The event store, the kernel-name table,
# configuration, the process lifecycle and CUPTI (dlopen'ed: the objects use
# only libc/libdl/libpthread and the CUPTI/CUDA headers of $(CUDA_HOME)).
# Linked into build/libcuprof.so (top Makefile); hidden visibility: the
# library exports only the hooks. Tests: tests/unit/unit.mk.
CUPTI_SRCS := collector/cupti.c collector/cupti_load.c collector/cupti_records.c
CUPTI_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(CUPTI_SRCS))
COLLECTOR_SRCS := collector/config.c collector/log.c collector/clock.c collector/buffers.c \
                  collector/kernels.c collector/strings.c collector/lifecycle.c collector/snapshot.c \
                  collector/process_signals.c collector/process_exec.c collector/spill.c collector/capture.c \
                  collector/stacks.c collector/stacks_sym.c collector/export.c collector/place.c \
                  $(CUPTI_SRCS)
COLLECTOR_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(COLLECTOR_SRCS))
# Newer CUPTI headers let a second subscriber share the callback API.
CUPTI_MULTI_SUB := $(shell grep -q allowMultipleSubscribers $(CUDA_HOME)/include/cupti_callbacks.h 2>/dev/null && echo -DCUPROF_CUPTI_MULTI_SUBSCRIBER)
# -fno-omit-frame-pointer: the stacks' frame-pointer walk (stacks.c) passes
# through the hooks and the collector on every call.
COLLECTOR_CFLAGS = $(CFLAGS) -fvisibility=hidden -fno-omit-frame-pointer -I.

$(B)/collector/%.o: collector/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(COLLECTOR_CFLAGS) -c -o $@ $<
$(CUPTI_OBJS): COLLECTOR_CFLAGS += $(CUPTI_MULTI_SUB)

ALL_TARGETS += $(COLLECTOR_OBJS)
