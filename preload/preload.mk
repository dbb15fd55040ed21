# preload/: sources and objects of the hooks. build/libcuprof.so (hooks +
# collector + model + formats) is linked by the top Makefile; the hooks-only
# library the tests load is in tests/unit/unit.mk.
PRELOAD_SRCS := preload/resolve.c preload/hooks_launch.c preload/hooks_memory.c \
                preload/hooks_sync.c preload/hooks_blas.c preload/hooks_mpi.c preload/hooks_driver.c preload/inject.c preload/nvtx.c
PRELOAD_OBJS := $(patsubst preload/%.c,$(B)/preload/%.o,$(PRELOAD_SRCS))
# hooks_libc.o (exit paths, signals, exec: collector/process.h) goes into the
# product library only: the hooks-only test library has no collector for it.
PRELOAD_LIBC_OBJ := $(B)/preload/hooks_libc.o
PRELOAD_CFLAGS = $(CFLAGS) -fvisibility=hidden -fno-omit-frame-pointer -I.
# Exports only the hooks (exports.map).
PRELOAD_LDFLAGS = -shared -Wl,--version-script=preload/exports.map $(LDFLAGS)

$(B)/preload/%.o: preload/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

ALL_TARGETS += $(PRELOAD_OBJS) $(PRELOAD_LIBC_OBJ)
