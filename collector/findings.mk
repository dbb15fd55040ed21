# collector/findings.mk: the findings rules (collector/findings.{h,c}) and
# their tests. Included from collector/collector.mk right after
# COLLECTOR_OBJS is set, so the object joins the library and every test that
# links the collector.
COLLECTOR_OBJS += $(B)/collector/findings.o $(B)/collector/findings_order.o

# The rules on hand-built runs, each with one run built to trigger it and
# one built not to. libcuprof.so stands for the objects: it needs all of them,
# and the object lists are not complete yet where this is read.
$(B)/tests/test_findings: tests/unit/test_findings.c $(B)/libcuprof.so $(wildcard collector/*.h)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -I. -o $@ $< \
	    $(COLLECTOR_OBJS) $(FORMATS_OBJS) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS) -ldl -lpthread

UNIT_TESTS  += $(B)/tests/test_findings
ALL_TARGETS += $(B)/tests/test_findings
