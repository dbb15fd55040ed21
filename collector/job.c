/*
 * job.c - prof.sh trigger --job DIR: one request for every process of a
 * job that writes into DIR (one host or many: clusters share DIR on a file
 * system, so no daemon and no port), answered by each process's flusher.
 *
 * The request is DIR/.cuprof-job-trigger, one line, written by the trigger
 * (tools/report.c) as a 0600 file of its user and replaced by rename:
 *
 *   id=ID ask=1 range=NAME              which step is each process in?
 *   id=ID steps=N from=K range=NAME     every rank: a window of steps K..K+N-1
 *   id=ID duration_ns=T from=K range=NAME   every rank: T from step K
 *
 * Each process answers each id and phase once, in its own file
 * DIR/.cuprof-jack.ID.HOST.PID (written whole, then renamed into place):
 *
 *   phase=ask|arm rank=R pid=P host=H name=BASE standby=0|1 step=J step_ns=D window=W answer=TEXT
 *
 * J is the step it is in (-1 none yet), D its last step's time, W the
 * number its next window will have (so NAME.rankR.wW.* are the files of
 * that request), TEXT capture.c's answer to the request ("window W opens at
 * step K ...", "missed: ...", "refused: ..."). The trigger chooses K past
 * every rank's step (with room for the arm request to reach them), so every
 * rank opens its window at the same step. A request that is not a regular
 * file of this process's user with no access for others is not read (the
 * trigger refuses other users itself, in one line).
 */
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/place.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The request last read (its inode and mtime) and the ids answered, by
 * phase: the flusher's own (one thread). */
static struct {
    ino_t ino;
    struct timespec mtime;
    char asked[40], armed[40];
} job;

/* Writes line as DIR/.cuprof-jack.ID.HOST.PID, whole (a temporary, then a
 * rename): the trigger never reads half an answer. */
static void write_answer(const char *id, const char *host, const char *line)
{
    char tmp[PATH_MAX + 210], to[PATH_MAX + 200];
    snprintf(to, sizeof to, "%s/.cuprof-jack.%s.%.64s.%ld", cuprof_g_config.out_dir, id, host,
             (long)cuprof_g.pid);
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    size_t len = strlen(line);
    int ok = write(fd, line, len) == (ssize_t)len;
    cuprof_libc_close(fd);
    if (!ok || rename(tmp, to) != 0)
        unlink(tmp);
}

/* One request, read: answers it unless this id and phase were answered. */
static void answer(char *req)
{
    char id[40] = "";
    if (sscanf(req, "id=%39[A-Za-z0-9_-]", id) != 1)
        return;
    char *rest = strchr(req, ' ');
    if (!rest)
        return;
    rest++;
    rest[strcspn(rest, "\n")] = '\0';
    int ask = strncmp(rest, "ask=1", 5) == 0;
    char *seen = ask ? job.asked : job.armed;
    if (!strcmp(seen, id))
        return;
    snprintf(seen, sizeof job.asked, "%s", id);
    char text[400] = "";
    int standby = cuprof_g_config.capture == CUPROF_CAPTURE_STANDBY;
    if (ask && standby && rest[5] == ' ' && rest[6])   /* a range named: counted from now on */
        cuprof_capture_follow(rest + 6);
    if (ask)
        snprintf(text, sizeof text, standby ? "ready" : "refused: process %ld was not started with --standby",
                 (long)cuprof_g.pid);   /* one with a window open or armed says so to the arm */
    else
        cuprof_capture_trigger(rest, text, sizeof text);
    int64_t step;
    uint64_t step_ns, window;
    cuprof_capture_steps_now(&step, &step_ns, &window);
    cuprof_place pl;
    cuprof_place_snapshot(&pl);
    const char *host = pl.host && pl.host[0] ? pl.host : "localhost";
    char base[300], line[1200];
    cuprof_output_base(base, sizeof base);
    snprintf(line, sizeof line,
             "phase=%s rank=%d pid=%ld host=%.64s name=%.255s standby=%d step=%lld step_ns=%llu window=%llu "
             "answer=%s\n",
             ask ? "ask" : "arm", (int)pl.rank, (long)cuprof_g.pid, host, base, standby, (long long)step,
             (unsigned long long)step_ns, (unsigned long long)window, text);
    write_answer(id, host, line);
}

void cuprof_job_poll(void)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/.cuprof-job-trigger", cuprof_g_config.out_dir);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if (st.st_ino == job.ino && st.st_mtim.tv_sec == job.mtime.tv_sec &&
        st.st_mtim.tv_nsec == job.mtime.tv_nsec)
        return;   /* read already */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char req[512];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0)
        n = pread(fd, req, sizeof req - 1, 0);
    cuprof_libc_close(fd);
    job.ino = st.st_ino;
    job.mtime = st.st_mtim;
    if (n <= 0)
        return;   /* not ours, or not readable: not a request */
    req[n] = '\0';
    answer(req);
}
