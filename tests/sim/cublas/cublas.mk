# tests/sim/cublas/: the simulated cuBLAS and cuBLASLt, libcublas.so.13 and
# libcublasLt.so.13, with the real sonames and symbol versions (the version
# scripts), linked to libcusim.so; and their Check test.
#
# The GEMM engine (gemm_*.c, status.c) is compiled into both libraries, as the
# real ones each carry their own kernels and a static cudart; libcublas also
# links libcublasLt (NEEDED), as the real one does.
CUBLAS_DIR      := tests/sim/cublas
CUBLAS_HDRS     := $(wildcard $(CUBLAS_DIR)/*.h) tests/sim/core/cusim.h
CUBLAS_COMMON   := gemm_cpu gemm_launch status
CUBLAS_OBJ      = $(patsubst %,$(SIM_DIR)/cublas/%.o,$(1))
LIBCUBLAS       := $(SIM_DIR)/libcublas.so.13
LIBCUBLASLT     := $(SIM_DIR)/libcublasLt.so.13
CUBLAS_LINK     = -L$(SIM_DIR) -lcusim -lpthread -lm -Wl,-rpath,'$$ORIGIN'

$(SIM_DIR)/cublas/%.o: $(CUBLAS_DIR)/%.c $(CUBLAS_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

# libcublas's hand-written parts, and the routines generated from the
# toolkit's prototypes as timed kernels (gen_blas.sh).
CUBLAS_HAND     := cublas blas_data blas_compute blas_lu
$(SIM_DIR)/cublas/blas_timed.c: $(CUBLAS_DIR)/gen_blas.sh scripts/cuda_symbols.sh $(call CUBLAS_OBJ,$(CUBLAS_HAND) $(CUBLAS_COMMON))
	$(call P,GEN,$@)mkdir -p $(@D) && bash $(CUBLAS_DIR)/gen_blas.sh \
	  $(call SIM_REAL_LIB,libcublas.so.13) $(CUDA_HOME)/include/cublas_api.h -- \
	  $(call CUBLAS_OBJ,$(CUBLAS_HAND) $(CUBLAS_COMMON)) > $@.tmp && mv $@.tmp $@
$(SIM_DIR)/cublas/blas_timed.o: $(SIM_DIR)/cublas/blas_timed.c $(CUBLAS_HDRS)
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -I$(CUBLAS_DIR) -c -o $@ $<
CUBLAS_LIBOBJS  := $(CUBLAS_HAND) $(CUBLAS_COMMON) blas_timed

# What the real libraries export and these sources do not define.
$(SIM_DIR)/cublas/lt_stubs.c: tests/sim/gen_stubs.sh $(call CUBLAS_OBJ,cublasLt cublasLt_desc $(CUBLAS_COMMON))
	$(call SIM_STUBS_GEN,$(call SIM_REAL_LIB,libcublasLt.so.13),CUBLASWINAPI,cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,<cublasLt.h>,$(CUDA_HOME)/include/cublasLt.h,$(call CUBLAS_OBJ,cublasLt cublasLt_desc $(CUBLAS_COMMON)))
$(SIM_DIR)/cublas/blas_stubs.c: tests/sim/gen_stubs.sh $(call CUBLAS_OBJ,$(CUBLAS_LIBOBJS))
	$(call SIM_STUBS_GEN,$(call SIM_REAL_LIB,libcublas.so.13),CUBLASWINAPI,cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,<cublas.h>,$(CUDA_HOME)/include/cublas_api.h $(CUDA_HOME)/include/cublas.h,$(call CUBLAS_OBJ,$(CUBLAS_LIBOBJS)))
$(SIM_DIR)/cublas/%_stubs.o: $(SIM_DIR)/cublas/%_stubs.c tests/sim/core/cusim_stub.h
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -c -o $@ $<

$(LIBCUBLASLT): $(call CUBLAS_OBJ,cublasLt cublasLt_desc $(CUBLAS_COMMON) lt_stubs) \
		$(CUBLAS_DIR)/libcublasLt.map $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcublasLt.so.13 \
	  -Wl,--version-script=$(CUBLAS_DIR)/libcublasLt.map -o $@ \
	  $(call CUBLAS_OBJ,cublasLt cublasLt_desc $(CUBLAS_COMMON) lt_stubs) $(LDFLAGS) $(CUBLAS_LINK)
	$(Q)ln -sf libcublasLt.so.13 $(SIM_DIR)/libcublasLt.so

$(LIBCUBLAS): $(call CUBLAS_OBJ,$(CUBLAS_LIBOBJS) blas_stubs) $(CUBLAS_DIR)/libcublas.map \
		$(LIBCUBLASLT) $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcublas.so.13 \
	  -Wl,--version-script=$(CUBLAS_DIR)/libcublas.map -o $@ \
	  $(call CUBLAS_OBJ,$(CUBLAS_LIBOBJS) blas_stubs) $(LDFLAGS) \
	  -Wl,--no-as-needed -L$(SIM_DIR) -l:libcublasLt.so.13 $(CUBLAS_LINK)
	$(Q)ln -sf libcublas.so.13 $(SIM_DIR)/libcublas.so

# The test binary: --export-dynamic lets its cudart stand-ins interpose on
# any dynamic runtime call the libraries would make (there must be none).
CUBLAS_TEST_SRCS := $(addprefix $(CUBLAS_DIR)/,test_util.c test_sim_cublas.c test_sim_cublaslt.c \
		      test_sim_trace.c test_sim_blas.c)
$(B)/tests/test_sim_cublas: $(CUBLAS_TEST_SRCS) $(CUBLAS_HDRS) $(LIBCUBLAS) $(LIBCUBLASLT) \
		$(CUSIM_LIB)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I$(CUBLAS_DIR) -Itests/sim/core \
	  $(CHECK_CFLAGS) -o $@ $(CUBLAS_TEST_SRCS) $(LDFLAGS) -L$(SIM_DIR) -l:libcublas.so.13 \
	  -l:libcublasLt.so.13 -lcusim $(CHECK_LIBS) -lm -Wl,--export-dynamic \
	  -Wl,-rpath,'$$ORIGIN/../sim'

ALL_TARGETS += $(LIBCUBLAS) $(LIBCUBLASLT)
UNIT_TESTS  += $(B)/tests/test_sim_cublas
