# preload/: build fragment (included by the top Makefile after collector.mk
# and formats.mk). The hooks, and libcuprof.so = hooks + collector + formats.
PRELOAD_SRCS := preload/resolve.c preload/hooks_launch.c preload/hooks_memory.c \
                preload/hooks_sync.c preload/hooks_blas.c preload/inject.c
PRELOAD_OBJS := $(patsubst preload/%.c,$(B)/preload/%.o,$(PRELOAD_SRCS))
PRELOAD_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.
# Exports only the hooks (exports.map); -z defs: a symbol missing from the
# collector fails the link, not the user's program at run time.
PRELOAD_LDFLAGS = -shared -Wl,--version-script=preload/exports.map $(LDFLAGS)

$(B)/preload/%.o: preload/%.c preload/hooks.h collector/collector.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

# hooks_libc.o (exit paths, signals, exec: collector/process.h) goes into the
# product library only: the hooks-only test library has no collector for it.
PRELOAD_LIBC_OBJ := $(B)/preload/hooks_libc.o
$(PRELOAD_LIBC_OBJ): collector/collector.h

$(B)/libcuprof.so: $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) $(COLLECTOR_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS) preload/exports.map
	$(call P,LD,$@)$(CC) $(PRELOAD_LDFLAGS) -Wl,-z,defs -o $@ $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) \
	    $(COLLECTOR_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS) -ldl -lpthread

# ---- tests (tests/unit/test_preload*.c) ------------------------------------
# The hooks alone (cuprof_* left undefined), loaded next to a fake collector
# that dumps what it recorded; and small programs built against the real
# CUDA 13 libraries, run under both.
PT          := $(B)/tests/preload
CUDA_LIB    := $(CUDA_HOME)/lib64
PT_PROG_LD  := -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB)
PT_PROGS    := $(PT)/prog_cudart $(PT)/prog_blas $(PT)/prog_nocuda $(PT)/prog_dlopen \
               $(PT)/libuser.so $(PT)/prog_kernels $(PT)/prog_kernels_ptsz

$(PT)/libcuprof_hooks.so: $(PRELOAD_OBJS) preload/exports.map
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_LDFLAGS) -o $@ $(PRELOAD_OBJS) -ldl -lpthread

$(PT)/libfakecollector.so: tests/unit/test_preload_collector.c tests/unit/test_preload.h collector/collector.h
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -shared -o $@ $< $(LDFLAGS) -lpthread

$(PT)/prog_cudart: tests/unit/test_preload_cudart.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(PT_PROG_LD) -lcudart -ldl

$(PT)/prog_blas: tests/unit/test_preload_blas.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(PT_PROG_LD) -lcublasLt -lcublas -lcudart -ldl

$(PT)/prog_nocuda: tests/unit/test_preload_nocuda.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS)

$(PT)/libuser.so: tests/unit/test_preload_user.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) $(PT_PROG_LD) -lcudart

$(PT)/prog_dlopen: tests/unit/test_preload_dlopen.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -ldl -lpthread

# nvcc: <<<>>> launches (__cudaGetKernel + __cudaLaunchKernel), shared cudart.
$(PT)/prog_kernels: tests/unit/test_preload_kernels.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) -cudart shared -o $@ $< -L$(CUDA_LIB) -Xlinker -rpath=$(CUDA_LIB)
$(PT)/prog_kernels_ptsz: tests/unit/test_preload_kernels.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) -cudart shared --default-stream per-thread -o $@ $< -L$(CUDA_LIB) -Xlinker -rpath=$(CUDA_LIB)

# (harness.o by path: tests.mk, which names it, is included after this file.)
$(B)/tests/test_preload: tests/unit/test_preload.c tests/unit/test_preload_run.c \
                         tests/unit/test_preload.h preload/hooks.h \
                         $(B)/tests/harness.o $(PT)/libcuprof_hooks.so $(PT)/libfakecollector.so $(PT_PROGS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e -o $@ \
	    tests/unit/test_preload.c tests/unit/test_preload_run.c \
	    $(B)/tests/harness.o $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

ALL_TARGETS += $(B)/libcuprof.so $(B)/tests/test_preload
UNIT_TESTS  += $(B)/tests/test_preload
