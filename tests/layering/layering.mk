# tests/layering/: the folders' dependency rules, checked on the sources and
# the built objects (included from tests/tests.mk).
$(B)/tests/test_layering: tests/layering/test_layering.c $(HARNESS_OBJ) tests/e2e/harness.h \
                          tests/layering/check_layers.sh
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e -o $@ $< \
	    $(HARNESS_OBJ) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

ALL_TARGETS += $(B)/tests/test_layering
UNIT_TESTS  += $(B)/tests/test_layering
