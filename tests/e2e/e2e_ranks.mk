# Multi-rank jobs (included from tests/e2e/e2e.mk): mpi_prog, an MPI + CUDA
# program built with Open MPI's wrapper flags when mpicc is installed
# (scripts/deps.sh installs openmpi-bin and libopenmpi-dev), run under
# mpirun on the simulated device; the test says SKIPPED when it is not.
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)

ifneq ($(MPI_LIBS),)
$(B)/tests/mpi_prog: tests/e2e/mpi_prog.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(filter-out -fsanitize=%,$(CFLAGS)) $(MPI_CFLAGS) \
	    -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	    -lcublas -lcudart $(MPI_LIBS)
RANKS_PROGS := $(B)/tests/mpi_prog
endif

$(B)/tests/test_e2e_ranks: tests/e2e/test_e2e_ranks.c tests/e2e/trace_check.c tests/e2e/trace_check.h \
                           $(HARNESS_OBJ) tests/e2e/harness.h $(RANKS_PROGS) $(B)/cuprof-merge
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< tests/e2e/trace_check.c $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS) -lm

ALL_TARGETS += $(B)/tests/test_e2e_ranks $(RANKS_PROGS)
E2E_TESTS   += $(B)/tests/test_e2e_ranks
