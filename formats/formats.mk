# formats/: build fragment (included by the top Makefile).
# The writers (trace.json, summary.txt, summary.json) and their buffered,
# crash-safe output. Linked into build/libcuprof.so next to the collector.
FORMATS_SRCS := formats/outbuf.c formats/units.c formats/formats.c \
                formats/chrome_trace.c formats/chrome_trace_gpu.c formats/summary_txt.c formats/summary_json.c
FORMATS_OBJS := $(patsubst formats/%.c,$(B)/formats/%.o,$(FORMATS_SRCS))
FORMATS_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/formats/%.o: formats/%.c $(wildcard formats/*.h) $(wildcard model/*.h) collector/event.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(FORMATS_CFLAGS) -c -o $@ $<

# The writers and the model on hand-built runs: model/ + formats/ only.
$(B)/tests/test_formats: tests/unit/test_formats.c $(FORMATS_OBJS) $(MODEL_OBJS) $(wildcard formats/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lstdc++ -lpthread

# The GPU attribution math and the trace's GPU lanes on hand-built runs.
$(B)/tests/test_timeline: tests/unit/test_timeline.c $(FORMATS_OBJS) $(MODEL_OBJS) $(wildcard model/*.h) $(wildcard formats/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lstdc++ -lpthread

# The findings rules on hand-built runs, each with one run built to trigger
# it and one built not to.
$(B)/tests/test_findings: tests/unit/test_findings.c $(FORMATS_OBJS) $(MODEL_OBJS) $(wildcard model/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lstdc++ -lpthread

# End-to-end tests of the front end (prof.sh); they need the library built.
# (harness.o by path: tests.mk, which names it, is included after this file.)
# profsh_prog: a tiny CUDA program (real libcudart of the toolkit; calls fail
# with error 35 without a driver and are still recorded).
$(B)/tests/test_e2e_profsh: tests/e2e/test_e2e_profsh.c $(B)/tests/harness.o \
                            $(B)/tests/profsh_prog $(B)/libcuprof.so
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e -o $@ $< \
	    $(B)/tests/harness.o $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

$(B)/tests/profsh_prog: tests/e2e/profsh_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lpthread

# The collector's unit test links the model and the writers too (see collector.mk).
$(B)/tests/test_collector: $(COLLECTOR_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS)

UNIT_TESTS  += $(B)/tests/test_formats $(B)/tests/test_timeline $(B)/tests/test_findings
E2E_TESTS   += $(B)/tests/test_e2e_profsh
ALL_TARGETS += $(FORMATS_OBJS) $(B)/tests/test_formats $(B)/tests/test_timeline \
               $(B)/tests/test_findings $(B)/tests/test_e2e_profsh \
               $(B)/tests/profsh_prog
