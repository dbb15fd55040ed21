/*
 * log.h - the library's only way to talk to the user: stderr, never stdout.
 *
 * Every line starts with "cuprof: ", CUPROF_QUIET=1 silences all of them, and
 * debug lines appear only for the areas CUPROF_DEBUG names. Lines go out with
 * one write(2) each (no stdio), so they never mix with the program's own
 * buffered stderr and never change errno. Not for signal handlers (vsnprintf).
 */
#ifndef CUPROF_LOG_H
#define CUPROF_LOG_H

/* Prints "cuprof: <message>\n" on stderr unless quiet. */
void cuprof_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "cuprof: debug: <message>\n" when CUPROF_DEBUG enables area
 * (enum cuprof_debug_area) and not quiet. */
void cuprof_debug(unsigned area, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when debug lines of area would be printed (to skip costly arguments). */
int cuprof_debug_on(unsigned area);

#endif /* CUPROF_LOG_H */
