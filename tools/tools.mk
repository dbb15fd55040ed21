# tools/: the command-line tools that read cuprof's files, each a small
# main over model/, formats/ and formats/runfile/ (never in libcuprof.so).
# cuprof-report: a run file to every output (the exit path runs it, and
# prof.sh report).
TOOLS_REPORT_SRCS := tools/report.c tools/recut.c tools/job_trigger.c tools/recover.c tools/bigmem.c \
	tools/progress.c
TOOLS_REPORT_OBJS := $(patsubst tools/%.c,$(B)/tools/%.o,$(TOOLS_REPORT_SRCS))
# tools/bigmem.h: the large allocations, sorts and read-only file mappings of
# the code linked into a tool go to bigmem.c, which keeps them on a file.
BIGMEM_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
	-Wl,--wrap=qsort,--wrap=qsort_r,--wrap=mmap,--wrap=munmap

$(B)/tools/%.o: tools/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -c -o $@ $<

$(B)/cuprof-report: $(TOOLS_REPORT_OBJS) $(RUNFILE_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS)
	$(call P,LD,$@)$(CC) $(LDFLAGS) $(BIGMEM_WRAP) -o $@ $^ $(RUNFILE_LIBS) -ldl -lpthread

ALL_TARGETS += $(TOOLS_REPORT_OBJS) $(B)/cuprof-report

# cuprof-run: what prof.sh execs; runs the program as its child, forwards
# signals, then has cuprof-report recover the run files of killed processes.
$(B)/cuprof-run: tools/run.c collector/runfile.h collector/shm.h
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $< $(LDFLAGS)

ALL_TARGETS += $(B)/cuprof-run

# cuprof-stats (prof.sh stats): summary.json reports sorted, filtered, cut,
# as a table, CSV or JSON. Links jansson.
$(B)/cuprof-stats: tools/stats.c $(B)/formats/units.o
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $^ $(LDFLAGS) $(JSON_LIBS)

# cuprof-export (prof.sh export sqlite, and --export sqlite through
# cuprof-report): a trace.json as an SQLite database in Nsight Systems'
# table shapes. Links jansson, Debian's libsqlite3 and libz (a --gzip trace).
# Reads the trace streamed (tools/json_stream.c), in bounded memory.
$(B)/cuprof-export: tools/export.c tools/json_stream.c tools/json_stream.h tools/progress.c \
		tools/progress.h
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ tools/export.c tools/json_stream.c tools/progress.c \
	    $(LDFLAGS) $(JSON_LIBS) -lsqlite3 -lz -lm

# cuprof-compare and cuprof-merge link their libraries from formats/compare/
# and formats/merge/ (their .mk files).
ALL_TARGETS += $(B)/cuprof-stats $(B)/cuprof-export
