# preload/: sources and objects of the hooks. build/libcuprof.so (hooks +
# collector + model + formats) is linked by the top Makefile; the hooks-only
# library the tests load is in tests/unit/unit.mk.
PRELOAD_SRCS := preload/resolve.c preload/hooks_launch.c preload/hooks_memory.c \
                preload/hooks_sync.c preload/hooks_blas.c preload/hooks_lib_gen.c preload/hooks_mpi.c preload/hooks_nccl.c preload/nccl_plugin.c \
                preload/hooks_driver.c preload/hooks_driver_api.c preload/hooks_driver_gen.c preload/inject.c preload/nvtx.c preload/nvtx_payload.c
PRELOAD_OBJS := $(patsubst preload/%.c,$(B)/preload/%.o,$(PRELOAD_SRCS))
# hooks_libc.o (exit paths, signals, exec: collector/process.h) goes into the
# product library only: the hooks-only test library has no collector for it.
PRELOAD_LIBC_OBJ := $(B)/preload/hooks_libc.o $(B)/preload/hooks_dlsym.o
PRELOAD_CFLAGS = $(CFLAGS) -fvisibility=hidden -fno-omit-frame-pointer -I. -I$(B)/preload
# Exports only the hooks: preload/exports.map, with the generated hooks'
# names after the hand-written ones (build/preload/exports.map).
PRELOAD_MAP := $(B)/preload/exports.map
PRELOAD_LDFLAGS = -shared -Wl,--version-script=$(PRELOAD_MAP) $(LDFLAGS)

# Every entry point of cuBLAS/cuBLASLt, cuFFT, cuRAND, cuSPARSE, cuSOLVER and
# libcuda the hand-written hooks do not cover (gen_lib_hooks.sh): per library its
# status type, calling-convention macro, what a hook returns when the real
# function is missing, its libraries (enum preload_lib) and headers.
PRELOAD_INC := $(CUDA_HOME)/include
PRELOAD_L   := $(CUDA_HOME)/lib64
PRELOAD_GEN_blas   := cublasStatus_t 'CUBLAS(WIN)?API' CUBLAS_STATUS_NOT_INITIALIZED \
    $(PRELOAD_L)/libcublas.so.13=PRELOAD_LIB_CUBLAS,$(PRELOAD_L)/libcublasLt.so.13=PRELOAD_LIB_CUBLASLT \
    $(PRELOAD_INC)/cublas_api.h $(PRELOAD_INC)/cublasLt.h
PRELOAD_GEN_fft    := cufftResult CUFFTAPI CUFFT_INTERNAL_ERROR $(PRELOAD_L)/libcufft.so.12=PRELOAD_LIB_CUFFT \
    $(PRELOAD_INC)/cufft.h $(PRELOAD_INC)/cufftXt.h
PRELOAD_GEN_rand   := curandStatus_t CURANDAPI CURAND_STATUS_INITIALIZATION_FAILED \
    $(PRELOAD_L)/libcurand.so.10=PRELOAD_LIB_CURAND $(PRELOAD_INC)/curand.h
PRELOAD_GEN_sparse := cusparseStatus_t CUSPARSEAPI CUSPARSE_STATUS_NOT_INITIALIZED \
    $(PRELOAD_L)/libcusparse.so.12=PRELOAD_LIB_CUSPARSE $(PRELOAD_INC)/cusparse.h
PRELOAD_GEN_solver := cusolverStatus_t CUSOLVERAPI CUSOLVER_STATUS_NOT_INITIALIZED \
    $(PRELOAD_L)/libcusolver.so.12=PRELOAD_LIB_CUSOLVER,$(PRELOAD_L)/libcusolverMg.so.12=PRELOAD_LIB_CUSOLVERMG \
    $(addprefix $(PRELOAD_INC)/,cusolverDn.h cusolverSp.h cusolverRf.h cusolverMg.h \
                                cusolverSp_LOWLEVEL_PREVIEW.h cusolver_common.h)
# libcuda: its exports are the toolkit stub's; cuda.h is read fully
# preprocessed, three ways (gen_lib_hooks.sh says why), API unused.
PRELOAD_GEN_driver := CUresult '' PRELOAD_CUDA_MISSING $(PRELOAD_L)/stubs/libcuda.so=PRELOAD_LIB_CUDA \
    $(PRELOAD_INC)/cuda.h $(PRELOAD_INC)/cudaProfiler.h
PRELOAD_GEN_LIBS := blas fft rand sparse solver driver
PRELOAD_GEN_HDRS := $(foreach l,$(PRELOAD_GEN_LIBS),$(B)/preload/$(l)_gen.h)
$(PRELOAD_GEN_HDRS): $(B)/preload/%_gen.h: preload/gen_lib_hooks.sh scripts/cuda_symbols.sh preload/hooks.h
	$(call P,GEN,$@)mkdir -p $(@D) && bash preload/gen_lib_hooks.sh $(shell echo $* | tr a-z A-Z) \
	    preload/hooks.h $(PRELOAD_GEN_$*) > $@.tmp && mv $@.tmp $@
# the generated names: cuBLAS's after cudaGraphAddNode (where PRELOAD_HOOKS
# has them), the math libraries' and the driver's after ncclGroupEnd (the
# end of the list)
$(PRELOAD_MAP): preload/exports.map $(PRELOAD_GEN_HDRS)
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n 's/^ *X(\([A-Za-z0-9_]*\), .*/    \1;/p' $(B)/preload/blas_gen.h > $@.names && \
	    cat $(foreach l,fft rand sparse solver driver,$(B)/preload/$(l)_gen.h) | \
	    sed -n 's/^ *X(\([A-Za-z0-9_]*\), .*/    \1;/p' > $@.math && \
	    awk -v names=$@.names -v math=$@.math '{ print } \
	        /^    cudaGraphAddNode;$$/ { while ((getline l < names) > 0) print l } \
	        /^    ncclGroupEnd;$$/ { while ((getline l < math) > 0) print l }' \
	    preload/exports.map > $@.tmp && rm -f $@.names $@.math && mv $@.tmp $@

$(B)/preload/%.o: preload/%.c $(PRELOAD_GEN_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) $(PRELOAD_MAP)
