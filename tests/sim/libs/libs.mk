# tests/sim/libs/: stand-ins for cuFFT, cuRAND, cuSPARSE and cuSOLVER with the
# real sonames and symbol versions, linked to libcusim.so. NVIDIA's own cannot
# run on the sim's driver (tests/sim/README.md, "The driver"). Each models its
# common entry points (LIB.c, with simlib.c's launch path) and exports the
# rest of what the toolkit's library exports as generated stubs
# (gen_stubs.sh) that say so.
SIMLIBS_DIR   := tests/sim/libs
SIMLIBS       := cufft curand cusparse cusolver
SIMLIBS_HDRS  := $(SIMLIBS_DIR)/simlib.h $(SIMLIBS_DIR)/cusparse_internal.h $(SIMLIBS_DIR)/cusolver_internal.h \
                 tests/sim/core/cusim.h tests/sim/core/cusim_stub.h
SIMLIB_LIB     = $(SIM_DIR)/$(SIMLIB_$(1)_SONAME)
# A library's objects: LIB.o, and its other files' (SIMLIB_LIB_MORE).
SIMLIB_cusparse_MORE := cusparse_solve
SIMLIB_cusolver_MORE := cusolver_batched cusolver_svd
SIMLIB_OBJS    = $(SIM_DIR)/libs/$(1).o $(foreach m,$(SIMLIB_$(1)_MORE),$(SIM_DIR)/libs/$(m).o)

# Per library: soname, calling-convention macro, status type, a stub's status,
# the header the stubs include, the headers declaring the exports, the export
# patterns of the version script.
SIMLIB_cufft_SONAME    := libcufft.so.12
SIMLIB_cufft_MACRO     := CUFFTAPI
SIMLIB_cufft_TYPE      := cufftResult
SIMLIB_cufft_STATUS    := CUFFT_NOT_SUPPORTED
SIMLIB_cufft_INCLUDE   := <cufftXt.h>
SIMLIB_cufft_HEADERS    = $(CUDA_HOME)/include/cufft.h $(CUDA_HOME)/include/cufftXt.h
SIMLIB_cufft_GLOBAL    := cufft*;
SIMLIB_curand_SONAME   := libcurand.so.10
SIMLIB_curand_MACRO    := CURANDAPI
SIMLIB_curand_TYPE     := curandStatus_t
SIMLIB_curand_STATUS   := CURAND_STATUS_INTERNAL_ERROR
SIMLIB_curand_INCLUDE  := <curand.h>
SIMLIB_curand_HEADERS   = $(CUDA_HOME)/include/curand.h
SIMLIB_curand_GLOBAL   := curand*;
SIMLIB_cusparse_SONAME  := libcusparse.so.12
SIMLIB_cusparse_MACRO   := CUSPARSEAPI
SIMLIB_cusparse_TYPE    := cusparseStatus_t
SIMLIB_cusparse_STATUS  := CUSPARSE_STATUS_NOT_SUPPORTED
SIMLIB_cusparse_INCLUDE := <cusparse.h>
SIMLIB_cusparse_HEADERS  = $(CUDA_HOME)/include/cusparse.h
SIMLIB_cusparse_GLOBAL  := cusparse*;
SIMLIB_cusolver_SONAME  := libcusolver.so.12
SIMLIB_cusolver_MACRO   := CUSOLVERAPI
SIMLIB_cusolver_TYPE    := cusolverStatus_t
SIMLIB_cusolver_STATUS  := CUSOLVER_STATUS_NOT_SUPPORTED
SIMLIB_cusolver_INCLUDE := <cusolverDn.h>\n\#include <cusolverSp.h>\n\#include <cusolverRf.h>
SIMLIB_cusolver_HEADERS  = $(addprefix $(CUDA_HOME)/include/,cusolverDn.h cusolverSp.h cusolverRf.h \
			     cusolverSp_LOWLEVEL_PREVIEW.h cusolver_common.h)
SIMLIB_cusolver_GLOBAL  := cusolver*; cublas*; pegasus*;

$(SIM_DIR)/libs/simlib.o $(SIM_DIR)/libs/cufft.o $(SIM_DIR)/libs/curand.o $(SIM_DIR)/libs/cusparse.o \
$(SIM_DIR)/libs/cusolver.o $(SIM_DIR)/libs/cusparse_solve.o $(SIM_DIR)/libs/cusolver_batched.o \
$(SIM_DIR)/libs/cusolver_svd.o: $(SIM_DIR)/libs/%.o: $(SIMLIBS_DIR)/%.c $(SIMLIBS_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

$(SIM_DIR)/libs/%_stubs.o: $(SIM_DIR)/libs/%_stubs.c tests/sim/core/cusim_stub.h
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -Wno-deprecated-declarations -c -o $@ $<

# The version script: one node named after the soname, as the real library's.
$(SIM_DIR)/libs/%.map: $(SIMLIBS_DIR)/libs.mk
	$(Q)mkdir -p $(@D) && printf '%s {\n  global:\n    %s\n  local:\n    *;\n};\n' \
	  '$(SIMLIB_$*_SONAME)' '$(SIMLIB_$*_GLOBAL)' > $@

define SIMLIB_RULE
$(SIM_DIR)/libs/$(1)_stubs.c: tests/sim/gen_stubs.sh scripts/cuda_symbols.sh $(call SIMLIB_OBJS,$(1))
	$$(call SIM_STUBS_GEN,$$(call SIM_REAL_LIB,$$(SIMLIB_$(1)_SONAME)),$$(SIMLIB_$(1)_MACRO),$$(SIMLIB_$(1)_TYPE),$$(SIMLIB_$(1)_STATUS),$$(SIMLIB_$(1)_INCLUDE),$$(SIMLIB_$(1)_HEADERS),$$(call SIMLIB_OBJS,$(1)))
$(call SIMLIB_LIB,$(1)): $(call SIMLIB_OBJS,$(1)) $(SIM_DIR)/libs/$(1)_stubs.o $(SIM_DIR)/libs/simlib.o \
		$(SIM_DIR)/libs/$(1).map $(CUSIM_LIB)
	$$(call P,LD,$$@)$$(CC) -shared -Wl,-soname,$(SIMLIB_$(1)_SONAME) \
	  -Wl,--version-script=$(SIM_DIR)/libs/$(1).map -o $$@ $(call SIMLIB_OBJS,$(1)) \
	  $(SIM_DIR)/libs/$(1)_stubs.o $(SIM_DIR)/libs/simlib.o $$(LDFLAGS) -L$(SIM_DIR) -lcusim \
	  -lpthread -lm -Wl,-rpath,'$$$$ORIGIN'
	$$(Q)ln -sf $(SIMLIB_$(1)_SONAME) $(SIM_DIR)/$(1:cu%=libcu%).so
endef
$(foreach l,$(SIMLIBS),$(eval $(call SIMLIB_RULE,$(l))))

.PRECIOUS: $(SIM_DIR)/libs/%_stubs.c $(SIM_DIR)/libs/%.map
SIMLIBS_LIBS := $(foreach l,$(SIMLIBS),$(call SIMLIB_LIB,$(l)))
ALL_TARGETS  += $(SIMLIBS_LIBS)

# The stand-ins' Check test, linked as a program links the real libraries.
$(B)/tests/test_sim_libs: $(SIMLIBS_DIR)/test_sim_libs.c $(SIMLIBS_LIBS) $(CUDART_LIB)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Wno-deprecated-declarations $(CHECK_CFLAGS) -o $@ $< \
	  $(LDFLAGS) -L$(SIM_DIR) -l:libcufft.so.12 -l:libcurand.so.10 -l:libcusparse.so.12 -l:libcusolver.so.12 \
	  -l:libcudart.so.13 $(CHECK_LIBS) -lm -Wl,-rpath,'$$ORIGIN/../sim'
UNIT_TESTS += $(B)/tests/test_sim_libs
