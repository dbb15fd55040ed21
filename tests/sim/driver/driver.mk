# tests/sim/driver/: libcuda.so.1 of the simulated device, a driver API
# (cuda_driver*.c) linked to the driver core libcusim.so. The sim's libcudart
# answers cudaGetDriverEntryPoint* with its cuGetProcAddress.
SIMDRV_LIB := $(SIM_DIR)/libcuda.so.1
SIMDRV_SRCS := tests/sim/driver/cuda_driver.c tests/sim/driver/cuda_driver_mem.c \
               tests/sim/driver/cuda_driver_vmm.c tests/sim/driver/cuda_driver_errors.c \
               tests/sim/driver/cuda_driver_module.c
SIMDRV_OBJS := $(patsubst tests/sim/driver/%.c,$(SIM_DIR)/driver/%.o,$(SIMDRV_SRCS))

# Every CUresult cuda.h names, as X(NAME) lines (cuGetErrorName's table).
$(SIM_DIR)/driver/errnames.h: $(CUDA_HOME)/include/cuda.h tests/sim/driver/driver.mk
	$(call P,GEN,$@)mkdir -p $(@D) && \
	    sed -nE 's/^[ \t]*(CUDA_(SUCCESS|ERROR_[A-Z0-9_]+))[ \t]*=[ \t]*[0-9]+.*/X(\1)/p' $< > $@.tmp && mv $@.tmp $@

$(SIM_DIR)/driver/%.o: tests/sim/driver/%.c tests/sim/driver/driver_internal.h $(CUSIM_HDRS) $(SIM_DIR)/driver/errnames.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -I$(SIM_DIR)/driver -c -o $@ $<

# What the real driver exports (the toolkit's stubs/libcuda.so lists it) and
# cuda_driver*.c do not model: stubs that say so and return
# CUDA_ERROR_NOT_SUPPORTED (issue 31: driver-API programs died at load).
$(SIM_DIR)/driver/stubs.c: tests/sim/gen_stubs.sh $(SIMDRV_OBJS)
	$(call SIM_STUBS_GEN,$(CUDA_HOME)/lib64/stubs/libcuda.so,CUDAAPI,CUresult,CUDA_ERROR_NOT_SUPPORTED,<cuda.h>,$(CUDA_HOME)/include/cuda.h,$(SIMDRV_OBJS))
$(SIM_DIR)/driver/stubs.o: $(SIM_DIR)/driver/stubs.c $(CUSIM_HDRS)
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -c -o $@ $<

# -Bsymbolic-functions: a call inside the library (cuGetProcAddress to its
# _v2, cuCtxCreate_v4 to _v2) stays inside it, as in the real driver, and
# never reaches a profiler's LD_PRELOAD hook of the same name.
$(SIMDRV_LIB): $(SIMDRV_OBJS) $(SIM_DIR)/driver/stubs.o $(CUSIM_LIB)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic-functions -o $@ $(SIMDRV_OBJS) $(SIM_DIR)/driver/stubs.o -L$(SIM_DIR) -lcusim \
	  -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -lpthread
	$(Q)ln -sf libcuda.so.1 $(SIM_DIR)/libcuda.so

ALL_TARGETS += $(SIMDRV_LIB)

# Unit tests of the driver, linked like a driver-API program (-lcuda).
$(B)/tests/test_sim_driver: tests/sim/driver/test_sim_driver.c $(SIMDRV_LIB) $(CUSIM_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Itests/sim/core $(CHECK_CFLAGS) -o $@ $< \
	  -L$(SIM_DIR) -lcuda -lcusim -Wl,-rpath,'$$ORIGIN/../sim' $(LDFLAGS) $(CHECK_LIBS) -lpthread

UNIT_TESTS  += $(B)/tests/test_sim_driver
