/*
 * memrun's futex-hash preload (`--futex-hash SLOTS`): loaded into every process of a run with
 * LD_PRELOAD, it asks the kernel, before main(), for a per-process futex hash of SLOTS buckets.
 *
 * Why: Linux 6.16+ (CONFIG_FUTEX_PRIVATE_HASH) gives each multi-threaded process its own futex
 * hash, sized from the online CPUs (16 buckets on 2 CPUs) and never grown with the threads. A
 * thread parked in a futex wait sits in one bucket's chain and every wake walks a chain, so with
 * thousands of sleeping threads each wake costs O(threads): starting 20k JVM threads took 15.9 s
 * instead of 3.0 s here. Only the process itself can enlarge its table (no sysctl), and the size
 * is not inherited across exec, hence a constructor in every process rather than a setting.
 * Without MEMRUN_FUTEX_HASH_SLOTS in the environment it does nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#ifndef PR_FUTEX_HASH /* Debian 12's headers predate it (include/uapi/linux/prctl.h, Linux 6.16) */
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#endif

__attribute__((constructor)) static void memrun_futex_hash(void)
{
    const char *text = getenv("MEMRUN_FUTEX_HASH_SLOTS");
    if (text == NULL || *text == '\0')
        return;
    long slots = strtol(text, NULL, 10);
    if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, slots, 0, 0) != 0)
        fprintf(stderr, "memrun futex-hash: prctl(PR_FUTEX_HASH, SET_SLOTS, %ld) failed: %s\n", slots,
                strerror(errno));
}
