# tests/sim/driver/: libcuda.so.1 of the simulated device, a minimal driver
# API (cuda_driver.c) linked to the driver core libcusim.so. The sim's
# libcudart answers cudaGetDriverEntryPoint* with its cuGetProcAddress.
SIMDRV_LIB := $(SIM_DIR)/libcuda.so.1

$(SIM_DIR)/driver/cuda_driver.o: tests/sim/driver/cuda_driver.c $(CUSIM_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

$(SIMDRV_LIB): $(SIM_DIR)/driver/cuda_driver.o $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcuda.so.1 -o $@ $< -L$(SIM_DIR) -lcusim \
	  -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -lpthread
	$(Q)ln -sf libcuda.so.1 $(SIM_DIR)/libcuda.so

ALL_TARGETS += $(SIMDRV_LIB)
