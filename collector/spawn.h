/*
 * spawn.h - the exit path's second half: cuprof-report, run on the run
 * file the process just completed, in a process of its own.
 */
#ifndef CUPROF_SPAWN_H
#define CUPROF_SPAWN_H

#include <stdint.h>

/* Runs `cuprof-report --at-exit RUNFILE` (the tool beside libcuprof.so)
 * without our preload and injection variables, its output on our stderr,
 * and waits for it. Returns its exit status, or -1 when it could not be
 * started (said in one "cuprof:" line: the run file stays for prof.sh
 * report). errno is kept. */
int cuprof_spawn_report(const char *runfile);

/* cuprof-report --window K RUNFILE: the outputs of repeating window K
 * (NAME.wK.*), waited for; nothing said when it cannot start. */
void cuprof_spawn_report_window(const char *runfile, uint64_t k);

#endif /* CUPROF_SPAWN_H */
