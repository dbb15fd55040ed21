# tests/golden/: golden outputs (included from tests/tests.mk).
# golden_normalize reduces a trace / summary to what must hold from run to
# run; test_golden compares matmul_add's on the sim with expected/.
# `make golden-update` rewrites expected/ (review the diff before committing).
$(B)/tests/golden_normalize: tests/golden/normalize.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(JSON_LIBS)

$(B)/tests/test_golden: tests/golden/test_golden.c $(HARNESS_OBJ) tests/e2e/harness.h \
                        $(B)/tests/golden_normalize
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -Itests/e2e -o $@ $< \
	    $(HARNESS_OBJ) $(LDFLAGS) $(CHECK_LIBS) $(JSON_LIBS)

golden-update: build-all
	$(Q)bash tests/golden/golden.sh --update

ALL_TARGETS += $(B)/tests/golden_normalize $(B)/tests/test_golden
E2E_TESTS   += $(B)/tests/test_golden
.PHONY: golden-update
