# tests/sim/: the simulated CUDA device. Each part owns its fragment; all
# libraries land in $(SIM_DIR), which a program puts first on LD_LIBRARY_PATH.
SIM_DIR := $(B)/sim
SIM_CFLAGS = $(CFLAGS) -Itests/sim/core -fvisibility=hidden
# The real libraries the sim stands in for: every function they export, the
# sim exports too (what a part does not model is a generated stub:
# tests/sim/gen_stubs.sh, cusim_stub.h).
SIM_REAL_LIB = $(CUDA_HOME)/lib64/$(1)
# $(call SIM_STUBS_GEN,REAL.so,MACRO,FALLBACK,STATUS,INCLUDE,HEADERS,OBJS): the recipe
SIM_STUBS_GEN = $(call P,GEN,$@)mkdir -p $(@D) && bash tests/sim/gen_stubs.sh $(1) $(2) '$(3)' \
  '$(4)' '$(5)' '$(6)' -- $(7) > $@.tmp && mv $@.tmp $@
include tests/sim/core/core.mk
include tests/sim/cudart/cudart.mk
include tests/sim/driver/driver.mk
include tests/sim/cublas/cublas.mk
include tests/sim/cupti/cupti.mk
include tests/sim/nccl/nccl.mk
include tests/sim/libs/libs.mk

# Every real export in the sim (and what a stub does): tests/sim/test_sim_exports.c.
$(B)/tests/sim_stub_prog: tests/sim/stub_prog.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -ldl
$(B)/tests/test_sim_exports: tests/sim/test_sim_exports.c $(HARNESS_OBJ) tests/e2e/harness.h \
		$(B)/tests/sim_stub_prog $(CUDART_LIB) $(LIBCUBLAS) $(LIBCUBLASLT) $(SIMCUPTI_LIB) $(SIMLIBS_LIBS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Itests/e2e $(CHECK_CFLAGS) -o $@ $< \
	  $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/sim_stub_prog
UNIT_TESTS  += $(B)/tests/test_sim_exports
