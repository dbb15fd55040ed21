/*
 * runfile_back.h - for the collector's tests: what the process recorded so
 * far, read back the way cuprof-report reads it (the run file completed
 * now, then read with formats/runfile/).
 */
#ifndef CUPROF_TEST_RUNFILE_BACK_H
#define CUPROF_TEST_RUNFILE_BACK_H

#include "model/gpu.h"
#include "model/run.h"

/* Completes the run file (the threads' chunks being filled, the tables,
 * the metadata; GPU_INFO too) and reads it back. NULL if it cannot. */
cuprof_run *test_run_read_back(void);
void test_run_free(cuprof_run *run);
/* Whether the run file at path, read streamed (formats/runfile/stream.c:
 * blocks of 64 calls, the fewest kept, each freed when put out), holds what
 * run (read with every call decoded) holds: the threads, their counts and
 * every call, read forward, backward and by strides. 0 when it does, else
 * -1 with the first difference in why. test_run_read_back checks it of
 * every run it reads. */
int test_run_streams_alike(const char *path, const cuprof_run *run, char *why, size_t n);
/* The GPU side of the run file as read back now (owned here, valid until
 * the next call). */
const cuprof_gpu_run *test_gpu_read_back(void);

#endif
