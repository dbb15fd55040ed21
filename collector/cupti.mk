# collector/cupti.mk: the CUPTI part of the collector (included after
# collector/collector.mk). Its objects are appended to COLLECTOR_OBJS and so
# linked into build/libcuprof.so; they use only libc/libdl/libpthread (CUPTI
# is dlopen'ed) and the CUPTI/CUDA headers of $(CUDA_HOME).
CUPTI_SRCS := collector/cupti.c collector/cupti_load.c collector/cupti_records.c \
              collector/cupti_cbid.c
CUPTI_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(CUPTI_SRCS))
CUPTI_HDRS := collector/cupti.h collector/cupti_int.h model/gpu.h collector/clock.h
# Runtime cbid -> name table, generated from the toolkit's own header:
# CUPTI_RUNTIME_TRACE_CBID_<name>_v<NNNNN> = <id>  ->  [<id>] = "<name>",
CUPTI_CBID_INC := $(B)/collector/cupti_cbid_names.inc
CUPTI_CBID_HDR := $(CUDA_HOME)/include/cupti_runtime_cbid.h
# Driver cbid -> name: CUPTI_DRIVER_TRACE_CBID_<name> = <id> (no version suffix).
CUPTI_DRV_INC  := $(B)/collector/cupti_driver_names.inc
CUPTI_DRV_HDR  := $(CUDA_HOME)/include/cupti_driver_cbid.h
# Newer CUPTI headers let a second subscriber share the callback API.
CUPTI_MULTI_SUB := $(shell grep -q allowMultipleSubscribers $(CUDA_HOME)/include/cupti_callbacks.h 2>/dev/null && echo -DCUPROF_CUPTI_MULTI_SUBSCRIBER)
CUPTI_CFLAGS = $(CFLAGS) -fvisibility=hidden -I. -I$(B)/collector $(CUPTI_MULTI_SUB)

$(CUPTI_CBID_INC): $(CUPTI_CBID_HDR) collector/cupti.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_RUNTIME_TRACE_CBID_([A-Za-z0-9_]+)_v[0-9]+[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(CUPTI_DRV_INC): $(CUPTI_DRV_HDR) collector/cupti.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_DRIVER_TRACE_CBID_([a-z][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(B)/collector/cupti_cbid.o: $(CUPTI_CBID_INC) $(CUPTI_DRV_INC)
$(CUPTI_OBJS): $(B)/collector/%.o: collector/%.c $(CUPTI_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CUPTI_CFLAGS) -c -o $@ $<

COLLECTOR_OBJS += $(CUPTI_OBJS)

# Unit test: the CUPTI objects alone, against the real libcupti of
# $(CUDA_HOME) and the simulated one in $(SIM_DIR) (both found at run time;
# the binary links neither, so it can pick per test).
$(B)/tests/test_cupti: tests/unit/test_cupti.c $(CUPTI_OBJS) $(B)/model/gpu.o $(CUPTI_HDRS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(CUPTI_OBJS) $(B)/model/gpu.o $(LDFLAGS) $(CHECK_LIBS) -ldl -lpthread

# The same test file as an injection library (CUDA_INJECTION64_PATH), so a
# test can start CUPTI from inside the simulated driver's initialization.
$(B)/tests/libtest_cupti_inject.so: tests/unit/test_cupti.c $(CUPTI_OBJS) $(B)/model/gpu.o $(CUPTI_HDRS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -DTEST_CUPTI_INJECTION -fvisibility=hidden \
	    -shared -I. -o $@ $< $(CUPTI_OBJS) $(B)/model/gpu.o $(LDFLAGS) -ldl -lpthread
$(B)/tests/test_cupti: $(B)/tests/libtest_cupti_inject.so

UNIT_TESTS  += $(B)/tests/test_cupti
ALL_TARGETS += $(CUPTI_OBJS) $(B)/tests/test_cupti $(B)/tests/libtest_cupti_inject.so
