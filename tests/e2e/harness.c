/* harness.c - see harness.h. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *e2e_top(void)
{
    const char *t = getenv("CUPROF_TOP");
    return t && *t ? t : ".";
}

const char *e2e_build(void)
{
    const char *b = getenv("CUPROF_BUILD");
    return b && *b ? b : "./build";
}

static const char *join(const char *a, const char *b)
{
    static char slots[8][4096];
    static int next;
    char *s = slots[next++ & 7];
    snprintf(s, sizeof slots[0], "%s/%s", a, b);
    return s;
}

const char *e2e_path(const char *rel) { return join(e2e_top(), rel); }
const char *e2e_bpath(const char *rel) { return join(e2e_build(), rel); }

const char *e2e_sim_env(void)
{
    static char buf[4200];
    snprintf(buf, sizeof buf, "LD_LIBRARY_PATH=%s/sim", e2e_build());
    return buf;
}

/* Appends what fd has to *buf (growing it); returns 0 at EOF. */
static int drain(int fd, char **buf, size_t *len, size_t *cap)
{
    char tmp[65536];
    ssize_t n = read(fd, tmp, sizeof tmp);
    if (n <= 0)
        return n < 0 && errno == EINTR;
    if (*len + (size_t)n + 1 > *cap) {
        while (*len + (size_t)n + 1 > *cap)
            *cap = *cap ? *cap * 2 : 65536;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *len, tmp, (size_t)n);
    *len += (size_t)n;
    (*buf)[*len] = 0;
    return 1;
}

void e2e_child_signals_default(void)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);   /* (fails harmlessly for the numbers that are not signals) */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

e2e_result e2e_run(const char *const argv[], const char *const env[], const char *cwd,
                   int timeout_s)
{
    e2e_result r = {.status = -1};
    int po[2], pe[2];
    if (pipe(po) || pipe(pe))
        return r;
    pid_t pid = fork();
    if (pid == 0) {
        e2e_child_signals_default();
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        for (size_t i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t ol = 0, oc = 0, el = 0, ec = 0;
    r.out = calloc(1, 1);
    r.err = calloc(1, 1);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    time_t deadline = time(NULL) + timeout_s;
    int killed = 0;
    while (open_fds > 0) {
        int left = (int)(deadline - time(NULL));
        if (left <= 0 && !killed) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        int n = poll(fds, 2, killed ? 1000 : left * 1000);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int more = i == 0 ? drain(fds[i].fd, &r.out, &ol, &oc) : drain(fds[i].fd, &r.err, &el, &ec);
            if (!more) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int st = 0;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

void e2e_result_free(e2e_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *e2e_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *p = NULL;
    if (asprintf(&p, "%s/cuprof-test-XXXXXX", base && *base ? base : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(p)) {
        free(p);
        return NULL;
    }
    return p;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

void e2e_rmtree(const char *dir)
{
    if (dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *e2e_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

json_t *e2e_load_json(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        fprintf(stderr, "harness: %s:%d: %s\n", path, err.line, err.text);
    return j;
}

int e2e_count(const char *hay, const char *needle)
{
    int n = 0;
    size_t l = strlen(needle);
    for (const char *p = hay; l && (p = strstr(p, needle)); p += l)
        n++;
    return n;
}

e2e_prof e2e_profile(int sim, const char *const argv[], const char *const env[], int timeout_s)
{
    e2e_prof p = {.dir = e2e_tmpdir()};
    const char *full[32] = {e2e_path("prof.sh"), "-o", p.dir, "-n", "x"};
    int n = 5;
    for (int i = 0; argv && argv[i] && n < 31; i++)
        full[n++] = argv[i];
    full[n] = NULL;
    const char *envv[16] = {0};
    int k = 0;
    if (sim)
        envv[k++] = e2e_sim_env();
    for (int i = 0; env && env[i] && k < 15; i++)
        envv[k++] = env[i];
    p.r = e2e_run(full, envv, NULL, timeout_s);
    char path[4200];
    snprintf(path, sizeof path, "%s/x.trace.json", p.dir);
    /* a run may write NAME.perfetto-trace instead (--format): no message */
    p.trace = access(path, F_OK) == 0 ? e2e_load_json(path) : NULL;
    snprintf(path, sizeof path, "%s/x.summary.json", p.dir);
    p.sum = e2e_load_json(path);
    snprintf(path, sizeof path, "%s/x.summary.txt", p.dir);
    p.txt = e2e_read_file(path, NULL);
    return p;
}

void e2e_prof_free(e2e_prof *p)
{
    json_decref(p->trace);
    json_decref(p->sum);
    free(p->txt);
    e2e_result_free(&p->r);
    e2e_rmtree(p->dir);
    free(p->dir);
}

const char *e2e_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

long long e2e_int(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **e2e_device_causes(json_t *trace, size_t *n)
{
    json_t *ev = json_object_get(trace, "traceEvents");
    char **v = calloc(json_array_size(ev) + 1, sizeof *v);
    *n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(ev, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!v || !ph || strcmp(ph, "X") || !cat || !name ||
            (strcmp(cat, "kernel") && strcmp(cat, "gpu_memcpy") && strcmp(cat, "gpu_memset")))
            continue;
        json_t *ext = json_object_get(json_object_get(e, "args"), "External id");
        char b[512];
        snprintf(b, sizeof b, "%s|%s|%lld", cat, name, (long long)json_integer_value(ext));
        v[(*n)++] = strdup(b);
    }
    if (v)
        qsort(v, *n, sizeof *v, cmp_strp);
    return v;
}

void e2e_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

int e2e_as_two_hosts(const char *src, const char *name, int nranks, const char *dst)
{
    char path[4400];
    for (int r = 0; r < nranks; r++) {
        snprintf(path, sizeof path, "%s/%s.rank%d.summary.json", src, name, r);
        json_t *s = e2e_load_json(path);
        if (!s)
            return -1;
        if (r >= nranks / 2) {
            json_t *d = json_object_get(s, "distributed"), *ck = json_object_get(d, "clocks");
            json_object_set_new(d, "host", json_string("b"));
            json_object_set_new(d, "boot_id", json_string("another-boot"));
            static const char *const keys[] = {"realtime_start_ns", "realtime_end_ns"};
            for (int k = 0; k < 2; k++)
                json_object_set_new(ck, keys[k],
                                    json_integer(json_integer_value(json_object_get(ck, keys[k])) + 3000000000ll));
        }
        snprintf(path, sizeof path, "%s/%s.rank%d.summary.json", dst, name, r);
        int bad = json_dump_file(s, path, 0) != 0;
        json_decref(s);
        snprintf(path, sizeof path, "%s/%s.rank%d.trace.json", src, name, r);
        size_t len;
        char *t = e2e_read_file(path, &len);
        snprintf(path, sizeof path, "%s/%s.rank%d.trace.json", dst, name, r);
        FILE *f = t ? fopen(path, "w") : NULL;
        bad |= !f || fwrite(t, 1, len, f) != len;
        if (f)
            bad |= fclose(f) != 0;
        free(t);
        if (bad)
            return -1;
    }
    return 0;
}

pid_t e2e_child_named(pid_t pid, const char *comm)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    char *t = e2e_read_file(p, NULL);
    pid_t c = t ? (pid_t)atoi(t) : 0;
    free(t);
    if (!c)
        return 0;
    snprintf(p, sizeof p, "/proc/%d/comm", (int)c);
    t = e2e_read_file(p, NULL);
    int same = t && !strncmp(t, comm, strlen(comm));
    free(t);
    return same ? c : 0;
}

pid_t e2e_start_profsh(const char *const args[], const char *const env[], const char *comm,
                       const char *log, pid_t *prog)
{
    const char *argv[40] = {"prof.sh"};
    int n = 1;
    for (int i = 0; args[i] && n < 39; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    *prog = 0;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        e2e_child_signals_default();
        int out = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(out, 2);
        putenv((char *)e2e_sim_env());
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(e2e_path("prof.sh"), (char *const *)argv);
        _exit(127);
    }
    for (int ms = 0; ms < 10000 && !*prog; ms += 5) {
        usleep(5000);
        *prog = e2e_child_named(pid, comm);
        char p[64];   /* CUPROF_SUPERVISE=0: prof.sh execs the program itself */
        snprintf(p, sizeof p, "/proc/%d/comm", (int)pid);
        char *t = *prog ? NULL : e2e_read_file(p, NULL);
        if (t && !strncmp(t, comm, strlen(comm)))
            *prog = pid;
        free(t);
    }
    return pid;
}

/* "3.MINOR" as python says it: 1 when it does. */
static int python_is(const char *python, int minor)
{
    const char *argv[] = {python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])", NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 60);
    char want[16];
    snprintf(want, sizeof want, "3.%d\n", minor);
    int ok = r.status == 0 && r.out && !strcmp(r.out, want);
    e2e_result_free(&r);
    return ok;
}

const char *e2e_python(int minor, char *why, size_t cap)
{
    static char slots[4][4096];
    static int next;
    char *out = slots[next++ & 3];
    char env[64];
    snprintf(env, sizeof env, "CUPROF_TEST_PYTHON3_%d", minor);
    const char *v = getenv(env);
    if (v && *v) {
        snprintf(out, sizeof slots[0], "%s", v);
        if (python_is(out, minor))
            return out;
        snprintf(why, cap, "%s=%s does not run as Python 3.%d", env, v, minor);
        return NULL;
    }
    const char *root = getenv("PYENV_ROOT");
    char rootbuf[4096];
    if (!root || !*root) {
        const char *home = getenv("HOME");
        snprintf(rootbuf, sizeof rootbuf, "%s/.pyenv", home ? home : "");
        root = rootbuf;
    }
    /* the newest 3.minor.* under root/versions (pyenv's own names) */
    char cmd[4400];
    snprintf(cmd, sizeof cmd,
             "ls -d '%s'/versions/3.%d.*/bin/python3 2>/dev/null | grep -E '/3\\.%d\\.[0-9]+/' | "
             "sort -V | tail -1",
             root, minor, minor);
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (p) {
        if (fgets(out, sizeof slots[0], p))
            out[strcspn(out, "\n")] = '\0';
        pclose(p);
    }
    if (out[0] && python_is(out, minor))
        return out;
    snprintf(cmd, sizeof cmd, "command -v python3.%d 2>/dev/null", minor);
    out[0] = '\0';
    if ((p = popen(cmd, "r"))) {
        if (fgets(out, sizeof slots[0], p))
            out[strcspn(out, "\n")] = '\0';
        pclose(p);
    }
    if (out[0] && python_is(out, minor))
        return out;
    snprintf(why, cap, "no CPython 3.%d: none in %s/versions (pyenv), no python3.%d on PATH, %s unset",
             minor, root, minor, env);
    return NULL;
}

int e2e_python_include(const char *python, char *out, size_t cap)
{
    const char *argv[] = {python, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])",
                          NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 60);
    int ok = r.status == 0 && r.out && r.out[0] == '/';
    if (ok)
        snprintf(out, cap, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    e2e_result_free(&r);
    return ok ? 0 : -1;
}
