# tests/sim/driver/: libcuda.so.1 of the simulated device, a minimal driver
# API (cuda_driver.c) linked to the driver core libcusim.so. The sim's
# libcudart answers cudaGetDriverEntryPoint* with its cuGetProcAddress.
SIMDRV_LIB := $(SIM_DIR)/libcuda.so.1

$(SIM_DIR)/driver/cuda_driver.o: tests/sim/driver/cuda_driver.c $(CUSIM_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

# What the real driver exports (the toolkit's stubs/libcuda.so lists it) and
# cuda_driver.c does not model: stubs that say so and return
# CUDA_ERROR_NOT_SUPPORTED (issue 31: driver-API programs died at load).
$(SIM_DIR)/driver/stubs.c: tests/sim/gen_stubs.sh $(SIM_DIR)/driver/cuda_driver.o
	$(call SIM_STUBS_GEN,$(CUDA_HOME)/lib64/stubs/libcuda.so,CUDAAPI,CUresult,CUDA_ERROR_NOT_SUPPORTED,<cuda.h>,$(CUDA_HOME)/include/cuda.h,$(SIM_DIR)/driver/cuda_driver.o)
$(SIM_DIR)/driver/stubs.o: $(SIM_DIR)/driver/stubs.c $(CUSIM_HDRS)
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -c -o $@ $<

$(SIMDRV_LIB): $(SIM_DIR)/driver/cuda_driver.o $(SIM_DIR)/driver/stubs.o $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcuda.so.1 -o $@ $(SIM_DIR)/driver/cuda_driver.o $(SIM_DIR)/driver/stubs.o -L$(SIM_DIR) -lcusim \
	  -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -lpthread
	$(Q)ln -sf libcuda.so.1 $(SIM_DIR)/libcuda.so

ALL_TARGETS += $(SIMDRV_LIB)
