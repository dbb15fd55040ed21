/*
 * progress.h - a long report's progress on stderr (issue 40: a day-long
 * run's report takes minutes, at exit too, where the program seems to hang
 * without a word). cuprof-report says which stage it is in, the reading's
 * percent and the time so far:
 *
 *   cuprof: report of x.cuprof: reading the run file 34% (12 s)
 *   cuprof: report of x.cuprof: building the summary, writing the traces (1 min 05 s)
 *
 * CUPROF_REPORT_PROGRESS: unset, on one line rewritten in place, from one
 * second on, when stderr is a terminal (and nothing otherwise: a log gets no
 * carriage returns); "1": a line each time the stage changes (and each 25%
 * of the reading), from the start, terminal or not (for logs); "tty": the
 * terminal's form from the start (tests); "0": never. CUPROF_QUIET=1 at exit
 * silences it with the other messages. The line is cleared before the
 * report's own messages (cuprof_progress_hold) and at the end.
 *
 * One report at a time (cuprof-report reports its files one after another;
 * cuprof-export shows its own work the same way: cuprof_progress_start_work);
 * a thread of its own draws, reading only the counters below.
 */
#ifndef CUPROF_TOOLS_PROGRESS_H
#define CUPROF_TOOLS_PROGRESS_H

#include "formats/runfile/runfile_read.h"

enum cuprof_progress_stage {
    CUPROF_PROGRESS_READ,      /* the run file read (cuprof_rfread) */
    CUPROF_PROGRESS_JOIN,      /* names, GPU records joined to the calls */
    CUPROF_PROGRESS_SUMMARY,   /* the summary's rows */
    CUPROF_PROGRESS_TABLES,    /* the findings, the tables' files */
    CUPROF_PROGRESS_DONE
};

/* Starts showing the report of file (its base name is shown); quiet: say
 * nothing. Returns the counters to hand to cuprof_rfread_with. */
cuprof_rfread_progress *cuprof_progress_start(const char *file, int quiet);
/* The main thread's stage; the traces' thread: 1 building or writing, 0 not
 * (or done). */
void cuprof_progress_stage(enum cuprof_progress_stage s);
void cuprof_progress_traces(int busy);
/* Around a message of the report's own: the line is cleared, and not drawn
 * again until release. */
void cuprof_progress_hold(void);
void cuprof_progress_release(void);
/* Stops the display and clears its line. */
void cuprof_progress_end(void);

/* A tool's work other than a report's (cuprof-export): the same line,
 * "cuprof: LABEL 34% (12 s)", the percent from cuprof_progress_work's
 * counts; the same modes and variable. Ended by cuprof_progress_end. */
void cuprof_progress_start_work(const char *label, int quiet);
void cuprof_progress_work(uint64_t done, uint64_t total);

/* The line's text for a state, without "cuprof: " (for the thread and the
 * unit test): "report of NAME: STAGES" (and " PCT%" while reading). */
void cuprof_progress_text(char *buf, size_t n, const char *name, enum cuprof_progress_stage s,
                          int traces_busy, unsigned pct);
/* done of total as a percent, 0-99 (100 is for the caller to say: the work
 * is over; 0 while total is not known). */
unsigned cuprof_progress_percent(uint64_t done, uint64_t total);
/* "12 s", "3 min 05 s", "2 h 01 min". */
void cuprof_progress_elapsed(char *buf, size_t n, uint64_t ns);

#endif
