/* Measures: N POSIX threads (pthread_create with default attributes: glibc's default stack is
 * RLIMIT_STACK, 8 MiB here), each in nanosleep, all joined. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct timespec sleep_for;
/* Threads that have reached their nanosleep: main prints `ready` once all N have. A thread whose
 * sleep is already over counts too, so `ready` means N threads sleeping at once with the runner's
 * rule that it comes before the sleep can end (a counter proof, tasks/README.md). */
static atomic_size_t sleeping;

static void *sleeper(void *arg) {
    (void)arg;
    struct timespec left = sleep_for;
    atomic_fetch_add_explicit(&sleeping, 1, memory_order_relaxed);
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    return NULL;
}

/* The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
 * MEMRUN_TRACE_WAITS=1: the threads run traced_sleeper, the sleeper above with a `start` line just
 * before the count and an `end` line after the sleep, on stdout, where `ready` goes (stdio's lock
 * keeps the lines whole and in the order written). MEMRUN_STALL_MS=K: main stalls K ms after the
 * last pthread_create and again just before `ready`. */
static int trace;
static struct timespec stall_for;

static void *traced_sleeper(void *arg) {
    fputs("start\n", stdout);
    sleeper(arg);
    fputs("end\n", stdout);
    return NULL;
}

static void read_switches(void) {
    const char *t = getenv("MEMRUN_TRACE_WAITS"), *s = getenv("MEMRUN_STALL_MS");
    trace = t != NULL && strcmp(t, "1") == 0;
    long ms = s != NULL ? atol(s) : 0;
    if (ms > 0) stall_for = (struct timespec){ms / 1000, (ms % 1000) * 1000000L};
}

static void stall(void) {
    if (stall_for.tv_sec || stall_for.tv_nsec) nanosleep(&stall_for, NULL);
}

static int usage(void) {
    fputs("usage: c-pthreads N [SLEEP_SECONDS]\n", stderr);
    return 2;
}

/* A whole decimal string of digits only (no sign, no spaces), within size_t. */
static int parse_n(const char *s, size_t *n) {
    if (*s < '0' || *s > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > (size_t)-1) return 0;
    *n = (size_t)v;
    return 1;
}

static int parse_sleep(const char *s, struct timespec *ts) {
    char *end;
    errno = 0;
    double secs = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(secs) || secs < 0 || secs > 1e9) return 0;
    ts->tv_sec = (time_t)secs;
    ts->tv_nsec = (long)((secs - (double)ts->tv_sec) * 1e9);
    if (ts->tv_nsec > 999999999L) ts->tv_nsec = 999999999L;
    return 1;
}

int main(int argc, char **argv) {
    size_t n;
    if (argc < 2 || argc > 3 || !parse_n(argv[1], &n)) return usage();
    sleep_for = (struct timespec){10, 0};
    if (argc == 3 && !parse_sleep(argv[2], &sleep_for)) return usage();
    read_switches();

    pthread_t *threads = malloc((n ? n : 1) * sizeof *threads);
    if (threads == NULL) {
        perror("malloc");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        /* pthread_create returns the error number (it does not set errno): EAGAIN when the kernel
         * refuses the thread (RLIMIT_NPROC, pid_max, threads-max, pids.max) and also when mapping
         * its stack fails (max_map_count, RLIMIT_AS): glibc turns that ENOMEM into EAGAIN. */
        int rc = pthread_create(&threads[i], NULL, trace ? traced_sleeper : sleeper, NULL);
        if (rc != 0) {
            fprintf(stderr, "pthread_create: %s (after %zu threads)\n", strerror(rc), i);
            return 1;
        }
    }
    stall();
    const struct timespec one_ms = {0, 1000000};
    while (atomic_load_explicit(&sleeping, memory_order_relaxed) < n) nanosleep(&one_ms, NULL);
    stall();
    if (printf("ready %zu\n", n) < 0 || fflush(stdout) != 0) {
        perror("stdout");
        return 1;
    }
    for (size_t i = 0; i < n; i++) pthread_join(threads[i], NULL);
    free(threads);
    return 0;
}
