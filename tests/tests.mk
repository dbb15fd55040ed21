# tests/: the shared end-to-end harness. Each module's fragment adds its own
# Check binaries to UNIT_TESTS / E2E_TESTS and links $(HARNESS_OBJ) when it
# runs whole programs.
HARNESS_OBJ := $(B)/tests/harness.o

$(B)/tests/harness.o: tests/e2e/harness.c tests/e2e/harness.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -c -o $@ $<
include tests/golden/golden.mk
include tests/layering/layering.mk
