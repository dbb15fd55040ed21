/*
 * harness.h - helpers for end-to-end tests: run a program with extra
 * environment, capture what it prints, read the files it wrote.
 *
 * Paths: CUPROF_TOP (the checkout) and CUPROF_BUILD (its build/) are set by
 * tests/run.sh; when a test binary is run by hand they default to "." and
 * "./build".
 */
#ifndef CUPROF_HARNESS_H
#define CUPROF_HARNESS_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct e2e_result {
    int status;      /* exit status, or 128+signal when killed */
    char *out;       /* everything written to stdout (NUL-terminated, owned) */
    char *err;       /* everything written to stderr */
} e2e_result;

/* Top of the checkout and the build folder (never NULL). */
const char *e2e_top(void);
const char *e2e_build(void);
/* Path under the top / build folder; returns a static rotating buffer (8 slots). */
const char *e2e_path(const char *rel);
const char *e2e_bpath(const char *rel);

/* In a forked child, before it execs what a test starts: every signal's
 * disposition back to SIG_DFL and none blocked. A test run under nohup or
 * as a script's background job inherits SIGHUP, SIGINT and SIGQUIT ignored,
 * and an ignored signal stays ignored across exec: the program would then
 * rightly live on where the test expects it to end. */
void e2e_child_signals_default(void);

/* Runs argv[0] (a path) with argv, adding env entries "K=V" (NULL-terminated
 * list, may be NULL) to the current environment, in cwd (NULL = current),
 * with the default signal dispositions (e2e_child_signals_default).
 * Waits at most timeout_s seconds (then kills it, status 137). */
e2e_result e2e_run(const char *const argv[], const char *const env[], const char *cwd,
                   int timeout_s);
void e2e_result_free(e2e_result *r);

/* Environment entry that puts the simulated device first on the library
 * path: "LD_LIBRARY_PATH=<build>/sim". Static storage. */
const char *e2e_sim_env(void);

/* A CPython 3.minor to test with: $CUPROF_TEST_PYTHON3_<minor> when set,
 * else the newest python3 of $PYENV_ROOT/versions/3.<minor>.N (PYENV_ROOT:
 * ~/.pyenv by default), else python3.<minor> on PATH; it must say it is
 * 3.minor. Its path (static rotating storage, 4 slots), or NULL with why
 * it is absent in why[0..cap). */
const char *e2e_python(int minor, char *why, size_t cap);
/* Its include directory (sysconfig's "include") in out, 0; -1 on failure. */
int e2e_python_include(const char *python, char *out, size_t cap);

/* A fresh empty temporary directory (mkdtemp under $TMPDIR or /tmp); owned. */
char *e2e_tmpdir(void);
/* Removes a directory tree made by e2e_tmpdir. */
void e2e_rmtree(const char *dir);
/* Whole file as a NUL-terminated string, or NULL; *len gets its size. */
char *e2e_read_file(const char *path, size_t *len);
/* Parses a JSON file; NULL (and a message on stderr) if it is not valid. */
json_t *e2e_load_json(const char *path);
/* Copies the files of job name's ranks 0..nranks-1 (NAME.rankR.summary.json
 * and .trace.json) from src to dst, ranks from nranks / 2 on as if on host
 * "b" whose CLOCK_REALTIME is 3 s ahead (their monotonic clock is the same
 * one really: the right offset for prof.sh merge is 0). 0, or -1 when a
 * file could not be read or written. */
int e2e_as_two_hosts(const char *src, const char *name, int nranks, const char *dst);
/* A JSON object's string field ("" when absent) and integer field (0). */
const char *e2e_str(json_t *o, const char *key);
long long e2e_int(json_t *o, const char *key);
/* Number of times needle occurs in hay. */
int e2e_count(const char *hay, const char *needle);

/* One profiled run and its outputs, parsed (NULL where a file is missing
 * or not valid). */
typedef struct e2e_prof {
    char *dir;       /* the output folder (-o), removed by e2e_prof_free */
    e2e_result r;    /* prof.sh's exit status and output */
    json_t *trace, *sum;
    char *txt;
} e2e_prof;

/* ./prof.sh -o DIR -n x PROG ARGS... (argv: PROG and its arguments,
 * NULL-terminated), with the simulated device first on the library path when
 * sim, plus env entries (NULL-terminated, may be NULL); at most timeout_s
 * seconds. Reads DIR/x.trace.json, x.summary.json and x.summary.txt. */
e2e_prof e2e_profile(int sim, const char *const argv[], const char *const env[], int timeout_s);
void e2e_prof_free(e2e_prof *p);

/* Each device record of a trace.json (kernel, copy, memset) as
 * "cat|name|External id", sorted: which call caused what. *n gets the
 * count; free with e2e_strv_free. */
char **e2e_device_causes(json_t *trace, size_t *n);
void e2e_strv_free(char **v, size_t n);

/* The pid of pid's child (its first) when its name starts with comm, else
 * 0 (prof.sh's cuprof-run runs the program as its child; before it,
 * prof.sh's own subshells come and go). */
pid_t e2e_child_named(pid_t pid, const char *comm);
/* prof.sh ARGS... (argv after "prof.sh", NULL-ended) started in the
 * background on the sim, env entries "K=V" added (may be NULL), stdout and
 * stderr into the file log (NULL: /dev/null), the default signal
 * dispositions; waits (10 s at most) for its program, named comm, to be its
 * child (or itself: CUPROF_SUPERVISE=0): *prog gets its pid (0 when it
 * never came). Returns prof.sh's pid,
 * -1 when it cannot be started. */
pid_t e2e_start_profsh(const char *const args[], const char *const env[], const char *comm,
                       const char *log, pid_t *prog);

#endif
