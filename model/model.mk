# model/: sources and objects. The run as plain data, built once at exit:
# names, the GPU records joined to the calls, the summary rows and the
# findings. Linked into the tools that read run files (tools/: cuprof-report
# and its kin, never into libcuprof.so) and into the unit tests of the model
# and the writers, which need nothing else (no collector object). Tests: tests/unit/unit.mk.
MODEL_SRCS := model/run.c model/gpu.c model/names.c model/vocab.c model/timeline.c model/memory.c model/graphs.c model/census.c model/collectives.c \
              model/summary.c model/findings.c model/findings_order.c model/findings_steps.c model/findings_errors.c model/findings_nccl.c model/findings_peak.c model/model.c \
              model/ranges.c model/quantile.c model/capture.c model/steps.c model/stacks.c model/stacks_slices.c model/kmatch.c model/peak.c model/mathlib.c
MODEL_OBJS := $(patsubst model/%.c,$(B)/model/%.o,$(MODEL_SRCS))
MODEL_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/model/%.o: model/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(MODEL_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(MODEL_OBJS)
