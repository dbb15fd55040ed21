/*
 * findings_errors.c - calls that failed (issue 33): a run where every CUDA
 * call failed says so and why, and each error code of a run where some calls
 * failed is a finding with its first failing call and its time.
 *
 * Read from the hooked calls' results (cudaError_t for the runtime, CUresult
 * for the driver, cublasStatus_t for cuBLAS/cuBLASLt); a call only CUPTI saw
 * is not counted here (on a machine without a driver CUPTI records nothing).
 */
#include "model/findings_int.h"

#include <stdio.h>
#include <string.h>

/* The runtime's and the driver's codes that say "no usable GPU here", with
 * what to do; others get their name and a generic word. */
static const struct {
    int code;
    const char *name, *advice;
} cuda_errors[] = {
    {1, "cudaErrorInvalidValue", "check the arguments of the calls named"},
    {2, "cudaErrorMemoryAllocation", "the device is out of memory: see \"Device memory\""},
    {3, "cudaErrorInitializationError",
     "the driver could not start: nvidia-smi and the kernel log (dmesg) say why"},
    {34, "cudaErrorStubLibrary",
     "the program loaded the toolkit's stub libcuda.so (lib64/stubs) instead of the driver's: "
     "take the stubs folder off LD_LIBRARY_PATH"},
    {35, "cudaErrorInsufficientDriver",
     "no NVIDIA driver is loaded, or it is older than the CUDA runtime the program uses: "
     "install or update the driver (nvidia-smi shows its version and the newest CUDA it "
     "supports), or run where a GPU is"},
    {46, "cudaErrorDevicesUnavailable",
     "the GPU is in exclusive-process mode and another process holds it, or it is unavailable "
     "(nvidia-smi -q shows the compute mode)"},
    {98, "cudaErrorInvalidDeviceFunction", "the kernel was not built for this GPU: add its "
                                           "architecture to nvcc's -gencode"},
    {100, "cudaErrorNoDevice",
     "no CUDA device is visible: CUDA_VISIBLE_DEVICES empty or wrong hides every device, and a "
     "container needs GPU access (--gpus); nvidia-smi lists what the driver sees"},
    {101, "cudaErrorInvalidDevice", "the device number asked for does not exist here"},
    {209, "cudaErrorNoKernelImageForDevice", "the program has no code for this GPU's "
                                             "architecture: rebuild with its -gencode"},
    {222, "cudaErrorUnsupportedPtxVersion", "the driver is older than the compiler that built "
                                            "the PTX: update the driver"},
    {700, "cudaErrorIllegalAddress", "a kernel read or wrote out of bounds (compute-sanitizer "
                                     "finds it); every later call fails with it"},
    {803, "cudaErrorSystemDriverMismatch", "the driver's user-space and kernel parts differ: "
                                           "reinstall the driver or reboot"},
    {804, "cudaErrorCompatNotSupportedOnDevice", "the forward-compatibility package does not "
                                                 "support this GPU"},
    {999, "cudaErrorUnknown", "nvidia-smi and the kernel log (dmesg) may say more"},
};

static int cuda_error_ix(int code)
{
    for (size_t i = 0; i < sizeof cuda_errors / sizeof cuda_errors[0]; i++)
        if (cuda_errors[i].code == code)
            return (int)i;
    return -1;
}

#define MAX_CODES 8
#define MAX_APIS 4

typedef struct {
    int family;                 /* 0: CUDA runtime/driver, 1: cuBLAS, 2-5: cuFFT, cuRAND,
                                   cuSPARSE, cuSOLVER (family_names) */
    int code;
    uint64_t calls, launches, first_t;
    const char *first_api;
    const char *apis[MAX_APIS];
    size_t napis;
} code_tally;

/* How a status of each family is named ("cuBLAS status 7"): 0 has CUDA's
 * error names. */
static const char *const family_names[] = {"error", "cuBLAS status", "cuFFT status", "cuRAND status",
                                           "cuSPARSE status", "cuSOLVER status"};

static int family_of(const char *cat)
{
    static const char *const math[] = {"cufft", "curand", "cusparse", "cusolver"};
    if (!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver"))
        return 0;
    if (!strcmp(cat, "cublas") || !strcmp(cat, "cublaslt"))
        return 1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(cat, math[i]))
            return 2 + i;
    return -1;
}

static void add_api(code_tally *t, const char *api)
{
    for (size_t i = 0; i < t->napis; i++)
        if (!strcmp(t->apis[i], api))
            return;
    if (t->napis < MAX_APIS)
        t->apis[t->napis++] = api;
}

static void name_of(char *b, size_t n, const code_tally *t)
{
    int ix = t->family == 0 ? cuda_error_ix(t->code) : -1;
    if (ix >= 0)
        snprintf(b, n, "%d (%s)", t->code, cuda_errors[ix].name);
    else
        snprintf(b, n, "%s %d", family_names[t->family], t->code);
}

static void list_apis(char *b, size_t n, const code_tally *t)
{
    size_t o = 0;
    b[0] = '\0';
    for (size_t i = 0; i < t->napis && o < n; i++)
        o += (size_t)snprintf(b + o, n - o, "%s%s", i ? ", " : "", t->apis[i]);
}

/* 1 when every CUDA call failed (the other rules then have nothing to say). */
int cuprof_findings_rule_errors(fctx *c)
{
    code_tally tally[MAX_CODES];
    size_t ncodes = 0;
    uint64_t cuda_calls = 0, cuda_failed = 0, launches = 0, failed_launches = 0;
    uint16_t last_api = UINT16_MAX;   /* a run's calls repeat their API: its family once */
    int last_fam = -1;
    /* no recorded call failed: nothing to say (a pass over every call saved) */
    for (size_t t = 0; c->s->events_failed && t < c->run->nthreads; t++) {
        const cuprof_run_thread *th = &c->run->threads[t];
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            if (e->cls == CUPROF_EV_RANGE_PUSH || e->cls == CUPROF_EV_RANGE_POP ||
                e->cls == CUPROF_EV_RANGE_START || e->cls == CUPROF_EV_RANGE_END || e->cls == CUPROF_EV_MARK)
                continue;
            if (e->api != last_api || last_api == UINT16_MAX)
                last_api = e->api, last_fam = family_of(cuprof_run_api_category(c->run, e->api));
            int fam = last_fam;
            if (fam < 0)
                continue;
            int launch = e->cls == CUPROF_EV_LAUNCH;
            if (fam == 0) {
                cuda_calls++;
                launches += launch;
            }
            if (e->result == 0)
                continue;
            if (fam == 0) {
                cuda_failed++;
                failed_launches += launch;
            }
            size_t k = 0;
            while (k < ncodes && (tally[k].family != fam || tally[k].code != e->result))
                k++;
            if (k == ncodes) {
                if (ncodes == MAX_CODES)
                    continue;
                memset(&tally[k], 0, sizeof tally[k]);
                tally[k].family = fam;
                tally[k].code = e->result;
                tally[k].first_t = UINT64_MAX;
                ncodes++;
            }
            code_tally *ct = &tally[k];
            const char *api = cuprof_run_api_name(c->run, e->api);
            ct->calls++;
            ct->launches += launch;
            add_api(ct, api);
            if (e->t0 < ct->first_t) {
                ct->first_t = e->t0;
                ct->first_api = api;
            }
        }
    }
    if (ncodes == 0)
        return 0;
    char nm[96], apis[320], at[32], adv[640];
    if (cuda_calls > 0 && cuda_failed == cuda_calls) {
        /* the most frequent code names the cause */
        size_t top = 0;
        for (size_t k = 1; k < ncodes; k++)
            if (tally[k].family == 0 && (tally[top].family != 0 || tally[k].calls > tally[top].calls))
                top = k;
        const code_tally *t = &tally[top];
        name_of(nm, sizeof nm, t);
        list_apis(apis, sizeof apis, t);
        int ix = cuda_error_ix(t->code);
        char launched[160] = "";
        if (launches)
            snprintf(launched, sizeof launched, "; its %llu kernel launch%s ran nothing",
                     (unsigned long long)launches, launches == 1 ? "" : "es");
        snprintf(adv, sizeof adv, "%s", ix >= 0 ? cuda_errors[ix].advice
                                               : "check the driver and the device (nvidia-smi)");
        cuprof_finding *f = cuprof_findings_add(
            c, "all-calls-failed", "warning", adv,
            "every one of the %llu CUDA calls failed: %llu returned %s (%s%s)%s, so the tables "
            "hold no GPU work", (unsigned long long)cuda_calls, (unsigned long long)t->calls, nm,
            apis, t->napis == MAX_APIS ? ", ..." : "", launched);
        cuprof_findings_num(f, "calls", (double)cuda_calls, 1);
        cuprof_findings_num(f, "failed", (double)cuda_failed, 1);
        cuprof_findings_num(f, "error", (double)t->code, 1);
        cuprof_findings_num(f, "failed_launches", (double)failed_launches, 1);
        return 1;
    }
    for (size_t k = 0; k < ncodes; k++) {
        const code_tally *t = &tally[k];
        name_of(nm, sizeof nm, t);
        list_apis(apis, sizeof apis, t);
        int ix = t->family == 0 ? cuda_error_ix(t->code) : -1;
        cuprof_findings_fmt_ns(at, sizeof at, t->first_t > c->run->t_start ? t->first_t - c->run->t_start : 0);
        char launched[96] = "";
        if (t->launches)
            snprintf(launched, sizeof launched, " (%llu kernel launch%s that ran nothing)",
                     (unsigned long long)t->launches, t->launches == 1 ? "" : "es");
        cuprof_finding *f = cuprof_findings_add(
            c, "call-failed", "warning",
            ix >= 0 ? cuda_errors[ix].advice : "check the arguments and the state before the call",
            "%llu call%s returned %s%s: %s%s; the first, %s, %s after the start",
            (unsigned long long)t->calls, t->calls == 1 ? "" : "s", nm, launched, apis,
            t->napis == MAX_APIS ? ", ..." : "", t->first_api, at);
        cuprof_findings_num(f, "calls", (double)t->calls, 1);
        cuprof_findings_num(f, "error", (double)t->code, 1);
        cuprof_findings_num(f, "first_ns", (double)(t->first_t - c->run->t_start), 1);
    }
    return 0;
}
