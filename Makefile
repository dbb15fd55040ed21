# cuprof: top-level build, in three parts: (1) each folder's fragment names
# its sources and objects, (2) the products linked from several folders, (3)
# tests/tests.mk, every test rule. Fragments append to the variables below.
#
#   make            build the profiler, the simulated device and the bench programs
#   make demo       profile the reference workloads and show the result
#   make test       build everything and run the whole test suite
#   make bench      run the benchmarks and write bench/RESULTS.md
#   make asan-test  the unit tests under AddressSanitizer (build/asan)
#   make tsan-test  the collector's test under ThreadSanitizer (build/tsan)
#   make compdb     compile_commands.json for editors
#   make V=1        show the full commands
#
# CUDA is taken from $(CUDA_HOME) (default /usr/local/cuda).

CUDA_HOME ?= /usr/local/cuda
export CUDA_HOME

ifeq ($(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h),)
$(error cuprof: no CUDA toolkit at CUDA_HOME=$(CUDA_HOME); install the CUDA 13 toolkit or run make CUDA_HOME=/path/to/cuda)
endif

NVCC    ?= $(CUDA_HOME)/bin/nvcc
CC      ?= cc
B       := build
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror
OPT     ?= -O2 -g
# -MMD -MP: each object's header dependencies, written next to it (.d) and
# read back below, so no rule lists headers by hand to get rebuilt.
DEPFLAGS := -MMD -MP
CFLAGS  += $(CSTD) $(WARN) $(OPT) -fPIC -I$(CUDA_HOME)/include $(DEPFLAGS)
# ASAN=1 / TSAN=1: sanitizer builds of the same sources.
ifeq ($(ASAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
CFLAGS  += -fsanitize=thread
LDFLAGS += -fsanitize=thread
endif

# Check, jansson: test and tool dependencies (scripts/deps.sh installs them).
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)
JSON_LIBS    := -ljansson

ifneq ($(V),1)
Q  := @
P   = @printf '  %-7s %s\n' $(1) $(2);
else
Q  :=
P   =
endif

# Filled by the fragments.
ALL_TARGETS :=
UNIT_TESTS  :=   # Check binaries run by `make test`, in order
E2E_TESTS   :=   # Check binaries that run whole programs, after the unit tests
HARNESS_OBJ := $(B)/tests/harness.o   # the tests' shared harness (tests/tests.mk)

all: deps-ok build-all

# ---- 1. Sources and objects: each folder names its sources, its objects
# and how they compile (and a product made of its own objects alone).
include model/model.mk
include collector/collector.mk
include formats/formats.mk
include formats/compare/compare.mk
include formats/merge/merge.mk
include formats/runfile/runfile.mk
include tools/tools.mk
include preload/preload.mk
include tests/sim/sim.mk
include bench/bench.mk

# ---- 2. Products linked from several folders.
# libcuprof.so: the hooks + the collector, nothing else: recording only (the
# model and the writers are in cuprof-report, tools/). -z defs: a symbol
# missing from them fails the link, not the user's program at run time.
$(B)/libcuprof.so: $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) $(COLLECTOR_OBJS) $(PRELOAD_MAP)
	$(call P,LD,$@)$(CC) $(PRELOAD_LDFLAGS) -Wl,-z,defs -o $@ $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ) \
	    $(COLLECTOR_OBJS) -ldl -lpthread

# write_bench: the exit path (model + writers) timed on N events (bench/).
$(BENCH_B)/write_bench: bench/write_bench.c $(COLLECTOR_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS)
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $< $(COLLECTOR_OBJS) \
	    $(MODEL_OBJS) $(FORMATS_OBJS) $(LDFLAGS) -ldl -lpthread

ALL_TARGETS += $(B)/libcuprof.so

# ---- 3. Tests: every test rule lives under tests/.
include tests/tests.mk

build-all: $(ALL_TARGETS)

# The header dependencies the compiler wrote (-MMD), for this build folder;
# a .d whose source file has since moved or gone is skipped (its object is
# rebuilt from the new rule), so a tree built before a move still builds.
DEP_FILES := $(shell for d in $$(find $(B) -name '*.d' 2>/dev/null); do \
    s=$$(sed -n '1s/^[^:]*:[[:space:]]*\([^[:space:]\\]*\).*/\1/p' "$$d"); \
    if [ -z "$$s" ] || [ -e "$$s" ]; then echo "$$d"; fi; done)
-include $(DEP_FILES)

# make compdb: compile_commands.json for editors (clangd), recorded by bear
# from a build in a folder of its own.
compdb: deps-ok
	$(Q)command -v bear >/dev/null || { echo "cuprof: make compdb needs bear (apt-get install bear)" >&2; exit 2; }
	$(Q)rm -rf $(B)/compdb && bear --output compile_commands.json -- \
	    $(MAKE) --no-print-directory B=$(B)/compdb build-all

# Installs Check, jansson, libunwind, SQLite, pkg-config and libdw when they are missing
# (apt-get as root, otherwise prints the command), and the viewer tests' chromium
# and npm packages where it can; a stamp keeps it to once.
deps-ok: $(B)/.deps-ok
$(B)/.deps-ok: scripts/deps.sh tests/viewers/package-lock.json formats/html/package-lock.json
	$(Q)mkdir -p $(B)
	$(Q)bash scripts/deps.sh
	$(Q)touch $@

test: deps-ok build-all $(UNIT_TESTS) $(E2E_TESTS)
	$(Q)bash tests/run.sh $(UNIT_TESTS) $(E2E_TESTS)
	$(Q)echo "== scripts/gpu_check.sh --dry (the real GPU's check, on the sim)"
	$(Q)rm -rf $(B)/gpu-check-dry && bash scripts/gpu_check.sh --dry --capture-fixtures $(B)/gpu-check-dry/fixtures $(B)/gpu-check-dry

demo: deps-ok build-all
	$(Q)bash scripts/demo.sh

clean:
	rm -rf $(B) prof-out $(BENCH_BINS)

.PHONY: all build-all deps-ok test demo clean bench compdb
.DEFAULT_GOAL := all
