# formats/stats/: cuprof-stats (prof.sh stats): summary.json reports sorted,
# filtered, cut, as a table, CSV or JSON. Links jansson; never in the library.
$(B)/cuprof-stats: formats/stats/stats.c $(B)/formats/units.o
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $^ $(LDFLAGS) $(JSON_LIBS)

ALL_TARGETS += $(B)/cuprof-stats
