# tests/sim/nccl/: the simulated NCCL, libnccl.so.2 (the real soname; its
# exports are unversioned, as the real library's), linked to libcusim.so.
# Programs link the toolkit's libnccl.so and run on this one through
# LD_LIBRARY_PATH, as on the other parts of the sim.
NCCL_SIM_DIR := tests/sim/nccl
LIBNCCL_SIM  := $(SIM_DIR)/libnccl.so.2

$(SIM_DIR)/nccl/%.o: $(NCCL_SIM_DIR)/%.c tests/sim/core/cusim.h $(NCCL_SIM_DIR)/nccl_nvtx.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

$(LIBNCCL_SIM): $(SIM_DIR)/nccl/nccl.o $(SIM_DIR)/nccl/nccl_nvtx.o $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libnccl.so.2 -o $@ $(SIM_DIR)/nccl/nccl.o $(SIM_DIR)/nccl/nccl_nvtx.o $(LDFLAGS) \
	  -L$(SIM_DIR) -lcusim -lpthread -lm -ldl -Wl,-rpath,'$$ORIGIN'
	$(Q)ln -sf libnccl.so.2 $(SIM_DIR)/libnccl.so

ALL_TARGETS += $(LIBNCCL_SIM)
