# tests/sim/core/: the simulated driver, libcusim.so, which every sim library
# links; and its unit test, which compiles the same sources in (habit 11) so
# it can reach the internals.
CUSIM_SRCS := $(wildcard tests/sim/core/cusim_*.c)
CUSIM_HDRS := tests/sim/core/cusim.h tests/sim/core/cusim_internal.h tests/sim/core/cusim_stub.h
CUSIM_OBJS := $(patsubst tests/sim/core/%.c,$(SIM_DIR)/core/%.o,$(CUSIM_SRCS))
CUSIM_LIB  := $(SIM_DIR)/libcusim.so

$(SIM_DIR)/core/%.o: tests/sim/core/%.c $(CUSIM_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

$(CUSIM_LIB): $(CUSIM_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) -shared -Wl,-soname,libcusim.so -o $@ $^ $(LDFLAGS) -lpthread -lm -ldl

$(B)/tests/test_sim_core: tests/sim/core/test_sim_core.c $(CUSIM_SRCS) $(CUSIM_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Itests/sim/core $(CHECK_CFLAGS) -o $@ \
	  tests/sim/core/test_sim_core.c $(CUSIM_SRCS) $(LDFLAGS) $(CHECK_LIBS) -lpthread -lm -ldl

ALL_TARGETS += $(CUSIM_LIB)
UNIT_TESTS  += $(B)/tests/test_sim_core
