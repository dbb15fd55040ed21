# tests/unit/: the Check unit tests of every folder, each linking the
# objects it tests (model/ and formats/ tests link nothing of collector/).

# ---- collector ---------------------------------------------------------------
# The collector's objects linked straight into the test, with the model and
# the writers it calls at exit.
# What they recorded is read back through the run file (runfile_back.c: the
# reader of formats/runfile/, as cuprof-report reads it).
RUNFILE_BACK := tests/unit/runfile_back.c
# (and tools/recover.c: a killed process's run file completed from the
# recording memory, as cuprof-report --recover does)
$(B)/tests/test_collector: tests/unit/test_collector.c $(RUNFILE_BACK) $(COLLECTOR_OBJS) $(RUNFILE_OBJS) \
                          $(MODEL_OBJS) $(FORMATS_OBJS) tools/recover.c tools/recover.h
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< $(RUNFILE_BACK) \
	    tools/recover.c \
	    $(COLLECTOR_OBJS) $(RUNFILE_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) $(RUNFILE_LIBS) -lstdc++ -ldl -lpthread

# The CUPTI objects (with the collector, whose run file they write to),
# against the real libcupti of $(CUDA_HOME) and the simulated one in
# $(SIM_DIR) (both found at run time; the binary links neither, so it can
# pick per test); the records read back through the run file.
TEST_CUPTI_OBJS := $(COLLECTOR_OBJS) $(RUNFILE_OBJS) $(B)/model/gpu.o $(B)/model/run.o
$(B)/tests/test_cupti: tests/unit/test_cupti.c $(RUNFILE_BACK) $(TEST_CUPTI_OBJS) $(B)/tests/libtest_cupti_inject.so
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< $(RUNFILE_BACK) \
	    $(TEST_CUPTI_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(RUNFILE_LIBS) -ldl -lpthread

# The same test file as an injection library (CUDA_INJECTION64_PATH), so a
# test can start CUPTI from inside the simulated driver's initialization.
$(B)/tests/libtest_cupti_inject.so: tests/unit/test_cupti.c $(RUNFILE_BACK) $(TEST_CUPTI_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -DTEST_CUPTI_INJECTION -fvisibility=hidden \
	    -shared -I. -o $@ $< $(RUNFILE_BACK) $(TEST_CUPTI_OBJS) $(LDFLAGS) $(RUNFILE_LIBS) -ldl -lpthread

# The Python frames' reader (collector/pyframes.c) against the installed
# CPythons' headers and line tables (issue 39).
$(B)/tests/test_pyframes: tests/unit/test_pyframes.c $(COLLECTOR_OBJS) $(HARNESS_OBJ)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e -o $@ $< \
	    $(COLLECTOR_OBJS) $(HARNESS_OBJ) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -ldl -lpthread

UNIT_TESTS  += $(B)/tests/test_collector $(B)/tests/test_cupti $(B)/tests/test_pyframes
ALL_TARGETS += $(B)/tests/test_collector $(B)/tests/test_cupti $(B)/tests/libtest_cupti_inject.so \
               $(B)/tests/test_pyframes

# ---- model and formats: model/ + formats/ objects only ---------------------------
# test_formats: the writers on hand-built runs; test_timeline: the GPU
# attribution math and the trace's GPU lanes; test_findings: each rule with
# one run built to trigger it and one built not to.
MODEL_TESTS := test_formats test_timeline test_findings test_mathlib
$(addprefix $(B)/tests/,$(MODEL_TESTS)): $(B)/tests/%: tests/unit/%.c $(FORMATS_OBJS) $(MODEL_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lstdc++ -lpthread

UNIT_TESTS  += $(addprefix $(B)/tests/,$(MODEL_TESTS))
ALL_TARGETS += $(addprefix $(B)/tests/,$(MODEL_TESTS))

# test_quantile: model/quantile.h's order statistics against a sort, exact
# under the bound and within its error past it (issue 40).
$(B)/tests/test_quantile: tests/unit/test_quantile.c $(MODEL_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) -lm

UNIT_TESTS  += $(B)/tests/test_quantile
ALL_TARGETS += $(B)/tests/test_quantile

# test_pystacks: stacks with Python frames and file:line through the model
# and every output that shows stacks; the Perfetto trace read back by the
# tests' own reader (tests/e2e/pftrace.c).
$(B)/tests/test_pystacks: tests/unit/test_pystacks.c tests/e2e/pftrace.c tests/e2e/pftrace.h \
                          $(FORMATS_OBJS) $(MODEL_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< tests/e2e/pftrace.c \
	    $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lzstd -lz -lstdc++ -lpthread

UNIT_TESTS  += $(B)/tests/test_pystacks
ALL_TARGETS += $(B)/tests/test_pystacks

# ---- compare -----------------------------------------------------------------------
# The reader and the compare tool, on fixtures the test writes.
$(B)/tests/test_compare: tests/unit/test_compare.c $(COMPARE_OBJS) $(HARNESS_OBJ) $(B)/cuprof-compare
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e \
	  -o $@ $< $(COMPARE_OBJS) $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

# summary.json's field list (formats/summary_schema.h) against SCHEMA.md, and
# the writer against compare's reader, field by field.
$(B)/tests/test_schema: tests/unit/test_schema.c $(B)/compare/summary_reader.o $(FORMATS_OBJS) $(MODEL_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(B)/compare/summary_reader.o $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(JSON_LIBS) \
	    $(CHECK_LIBS) -lstdc++ -lpthread -lm

UNIT_TESTS  += $(B)/tests/test_compare $(B)/tests/test_schema
ALL_TARGETS += $(B)/tests/test_compare $(B)/tests/test_schema

# ---- preload (tests/unit/test_preload*.c) ------------------------------------------
# The hooks alone (cuprof_* left undefined), loaded next to a fake collector
# that dumps what it recorded; and small programs built against the real
# CUDA 13 libraries, run under both.
PT          := $(B)/tests/preload
CUDA_LIB    := $(CUDA_HOME)/lib64
PT_PROG_LD  := -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB)
PT_PROGS    := $(PT)/prog_cudart $(PT)/prog_blas $(PT)/prog_nocuda $(PT)/prog_dlopen \
               $(PT)/libuser.so $(PT)/prog_kernels $(PT)/prog_kernels_ptsz

$(PT)/libcuprof_hooks.so: $(PRELOAD_OBJS) $(PRELOAD_MAP)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_LDFLAGS) -o $@ $(PRELOAD_OBJS) -ldl -lpthread

$(PT)/libfakecollector.so: tests/unit/test_preload_collector.c
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

$(B)/tests/test_preload: tests/unit/test_preload.c tests/unit/test_preload_run.c $(HARNESS_OBJ) $(PRELOAD_GEN_HDRS) \
                         $(PT)/libcuprof_hooks.so $(PT)/libfakecollector.so $(PT_PROGS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -I$(B)/preload -Itests/e2e -o $@ \
	    tests/unit/test_preload.c tests/unit/test_preload_run.c \
	    $(HARNESS_OBJ) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

UNIT_TESTS  += $(B)/tests/test_preload
ALL_TARGETS += $(B)/tests/test_preload

# test_recover: the end anchor of a recovered run (tools/recover.c).
$(B)/tests/test_recover: tests/unit/test_recover.c $(B)/tools/recover.o
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(B)/tools/recover.o $(LDFLAGS) $(CHECK_LIBS)

UNIT_TESTS  += $(B)/tests/test_recover
ALL_TARGETS += $(B)/tests/test_recover

# test_progress: a long report's progress line (tools/progress.c).
$(B)/tests/test_progress: tests/unit/test_progress.c $(B)/tools/progress.o
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(B)/tools/progress.o $(LDFLAGS) $(CHECK_LIBS) -lpthread

UNIT_TESTS  += $(B)/tests/test_progress
ALL_TARGETS += $(B)/tests/test_progress

# test_bigmem: the report tools' large allocations on a file (tools/bigmem.c),
# linked with cuprof-report's --wrap flags; with formats/gpu_rows.o, whose
# sort of a large array goes through bigmem's as in cuprof-report.
$(B)/tests/test_bigmem: tests/unit/test_bigmem.c $(B)/tools/bigmem.o $(B)/formats/gpu_rows.o
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. $(BIGMEM_WRAP) -o $@ $< \
	    $(B)/tools/bigmem.o $(B)/formats/gpu_rows.o $(LDFLAGS) $(CHECK_LIBS) -lpthread

UNIT_TESTS  += $(B)/tests/test_bigmem
ALL_TARGETS += $(B)/tests/test_bigmem
