# tests/sim/cudart/: the simulated CUDA runtime, libcudart.so.13 (soname and
# symbol versions of the real one), linked to the driver core libcusim.so.
CUDART_SRCS := $(wildcard tests/sim/cudart/cudart_*.c)
CUDART_HDRS := tests/sim/cudart/cudart_internal.h $(CUSIM_HDRS)
CUDART_OBJS := $(patsubst tests/sim/cudart/%.c,$(SIM_DIR)/cudart/%.o,$(CUDART_SRCS))
CUDART_LIB  := $(SIM_DIR)/libcudart.so.13
CUDART_MAP  := tests/sim/cudart/libcudart.map

$(SIM_DIR)/cudart/%.o: tests/sim/cudart/%.c $(CUDART_HDRS)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -c -o $@ $<

# What the real libcudart exports and these sources do not define.
$(SIM_DIR)/cudart/stubs.c: tests/sim/gen_stubs.sh $(CUDART_OBJS)
	$(call SIM_STUBS_GEN,$(call SIM_REAL_LIB,libcudart.so.13),CUDARTAPI,cudaError_t,cudart_stub_status(),"cudart_internal.h",$(CUDA_HOME)/include/cuda_runtime_api.h,$(CUDART_OBJS))
$(SIM_DIR)/cudart/stubs.o: $(SIM_DIR)/cudart/stubs.c $(CUDART_HDRS)
	$(call P,CC,$@)$(CC) $(SIM_CFLAGS) -Itests/sim/cudart -c -o $@ $<

$(CUDART_LIB): $(CUDART_OBJS) $(SIM_DIR)/cudart/stubs.o $(CUSIM_LIB) $(CUDART_MAP)
	$(call P,LD,$@)$(CC) -shared -Wl,-soname,libcudart.so.13 -Wl,--version-script=$(CUDART_MAP) \
	  -o $@ $(CUDART_OBJS) $(SIM_DIR)/cudart/stubs.o -L$(SIM_DIR) -lcusim -Wl,-rpath,'$$ORIGIN' \
	  $(LDFLAGS) -lpthread
	$(Q)ln -sf libcudart.so.13 $(SIM_DIR)/libcudart.so

# Unit tests of the runtime: link the sim libraries like a program would, and
# the e2e harness for the nvcc-built program test.
$(B)/tests/test_sim_cudart: tests/sim/cudart/test_sim_cudart.c tests/sim/cudart/test_sim_graph_nodes.c \
		$(CUDART_LIB) $(CUSIM_HDRS) $(HARNESS_OBJ)
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -Itests/sim/core -Itests/e2e $(CHECK_CFLAGS) \
	  -o $@ $< tests/sim/cudart/test_sim_graph_nodes.c $(HARNESS_OBJ) -L$(SIM_DIR) -lcudart -lcusim -Wl,-rpath,'$$ORIGIN/../sim' \
	  $(LDFLAGS) $(JSON_LIBS) $(CHECK_LIBS) -ldl -lpthread -lm

ALL_TARGETS += $(CUDART_LIB)
UNIT_TESTS  += $(B)/tests/test_sim_cudart

# The injection library test_sim_cudart points CUDA_INJECTION64_PATH at.
$(B)/tests/libsim_test_inject.so: tests/sim/cudart/test_inject.c $(CUSIM_LIB) $(CUSIM_HDRS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(SIM_CFLAGS) -shared -o $@ $< \
	  -L$(SIM_DIR) -lcusim -Wl,-rpath,'$$ORIGIN/../sim' $(LDFLAGS)
$(B)/tests/test_sim_cudart: $(B)/tests/libsim_test_inject.so
