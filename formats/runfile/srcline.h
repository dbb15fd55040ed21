/*
 * srcline.h - file:line for a run's native frames, from DWARF through
 * elfutils' libdw, in cuprof-report (never in the profiled process: the
 * process records each object's path, load bias and build id, and the
 * reader resolves, as perf report does from perf.data's build ids).
 *
 * Each native frame whose object is in run->modules and whose file (or its
 * separate debug file: /usr/lib/debug/.build-id/xx/yyyy.debug, a
 * .gnu_debuglink) has DWARF gets the file and line of its call (pc - 1,
 * less the object's load bias). Calls inlined there become frames of their
 * own, innermost first, each with its line, the function itself last with
 * the line it called the outermost inline from (addr2line -i). A file whose
 * build id is not the recorded one, or with no debug information, leaves
 * its frames function + object. Python frames (python = 1) are left as
 * they are. Never the network: DEBUGINFOD_URLS is removed from the
 * environment of the process that resolves (cuprof-report).
 */
#ifndef CUPROF_SRCLINE_H
#define CUPROF_SRCLINE_H

#include "model/run.h"

typedef struct cuprof_srclines cuprof_srclines;

/* Resolves run's frames in place: run->frames, nframes and stacks may be
 * replaced by arrays the returned handle owns (the old ones stay the
 * caller's). NULL when there was nothing to resolve or no memory (the run
 * is then unchanged). */
cuprof_srclines *cuprof_srclines_resolve(cuprof_run *run);
void cuprof_srclines_free(cuprof_srclines *s);

#endif /* CUPROF_SRCLINE_H */
