/*
 * trace_check.h - a checker of Chrome JSON traces against the Trace Event
 * Format rules the viewers apply (Perfetto's JSON importer, chrome://tracing, the
 * DevTools trace engine):
 *
 *  - every event has a phase; X, i, I, s, f, b, e, M events have integer pid
 *    and tid that fit in 32 bits (Perfetto keeps 32: wider tids fold onto
 *    another thread's track), X events a ts and a dur >= 0;
 *  - X events on one (pid, tid) nest: each one that starts inside another
 *    ends inside it (viewers drop or mis-draw the rest);
 *  - flows (v1): each "s" lies inside an X event of its (pid, tid) at its ts
 *    (the slice it leaves from), each "f" with "bp":"e" inside one at its
 *    ts (the slice it arrives at); "s" and "f" pair one to one by (cat,
 *    name, id);
 *  - flows as the DevTools trace engine binds them: an X or I event with the
 *    flow event's ts, pid, tid and category, at each end (the engine draws
 *    no arrow otherwise, whatever slice encloses the flow event);
 *  - async b/e pair by (cat, name, id2.local or id) on one pid, e not before b;
 *  - M events name their process or thread (args.name) or give a
 *    sort_index (args.sort_index).
 *
 * Uses jansson; the tests and build/tests/trace_check (the command) share it.
 */
#ifndef CUPROF_TRACE_CHECK_H
#define CUPROF_TRACE_CHECK_H

#include <jansson.h>
#include <stddef.h>

/* Checks the trace (the whole object, with traceEvents). Writes up to
 * `max` violations, one line each, into out (NUL-terminated, at most
 * out_len bytes); returns how many violations it found (0 = clean). */
size_t trace_check(json_t *trace, char *out, size_t out_len, size_t max);

#endif
