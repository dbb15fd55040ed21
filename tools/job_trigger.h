/*
 * job_trigger.h - prof.sh trigger --job DIR (cuprof-report --trigger --job):
 * one request to every process of a job that writes into DIR and was
 * started with --standby, so that each rank records the same steps.
 * The protocol's files: collector/job.c.
 */
#ifndef CUPROF_TOOLS_JOB_TRIGGER_H
#define CUPROF_TOOLS_JOB_TRIGGER_H

/* request: "steps=N" or "duration_ns=T"; range: the NVTX step range to
 * count by, NULL for the ranks' own (ProfilerStep, or their --step-range).
 * Asks each process which step it is in, chooses the first step K that no
 * rank can have begun by the time the request reaches it, arms every rank
 * for it, and writes DIR/.cuprof-job-last (which prof.sh merge reads: the
 * window each rank will write, and the ranks that missed it). Lines go to
 * stderr, each "cuprof: trigger: ...". Returns 0 when at least one rank
 * was armed, 1 when none, 2 for a usage error. */
int job_trigger(const char *dir, const char *request, const char *range);

#endif /* CUPROF_TOOLS_JOB_TRIGGER_H */
