/*
 * findings_steps.c - the rules that read the steps (model/steps.h): what a
 * user asks of a training or inference loop, per step rather than per
 * process. Thresholds in findings_int.h.
 */
#include "model/findings_int.h"
#include "model/steps.h"

#include <stdint.h>
#include <stdio.h>

/* The range as the messages name it: "step", or "step@domain". */
static const char *range_label(char *b, size_t n, const cuprof_steps *st)
{
    snprintf(b, n, "\"%s%s%s\"", st->name, st->domain[0] ? "@" : "", st->domain);
    return b;
}

static void rule_cold(fctx *c, const cuprof_stat_step *row, const char *label)
{
    if (row->steps < STEP_COLD_MIN_STEPS || row->steady_median_ns == 0)
        return;
    double ratio = (double)row->first_ns / (double)row->steady_median_ns;
    if (ratio < STEP_COLD_RATIO || row->first_ns < row->steady_median_ns + STEP_COLD_MIN_EXTRA_NS)
        return;
    char t1[32], t2[32], x[32], adv[ADV_MAX];
    snprintf(adv, sizeof adv,
             "leave it out of measurements: prof.sh --capture-range nvtx:%.64s --skip-first 1 "
             "(torch.profiler: schedule(wait=1, warmup=1, active=N))", c->steps->name);
    cuprof_finding *f = cuprof_findings_add(
        c, "step-cold-start", "warning", adv,
        "the first step (%s) took %s, %s the median of the %llu steps after it (%s): it pays the "
        "first-call tax (module loading, library handles and heuristics, allocator growth)",
        label, cuprof_findings_fmt_ns(t1, sizeof t1, row->first_ns),
        cuprof_findings_fmt_x(x, sizeof x, ratio), (unsigned long long)(row->steps - 1),
        cuprof_findings_fmt_ns(t2, sizeof t2, row->steady_median_ns));
    cuprof_findings_num(f, "first_ns", (double)row->first_ns, 1);
    cuprof_findings_num(f, "steady_median_ns", (double)row->steady_median_ns, 1);
    cuprof_findings_num(f, "ratio", ratio, 0);
    cuprof_findings_num(f, "steps", (double)row->steps, 1);
}

static void rule_outlier(fctx *c, const cuprof_stat_step *row, const char *label)
{
    const cuprof_steps *st = c->steps;
    if (st->n < STEP_OUTLIER_MIN_STEPS + 1 || row->steady_median_ns == 0)
        return;
    size_t worst = 0, slow = 0;
    for (size_t i = 1; i < st->n; i++) {
        const cuprof_step *s = &st->s[i];
        if ((double)s->dur_ns >= STEP_OUTLIER_RATIO * (double)row->steady_median_ns &&
            s->dur_ns >= row->steady_median_ns + STEP_OUTLIER_MIN_EXTRA_NS) {
            slow++;
            if (!worst || s->dur_ns > st->s[worst].dur_ns)
                worst = i;
        }
    }
    if (!worst)
        return;
    const cuprof_step *w = &st->s[worst];
    char t1[32], t2[32], x[32];
    double ratio = (double)w->dur_ns / (double)row->steady_median_ns;
    cuprof_finding *f = cuprof_findings_add(
        c, "step-outlier", "warning",
        "open that step in the trace: a synchronization, an allocation, data loading or another "
        "process is usually what sets it apart",
        "%llu of the %llu steps after the first (%s) ran long; the slowest, step %llu, took %s, "
        "%s their median (%s)",
        (unsigned long long)slow, (unsigned long long)(st->n - 1), label,
        (unsigned long long)w->index, cuprof_findings_fmt_ns(t1, sizeof t1, w->dur_ns),
        cuprof_findings_fmt_x(x, sizeof x, ratio),
        cuprof_findings_fmt_ns(t2, sizeof t2, row->steady_median_ns));
    cuprof_findings_num(f, "step", (double)w->index, 1);
    cuprof_findings_num(f, "dur_ns", (double)w->dur_ns, 1);
    cuprof_findings_num(f, "steady_median_ns", (double)row->steady_median_ns, 1);
    cuprof_findings_num(f, "slow_steps", (double)slow, 1);
}

static void rule_busy(fctx *c, const cuprof_stat_step *row, const char *label)
{
    if (!c->g || row->steps < 2)
        return;
    char p[32], t[32];
    cuprof_finding *f = NULL;
    if (row->busy_median < STEP_HOST_BOUND_BUSY)
        f = cuprof_findings_add(
            c, "step-host-bound", "warning",
            "the step's CPU side sets its pace: fewer and larger launches (fusion), no "
            "synchronization inside the step, CUDA graphs for a fixed sequence",
            "the GPU was busy %s of the median step (%s, %s): the GPU waits for the host",
            cuprof_findings_fmt_pct(p, sizeof p, row->busy_median), label,
            cuprof_findings_fmt_ns(t, sizeof t, row->median_ns));
    else if (row->busy_median >= STEP_GPU_BOUND_BUSY)
        f = cuprof_findings_add(
            c, "step-gpu-bound", "info",
            "the kernels set the step's pace: look at the largest in the Kernels table (shape, "
            "dtype, algorithm)",
            "the GPU was busy %s of the median step (%s, %s): the step is GPU-bound",
            cuprof_findings_fmt_pct(p, sizeof p, row->busy_median), label,
            cuprof_findings_fmt_ns(t, sizeof t, row->median_ns));
    cuprof_findings_num(f, "busy_median", row->busy_median, 0);
    cuprof_findings_num(f, "median_ns", (double)row->median_ns, 1);
    cuprof_findings_num(f, "steps", (double)row->steps, 1);
}

void cuprof_findings_rule_steps(fctx *c)
{
    if (!c->steps || c->s->nsteps == 0)
        return;
    char label[300];
    range_label(label, sizeof label, c->steps);
    const cuprof_stat_step *row = &c->s->steps[0];
    rule_busy(c, row, label);
    rule_cold(c, row, label);
    rule_outlier(c, row, label);
}
