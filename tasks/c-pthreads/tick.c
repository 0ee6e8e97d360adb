/* Tick workload (tasks/README.md, "Tick protocol"): N POSIX threads (pthread_create with default
 * attributes, as main.c), each with its own malloc'd state, waking with
 * clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) at its absolute due times. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUCKETS 3328

/* Read-only after main sets them, before the first pthread_create. Times are µs since t0. */
static size_t n_tasks, state_bytes;
static int64_t period_us;
static int64_t t0_ns;

/* Shared: W and E are 0 until main sets them (both are at least one period after t0); E is
 * stored last, with release order, and read with acquire before W. */
static atomic_size_t ready_count; /* threads that finished their first wake's work */
static _Atomic int64_t window_start, window_end;
static atomic_uint_fast64_t achieved;
static _Atomic uint32_t checksum_total; /* unsigned: wraps mod 2^32 */
static atomic_uint_fast64_t hist[BUCKETS];

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Exact below 256 µs, then 128 buckets per power of two (tasks/README.md). */
static int bucket(int64_t v) {
    if (v > (int64_t)UINT32_MAX) v = UINT32_MAX;
    if (v < 256) return (int)v;
    int m = 63 - __builtin_clzll((unsigned long long)v);
    return 256 + (m - 8) * 128 + (int)(v >> (m - 7)) - 128;
}

static void *ticker(void *arg) {
    size_t i = (size_t)(uintptr_t)arg;
    unsigned char *state = malloc(state_bytes ? state_bytes : 1);
    if (state == NULL) {
        fprintf(stderr, "malloc: Cannot allocate memory (a %zu-byte state)\n", state_bytes);
        exit(1);
    }
    for (size_t j = 0; j < state_bytes; j++) state[j] = (unsigned char)(1 + (i * 31 + j) % 251);
    int64_t off = (int64_t)((unsigned __int128)i * (uint64_t)period_us / n_tasks);
    uint32_t last = 0;
    for (int64_t k = 1;; k++) {
        int64_t due = off + k * period_us;
        int64_t e = atomic_load_explicit(&window_end, memory_order_acquire);
        if (e != 0 && due >= e) break;
        int64_t due_ns = t0_ns + due * 1000;
        struct timespec at = {due_ns / 1000000000, due_ns % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
        }
        int64_t now = (mono_ns() - t0_ns) / 1000;
        int64_t late = now > due ? now - due : 0;
        uint32_t c = 0;
        for (size_t j = 0; j < state_bytes; j++) {
            c += state[j];
            state[j]++;
        }
        last = c;
        if (k == 1) atomic_fetch_add_explicit(&ready_count, 1, memory_order_release);
        e = atomic_load_explicit(&window_end, memory_order_acquire); /* main may have set it meanwhile */
        if (e != 0) {
            int64_t w = atomic_load_explicit(&window_start, memory_order_relaxed);
            if (due >= w && due < e) {
                atomic_fetch_add_explicit(&hist[bucket(late)], 1, memory_order_relaxed);
                if (now < e) atomic_fetch_add_explicit(&achieved, 1, memory_order_relaxed);
            }
            if (now >= e) break;
        }
    }
    atomic_fetch_add_explicit(&checksum_total, last, memory_order_relaxed);
    free(state);
    return NULL;
}

static int usage(const char *msg) {
    fprintf(stderr, "%s\nusage: c-pthreads-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)\n", msg);
    return 2;
}

/* A whole decimal string of digits only (no sign, no spaces), up to max. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out) {
    if (*s < '0' || *s > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv) {
    t0_ns = mono_ns();
    if (argc != 5) return usage("wrong number of arguments");
    unsigned long long v;
    if (!parse_uint(argv[1], SIZE_MAX / sizeof(pthread_t), &v)) return usage("N must be a non-negative integer");
    n_tasks = (size_t)v;
    char *end;
    errno = 0;
    double secs = strtod(argv[2], &end);
    if (end == argv[2] || *end != '\0' || errno != 0 || !isfinite(secs) || secs < 0 || secs > 1e9)
        return usage("SLEEP_SECONDS must be a number from 0 to 1e9");
    int64_t sleep_us = llround(secs * 1e6);
    if (!parse_uint(argv[3], SIZE_MAX / 2, &v)) return usage("STATE_BYTES must be a non-negative integer");
    state_bytes = (size_t)v;
    if (!parse_uint(argv[4], 1000000000000ULL, &v) || v < 1) return usage("PERIOD_US must be an integer from 1 to 10^12");
    period_us = (int64_t)v;

    pthread_t *threads = malloc((n_tasks ? n_tasks : 1) * sizeof *threads);
    if (threads == NULL) {
        perror("malloc");
        return 1;
    }
    for (size_t i = 0; i < n_tasks; i++) {
        /* Default attributes, as main.c: its failure messages (EAGAIN) hold here too. */
        int rc = pthread_create(&threads[i], NULL, ticker, (void *)(uintptr_t)i);
        if (rc != 0) {
            fprintf(stderr, "pthread_create: %s (after %zu threads)\n", strerror(rc), i);
            return 1;
        }
    }
    const struct timespec one_ms = {0, 1000000};
    while (atomic_load_explicit(&ready_count, memory_order_acquire) < n_tasks) nanosleep(&one_ms, NULL);
    int64_t t_ready = (mono_ns() - t0_ns) / 1000;
    int64_t w = (t_ready / period_us + 1) * period_us;
    int64_t k = (t_ready + sleep_us - w) / period_us;
    if (k < 0) k = 0;
    atomic_store_explicit(&window_start, w, memory_order_relaxed);
    atomic_store_explicit(&window_end, w + k * period_us, memory_order_release);
    if (printf("ready %zu\n", n_tasks) < 0 || fflush(stdout) != 0) {
        perror("stdout");
        return 1;
    }
    for (size_t i = 0; i < n_tasks; i++) pthread_join(threads[i], NULL);
    free(threads);

    printf("tick periods %lld asked %llu achieved %llu checksum %u\nlateness_us", (long long)k,
           (unsigned long long)n_tasks * (unsigned long long)k, (unsigned long long)atomic_load(&achieved),
           (unsigned)atomic_load(&checksum_total));
    for (int b = 0; b < BUCKETS; b++) {
        uint64_t c = atomic_load_explicit(&hist[b], memory_order_relaxed);
        if (c) printf(" %d:%llu", b, (unsigned long long)c);
    }
    if (printf("\n") < 0 || fflush(stdout) != 0) {
        perror("stdout");
        return 1;
    }
    return 0;
}
