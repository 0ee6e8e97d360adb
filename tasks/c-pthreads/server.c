/* Connections workload: one POSIX thread per accepted TCP connection (pthread_create with default
 * attributes, as the sleep program: glibc's default stack is RLIMIT_STACK, 8 MiB here), each in a
 * blocking read() into its own malloc'd buffer until EOF (tasks/README.md, "Connections
 * protocol"). */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t n_conns;      /* N */
static size_t buffer_bytes; /* each connection's own read buffer */
/* Connections whose first message has been read; the thread that makes it N prints `ready N`. */
static atomic_size_t first_reads;

static int usage(void) {
    fputs("usage: c-pthreads-server PORT N BUFFER_BYTES\n", stderr);
    return 2;
}

/* A whole decimal string of digits only (no sign, no spaces), at most max. */
static int parse_size(const char *s, size_t max, size_t *out) {
    if (*s < '0' || *s > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) return 0;
    *out = (size_t)v;
    return 1;
}

static void print_ready(size_t n) {
    if (printf("ready %zu\n", n) < 0 || fflush(stdout) != 0) {
        perror("stdout");
        exit(1);
    }
}

/* Reads into this connection's own buffer until EOF or an error (a reset), discarding the data. */
static void *serve(void *arg) {
    int fd = (int)(intptr_t)arg;
    char *buf = malloc(buffer_bytes);
    if (buf == NULL) {
        fprintf(stderr, "malloc: %s (a %zu-byte buffer)\n", strerror(errno), buffer_bytes);
        exit(1);
    }
    int first = 1;
    for (;;) {
        ssize_t got = read(fd, buf, buffer_bytes);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (first) {
            first = 0;
            if (atomic_fetch_add(&first_reads, 1) + 1 == n_conns) print_ready(n_conns);
        }
    }
    close(fd);
    free(buf);
    return NULL;
}

/* Listens on 127.0.0.1:port with SO_REUSEADDR and the largest backlog listen() takes (an int;
 * the kernel caps it at net.core.somaxconn). Returns the socket, or -1 with errno set. */
static int listen_on(unsigned short port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, INT_MAX) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int main(int argc, char **argv) {
    size_t port;
    if (argc != 4 || !parse_size(argv[1], 65535, &port) || !parse_size(argv[2], SIZE_MAX, &n_conns) ||
        !parse_size(argv[3], SIZE_MAX, &buffer_bytes) || buffer_bytes == 0)
        return usage(); /* a task must be able to read its first message: at least one byte */

    int listener = listen_on((unsigned short)port);
    if (listener < 0) {
        fprintf(stderr, "listen on 127.0.0.1:%zu: %s\n", port, strerror(errno));
        return 1;
    }
    if (n_conns == 0) print_ready(0);
    pthread_t *threads = malloc((n_conns ? n_conns : 1) * sizeof *threads);
    if (threads == NULL) {
        perror("malloc");
        return 1;
    }
    for (size_t i = 0; i < n_conns; i++) {
        int fd;
        while ((fd = accept(listener, NULL, NULL)) < 0 && errno == EINTR) {
        }
        if (fd < 0) {
            fprintf(stderr, "accept: %s (after %zu connections)\n", strerror(errno), i);
            return 1;
        }
        /* EAGAIN when the kernel refuses the thread or its stack cannot be mapped, as in main.c. */
        int rc = pthread_create(&threads[i], NULL, serve, (void *)(intptr_t)fd);
        if (rc != 0) {
            fprintf(stderr, "pthread_create: %s (after %zu threads)\n", strerror(rc), i);
            return 1;
        }
    }
    close(listener); /* N accepted: stop listening */
    for (size_t i = 0; i < n_conns; i++) pthread_join(threads[i], NULL);
    free(threads);
    return 0;
}
