/* compare_diff.c - what tells the runs apart: their names (program plus the
 * arguments that differ) and the differences said in plain words (kernels
 * missing from some runs, GEMM epilogue changes). See compare.h. */
#include "formats/compare/compare.h"
#include "formats/compare/compare_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- run names: the program plus the arguments that tell runs apart ---- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* First argument that is not the program itself (argv may carry argv[0]). */
static size_t first_arg(const summary *s)
{
    if (s->argc && strcmp(base_name(s->argv[0]), base_name(s->program)) == 0)
        return 1;
    return 0;
}

static bool has_token(const summary *s, const char *tok)
{
    for (size_t i = first_arg(s); i < s->argc; i++)
        if (strcmp(s->argv[i], tok) == 0)
            return true;
    return false;
}

/* Whether argument i of run r differs from the other runs: position by
 * position when all runs have as many arguments, otherwise by presence. */
static bool distinguishing(const compare *c, size_t r, size_t i, bool positional)
{
    const summary *s = c->runs[r];
    for (size_t o = 0; o < c->n_runs; o++) {
        const summary *t = c->runs[o];
        if (o == r)
            continue;
        if (positional) {
            size_t j = i - first_arg(s) + first_arg(t);
            if (strcmp(t->argv[j], s->argv[i]) != 0)
                return true;
        } else if (!has_token(t, s->argv[i])) {
            return true;
        }
    }
    return false;
}

static bool is_flag(const char *a)
{
    return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.';
}

int cmp_make_names(compare *c)
{
    bool positional = true;
    size_t n0 = c->runs[0]->argc - first_arg(c->runs[0]);
    for (size_t r = 1; r < c->n_runs; r++)
        if (c->runs[r]->argc - first_arg(c->runs[r]) != n0)
            positional = false;
    for (size_t r = 0; r < c->n_runs; r++) {
        const summary *s = c->runs[r];
        char buf[96];
        size_t used = (size_t)snprintf(buf, sizeof buf, "%s", base_name(s->program));
        if (used >= sizeof buf)
            used = sizeof buf - 1;
        size_t f = first_arg(s);
        for (size_t i = f; i < s->argc && used < sizeof buf - 1; i++) {
            bool show = distinguishing(c, r, i, positional);
            /* Keep the option a differing value belongs to: "--mode eager". */
            if (!show && i + 1 < s->argc && is_flag(s->argv[i]) && !is_flag(s->argv[i + 1]))
                show = distinguishing(c, r, i + 1, positional);
            if (show) {
                int w = snprintf(buf + used, sizeof buf - used, " %s", s->argv[i]);
                used += w > 0 ? (size_t)w : 0;
            }
        }
        if (used >= sizeof buf - 1)
            strcpy(buf + sizeof buf - 4, "...");
        if (!(c->names[r] = strdup(buf)))
            return -1;
    }
    /* Identical names (same command twice): the pid tells them apart. */
    bool dup[CMP_MAX_RUNS] = {0};
    for (size_t r = 0; r < c->n_runs; r++)
        for (size_t o = 0; o < c->n_runs; o++)
            dup[r] |= o != r && strcmp(c->names[o], c->names[r]) == 0;
    for (size_t r = 0; r < c->n_runs; r++) {
        if (!dup[r])
            continue;
        char *n = cmp_asprintf("%s (pid %lld)", c->names[r], (long long)c->runs[r]->pid);
        if (!n)
            return -1;
        free(c->names[r]);
        c->names[r] = n;
    }
    return 0;
}

/* ---- differences in plain words ---- */

int cmp_build_presence(compare *c)
{
    uint32_t all = (uint32_t)((1ull << c->n_runs) - 1);
    for (size_t i = 0; i < c->n_kernels; i++) {
        const cmp_kernel_row *k = &c->kernels[i];
        if (k->launches.has == all)
            continue;
        cmp_presence *p = cmp_push((void **)&c->presence, &c->n_presence, sizeof *p);
        if (!p)
            return -1;
        p->name = k->name;
        p->in = k->launches.has;
        memcpy(p->launches, k->launches.v, sizeof p->launches);
    }
    return 0;
}

/* "DEFAULT" and friends: a GEMM with no fused epilogue. */
static bool plain_epilogue(const char *e)
{
    return !e[0] || strcasecmp(e, "DEFAULT") == 0 || strcasecmp(e, "NONE") == 0 ||
           strcmp(e, "-") == 0;
}

/* Epilogue names run r used for a shape (all shapes when all), de-duplicated,
 * into v (at most cap). */
static size_t epilogues_of(const summary *s, bool all, int64_t m, int64_t n, int64_t k,
                           int64_t batch, const char **v, size_t cap)
{
    size_t cnt = 0;
    for (size_t i = 0; i < s->n_blas; i++)
        for (size_t j = 0; j < s->blas[i].nshapes; j++) {
            const cuprof_stat_shape *sh = &s->blas[i].shapes[j];
            if (!all && (sh->m != m || sh->n != n || sh->k != k || sh->batch != batch))
                continue;
            bool seen = false;
            for (size_t x = 0; x < cnt; x++)
                seen |= strcmp(v[x], sh->epilogue) == 0;
            if (!seen && cnt < cap)
                v[cnt++] = sh->epilogue;
        }
    return cnt;
}

static bool contains(const char *const *v, size_t n, const char *e)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], e) == 0)
            return true;
    return false;
}

/* Joins names with ", "; "" shows as DEFAULT. Owned result. */
static char *join(const char *const *v, size_t n, const char *const *skip, size_t nskip,
                  bool plain_too)
{
    char buf[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if ((skip && contains(skip, nskip, v[i])) || (!plain_too && plain_epilogue(v[i])))
            continue;
        int w = snprintf(buf + used, sizeof buf - used, "%s%s", used ? ", " : "",
                         v[i][0] ? v[i] : "DEFAULT");
        used += w > 0 ? (size_t)w : 0;
        if (used >= sizeof buf) {
            used = sizeof buf - 1;
            break;
        }
    }
    return strdup(buf);
}

/* Compares the epilogues of one GEMM shape (or of all GEMMs) in run r with run 0. */
static int epilogue_diff(compare *c, size_t r, bool all, int64_t m, int64_t n, int64_t k,
                         int64_t batch)
{
    const char *ea[32], *ex[32];
    size_t na = epilogues_of(c->runs[0], all, m, n, k, batch, ea, 32);
    size_t nx = epilogues_of(c->runs[r], all, m, n, k, batch, ex, 32);
    char *added = join(ex, nx, ea, na, false), *removed = join(ea, na, ex, nx, false);
    int rc = -1;
    if (!added || !removed)
        goto out;
    rc = 0;
    if (!added[0] && !removed[0])
        goto out;
    cmp_epilogue_change *e = cmp_push((void **)&c->epilogues, &c->n_epilogues, sizeof *e);
    if (!e) {
        rc = -1;
        goto out;
    }
    e->run = r, e->all_gemms = all, e->m = m, e->n = n, e->k = k, e->batch = batch;
    e->from = join(ea, na, NULL, 0, true);
    e->to = join(ex, nx, NULL, 0, true);
    char what[96];
    if (all)
        snprintf(what, sizeof what, "the GEMMs");
    else if (batch > 1)
        snprintf(what, sizeof what, "the GEMM %lldx%lldx%lld (batch %lld)", (long long)m,
                 (long long)n, (long long)k, (long long)batch);
    else
        snprintf(what, sizeof what, "the GEMM %lldx%lldx%lld", (long long)m, (long long)n,
                 (long long)k);
    if (e->from && e->to)
        e->sentence = added[0]
            ? cmp_asprintf("%c: %s now use%s the %s epilogue (%c: %s)", compare_letter(r), what,
                        all ? "" : "s", added, compare_letter(0), e->from)
            : cmp_asprintf("%c: %s no longer use%s the %s epilogue (%c: %s)", compare_letter(r),
                        what, all ? "" : "s", removed, compare_letter(r), e->to);
    if (!e->from || !e->to || !e->sentence)
        rc = -1;
out:
    free(added);
    free(removed);
    return rc;
}

static bool shape_in(const summary *s, const cuprof_stat_shape *x)
{
    for (size_t i = 0; i < s->n_blas; i++)
        for (size_t j = 0; j < s->blas[i].nshapes; j++) {
            const cuprof_stat_shape *sh = &s->blas[i].shapes[j];
            if (sh->m == x->m && sh->n == x->n && sh->k == x->k && sh->batch == x->batch)
                return true;
        }
    return false;
}

static bool has_shapes(const summary *s)
{
    for (size_t i = 0; i < s->n_blas; i++)
        if (s->blas[i].nshapes)
            return true;
    return false;
}

int cmp_build_epilogues(compare *c)
{
    const summary *a = c->runs[0];
    for (size_t r = 1; r < c->n_runs; r++) {
        bool common = false;
        for (size_t i = 0; i < a->n_blas; i++)
            for (size_t j = 0; j < a->blas[i].nshapes; j++) {
                const cuprof_stat_shape *sh = &a->blas[i].shapes[j];
                if (!shape_in(c->runs[r], sh))
                    continue;
                /* Each shape once: skip it if an earlier entry had it. */
                bool earlier = false;
                for (size_t i2 = 0; i2 <= i && !earlier; i2++)
                    for (size_t j2 = 0; j2 < (i2 == i ? j : a->blas[i2].nshapes); j2++) {
                        const cuprof_stat_shape *o = &a->blas[i2].shapes[j2];
                        earlier |= o->m == sh->m && o->n == sh->n && o->k == sh->k &&
                                   o->batch == sh->batch;
                    }
                common = true;
                if (!earlier && epilogue_diff(c, r, false, sh->m, sh->n, sh->k, sh->batch))
                    return -1;
            }
        if (!common && has_shapes(a) && has_shapes(c->runs[r]) &&
            epilogue_diff(c, r, true, 0, 0, 0, 0))
            return -1;
    }
    return 0;
}

