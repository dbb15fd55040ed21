# tests/sim/cupti/: the simulated CUPTI, $(SIM_DIR)/libcupti.so.13 (plus the
# libcupti.so link a -lcupti build needs), and its Check test.
#
# The result and runtime-callback name tables are generated from the CUDA
# headers at build time, so they match whatever toolkit CUDA_HOME points at.
SIMCUPTI_SRCS := $(filter-out tests/sim/cupti/test_%.c,$(wildcard tests/sim/cupti/*.c))
SIMCUPTI_TEST_INJECT := $(SIM_DIR)/cupti/libtest_inject.so
SIMCUPTI_HDRS := tests/sim/cupti/cupti_sim.h tests/sim/core/cusim.h
SIMCUPTI_ODIR := $(SIM_DIR)/cupti
SIMCUPTI_OBJS := $(patsubst tests/sim/cupti/%.c,$(SIMCUPTI_ODIR)/%.o,$(SIMCUPTI_SRCS))
SIMCUPTI_GEN  := $(SIMCUPTI_ODIR)/cupti_result_names.inc $(SIMCUPTI_ODIR)/cupti_runtime_names.inc \
                 $(SIMCUPTI_ODIR)/cupti_driver_names.inc
SIMCUPTI_LIB  := $(SIM_DIR)/libcupti.so.13
# -DCUPTI_LIB makes the real headers mark their prototypes visible.
SIMCUPTI_CFLAGS = $(SIM_CFLAGS) -DCUPTI_LIB -I$(SIMCUPTI_ODIR) -pthread

$(SIMCUPTI_ODIR)/cupti_result_names.inc: $(CUDA_HOME)/include/cupti_result.h
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n \
	  's/^ *\(CUPTI_\(SUCCESS\|ERROR_[A-Z0-9_]*\)\) *= *\([0-9][0-9]*\),.*/    {\3, "\1"},/p' $< > $@

$(SIMCUPTI_ODIR)/cupti_runtime_names.inc: $(CUDA_HOME)/include/cupti_runtime_cbid.h
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n \
	  's/^ *CUPTI_RUNTIME_TRACE_CBID_\([a-z][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/    [\2] = "\1",/p' $< > $@

$(SIMCUPTI_ODIR)/cupti_driver_names.inc: $(CUDA_HOME)/include/cupti_driver_cbid.h
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n \
	  's/^ *CUPTI_DRIVER_TRACE_CBID_\([a-z][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\),.*/    [\2] = "\1",/p' $< > $@

$(SIMCUPTI_ODIR)/%.o: tests/sim/cupti/%.c $(SIMCUPTI_HDRS) $(SIMCUPTI_GEN)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIMCUPTI_CFLAGS) -c -o $@ $<

# What the real libcupti exports and these sources do not define.
$(SIMCUPTI_ODIR)/stubs.c: tests/sim/gen_stubs.sh $(SIMCUPTI_OBJS)
	$(call SIM_STUBS_GEN,$(call SIM_REAL_LIB,libcupti.so.13),CUPTIAPI,CUptiResult,CUPTI_ERROR_NOT_SUPPORTED,<cupti.h>,$(wildcard $(CUDA_HOME)/include/cupti*.h),$(SIMCUPTI_OBJS))
$(SIMCUPTI_ODIR)/stubs.o: $(SIMCUPTI_ODIR)/stubs.c tests/sim/core/cusim_stub.h
	$(call P,CC,$@)$(CC) $(SIMCUPTI_CFLAGS) -c -o $@ $<

$(SIMCUPTI_LIB): $(SIMCUPTI_OBJS) $(SIMCUPTI_ODIR)/stubs.o tests/sim/cupti/libcupti.map $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -o $@ $(SIMCUPTI_OBJS) $(SIMCUPTI_ODIR)/stubs.o -Wl,-soname,libcupti.so.13 \
	  -Wl,--version-script=tests/sim/cupti/libcupti.map -Wl,--no-undefined \
	  -L$(SIM_DIR) -lcusim -Wl,-rpath,'$$ORIGIN' -pthread $(LDFLAGS)

$(SIM_DIR)/libcupti.so: $(SIMCUPTI_LIB)
	$(call P,LN,$@)ln -sf libcupti.so.13 $@

# The test is a CUPTI client, linked like a profiler would be; it finds both
# libraries next to it through its rpath.
$(SIMCUPTI_ODIR)/test_sim_cupti: tests/sim/cupti/test_sim_cupti.c $(SIMCUPTI_HDRS) $(SIM_DIR)/libcupti.so \
                                  $(SIMCUPTI_TEST_INJECT)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Itests/sim/core $(CHECK_CFLAGS) -o $@ $< \
	  -L$(SIM_DIR) -lcupti -lcusim -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS) $(CHECK_LIBS) -pthread

# An injection library the test names in CUDA_INJECTION64_PATH.
$(SIMCUPTI_TEST_INJECT): tests/sim/cupti/test_inject.c $(SIM_DIR)/libcupti.so
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -fvisibility=hidden -shared -o $@ $< \
	  -L$(SIM_DIR) -lcupti -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS)

ALL_TARGETS += $(SIMCUPTI_LIB) $(SIM_DIR)/libcupti.so $(SIMCUPTI_ODIR)/test_sim_cupti $(SIMCUPTI_TEST_INJECT)
UNIT_TESTS  += $(SIMCUPTI_ODIR)/test_sim_cupti
