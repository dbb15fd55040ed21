# tests/e2e/: end-to-end tests: whole programs (the bench workloads, small
# programs of their own) run under prof.sh on the simulated device, and
# prof.sh itself.

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

$(B)/tests/test_e2e_sim: tests/e2e/test_e2e_sim.c $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

E2E_SIM_DEPS := $(B)/tests/launch_overhead_ptsz $(B)/tests/libcupti_client.so
ALL_TARGETS += $(B)/tests/test_e2e_sim $(E2E_SIM_DEPS)
E2E_TESTS   += $(B)/tests/test_e2e_sim

# The GPU timeline end to end: prof.sh on the sim (needs the library, the
# bench programs and profsh_prog, for the run against NVIDIA's libraries).
$(B)/tests/test_e2e_gpu: tests/e2e/test_e2e_gpu.c $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_gpu
E2E_TESTS   += $(B)/tests/test_e2e_gpu
# The front end (prof.sh). profsh_prog: a tiny CUDA program (real libcudart
# of the toolkit; calls fail with error 35 without a driver and are still
# recorded).
$(B)/tests/test_e2e_profsh: tests/e2e/test_e2e_profsh.c $(HARNESS_OBJ) $(B)/tests/profsh_prog
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e -o $@ $< \
	    $(HARNESS_OBJ) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

$(B)/tests/profsh_prog: tests/e2e/profsh_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lpthread

ALL_TARGETS += $(B)/tests/test_e2e_profsh $(B)/tests/profsh_prog
E2E_TESTS   += $(B)/tests/test_e2e_profsh

include tests/e2e/e2e_findings.mk
include tests/e2e/e2e_robust.mk
include tests/e2e/e2e_ranks.mk

# The overhead regression guard (bench/check.sh) on hand-made results.
$(B)/tests/test_bench_check: tests/e2e/test_bench_check.c $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_bench_check
E2E_TESTS   += $(B)/tests/test_bench_check

# NVTX ranges end to end (matmul_add --nvtx and nvtx_prog, a C program that
# uses NVTX every way; linked against the toolkit's libcudart, run on the sim).
$(B)/tests/nvtx_prog: tests/e2e/nvtx_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lpthread

$(B)/tests/test_e2e_nvtx: tests/e2e/test_e2e_nvtx.c $(HARNESS_OBJ) $(B)/tests/nvtx_prog
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_nvtx $(B)/tests/nvtx_prog
E2E_TESTS   += $(B)/tests/test_e2e_nvtx

# Python frames in the stacks (issue 39): libpyk.so, the CUDA side of the
# C extension the test builds against each installed CPython's headers
# (tests/e2e/py/gpuops.c), with a kernel and a cuBLAS call.
$(B)/tests/libpyk.so: tests/e2e/py/pyk.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) -Xcompiler -fPIC,-fno-omit-frame-pointer \
	    -shared -o $@ $< -lcublas

$(B)/tests/test_e2e_python: tests/e2e/test_e2e_python.c $(HARNESS_OBJ) tests/e2e/harness.h \
                            $(B)/tests/libpyk.so
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_python $(B)/tests/libpyk.so
E2E_TESTS   += $(B)/tests/test_e2e_python

# Host stacks end to end (--stacks): stacks_prog, a C program with a known
# chain of calls, built with frame pointers and without them (only libunwind
# finds its callers then); libthrow.so, C++ that throws, loaded by it.
$(B)/tests/stacks_prog_fp: tests/e2e/stacks_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CSTD) $(WARN) -O2 -g -fno-omit-frame-pointer \
	    -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl

$(B)/tests/stacks_prog_nofp: tests/e2e/stacks_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CSTD) $(WARN) -O2 -g -fomit-frame-pointer \
	    -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl

$(B)/tests/libthrow.so: tests/e2e/throw_lib.cc
	$(call P,CXX,$@)mkdir -p $(@D) && $(CXX) -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

# matmul_add_g: bench/matmul_add.cu built with -g, so its <<<>>> launches
# come through CUDA's header inlines and nvcc's stubs as DWARF sees them.
$(B)/tests/matmul_add_g: bench/matmul_add.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) -g -o $@ $< $(BENCH_LIBS)

$(B)/tests/test_e2e_stacks: tests/e2e/test_e2e_stacks.c tests/e2e/viewers.c tests/e2e/viewers.h $(HARNESS_OBJ) $(B)/tests/stacks_prog_fp \
                           $(B)/tests/stacks_prog_nofp $(B)/tests/libthrow.so $(B)/tests/matmul_add_g
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/viewers.c $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_stacks $(B)/tests/stacks_prog_fp $(B)/tests/stacks_prog_nofp \
               $(B)/tests/libthrow.so $(B)/tests/matmul_add_g
E2E_TESTS   += $(B)/tests/test_e2e_stacks

# The Perfetto protobuf trace end to end, read back by a decoder of the
# tests' own (pftrace.c; compressed blocks through the real libzstd/libz).
PFT_LIBS := -lzstd -lz
$(B)/tests/test_e2e_perfetto: tests/e2e/test_e2e_perfetto.c tests/e2e/pftrace.c tests/e2e/pftrace.h \
                             $(HARNESS_OBJ) tests/e2e/harness.h $(B)/tests/robust_prog $(B)/tests/nvtx_prog
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/pftrace.c \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) $(PFT_LIBS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_perfetto
E2E_TESTS   += $(B)/tests/test_e2e_perfetto

# The same decoder as a command, for bench/long_run.sh.
$(B)/tests/pfcount: tests/e2e/pfcount.c tests/e2e/pftrace.c tests/e2e/pftrace.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< tests/e2e/pftrace.c $(LDFLAGS) $(PFT_LIBS)

ALL_TARGETS += $(B)/tests/pfcount

# The Trace Event Format rules the viewers apply, on the demo's traces.
$(B)/tests/test_e2e_trace_check: tests/e2e/test_e2e_trace_check.c tests/e2e/trace_check.c \
                                tests/e2e/trace_check.h $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/trace_check.c \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_trace_check
E2E_TESTS   += $(B)/tests/test_e2e_trace_check

# prof.sh export sqlite, queried with the sqlite3 command.
$(B)/tests/test_e2e_export: tests/e2e/test_e2e_export.c $(HARNESS_OBJ) tests/e2e/harness.h \
                           $(B)/cuprof-export
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_export
E2E_TESTS   += $(B)/tests/test_e2e_export

# prof.sh stats on the demo's summaries.
$(B)/tests/test_e2e_stats: tests/e2e/test_e2e_stats.c $(HARNESS_OBJ) tests/e2e/harness.h \
                          $(B)/cuprof-stats
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_stats
E2E_TESTS   += $(B)/tests/test_e2e_stats

# The demo's traces in speedscope (headless Chromium, tests/viewers/).
$(B)/tests/test_e2e_viewers: tests/e2e/test_e2e_viewers.c tests/e2e/viewers.c tests/e2e/viewers.h \
                            $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/viewers.c \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_viewers
E2E_TESTS   += $(B)/tests/test_e2e_viewers

# Device memory end to end: mem_prog (a known pattern of allocations, its
# own account on stdout) against the profile's peak, owners and OOM note.
$(B)/tests/mem_prog: tests/e2e/mem_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -O0 -fno-omit-frame-pointer \
	    -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lpthread

$(B)/tests/test_e2e_memory: tests/e2e/test_e2e_memory.c $(HARNESS_OBJ) tests/e2e/harness.h $(B)/tests/mem_prog
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_memory $(B)/tests/mem_prog
E2E_TESTS   += $(B)/tests/test_e2e_memory

# CUDA graphs end to end: matmul_add --graph on the sim.
$(B)/tests/test_e2e_graphs: $(B)/tests/graph_explicit
$(B)/tests/test_e2e_graphs: tests/e2e/test_e2e_graphs.c tests/e2e/trace_check.c tests/e2e/trace_check.h \
                            tests/e2e/pftrace.c tests/e2e/pftrace.h $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/trace_check.c \
	    tests/e2e/pftrace.c $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) $(PFT_LIBS)

ALL_TARGETS += $(B)/tests/test_e2e_graphs
E2E_TESTS   += $(B)/tests/test_e2e_graphs

# Driver-API launches end to end: bench/driver_launch on the sim; cooperative
# launches (coop_prog: cooperative groups' grid.sync()).
$(B)/tests/drv_prog: tests/e2e/drv_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda
$(B)/tests/drv_ep_prog: tests/e2e/drv_ep_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -I$(CUDA_HOME)/include -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs -lcudart -lcuda
$(B)/tests/dlsym_prog: tests/e2e/dlsym_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< -ldl
$(B)/tests/coop_prog: tests/e2e/coop_prog.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) -o $@ $< $(BENCH_LIBS)
$(B)/tests/test_e2e_driver: tests/e2e/test_e2e_driver.c $(HARNESS_OBJ) tests/e2e/harness.h bench/driver_launch \
                            $(B)/tests/coop_prog $(B)/tests/drv_prog $(B)/tests/drv_ep_prog $(B)/tests/corpus/driver_vmm \
                            $(B)/tests/dlsym_prog
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_driver $(B)/tests/coop_prog $(B)/tests/drv_prog $(B)/tests/drv_ep_prog \
               $(B)/tests/dlsym_prog
E2E_TESTS   += $(B)/tests/test_e2e_driver

# The run file end to end (prof.sh report: the same files again, another
# format, a capture window cut afterwards, torn and foreign files).
$(B)/tests/test_e2e_runfile: tests/e2e/test_e2e_runfile.c $(HARNESS_OBJ) tests/e2e/harness.h \
                            collector/runfile.h $(B)/tests/robust_prog $(B)/tests/nvtx_prog \
                            $(B)/cuprof-report tests/e2e/trace_check.c tests/e2e/trace_check.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e -o $@ $< \
	    tests/e2e/trace_check.c $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_runfile
E2E_TESTS   += $(B)/tests/test_e2e_runfile

# A process killed outright (SIGKILL, the flight recorder, the OOM killer):
# the supervisor's recovery from the recording memory (collector/shm.h).
# kill_prog counts its own calls in a MAP_SHARED file.
$(B)/tests/kill_prog: tests/e2e/kill_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lpthread

$(B)/tests/test_e2e_killed: tests/e2e/test_e2e_killed.c $(HARNESS_OBJ) tests/e2e/harness.h \
                           $(B)/tests/kill_prog $(B)/cuprof-report $(B)/cuprof-run \
                           tests/e2e/trace_check.c tests/e2e/trace_check.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e -o $@ $< \
	    tests/e2e/trace_check.c $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_killed $(B)/tests/kill_prog
E2E_TESTS   += $(B)/tests/test_e2e_killed

# NCCL end to end: tests/corpus/nccl_ring on the simulated NCCL; nccl_job,
# a job's rank as torchrun starts it (built as a user's program).
$(B)/tests/nccl_job: tests/e2e/nccl_job.cu
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) -o $@ $< -lnccl
$(B)/tests/test_e2e_nccl: tests/e2e/test_e2e_nccl.c $(HARNESS_OBJ) tests/e2e/harness.h \
		tests/e2e/pftrace.c tests/e2e/pftrace.h \
		$(B)/tests/corpus/nccl_ring $(B)/tests/nccl_job bench/ddp_step $(LIBNCCL_SIM)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/pftrace.c \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) $(PFT_LIBS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_nccl $(B)/tests/nccl_job
E2E_TESTS   += $(B)/tests/test_e2e_nccl

# prof.sh trigger --job: 4 ranks of bench/ddp_step and of nvtx_prog under
# scripts/launch.sh with --standby, one trigger for all, then prof.sh merge;
# bench/merge_scale.sh 64.
$(B)/tests/test_e2e_job: tests/e2e/test_e2e_job.c $(HARNESS_OBJ) tests/e2e/harness.h \
		bench/ddp_step $(B)/tests/nvtx_prog $(B)/cuprof-merge $(B)/bench/merge_scale $(LIBNCCL_SIM)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< \
	    $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_job
E2E_TESTS   += $(B)/tests/test_e2e_job
