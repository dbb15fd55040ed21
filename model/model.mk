# model/: sources and objects. The run as plain data, built once at exit:
# names, the GPU records joined to the calls, the summary rows and the
# findings. Linked into build/libcuprof.so (top Makefile) and into the unit
# tests of the model and the writers, which need nothing else (no collector
# object). Tests: tests/unit/unit.mk.
MODEL_SRCS := model/run.c model/gpu.c model/names.c model/vocab.c model/timeline.c model/memory.c model/graphs.c model/census.c \
              model/summary.c model/findings.c model/findings_order.c model/findings_steps.c model/model.c \
              model/cbid.c model/ranges.c model/capture.c model/steps.c model/stacks.c model/kmatch.c
MODEL_OBJS := $(patsubst model/%.c,$(B)/model/%.o,$(MODEL_SRCS))
MODEL_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/model/%.o: model/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(MODEL_CFLAGS) -c -o $@ $<

# cbid -> name tables, generated from the toolkit's own headers:
# CUPTI_RUNTIME_TRACE_CBID_<name>_v<NNNNN> = <id>  ->  [<id>] = "<name>",
# CUPTI_DRIVER_TRACE_CBID_<name> = <id> (no version suffix), the same.
CBID_RUNTIME_INC := $(B)/model/cbid_runtime_names.inc
CBID_DRIVER_INC  := $(B)/model/cbid_driver_names.inc

$(CBID_RUNTIME_INC): $(CUDA_HOME)/include/cupti_runtime_cbid.h model/model.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_RUNTIME_TRACE_CBID_([A-Za-z0-9_]+)_v[0-9]+[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(CBID_DRIVER_INC): $(CUDA_HOME)/include/cupti_driver_cbid.h model/model.mk
	$(call P,GEN,$@)mkdir -p $(@D) && sed -n -E \
	    's/^[[:space:]]*CUPTI_DRIVER_TRACE_CBID_([a-z][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*([0-9]+).*/    [\2] = "\1",/p' \
	    $< > $@.tmp && test -s $@.tmp && mv $@.tmp $@

$(B)/model/cbid.o: $(CBID_RUNTIME_INC) $(CBID_DRIVER_INC)
$(B)/model/cbid.o: MODEL_CFLAGS += -I$(B)/model

ALL_TARGETS += $(MODEL_OBJS)
