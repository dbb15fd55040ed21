# tools/: the command-line tools that read cuprof's files, each a small
# main over model/, formats/ and formats/runfile/ (never in libcuprof.so).
# cuprof-report: a run file to every output (the exit path runs it, and
# prof.sh report).
TOOLS_REPORT_SRCS := tools/report.c tools/recut.c
TOOLS_REPORT_OBJS := $(patsubst tools/%.c,$(B)/tools/%.o,$(TOOLS_REPORT_SRCS))

$(B)/tools/%.o: tools/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -c -o $@ $<

$(B)/cuprof-report: $(TOOLS_REPORT_OBJS) $(RUNFILE_OBJS) $(MODEL_OBJS) $(FORMATS_OBJS)
	$(call P,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ -ldl -lpthread

ALL_TARGETS += $(TOOLS_REPORT_OBJS) $(B)/cuprof-report
