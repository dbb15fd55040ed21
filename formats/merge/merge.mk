# formats/merge/: cuprof-merge (prof.sh merge): the ranks of a job as one
# trace and one summary. Links jansson; never in the library. Tests:
# tests/e2e/test_e2e_ranks.c (mpirun on the sim), tests/unit/test_merge.c.
MERGE_SRCS := formats/merge/merge.c formats/merge/merge_trace.c formats/merge/merge_summary.c \
              formats/merge/merge_html.c formats/merge/merge_window.c \
              formats/merge/merge_heat.c
MERGE_OBJS := $(patsubst formats/merge/%.c,$(B)/merge/%.o,$(MERGE_SRCS))

$(B)/merge/%.o: formats/merge/%.c formats/merge/merge.h
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -c -o $@ $<

$(B)/cuprof-merge: $(B)/tools/merge.o $(MERGE_OBJS) $(B)/formats/units.o $(B)/formats/html_page.o \
		$(B)/formats/html_assets.o
	$(call P,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(JSON_LIBS) -lm

ALL_TARGETS += $(B)/cuprof-merge
