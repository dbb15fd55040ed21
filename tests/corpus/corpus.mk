# tests/corpus/: small programs in the style of CUDA's samples (README.md),
# built with nvcc like a user's program, each run bare on the simulated
# device and under prof.sh by test_e2e_corpus.
CORPUS_SRCS := $(wildcard tests/corpus/*.cu)
CORPUS_BINS := $(patsubst tests/corpus/%.cu,$(B)/tests/corpus/%,$(CORPUS_SRCS))

$(B)/tests/corpus/%: tests/corpus/%.cu tests/corpus/common.h
	$(call P,NVCC,$@)mkdir -p $(@D) && $(NVCC) $(BENCH_NVFLAGS) -o $@ $< -lcublas \
	    $(if $(filter nccl_%,$*),-lnccl) $$(sed -n 's,^//@ link ,,p' $<)

$(B)/tests/test_e2e_corpus: tests/e2e/test_e2e_corpus.c $(HARNESS_OBJ) tests/e2e/harness.h \
		$(CORPUS_BINS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(HARNESS_OBJ) \
	    $(CHECK_LIBS) $(JSON_LIBS) $(LDFLAGS)

ALL_TARGETS += $(B)/tests/test_e2e_corpus $(CORPUS_BINS)
E2E_TESTS   += $(B)/tests/test_e2e_corpus
