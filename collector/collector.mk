# collector/: build fragment (included by the top Makefile).
# The event store, the kernel-name table, configuration and the process
# lifecycle. Compiled into build/libcuprof.so (by preload/) and into the unit
# tests. Hidden visibility: the library exports only the hooks.
COLLECTOR_SRCS := collector/config.c collector/log.c collector/clock.c collector/buffers.c \
                  collector/kernels.c collector/lifecycle.c collector/run.c \
                  collector/aggregate.c collector/vocab.c collector/timeline.c
COLLECTOR_OBJS := $(patsubst collector/%.c,$(B)/collector/%.o,$(COLLECTOR_SRCS))
include collector/findings.mk
COLLECTOR_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/collector/%.o: collector/%.c $(wildcard collector/*.h) $(wildcard formats/*.h)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(COLLECTOR_CFLAGS) -c -o $@ $<

# Unit tests (Check): the collector's objects linked straight into the test.
# Its object prerequisites are added in formats/formats.mk, where both lists
# are complete (prerequisites expand when read; cupti.mk appends to ours).
$(B)/tests/test_collector: tests/unit/test_collector.c $(wildcard collector/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(COLLECTOR_OBJS) $(FORMATS_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -ldl -lpthread

# The GPU attribution math and the trace's GPU lanes on hand-built runs.
$(B)/tests/test_timeline: tests/unit/test_timeline.c $(wildcard collector/*.h) $(wildcard formats/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(COLLECTOR_OBJS) $(FORMATS_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -ldl -lpthread

UNIT_TESTS  += $(B)/tests/test_collector $(B)/tests/test_timeline
ALL_TARGETS += $(COLLECTOR_OBJS) $(B)/tests/test_collector $(B)/tests/test_timeline
