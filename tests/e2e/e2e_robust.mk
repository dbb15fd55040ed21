# tests/e2e/e2e_robust.mk: the exit paths end to end (included from tests/e2e/e2e.mk):
# every exit path x single/multi-thread, signals, fork and exec, bad input,
# the program unchanged. robust_prog is linked against the toolkit's
# libcudart (RUNPATH); the tests put the sim first on LD_LIBRARY_PATH.
$(B)/tests/robust_prog: tests/e2e/robust_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lpthread

$(B)/tests/test_e2e_robust: tests/e2e/test_e2e_robust.c $(HARNESS_OBJ) tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_robust $(B)/tests/robust_prog
E2E_TESTS   += $(B)/tests/test_e2e_robust

# tls_prog: cuprof's threads in a process whose libraries hold much TLS.
$(B)/tests/libbig_tls.so: tests/e2e/big_tls.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -shared -fPIC -o $@ $<
$(B)/tests/tls_prog: tests/e2e/tls_prog.c $(B)/tests/libbig_tls.so
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
	    -L$(B)/tests -Wl,-rpath,'$$ORIGIN' -lbig_tls \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart
$(B)/tests/test_e2e_robust: $(B)/tests/tls_prog
ALL_TARGETS += $(B)/tests/tls_prog
