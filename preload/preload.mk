# preload/: sources and objects of the hooks. build/libcuprof.so (hooks +
# collector + model + formats) is linked by the top Makefile; the hooks-only
# library the tests load is in tests/unit/unit.mk.
PRELOAD_SRCS := preload/resolve.c preload/hooks_launch.c preload/hooks_memory.c \
                preload/hooks_sync.c preload/hooks_blas.c preload/hooks_blas_gen.c preload/hooks_mpi.c preload/hooks_nccl.c preload/nccl_plugin.c \
                preload/hooks_driver.c preload/hooks_driver_api.c preload/hooks_driver_gen.c preload/inject.c preload/nvtx.c preload/nvtx_payload.c
PRELOAD_OBJS := $(patsubst preload/%.c,$(B)/preload/%.o,$(PRELOAD_SRCS))
# hooks_libc.o (exit paths, signals, exec: collector/process.h) goes into the
# product library only: the hooks-only test library has no collector for it.
PRELOAD_LIBC_OBJ := $(B)/preload/hooks_libc.o
PRELOAD_CFLAGS = $(CFLAGS) -fvisibility=hidden -fno-omit-frame-pointer -I. -I$(B)/preload
# Exports only the hooks: preload/exports.map, with the generated cuBLAS and
# driver hooks' names after the hand-written ones (build/preload/exports.map).
PRELOAD_MAP := $(B)/preload/exports.map
PRELOAD_LDFLAGS = -shared -Wl,--version-script=$(PRELOAD_MAP) $(LDFLAGS)

# Every cuBLAS/cuBLASLt entry point the hand-written hooks do not cover.
$(B)/preload/blas_gen.h: preload/gen_blas_hooks.sh preload/gen_hooks.sh scripts/cuda_symbols.sh preload/hooks.h
	$(call P,GEN,$@)mkdir -p $(@D) && bash preload/gen_blas_hooks.sh $(CUDA_HOME)/lib64/libcublas.so.13 \
	    $(CUDA_HOME)/lib64/libcublasLt.so.13 $(CUDA_HOME)/include/cublas_api.h \
	    $(CUDA_HOME)/include/cublasLt.h preload/hooks.h > $@.tmp && mv $@.tmp $@
# Every function libcuda exports that the hand-written driver hooks do not cover.
$(B)/preload/driver_gen.h: preload/gen_driver_hooks.sh preload/gen_hooks.sh scripts/cuda_symbols.sh preload/hooks.h
	$(call P,GEN,$@)mkdir -p $(@D) && bash preload/gen_driver_hooks.sh $(CUDA_HOME)/lib64/stubs/libcuda.so \
	    $(CUDA_HOME)/include preload/hooks.h > $@.tmp && mv $@.tmp $@
$(PRELOAD_MAP): preload/exports.map $(B)/preload/blas_gen.h $(B)/preload/driver_gen.h
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n 's/^ *X(\([A-Za-z0-9_]*\), .*/    \1;/p' $(B)/preload/blas_gen.h > $@.blas && \
	    sed -n 's/^ *X(\([A-Za-z0-9_]*\), .*/    \1;/p' $(B)/preload/driver_gen.h > $@.drv && \
	    awk -v blas=$@.blas -v drv=$@.drv '{ print } \
	        /^    cudaGraphAddNode;$$/ { while ((getline l < blas) > 0) print l } \
	        /^    ncclGroupEnd;$$/ { while ((getline l < drv) > 0) print l }' \
	    preload/exports.map > $@.tmp && rm -f $@.blas $@.drv && mv $@.tmp $@

$(B)/preload/%.o: preload/%.c $(B)/preload/blas_gen.h $(B)/preload/driver_gen.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) $(PRELOAD_MAP)
