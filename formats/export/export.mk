# formats/export/: cuprof-export (prof.sh export sqlite): a finished run's
# trace.json as an SQLite database in Nsight Systems' table shapes. Links
# jansson and Debian's libsqlite3; the preloaded library never does.
$(B)/cuprof-export: formats/export/sqlite_export.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $< $(LDFLAGS) $(JSON_LIBS) -lsqlite3 -lm

ALL_TARGETS += $(B)/cuprof-export
