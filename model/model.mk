# model/: build fragment (included by the top Makefile).
# The run as plain data, built once at exit: names, the GPU records joined
# to the calls, the summary rows and the findings. Linked into
# build/libcuprof.so and into the unit tests of the model and the writers,
# which need nothing else (no collector object).
MODEL_SRCS := model/run.c model/gpu.c model/names.c model/vocab.c model/timeline.c \
              model/summary.c model/findings.c model/findings_order.c model/model.c
MODEL_OBJS := $(patsubst model/%.c,$(B)/model/%.o,$(MODEL_SRCS))
MODEL_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/model/%.o: model/%.c $(wildcard model/*.h) collector/event.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(MODEL_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(MODEL_OBJS)
