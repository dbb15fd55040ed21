/*
 * test_model.h - the model built from a hand-filled run, for the unit tests
 * of the model and the writers. Many tests were written against the summary
 * alone; test_summary_build gives that summary, from a whole model (names,
 * timeline, summary) that test_model_of finds again for the writers and
 * test_summary_destroy releases. Kernel names are demangled with libstdc++'s
 * __cxa_demangle, as the library does at exit (-lstdc++).
 */
#ifndef CUPROF_TEST_MODEL_H
#define CUPROF_TEST_MODEL_H

#include "model/model.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status);

static inline char *test_demangle(const char *name)
{
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return NULL;
}

#define TEST_MAX_MODELS 64
static cuprof_model *test_models[TEST_MAX_MODELS];

static inline cuprof_summary *test_summary_build(const cuprof_run *run)
{
    cuprof_model *m = cuprof_model_build(run, test_demangle);
    if (!m)
        return NULL;
    for (size_t i = 0; i < TEST_MAX_MODELS; i++)
        if (!test_models[i]) {
            test_models[i] = m;
            return m->summary;
        }
    ck_abort_msg("more than %d models alive in one test", TEST_MAX_MODELS);
    return NULL;
}

static inline const cuprof_model *test_model_of(const cuprof_summary *s)
{
    for (size_t i = 0; i < TEST_MAX_MODELS; i++)
        if (test_models[i] && test_models[i]->summary == s)
            return test_models[i];
    ck_abort_msg("summary not built by test_summary_build");
    return NULL;
}

static inline void test_summary_destroy(cuprof_summary *s)
{
    for (size_t i = 0; s && i < TEST_MAX_MODELS; i++)
        if (test_models[i] && test_models[i]->summary == s) {
            cuprof_model_destroy(test_models[i]);
            test_models[i] = NULL;
        }
}

#endif /* CUPROF_TEST_MODEL_H */
