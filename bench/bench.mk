# bench/: the reference workloads, built with nvcc against the real CUDA 13
# headers and libraries (at run time LD_LIBRARY_PATH=build/sim selects the
# simulated device instead). Binaries live next to their sources.
#
# sm_90 machine code plus compute_90 PTX, so the same binary also runs (JIT)
# on GPUs newer than Hopper. -cudart=shared: the profiler and the sim both
# need the runtime as a shared library, as PyTorch uses it.
BENCH_NVFLAGS := -cudart=shared -O2 -gencode arch=compute_90,code=[sm_90,compute_90] \
                 -Xcompiler -Wall
BENCH_LIBS    := -lcublas -lcublasLt

BENCH_BINS := bench/matmul_add bench/launch_overhead
ALL_TARGETS += $(BENCH_BINS)

$(BENCH_BINS): bench/%: bench/%.cu
	$(call P,NVCC,$@)$(NVCC) $(BENCH_NVFLAGS) -o $@ $< $(BENCH_LIBS)

include tests/e2e/e2e.mk
