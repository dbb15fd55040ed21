# formats/: sources and objects. The writers (trace.json, summary.txt,
# summary.json) and their buffered, crash-safe output; they read the model
# only. Linked into build/libcuprof.so (top Makefile). Tests:
# tests/unit/unit.mk.
FORMATS_SRCS := formats/outbuf.c formats/codec.c formats/units.c formats/formats.c formats/place.c \
                formats/chrome_trace.c formats/chrome_trace_gpu.c formats/gpu_rows.c formats/perfetto.c \
                formats/summary_txt.c formats/summary_json.c \
                formats/flame.c
FORMATS_OBJS := $(patsubst formats/%.c,$(B)/formats/%.o,$(FORMATS_SRCS))
FORMATS_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/formats/%.o: formats/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(FORMATS_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(FORMATS_OBJS)
