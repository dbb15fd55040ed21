# bench/: sources and programs. The reference workloads, built with nvcc against the real CUDA 13
# headers and libraries (at run time LD_LIBRARY_PATH=build/sim selects the
# simulated device instead). Binaries live next to their sources.
#
# sm_90 machine code plus compute_90 PTX, so the same binary also runs (JIT)
# on GPUs newer than Hopper. -cudart=shared: the profiler and the sim both
# need the runtime as a shared library, as PyTorch uses it.
BENCH_NVFLAGS := -cudart=shared -O2 -gencode arch=compute_90,code=[sm_90,compute_90] \
                 -Xcompiler -Wall
BENCH_LIBS    := -lcublas -lcublasLt -ldl

BENCH_BINS := bench/matmul_add bench/launch_overhead
ALL_TARGETS += $(BENCH_BINS)

$(BENCH_BINS): bench/%: bench/%.cu
	$(call P,NVCC,$@)$(NVCC) $(BENCH_NVFLAGS) -o $@ $< $(BENCH_LIBS)

# The data-parallel training step (cuBLAS GEMMs, NCCL all-reduces overlapped
# on a second stream): one process per rank, scripts/launch.sh starts them.
bench/ddp_step: bench/ddp_step.cu
	$(call P,NVCC,$@)$(NVCC) $(BENCH_NVFLAGS) -o $@ $< -lcublas -lnccl
BENCH_BINS += bench/ddp_step
ALL_TARGETS += bench/ddp_step

# The driver-API workload: plain C against libcudart (every driver function
# comes from cudaGetDriverEntryPointByVersion), and its kernel as a cubin.
bench/driver_launch: bench/driver_launch.c bench/driver_kernel.cubin
	$(call P,CC,$@)$(CC) $(CSTD) $(WARN) -O2 -I$(CUDA_HOME)/include -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart

bench/driver_kernel.cubin: bench/driver_kernel.cu
	$(call P,NVCC,$@)$(NVCC) -cubin -arch=sm_90 -o $@ $<

BENCH_BINS += bench/driver_launch bench/driver_kernel.cubin
ALL_TARGETS += bench/driver_launch bench/driver_kernel.cubin

# ---- overhead benchmarks: `make bench`, `make bench-check` -------
# build/bench/calls: N calls of a cheap CUDA entry point (plain C, -lcudart;
# run with LD_LIBRARY_PATH=build/sim). The floor hooks, plain and into fresh
# memory, as their own LD_PRELOAD objects. write_bench (linked by the top
# Makefile): the collector and the writers linked in, to time the exit path
# on N events. Never sanitized: the
# floor is preloaded into programs without the sanitizer runtime, and the
# numbers are about the optimized build.
BENCH_B       := $(B)/bench
BENCH_CFLAGS  := $(CSTD) $(WARN) -O2 -g -I$(CUDA_HOME)/include
BENCH_TOOLS   := $(BENCH_B)/calls $(BENCH_B)/libfloor_hook.so $(BENCH_B)/libfloor_fresh.so \
                 $(BENCH_B)/libfloor_drain.so \
                 $(BENCH_B)/write_bench

# Frame pointers: the --stacks rows measure the frame-pointer walk (auto,
# fp) against libunwind (unwind) on the same program.
$(BENCH_B)/calls: bench/calls.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(BENCH_CFLAGS) -fno-omit-frame-pointer -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs -lcudart -lnccl -lcufft -lcuda -lpthread

$(BENCH_B)/libfloor_hook.so: bench/floor_hook.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(BENCH_CFLAGS) -fPIC -shared -o $@ $< -ldl

$(BENCH_B)/libfloor_fresh.so: bench/floor_hook.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(BENCH_CFLAGS) -DFLOOR_FRESH -fPIC -shared -o $@ $< -ldl

# The drain experiment: not in run.sh's table, run by hand.
$(BENCH_B)/libfloor_drain.so: bench/floor_hook.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(BENCH_CFLAGS) -DFLOOR_DRAIN -fPIC -shared -o $@ $< -ldl -lpthread

ALL_TARGETS += $(BENCH_TOOLS)

# merge at scale (bench/merge_scale.sh N): a synthetic job of N real-sized
# ranks, merged by cuprof-merge, its time and peak memory on one line.
$(BENCH_B)/merge_scale: bench/merge_scale.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(BENCH_CFLAGS) -o $@ $< $(JSON_LIBS)
ALL_TARGETS += $(BENCH_B)/merge_scale

# Full run (~5-8 minutes): prints the table and rewrites bench/RESULTS.md.
bench: deps-ok build-all
	$(Q)bash bench/run.sh

# Regression guard: a quick run (N=1M, 5 repeats, ~40 s) whose ratios are
# compared with the ones committed in bench/RESULTS.md; fails on a regression
# larger than the noise both runs measured (bench/check.sh). .ci/run runs it
# after make test (a failure is measured once more before it counts).
bench-check: deps-ok build-all
	$(Q)bash bench/check.sh

.PHONY: bench-check
