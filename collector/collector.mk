# collector/: build fragment (included by the top Makefile).
# The event store, the kernel-name table, configuration and the process
# lifecycle. Compiled into build/libcuprof.so (by preload/) and into the unit
# tests. Hidden visibility: the library exports only the hooks.
COLLECTOR_SRCS := collector/config.c collector/log.c collector/clock.c collector/buffers.c \
                  collector/kernels.c collector/lifecycle.c collector/snapshot.c \
                  collector/process_signals.c collector/process_exec.c collector/spill.c
COLLECTOR_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(COLLECTOR_SRCS))
COLLECTOR_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/collector/%.o: collector/%.c $(wildcard collector/*.h) $(wildcard model/*.h) $(wildcard formats/*.h)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(COLLECTOR_CFLAGS) -c -o $@ $<

# Unit tests (Check): the collector's objects linked straight into the test.
# Its object prerequisites are added in formats/formats.mk, where both lists
# are complete (prerequisites expand when read; cupti.mk appends to ours).
$(B)/tests/test_collector: tests/unit/test_collector.c $(wildcard collector/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(COLLECTOR_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -lstdc++ -ldl -lpthread

UNIT_TESTS  += $(B)/tests/test_collector
ALL_TARGETS += $(COLLECTOR_OBJS) $(B)/tests/test_collector

# A bounded libFuzzer run of the CUPROF_* parser (collector/fuzz_config.c,
# built with clang by tests/fuzz/fuzz_config.sh, skipped without clang);
# `make fuzz-config FUZZ_CONFIG_SECONDS=600` for a longer one.
FUZZ_CONFIG_SECONDS ?= 10
$(B)/tests/test_fuzz_config: tests/fuzz/test_fuzz.c $(B)/tests/harness.o tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e \
	  -DFUZZ_NAME='"config"' -DFUZZ_SCRIPT='"tests/fuzz/fuzz_config.sh"' \
	  -DFUZZ_SECS_ENV='"FUZZ_CONFIG_SECONDS"' -DFUZZ_SECS_DEFAULT='"10"' \
	  -o $@ $< $(B)/tests/harness.o $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS)

fuzz-config:
	$(Q)bash tests/fuzz/fuzz_config.sh run $(FUZZ_CONFIG_SECONDS)

ALL_TARGETS += $(B)/tests/test_fuzz_config
UNIT_TESTS  += $(B)/tests/test_fuzz_config
.PHONY: fuzz-config
