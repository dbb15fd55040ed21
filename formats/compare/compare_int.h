/*
 * compare_int.h - shared between the files that build the comparison
 * (compare.c, compare_diff.c); not part of the interface of compare.h.
 */
#ifndef CUPROF_COMPARE_INT_H
#define CUPROF_COMPARE_INT_H

#include <stddef.h>

#include "formats/compare/compare.h"

/* malloc'd printf; NULL when out of memory. */
char *cmp_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends one zeroed element of size sz to the array *v of *n elements
 * (growing it) and returns it; NULL when out of memory (*v, *n unchanged). */
void *cmp_push(void **v, size_t *n, size_t sz);

/* Fills c->names from c->runs. 0, or -1 when out of memory. */
int cmp_make_names(compare *c);
/* Fills c->presence from c->kernels (needs the rows built). 0 or -1. */
int cmp_build_presence(compare *c);
/* Fills c->epilogues by comparing every run's GEMM shapes with run 0. 0 or -1. */
int cmp_build_epilogues(compare *c);

#endif
