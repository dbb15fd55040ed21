/*
 * runfile_back.c - the collector's state read back through the run file
 * (runfile_back.h).
 */
#include "tests/unit/runfile_back.h"
#include "collector/cupti.h"
#include "collector/internal.h"
#include "collector/snapshot.h"
#include "formats/runfile/runfile_read.h"

#include <stdio.h>

cuprof_run *test_run_read_back(void)
{
    cuprof_snapshot_info in = {.ended_by = "exit", .name = "test"};
    cuprof_runfile_ensure();
    (void)cuprof_cupti_write_info();
    (void)cuprof_snapshot_write(&in);
    cuprof_rfread_info info;
    char err[512];
    cuprof_run *run = cuprof_rfread(cuprof_runfile_path(), &info, err, sizeof err);
    if (!run)
        fprintf(stderr, "test_run_read_back: %s\n", err);
    cuprof_runfile_resume();   /* the run goes on (as after a failed exec) */
    return run;
}

void test_run_free(cuprof_run *run)
{
    cuprof_rfread_free(run);
}

const cuprof_gpu_run *test_gpu_read_back(void)
{
    static cuprof_run *last;
    cuprof_rfread_free(last);
    cuprof_runfile_ensure();
    (void)cuprof_cupti_write_info();
    cuprof_rfread_info info;
    char err[512];
    last = cuprof_rfread(cuprof_runfile_path(), &info, err, sizeof err);
    if (!last) {
        fprintf(stderr, "test_gpu_read_back: %s\n", err);
        static cuprof_gpu_run none = {.status = "(run file unreadable)"};
        return &none;
    }
    return cuprof_rfread_gpu(last);
}
