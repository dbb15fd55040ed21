# tests/e2e/e2e_findings.mk: the findings and `make demo` end to end on the
# sim (included from tests/e2e/e2e.mk). Needs the library, the sim, the bench
# programs and cuprof-compare, which build-all makes before `make test` runs.
$(B)/tests/test_e2e_findings: tests/e2e/test_e2e_findings.c $(HARNESS_OBJ) tests/e2e/harness.h \
                              $(B)/tests/tls_prog
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_findings
E2E_TESTS   += $(B)/tests/test_e2e_findings
