# formats/compare/compare.mk: cuprof-compare (reads summary.json back, compares runs),
# its tests and the fuzz target of the summary reader. Included by the top
# Makefile. Only these objects link jansson; the preloaded library never does.
CMP_DIR := formats/compare
COMPARE_SRCS := $(CMP_DIR)/summary_reader.c $(CMP_DIR)/compare.c $(CMP_DIR)/compare_diff.c \
                $(CMP_DIR)/compare_text.c $(CMP_DIR)/compare_paths.c $(CMP_DIR)/compare_json.c
COMPARE_HDRS := $(CMP_DIR)/summary_reader.h $(CMP_DIR)/compare.h $(CMP_DIR)/compare_int.h
COMPARE_OBJS := $(patsubst $(CMP_DIR)/%.c,$(B)/compare/%.o,$(COMPARE_SRCS))

$(B)/compare/%.o: $(CMP_DIR)/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -c -o $@ $<

$(B)/cuprof-compare: $(B)/compare/compare_main.o $(COMPARE_OBJS)
	$(call P,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS)

# Unit tests: the reader and the compare tool, on fixtures the test writes.
$(B)/tests/test_compare: tests/unit/test_compare.c $(COMPARE_OBJS) $(HARNESS_OBJ) \
                         $(COMPARE_HDRS) tests/e2e/harness.h $(B)/cuprof-compare
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -Itests/e2e \
	  -o $@ $< $(COMPARE_OBJS) $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

# A bounded libFuzzer run of the reader (and of the comparison built from
# what it accepts). tests/fuzz/fuzz_reader.sh knows how to build it with
# clang, and says "skipped: clang not installed" where there is none.
FUZZ_SECONDS ?= 20
$(B)/tests/test_fuzz_reader: tests/fuzz/test_fuzz.c $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e \
	  -DFUZZ_NAME='"summary_reader"' -DFUZZ_SCRIPT='"tests/fuzz/fuzz_reader.sh"' \
	  -DFUZZ_SECS_ENV='"FUZZ_SECONDS"' -DFUZZ_SECS_DEFAULT='"20"' \
	  -o $@ $< $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

$(B)/fuzz/summary_reader: $(CMP_DIR)/fuzz_summary_reader.c $(COMPARE_SRCS) $(COMPARE_HDRS) \
                          tests/fuzz/fuzz_reader.sh
	$(call P,FUZZCC,$@)bash tests/fuzz/fuzz_reader.sh build

fuzz-reader:
	$(Q)bash tests/fuzz/fuzz_reader.sh run $(FUZZ_SECONDS)

ALL_TARGETS += $(B)/cuprof-compare $(B)/tests/test_compare $(B)/tests/test_fuzz_reader
UNIT_TESTS  += $(B)/tests/test_compare $(B)/tests/test_fuzz_reader

.PHONY: fuzz-reader

# summary.json's field list (formats/summary_schema.h) against SCHEMA.md, and
# the writer against this reader, field by field.
$(B)/tests/test_schema: tests/unit/test_schema.c $(B)/compare/summary_reader.o $(FORMATS_OBJS) $(MODEL_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(B)/compare/summary_reader.o $(FORMATS_OBJS) $(MODEL_OBJS) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS) -lstdc++ -lpthread -lm

ALL_TARGETS += $(B)/tests/test_schema
UNIT_TESTS  += $(B)/tests/test_schema
