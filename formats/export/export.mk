# formats/export/: cuprof-export (prof.sh export sqlite): a finished run's
# trace.json as an SQLite database in Nsight Systems' table shapes. Links
# jansson, Debian's libsqlite3 and libz (a --gzip trace); the preloaded
# library never does. The library runs it at exit for --export sqlite.
$(B)/cuprof-export: formats/export/sqlite_export.c
	$(call P,LD,$@)mkdir -p $(@D) && $(CC) $(CFLAGS) -I. -o $@ $< $(LDFLAGS) $(JSON_LIBS) -lsqlite3 -lz -lm

ALL_TARGETS += $(B)/cuprof-export
