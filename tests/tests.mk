# tests/: every test rule. Each fragment adds its Check binaries to
# UNIT_TESTS / E2E_TESTS; those that run whole programs link the shared
# harness, $(HARNESS_OBJ) (named in the top Makefile).
$(HARNESS_OBJ): tests/e2e/harness.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -c -o $@ $<

include tests/unit/unit.mk
include tests/fuzz/fuzz.mk
include tests/e2e/e2e.mk
include tests/golden/golden.mk
include tests/layering/layering.mk
include tests/corpus/corpus.mk
include tests/fixtures/fixtures.mk

# ---- sanitizer builds, each in a build folder of its own (the normal build
# is untouched): the same sources with ASAN=1 / TSAN=1 (top Makefile).

# make asan-test: the unit tests that link the collector, the model, the
# writers, the compare tool (with the cuprof-compare they run) and
# summary.json's schema, built with AddressSanitizer + UBSan into $(B)/asan
# and run; any report fails it. CI runs it after make test. test_collector's
# exit-path tests end forked children with chosen exit statuses, which
# LeakSanitizer's report at exit would replace: leak detection is off for
# that binary only. The simulated runtime runs under it too
# (test_sim_cudart: an exec that outlives its graph, stale handles, ...;
# the nvcc-built programs it runs are not instrumented, so ASan is told not
# to insist on coming first; and the sim's libcuda.so.1 is found on
# LD_LIBRARY_PATH, since ASan's dlopen does not search its caller's
# $ORIGIN RUNPATH), its driver (test_sim_driver: virtual memory mappings,
# memsets, zeroed allocations), and the math libraries' stand-ins
# (test_sim_libs: their results, and a program's wrong sizes, indices and pivots).
# Last, cuprof-report under it with the calls streamed in blocks of 16, each
# freed when put out (tests/asan_stream.sh: run files of the normal build, so
# make first; CI runs make test before).
ASAN_B     := $(B)/asan
ASAN_TESTS := test_formats test_timeline test_findings test_mathlib test_pystacks test_compare test_schema test_collector
ASAN_RUN    = CUPROF_TOP=$(CURDIR) CUPROF_BUILD=$(CURDIR)/$(ASAN_B) \
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan-test: deps-ok
	$(Q)$(MAKE) --no-print-directory B=$(ASAN_B) ASAN=1 $(addprefix $(ASAN_B)/tests/,$(ASAN_TESTS)) \
	    $(ASAN_B)/cuprof-report $(ASAN_B)/tests/test_sim_cudart $(ASAN_B)/sim/libcuda.so.1 \
	    $(ASAN_B)/tests/test_sim_libs $(ASAN_B)/tests/test_sim_driver
	$(Q)set -e; for t in $(filter-out test_collector,$(ASAN_TESTS)); do \
	    echo "== asan $$t"; $(ASAN_RUN) ASAN_OPTIONS=detect_leaks=1 $(ASAN_B)/tests/$$t; done; \
	    echo "== asan test_collector (leak detection off: forked exit paths)"; \
	    $(ASAN_RUN) ASAN_OPTIONS=detect_leaks=0 $(ASAN_B)/tests/test_collector; \
	    echo "== asan test_sim_cudart (the simulated runtime, its graphs, nvcc-built programs on it)"; \
	    $(ASAN_RUN) LD_LIBRARY_PATH=$(CURDIR)/$(ASAN_B)/sim \
	      ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 $(ASAN_B)/tests/test_sim_cudart; \
	    echo "== asan test_sim_driver (the simulated driver: memsets, virtual memory, zeroed memory)"; \
	    $(ASAN_RUN) ASAN_OPTIONS=detect_leaks=1 $(ASAN_B)/tests/test_sim_driver; \
	    echo "== asan test_sim_libs (the stand-ins for cuFFT, cuRAND, cuSPARSE, cuSOLVER; wrong sizes)"; \
	    $(ASAN_RUN) ASAN_OPTIONS=detect_leaks=1 $(ASAN_B)/tests/test_sim_libs; \
	    echo "== asan cuprof-report, the calls streamed (a call kept past its block: a use after free)"; \
	    bash tests/asan_stream.sh

# make tsan-test: the collector's unit test (threads recording while
# another exits, forks, the kernel table under concurrent lookups) built
# with ThreadSanitizer into $(B)/tsan, a tree of its own (the normal build
# is untouched), and run; any data race report fails it. Not part of
# `make test`: see collector/README.md for why and how long it takes.
# die_after_fork=0: the exit path starts its writer thread in a forked child
# (collector/process.h), which glibc supports and TSan only warns about.
TSAN_OPTIONS_RUN := halt_on_error=1 second_deadlock_stack=1 die_after_fork=0
tsan-test:
	$(Q)$(MAKE) --no-print-directory B=$(B)/tsan TSAN=1 $(B)/tsan/tests/test_collector
	$(Q)CUPROF_TOP=$(CURDIR) CUPROF_BUILD=$(CURDIR)/$(B) TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" \
	    $(B)/tsan/tests/test_collector

.PHONY: tsan-test

.PHONY: asan-test
