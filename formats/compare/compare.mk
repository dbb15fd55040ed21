# formats/compare/: sources, objects and cuprof-compare (reads summary.json
# back, compares runs). Only these objects link jansson; the preloaded
# library never does. Tests: tests/unit/unit.mk.
CMP_DIR := formats/compare
COMPARE_SRCS := $(CMP_DIR)/summary_reader.c $(CMP_DIR)/compare.c $(CMP_DIR)/compare_diff.c \
                $(CMP_DIR)/compare_text.c $(CMP_DIR)/compare_paths.c $(CMP_DIR)/compare_json.c
COMPARE_OBJS := $(patsubst $(CMP_DIR)/%.c,$(B)/compare/%.o,$(COMPARE_SRCS))

$(B)/compare/%.o: $(CMP_DIR)/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -c -o $@ $<

$(B)/cuprof-compare: $(B)/tools/compare.o $(COMPARE_OBJS) $(B)/formats/html_page.o $(B)/formats/html_assets.o
	$(call P,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS)

ALL_TARGETS += $(B)/cuprof-compare
