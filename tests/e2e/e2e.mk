# tests/e2e/: end-to-end tests of the simulated device through the bench
# programs (included from bench/bench.mk, which owns those programs).
#
# The harness object is named by path here: tests/tests.mk, which defines
# HARNESS_OBJ, is read after this fragment, and prerequisites are expanded
# when read.
E2E_HARNESS := $(B)/tests/harness.o

# launch_overhead built with per-thread default streams: the same launches go
# through __cudaLaunchKernel_ptsz / cudaLaunchKernel_ptsz.
$(B)/tests/launch_overhead_ptsz: bench/launch_overhead.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) --default-stream per-thread \
	    -o $@ $< $(BENCH_LIBS)

# CUPTI client: injection library and LD_PRELOAD wrapper of cublasLtMatmul.
# Linked against the toolkit's libcupti; at run time LD_LIBRARY_PATH picks
# the sim's libcupti.so.13. Never sanitized (ASAN=1/TSAN=1): it is preloaded
# into programs that do not carry the sanitizer runtime.
CUPTI_CLIENT_CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS)) -fvisibility=hidden -shared
$(B)/tests/libcupti_client.so: tests/e2e/cupti_client.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CUPTI_CLIENT_CFLAGS) -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -lcupti -ldl -lpthread

$(B)/tests/test_e2e_sim: tests/e2e/test_e2e_sim.c $(E2E_HARNESS) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(E2E_HARNESS) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

E2E_SIM_DEPS := $(B)/tests/launch_overhead_ptsz $(B)/tests/libcupti_client.so
ALL_TARGETS += $(B)/tests/test_e2e_sim $(E2E_SIM_DEPS)
E2E_TESTS   += $(B)/tests/test_e2e_sim

# The GPU timeline end to end: prof.sh on the sim (needs the library, the
# bench programs and profsh_prog, for the run against NVIDIA's libraries).
$(B)/tests/test_e2e_gpu: tests/e2e/test_e2e_gpu.c $(E2E_HARNESS) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(E2E_HARNESS) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_gpu
E2E_TESTS   += $(B)/tests/test_e2e_gpu
include tests/e2e/e2e_findings.mk
include tests/e2e/e2e_robust.mk

# The overhead regression guard (bench/check.sh) on hand-made results.
$(B)/tests/test_bench_check: tests/e2e/test_bench_check.c $(E2E_HARNESS) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(E2E_HARNESS) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_bench_check
E2E_TESTS   += $(B)/tests/test_bench_check
