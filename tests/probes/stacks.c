/* A known cost per thread: K threads, each on a stack this program maps itself (STACK_KIB,
 * with one PROT_NONE guard page below it, as glibc lays out a pthread stack) of which exactly
 * TOUCH_KIB at its top are touched, by main, before the thread starts on it. The threads are raw
 * clone()s, so nothing else is put on their stacks (no pthread descriptor, no TLS): each one
 * sleeps in a raw syscall within its first touched page. Prints `ready K` once all exist and
 * have started, then sleeps SLEEP seconds and exits (exit_group ends the threads).
 *
 * usage: stacks K STACK_KIB TOUCH_KIB SLEEP_SECONDS
 * memrun's split must find K stacks touching K x TOUCH_KIB, reserving K x STACK_KIB, with K
 * guard pages; and each thread's kernel stack (16 KiB on x86-64) in the cgroup's kernel_stack. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int started;

static int sleeper(void *arg) {
    (void)arg;
    atomic_fetch_add(&started, 1);
    struct timespec t = {3600, 0};
    for (;;) syscall(SYS_nanosleep, &t, NULL);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: stacks K STACK_KIB TOUCH_KIB SLEEP_SECONDS\n");
        return 2;
    }
    long k = atol(argv[1]), stack = atol(argv[2]) * 1024, touch = atol(argv[3]) * 1024;
    double sleep_s = atof(argv[4]);
    long page = sysconf(_SC_PAGESIZE);
    for (long i = 0; i < k; i++) {
        char *base = mmap(NULL, stack + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED || mprotect(base, page, PROT_NONE)) {
            perror("stack");
            return 1;
        }
        char *top = base + page + stack;
        memset(top - touch, 1, touch);
        if (clone(sleeper, top - 64, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
                  NULL) == -1) {
            perror("clone");
            return 1;
        }
    }
    while (atomic_load(&started) < k) usleep(1000);
    printf("ready %ld\n", k);
    fflush(stdout);
    struct timespec t = {(time_t)sleep_s, (long)((sleep_s - (time_t)sleep_s) * 1e9)};
    nanosleep(&t, NULL);
    return 0;
}
