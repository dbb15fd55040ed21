# formats/runfile/: the run file's reader (collector/runfile.h is the file's
# ABI, shared with the writer in collector/). Linked into the tools that
# read run files and their tests, never into libcuprof.so.
# srcline.c links elfutils' libdw (RUNFILE_LIBS): file:line of native frames.
RUNFILE_SRCS := formats/runfile/runfile_read.c formats/runfile/stream.c formats/runfile/srcline.c
RUNFILE_LIBS := -ldw
RUNFILE_OBJS := $(patsubst formats/runfile/%.c,$(B)/runfile/%.o,$(RUNFILE_SRCS))

$(B)/runfile/%.o: formats/runfile/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -fvisibility=hidden -I. -c -o $@ $<

ALL_TARGETS += $(RUNFILE_OBJS)
