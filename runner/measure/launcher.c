/*
 * memrun-launch: the only process that forks a measured program.
 *
 * Why a separate C program: on Linux a child's ru_maxrss starts at the high-water mark of the
 * address space it had before exec, so a program forked straight from a Python runner holding
 * 300 MB reports >= 300 MB for `true`.  This launcher is exec'd fresh (about 1.5 MiB RSS), so the
 * program it forks inherits almost nothing, and the rusage it reads with wait4() is the program's own.
 *
 * It also does what must happen between fork and exec: own process group (so the whole tree can be
 * killed), joining the memory cgroup (so the cgroup sees every page the program touches), and it is
 * a child subreaper so orphaned grandchildren are reaped here, not by init.
 *
 * Usage: memrun-launch [--nofile=N] REPORT_FD CGROUP_PROCS_FILE|- PROGRAM [ARGS...]
 * --nofile=N sets the program's RLIMIT_NOFILE to N, soft and hard alike, before exec: a server
 * holding a million connections needs a million descriptors, and only here, between fork and
 * exec, can one process's limit be set without touching memrun's. Hard too, because Go and
 * HotSpot raise their soft limit to the hard one at start: every runtime gets the same N.
 * Report lines written to REPORT_FD (all times CLOCK_MONOTONIC seconds):
 *   start <pid> <t_fork>
 *   execerr <errno> <message>
 *   exit <raw wait status> <t_exit> <maxrss_kib> <utime_s> <stime_s>   (the program itself)
 *   done <maxrss_kib> <utime_s> <stime_s>                              (all reaped descendants)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t child_pid = 0;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv(struct timeval t) { return (double)t.tv_sec + t.tv_usec / 1e6; }

/* The runner died or asked us to stop: take the program's process group with us. */
static void on_signal(int sig) {
    if (child_pid > 0) kill(-child_pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void write_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

static void report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int fd, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) write_all(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

int main(int argc, char **argv) {
    long nofile = 0;
    if (argc > 1 && strncmp(argv[1], "--nofile=", 9) == 0) {
        nofile = atol(argv[1] + 9);
        argv++;
        argc--;
    }
    if (argc < 4 || nofile < 0) {
        fprintf(stderr, "usage: %s [--nofile=N] REPORT_FD CGROUP_PROCS_FILE|- PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    int rfd = atoi(argv[1]);
    const char *procs = argv[2];
    pid_t parent = getppid();

    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) return 3; /* runner already gone */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        perror("memrun-launch: pipe2");
        return 3;
    }

    double t_fork = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("memrun-launch: fork");
        return 3;
    }
    if (pid == 0) {
        close(errpipe[0]);
        setpgid(0, 0);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, 0);
        if (strcmp(procs, "-") != 0) {
            int cfd = open(procs, O_WRONLY | O_CLOEXEC);
            char pidbuf[32];
            int len = snprintf(pidbuf, sizeof pidbuf, "%d\n", (int)getpid());
            if (cfd < 0 || write(cfd, pidbuf, (size_t)len) != len) {
                int e = errno;
                dprintf(errpipe[1], "%d cannot join cgroup %s: %s", e, procs, strerror(e));
                _exit(127);
            }
            close(cfd);
        }
        if (nofile > 0) {
            struct rlimit rl = {.rlim_cur = (rlim_t)nofile, .rlim_max = (rlim_t)nofile};
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
                int e = errno;
                dprintf(errpipe[1], "%d cannot set RLIMIT_NOFILE to %ld: %s", e, nofile, strerror(e));
                _exit(127);
            }
        }
        if (rfd > 2) close(rfd);
        execvp(argv[3], argv + 3);
        int e = errno;
        dprintf(errpipe[1], "%d cannot execute %s: %s", e, argv[3], strerror(e));
        _exit(127);
    }
    child_pid = pid;
    setpgid(pid, pid); /* also here, so the group exists whichever side runs first */
    close(errpipe[1]);
    report(rfd, "start %d %.6f\n", (int)pid, t_fork);

    char errbuf[400];
    ssize_t n = read(errpipe[0], errbuf, sizeof errbuf - 1);
    if (n > 0) {
        errbuf[n] = 0;
        for (ssize_t i = 0; i < n; i++)
            if (errbuf[i] == '\n') errbuf[i] = ' ';
        report(rfd, "execerr %s\n", errbuf);
    }
    close(errpipe[0]);

    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("memrun-launch: wait4");
            return 3;
        }
    }
    double t_exit = now();
    report(rfd, "exit %d %.6f %ld %.6f %.6f\n", status, t_exit, ru.ru_maxrss, tv(ru.ru_utime),
           tv(ru.ru_stime));

    /* The program is gone; whatever it left in its group goes too, and every orphan is reaped. */
    child_pid = 0;
    kill(-pid, SIGKILL);
    for (;;) {
        pid_t w = waitpid(-1, NULL, 0);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) break;
    }
    struct rusage all;
    getrusage(RUSAGE_CHILDREN, &all);
    report(rfd, "done %ld %.6f %.6f\n", all.ru_maxrss, tv(all.ru_utime), tv(all.ru_stime));
    return 0;
}
