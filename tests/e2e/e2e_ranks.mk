# Multi-rank jobs (included from tests/e2e/e2e.mk): mpi_prog, an MPI + CUDA
# program built with Open MPI's wrapper flags (scripts/deps.sh installs
# openmpi-bin and libopenmpi-dev), run under mpirun on the simulated device.
# mpicc is looked for when the program is built, not when make starts: the
# setup may have just installed it. Without it nothing is built and the
# test says SKIPPED.
$(B)/tests/mpi_prog: tests/e2e/mpi_prog.c | $(B)/.deps-ok
	$(Q)mkdir -p $(@D); if command -v mpicc >/dev/null 2>&1; then \
	  echo "  LD      $@"; \
	  $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) $$(mpicc --showme:compile) -I$(CUDA_HOME)/include \
	    -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart \
	    $$(mpicc --showme:link); \
	else echo "cuprof: no mpicc: $@ not built, the mpirun tests will be skipped (scripts/deps.sh installs openmpi-bin libopenmpi-dev)" >&2; fi

$(B)/tests/test_e2e_ranks: tests/e2e/test_e2e_ranks.c tests/e2e/trace_check.c tests/e2e/trace_check.h \
                           tests/e2e/pftrace.c tests/e2e/pftrace.h \
                           $(HARNESS_OBJ) tests/e2e/harness.h $(B)/tests/mpi_prog $(B)/cuprof-merge
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/trace_check.c \
	    tests/e2e/pftrace.c $(HARNESS_OBJ) $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) $(PFT_LIBS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_ranks $(B)/tests/mpi_prog
E2E_TESTS   += $(B)/tests/test_e2e_ranks
