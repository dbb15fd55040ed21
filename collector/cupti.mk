# collector/cupti.mk: the CUPTI part of the collector (included after
# collector/collector.mk). Its objects are appended to COLLECTOR_OBJS and so
# linked into build/libcuprof.so; they use only libc/libdl/libpthread (CUPTI
# is dlopen'ed) and the CUPTI/CUDA headers of $(CUDA_HOME).
CUPTI_SRCS := collector/cupti.c collector/cupti_load.c collector/cupti_records.c
CUPTI_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(CUPTI_SRCS))
CUPTI_HDRS := collector/cupti.h collector/cupti_int.h model/gpu.h model/cbid.h collector/clock.h
# Newer CUPTI headers let a second subscriber share the callback API.
CUPTI_MULTI_SUB := $(shell grep -q allowMultipleSubscribers $(CUDA_HOME)/include/cupti_callbacks.h 2>/dev/null && echo -DCUPROF_CUPTI_MULTI_SUBSCRIBER)
CUPTI_CFLAGS = $(CFLAGS) -fvisibility=hidden -I. $(CUPTI_MULTI_SUB)

$(CUPTI_OBJS): $(B)/collector/%.o: collector/%.c $(CUPTI_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CUPTI_CFLAGS) -c -o $@ $<

COLLECTOR_OBJS += $(CUPTI_OBJS)

# Unit test: the CUPTI objects alone, against the real libcupti of
# $(CUDA_HOME) and the simulated one in $(SIM_DIR) (both found at run time;
# the binary links neither, so it can pick per test).
$(B)/tests/test_cupti: tests/unit/test_cupti.c $(CUPTI_OBJS) $(B)/model/gpu.o $(B)/model/cbid.o $(CUPTI_HDRS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(CUPTI_OBJS) $(B)/model/gpu.o $(B)/model/cbid.o $(LDFLAGS) $(CHECK_LIBS) -ldl -lpthread

# The same test file as an injection library (CUDA_INJECTION64_PATH), so a
# test can start CUPTI from inside the simulated driver's initialization.
$(B)/tests/libtest_cupti_inject.so: tests/unit/test_cupti.c $(CUPTI_OBJS) $(B)/model/gpu.o $(B)/model/cbid.o $(CUPTI_HDRS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -DTEST_CUPTI_INJECTION -fvisibility=hidden \
	    -shared -I. -o $@ $< $(CUPTI_OBJS) $(B)/model/gpu.o $(B)/model/cbid.o $(LDFLAGS) -ldl -lpthread
$(B)/tests/test_cupti: $(B)/tests/libtest_cupti_inject.so

UNIT_TESTS  += $(B)/tests/test_cupti
ALL_TARGETS += $(CUPTI_OBJS) $(B)/tests/test_cupti $(B)/tests/libtest_cupti_inject.so
