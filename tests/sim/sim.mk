# tests/sim/: the simulated CUDA device. Each part owns its fragment; all
# libraries land in $(SIM_DIR), which a program puts first on LD_LIBRARY_PATH.
SIM_DIR := $(B)/sim
SIM_CFLAGS = $(CFLAGS) -Itests/sim/core -fvisibility=hidden
include tests/sim/core/core.mk
include tests/sim/cudart/cudart.mk
include tests/sim/cublas/cublas.mk
include tests/sim/cupti/cupti.mk
