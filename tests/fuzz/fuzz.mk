# tests/fuzz/: bounded libFuzzer runs, each wrapped in a Check test that
# builds its target with clang (tests/fuzz/*.sh) and says "skipped: clang not
# installed" where there is none.

# The CUPROF_* parser (collector/fuzz_config.c);
# `make fuzz-config FUZZ_CONFIG_SECONDS=600` for a longer run.
FUZZ_CONFIG_SECONDS ?= 10
$(B)/tests/test_fuzz_config: tests/fuzz/test_fuzz.c $(HARNESS_OBJ)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e \
	  -DFUZZ_NAME='"config"' -DFUZZ_SCRIPT='"tests/fuzz/fuzz_config.sh"' \
	  -DFUZZ_SECS_ENV='"FUZZ_CONFIG_SECONDS"' -DFUZZ_SECS_DEFAULT='"10"' \
	  -o $@ $< $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

# The summary reader (formats/compare/fuzz_summary_reader.c) and the
# comparison built from what it accepts.
FUZZ_SECONDS ?= 20
$(B)/tests/test_fuzz_reader: tests/fuzz/test_fuzz.c $(HARNESS_OBJ)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e \
	  -DFUZZ_NAME='"summary_reader"' -DFUZZ_SCRIPT='"tests/fuzz/fuzz_reader.sh"' \
	  -DFUZZ_SECS_ENV='"FUZZ_SECONDS"' -DFUZZ_SECS_DEFAULT='"20"' \
	  -o $@ $< $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

$(B)/fuzz/summary_reader: $(CMP_DIR)/fuzz_summary_reader.c $(COMPARE_SRCS) tests/fuzz/fuzz_reader.sh tests/fuzz/fuzz_lib.sh
	$(call P,FUZZCC,$@)bash tests/fuzz/fuzz_reader.sh build

# The run file reader's GPU side (formats/runfile/fuzz_gpu_records.c: the
# compact GPU records, their names, the GPU state); `make fuzz-runfile`.
FUZZ_RUNFILE_SECONDS ?= 20
$(B)/tests/test_fuzz_runfile: tests/fuzz/test_fuzz.c $(HARNESS_OBJ)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e \
	  -DFUZZ_NAME='"runfile_gpu"' -DFUZZ_SCRIPT='"tests/fuzz/fuzz_runfile.sh"' \
	  -DFUZZ_SECS_ENV='"FUZZ_RUNFILE_SECONDS"' -DFUZZ_SECS_DEFAULT='"20"' \
	  -o $@ $< $(HARNESS_OBJ) $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

fuzz-runfile:
	$(Q)bash tests/fuzz/fuzz_runfile.sh run $(FUZZ_RUNFILE_SECONDS)

fuzz-config:
	$(Q)bash tests/fuzz/fuzz_config.sh run $(FUZZ_CONFIG_SECONDS)

fuzz-reader:
	$(Q)bash tests/fuzz/fuzz_reader.sh run $(FUZZ_SECONDS)

UNIT_TESTS  += $(B)/tests/test_fuzz_config $(B)/tests/test_fuzz_reader $(B)/tests/test_fuzz_runfile
ALL_TARGETS += $(B)/tests/test_fuzz_config $(B)/tests/test_fuzz_reader $(B)/tests/test_fuzz_runfile
.PHONY: fuzz-config fuzz-reader fuzz-runfile
