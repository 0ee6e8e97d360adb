/* A known heap cost per task: K blocks of BYTES from malloc, every byte written, kept until
 * the end. Below malloc's mmap threshold (128 KiB) they come from the brk heap ([heap]); above
 * it each is a mapping of its own. Prints `ready K`, sleeps SLEEP seconds, exits.
 *
 * usage: heap K BYTES SLEEP_SECONDS
 * memrun's split must find K x BYTES more in "heap and arenas" (plus malloc's 16-byte header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: heap K BYTES SLEEP_SECONDS\n");
        return 2;
    }
    long k = atol(argv[1]), bytes = atol(argv[2]);
    double sleep_s = atof(argv[3]);
    char **blocks = calloc(k ? k : 1, sizeof *blocks);
    for (long i = 0; i < k; i++) {
        blocks[i] = malloc(bytes);
        if (!blocks[i]) {
            perror("malloc");
            return 1;
        }
        memset(blocks[i], 1, bytes);
    }
    printf("ready %ld\n", k);
    fflush(stdout);
    struct timespec t = {(time_t)sleep_s, (long)((sleep_s - (time_t)sleep_s) * 1e9)};
    nanosleep(&t, NULL);
    volatile char sink = 0; /* the blocks are read back, so no compiler drops them */
    for (long i = 0; i < k; i++) sink += blocks[i][bytes - 1];
    return 0;
}
