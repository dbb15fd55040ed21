/*
 * stacks_int.h - what stacks.c and stacks_slices.c share (not for the
 * writers: they read stacks.h).
 */
#ifndef CUPROF_STACKS_INT_H
#define CUPROF_STACKS_INT_H

#include "model/stacks.h"

/* Fills s->slices and s->nslices from run's threads (nothing when no
 * stack has a Python frame: s->python). 0, or -1 on out of memory. */
int cuprof_stacks_slices_build(cuprof_stacks *s, const cuprof_run *run);

#endif /* CUPROF_STACKS_INT_H */
