/*
 * export.h - the exports made at exit from the files just written
 * (--export sqlite; see export.c).
 */
#ifndef CUPROF_EXPORT_H
#define CUPROF_EXPORT_H

/* Runs cuprof-export on DIR/NAME's JSON trace (written: the suffixes the
 * exit path wrote, "{trace.json,summary.txt,...}") and waits for it. */
void cuprof_export_sqlite(const char *dir, const char *name, const char *written);

#endif
