/*
 * memrun-connect: memrun's own load client for the connections workload.
 *
 * Why a program of memrun's own, in C, outside the measured cgroup: the figure is the server's
 * memory per idle connection, so the other end of every connection must cost the server nothing
 * it would not pay for a real peer, and must not be counted with it. One thread and epoll hold a
 * million sockets in about 5 bytes of user memory each (fd and state), and its own peak memory
 * and CPU are reported so that a reader can see it was never the bottleneck.
 *
 * What it does: opens N TCP connections to ADDR:PORT with non-blocking connects, sends one
 * MESSAGE-byte message on each, then holds them all, watching every socket: a connection the
 * server closes or resets before memrun says "close" is counted as dropped. On "close" (a line
 * on stdin), EOF on stdin (memrun is gone) or SIGTERM/SIGINT/SIGHUP, it closes every socket with
 * a reset (SO_LINGER 0, set as each connects, so that even a SIGKILL leaves no TIME_WAIT socket:
 * `ss -tan` shows none of its connections once it has exited), prints a summary and exits.
 *
 * Pacing: a connect completes in the kernel (loopback handshake) long before the server accepts
 * it; completed connections wait in the listener's accept queue, and a SYN that finds that queue
 * full is dropped (ListenOverflows) or answered with a SYN cookie, and the connection then takes
 * a retransmission (a second or more) to complete. So the client reads the listener's accept
 * queue (NETLINK_SOCK_DIAG, what `ss -ltn` shows as Recv-Q) and keeps connects in flight plus
 * connections waiting to be accepted below half the listener's backlog (at most WINDOW). Where
 * sock_diag cannot be read it falls back to WINDOW connects in flight. The listener's own count
 * of dropped SYNs and handshakes (its sk_drops, `ss -ltm`'s d) is reported: the machine-wide
 * TcpExt ListenOverflows counts every other program's listeners too.
 *
 * Ephemeral ports: each source address has one ephemeral port range (28,232 ports by default),
 * so a million connections from one address to one server port cannot exist. Every socket is
 * bound to one of SOURCES addresses of 127.0.0.0/8 (127.0.0.2 upwards) before connect(), with
 * IP_BIND_ADDRESS_NO_PORT so that the port is chosen at connect() time for the whole 4-tuple
 * (a port is shared by every source address), half a range per address by default.
 *
 * The server may not listen yet when the client starts: ECONNREFUSED is retried (every 10 ms)
 * until one connection has succeeded; after that it is a connect error like any other. Failed
 * connects are retried; after ERRORS of them, or when the client runs out of file descriptors,
 * it gives up: closes everything, prints its summary with the error and exits 1.
 *
 * Usage: memrun-connect [-a ADDR] [-s SOURCES] [-w WINDOW] [-r RATE] [-e ERRORS] [-m BYTES]
 *                       [-c rst|fin] PORT N
 * stdout, one line each, flushed:
 *   connected N SECONDS        every connection is open and has sent its message
 *   summary {JSON}             at exit: counts, times, drops, rusage (see print_summary)
 * Exit status: 0 after a close it was told to make, 1 when it gave up, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

enum { FREE = 0, CONNECTING, HOLDING, DROPPED, CLOSED };
#define TAG_STDIN UINT64_MAX
#define TAG_SIGNAL (UINT64_MAX - 1)
#define FD_HEADROOM 64
#define MAX_EVENTS 1024

static struct {
    /* arguments */
    struct sockaddr_in server;
    long n;
    long sources;
    long window;
    double rate;
    long max_errors;
    size_t message;
    int close_rst;
    /* state */
    int *fd;
    unsigned char *state;
    long *retry; /* indices whose connect failed, to open again */
    long retries;
    long next; /* next index never tried */
    long inflight;
    long connected; /* reached HOLDING, ever */
    long dropped;
    long connect_errors;
    long refused_waits; /* ECONNREFUSED before the first success: the server was not listening */
    long bytes_received;
    long next_source;
    int ever_connected;
    int ep;
    int diag; /* NETLINK_SOCK_DIAG socket, -1 when unavailable */
    const char *error;
    char error_buf[256];
    double t0, t_first, t_all, t_close_cmd, t_closed, t_first_drop;
    double tokens, t_tokens, t_retry_after;
    long listen_drops; /* SYNs or handshakes the listener dropped (its sk_drops) */
    long backlog; /* the listener's backlog as sock_diag reports it, 0 if unknown */
    long accept_queue_max;
} c;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    if (c.error) return; /* the first cause is the one to report */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c.error_buf, sizeof c.error_buf, fmt, ap);
    va_end(ap);
    c.error = c.error_buf;
}

/* ---------------------------------------------------------------- sock_diag */

static int diag_open(void) {
    int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    return s;
}

/* One family's listeners on the server port: accept queues summed into *queued, backlogs into
 * *max. Returns 1 if one was found, 0 if none, -1 if sock_diag cannot be read. */
static int listeners(int family, long *queued, long *max, long *drops) {
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    memset(&msg, 0, sizeof msg);
    msg.nlh.nlmsg_len = sizeof msg;
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    msg.req.sdiag_family = (unsigned char)family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = 1u << 10; /* TCP_LISTEN */
    msg.req.idiag_ext = 1u << (INET_DIAG_SKMEMINFO - 1);
    msg.req.id.idiag_sport = c.server.sin_port;
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    if (sendto(c.diag, &msg, sizeof msg, 0, (struct sockaddr *)&sa, sizeof sa) < 0) return -1;
    int found = 0;
    char buf[16384];
    for (;;) {
        ssize_t got = recv(c.diag, buf, sizeof buf, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)got); h = NLMSG_NEXT(h, got)) {
            if (h->nlmsg_type == NLMSG_DONE) return found;
            if (h->nlmsg_type == NLMSG_ERROR) return -1;
            struct inet_diag_msg *d = NLMSG_DATA(h);
            if (d->id.idiag_sport != c.server.sin_port) continue;
            /* the server's address, any address, or (IPv6) the unspecified or v4-mapped ones */
            const uint32_t *a = d->id.idiag_src;
            int v4any = family == AF_INET && (a[0] == c.server.sin_addr.s_addr || a[0] == htonl(INADDR_ANY));
            int v6any = family == AF_INET6 && !a[0] && !a[1] && (!a[2] || a[2] == htonl(0xffff)) &&
                        (!a[2] ? !a[3] : a[3] == c.server.sin_addr.s_addr);
            if (!v4any && !v6any) continue;
            *queued += d->idiag_rqueue;
            *max += d->idiag_wqueue;
            found = 1;
            int rest = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *d));
            for (struct rtattr *at = (struct rtattr *)(d + 1); RTA_OK(at, rest); at = RTA_NEXT(at, rest))
                if (at->rta_type == INET_DIAG_SKMEMINFO && RTA_PAYLOAD(at) > SK_MEMINFO_DROPS * sizeof(uint32_t))
                    *drops += ((uint32_t *)RTA_DATA(at))[SK_MEMINFO_DROPS];
        }
    }
}

/* The server port's listeners (IPv4, else a dual-stack IPv6 one): 1 if found, 0 if none listens
 * yet, -1 if sock_diag cannot be read. */
static int listen_queue(long *queued, long *max) {
    if (c.diag < 0) return -1;
    long drops = 0;
    *queued = *max = 0;
    int found = listeners(AF_INET, queued, max, &drops);
    if (found == 0) found = listeners(AF_INET6, queued, max, &drops);
    if (found > 0 && drops > c.listen_drops) c.listen_drops = drops;
    if (found < 0) {
        close(c.diag);
        c.diag = -1; /* unreadable once, unreadable always: fall back to the window */
    }
    return found;
}

/* ---------------------------------------------------------------- connections */

static void close_fd(long i, int reset) {
    int fd = c.fd[i];
    if (fd < 0) return;
    if (reset) {
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(fd); /* also removes it from the epoll set */
    c.fd[i] = -1;
}

static uint32_t source_address(void) {
    /* 127.0.0.2, 127.0.0.3, ... round robin: 127.0.0.1 is the server's */
    uint32_t k = (uint32_t)(c.next_source++ % c.sources);
    return htonl(0x7f000002u + k);
}

static void on_connect_failed(long i, int e);

/* Start connecting index i. Returns 0, or -1 when the client cannot go on (error set). */
static int start_connect(long i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("socket() failed after %ld connections: %s", c.connected - c.dropped, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
    src.sin_addr.s_addr = c.sources > 0 ? source_address() : htonl(INADDR_ANY);
    if (c.sources > 0 && bind(fd, (struct sockaddr *)&src, sizeof src) < 0) {
        fail("bind() to a source address failed: %s", strerror(errno));
        close(fd);
        return -1;
    }
    c.fd[i] = fd;
    c.state[i] = CONNECTING;
    c.inflight++;
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLRDHUP, .data.u64 = (uint64_t)i};
    if (epoll_ctl(c.ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        fail("epoll_ctl failed: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&c.server, sizeof c.server) < 0 && errno != EINPROGRESS)
        on_connect_failed(i, errno); /* failed at once (no port left, refused): retried like any */
    return c.error ? -1 : 0;
}

static void on_connect_failed(long i, int e) {
    c.inflight--;
    close_fd(i, 0);
    c.state[i] = FREE;
    c.retry[c.retries++] = i;
    if (e == ECONNREFUSED && !c.ever_connected) {
        c.refused_waits++; /* the server is not listening yet: look again in 10 ms */
        c.t_retry_after = now() + 0.01;
        return;
    }
    c.connect_errors++;
    if (c.connect_errors > c.max_errors)
        fail("%ld connect errors (last: %s)", c.connect_errors, strerror(e));
}

static void on_dropped(long i) {
    c.dropped++;
    if (c.dropped == 1) c.t_first_drop = now();
    close_fd(i, 1);
    c.state[i] = DROPPED;
}

static void on_connected(long i) {
    c.inflight--;
    if (c.close_rst) {
        /* set now, not at close: however the socket ends (a close, or this process killed and
         * its descriptors closed by the kernel) it ends with a reset and leaves no TIME_WAIT */
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(c.fd[i], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    char msg[256];
    size_t len = c.message < sizeof msg ? c.message : sizeof msg;
    memset(msg, 'm', len);
    if (len) msg[len - 1] = '\n';
    ssize_t sent = send(c.fd[i], msg, len, MSG_NOSIGNAL);
    if (sent != (ssize_t)len) {
        /* established, then closed by the server before the message could go: a drop */
        c.connected++;
        on_dropped(i);
        return;
    }
    if (!c.ever_connected) {
        c.ever_connected = 1;
        c.t_first = now();
    }
    c.state[i] = HOLDING;
    c.connected++;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)i};
    epoll_ctl(c.ep, EPOLL_CTL_MOD, c.fd[i], &ev);
    if (c.connected == c.n) {
        c.t_all = now();
        printf("connected %ld %.6f\n", c.n, c.t_all - c.t0);
        fflush(stdout);
    }
}

static void on_socket_event(long i, uint32_t events) {
    if (c.state[i] == CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c.fd[i], SOL_SOCKET, SO_ERROR, &err, &len);
        if (err)
            on_connect_failed(i, err);
        else if (events & EPOLLOUT)
            on_connected(i);
        else if (events & (EPOLLHUP | EPOLLERR))
            on_connect_failed(i, ECONNRESET);
        return;
    }
    if (c.state[i] != HOLDING) return;
    if (events & EPOLLIN) {
        char buf[4096];
        for (;;) {
            ssize_t got = recv(c.fd[i], buf, sizeof buf, 0);
            if (got > 0) {
                c.bytes_received += got; /* the protocol has no replies; counted, not judged */
                continue;
            }
            if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                on_dropped(i);
                return;
            }
            break;
        }
    }
    if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_dropped(i);
}

/* How many more connects may start now: the window less what waits in flight or unaccepted,
 * and the rate's tokens. */
static long allowance(void) {
    long left = c.n - c.next + c.retries;
    if (left <= 0) return 0;
    long queued = 0, max = 0;
    int listening = listen_queue(&queued, &max);
    long room;
    if (listening == 0 && !c.ever_connected) {
        /* nobody listens yet: one probe connect at a time, every 10 ms, finds out when someone
         * does (also where sock_diag cannot see the listener) */
        room = c.inflight || now() < c.t_retry_after ? 0 : 1;
    } else if (listening <= 0) {
        room = c.window - c.inflight;
    } else {
        c.backlog = max;
        if (queued > c.accept_queue_max) c.accept_queue_max = queued;
        long cap = max / 2 < c.window ? max / 2 : c.window;
        if (cap < 1) cap = 1;
        room = cap - c.inflight - queued;
    }
    if (c.rate > 0) {
        double t = now();
        c.tokens += (t - c.t_tokens) * c.rate;
        c.t_tokens = t;
        double burst = c.rate / 100 > 1 ? c.rate / 100 : 1;
        if (c.tokens > burst) c.tokens = burst;
        if (room > (long)c.tokens) room = (long)c.tokens;
    }
    if (room > left) room = left;
    return room > 0 ? room : 0;
}

static int open_more(void) {
    long room = allowance();
    for (long k = 0; k < room; k++) {
        long i = c.retries > 0 ? c.retry[--c.retries] : c.next++;
        if (start_connect(i) < 0) return -1;
        if (c.rate > 0) c.tokens -= 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- close and report */

static long close_all(void) {
    long closed = 0;
    if (!c.close_rst) {
        /* FIN first: each server task reads EOF; their sockets then linger in TIME_WAIT */
        for (long i = 0; i < c.n; i++)
            if (c.state[i] == HOLDING) shutdown(c.fd[i], SHUT_WR);
    }
    for (long i = 0; i < c.n; i++) {
        if (c.fd[i] >= 0) {
            if (c.state[i] == HOLDING) closed++;
            close_fd(i, c.close_rst);
            c.state[i] = CLOSED;
        }
    }
    return closed;
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void print_summary(long closed) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double t_end = now();
    printf("summary {\"n\":%ld,\"connected\":%ld,\"dropped\":%ld,\"held\":%ld,\"closed\":%ld,"
           "\"connect_errors\":%ld,\"refused_waits\":%ld,\"bytes_received\":%ld,\"sources\":%ld,"
           "\"backlog\":%ld,\"accept_queue_max\":%ld,\"listen_drops\":%ld,\"diag\":%s,",
           c.n, c.connected, c.dropped, c.connected - c.dropped, closed, c.connect_errors, c.refused_waits,
           c.bytes_received, c.sources, c.backlog, c.accept_queue_max, c.listen_drops,
           c.diag >= 0 ? "true" : "false");
    printf("\"connect_s\":");
    if (c.t_all > 0)
        printf("%.6f", c.t_all - c.t0);
    else
        printf("null");
    printf(",\"first_connect_s\":");
    if (c.t_first > 0)
        printf("%.6f", c.t_first - c.t0);
    else
        printf("null");
    printf(",\"hold_s\":");
    if (c.t_all > 0 && c.t_close_cmd > 0)
        printf("%.6f", c.t_close_cmd - c.t_all);
    else
        printf("null");
    printf(",\"first_drop_s\":");
    if (c.t_first_drop > 0)
        printf("%.6f", c.t_first_drop - c.t0);
    else
        printf("null");
    printf(",\"close_s\":%.6f,\"total_s\":%.6f,", c.t_closed - c.t_close_cmd, t_end - c.t0);
    printf("\"maxrss_kib\":%ld,\"user_s\":%.6f,\"sys_s\":%.6f,", ru.ru_maxrss,
           ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    printf("\"error\":");
    if (c.error)
        json_string(c.error);
    else
        printf("null");
    printf("}\n");
    fflush(stdout);
}

/* ---------------------------------------------------------------- setup */

static long ports_per_source(void) {
    long lo = 32768, hi = 60999;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &lo, &hi) != 2) lo = 32768, hi = 60999;
        fclose(f);
    }
    long half = (hi - lo + 1) / 2;
    return half > 0 ? half : 1;
}

static int raise_nofile(long want) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if ((long)rl.rlim_cur >= want) return 0;
    struct rlimit up = {.rlim_cur = (rlim_t)want, .rlim_max = rl.rlim_max};
    if ((long)rl.rlim_max < want) up.rlim_max = (rlim_t)want;
    if (setrlimit(RLIMIT_NOFILE, &up) == 0) return 0;
    long nr_open = -1;
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    if (f) {
        if (fscanf(f, "%ld", &nr_open) != 1) nr_open = -1;
        fclose(f);
    }
    fail("cannot raise RLIMIT_NOFILE to %ld (soft %ld, hard %ld, fs.nr_open %ld): %s", want,
         (long)rl.rlim_cur, (long)rl.rlim_max, nr_open, strerror(errno));
    return -1;
}

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [-a ADDR] [-s SOURCES] [-w WINDOW] [-r RATE] [-e ERRORS] [-m BYTES] "
            "[-c rst|fin] PORT N\n",
            argv0);
    exit(2);
}

static long number(const char *text, const char *what, const char *argv0) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < 0) {
        fprintf(stderr, "memrun-connect: %s must be a non-negative integer, got %s\n", what, text);
        usage(argv0);
    }
    return v;
}

int main(int argc, char **argv) {
    const char *addr = "127.0.0.1";
    c.sources = -1;
    c.window = 1024;
    c.max_errors = 100;
    c.message = 16;
    c.close_rst = 1;
    int opt;
    while ((opt = getopt(argc, argv, "a:s:w:r:e:m:c:")) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 's': c.sources = number(optarg, "-s", argv[0]); break;
        case 'w': c.window = number(optarg, "-w", argv[0]); break;
        case 'r': c.rate = (double)number(optarg, "-r", argv[0]); break;
        case 'e': c.max_errors = number(optarg, "-e", argv[0]); break;
        case 'm': c.message = (size_t)number(optarg, "-m", argv[0]); break;
        case 'c':
            if (strcmp(optarg, "rst") && strcmp(optarg, "fin")) usage(argv[0]);
            c.close_rst = strcmp(optarg, "rst") == 0;
            break;
        default: usage(argv[0]);
        }
    }
    if (argc - optind != 2) usage(argv[0]);
    long port = number(argv[optind], "PORT", argv[0]);
    c.n = number(argv[optind + 1], "N", argv[0]);
    if (port < 1 || port > 65535 || c.n < 1 || c.window < 1 || c.message < 1 || c.message > 256) usage(argv[0]);
    c.server.sin_family = AF_INET;
    c.server.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &c.server.sin_addr) != 1) {
        fprintf(stderr, "memrun-connect: not an IPv4 address: %s\n", addr);
        return 2;
    }
    if (c.sources < 0) {
        /* loopback servers only: other addresses get no spreading (sources 0 = no bind) */
        long per = ports_per_source();
        c.sources = (ntohl(c.server.sin_addr.s_addr) >> 24) == 127 ? (c.n + per - 1) / per : 0;
    }
    if (c.sources > (1L << 24) - 3) c.sources = (1L << 24) - 3;

    c.t0 = now();
    c.t_tokens = c.t0;
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

    c.fd = malloc(sizeof *c.fd * (size_t)c.n);
    c.state = calloc((size_t)c.n, 1);
    c.retry = malloc(sizeof *c.retry * (size_t)c.n);
    c.ep = epoll_create1(EPOLL_CLOEXEC);
    c.diag = diag_open();
    if (!c.fd || !c.state || !c.retry || c.ep < 0 || sfd < 0) {
        fprintf(stderr, "memrun-connect: cannot allocate its state for %ld connections\n", c.n);
        return 1;
    }
    for (long i = 0; i < c.n; i++) c.fd[i] = -1;

    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_STDIN};
    int stdin_watched = epoll_ctl(c.ep, EPOLL_CTL_ADD, 0, &ev) == 0;
    ev.data.u64 = TAG_SIGNAL;
    epoll_ctl(c.ep, EPOLL_CTL_ADD, sfd, &ev);

    raise_nofile(c.n + FD_HEADROOM);
    char line[256];
    size_t line_len = 0;
    int closing = c.error != NULL;
    struct epoll_event events[MAX_EVENTS];
    while (!closing) {
        int connecting = c.next < c.n || c.retries > 0;
        if (connecting && open_more() < 0) break;
        connecting = c.next < c.n || c.retries > 0 || c.inflight > 0;
        /* while connecting, wake often to read the accept queue; while holding, wait for events */
        int timeout = connecting ? (c.ever_connected ? 1 : 10) : -1;
        int got = epoll_wait(c.ep, events, MAX_EVENTS, timeout);
        if (got < 0 && errno != EINTR) {
            fail("epoll_wait: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < got; k++) {
            uint64_t tag = events[k].data.u64;
            if (tag == TAG_SIGNAL) {
                closing = 1;
            } else if (tag == TAG_STDIN) {
                ssize_t r = read(0, line + line_len, sizeof line - 1 - line_len);
                if (r <= 0) {
                    if (r < 0 && errno == EINTR) continue;
                    closing = 1; /* EOF: memrun is gone, or told us by closing the pipe */
                    epoll_ctl(c.ep, EPOLL_CTL_DEL, 0, NULL);
                    continue;
                }
                line_len += (size_t)r;
                line[line_len] = 0;
                if (strstr(line, "close\n")) closing = 1;
                if (line_len >= sizeof line - 1) line_len = 0;
            } else {
                on_socket_event((long)tag, events[k].events);
            }
        }
        if (c.error) break;
    }
    (void)stdin_watched;
    c.t_close_cmd = now();
    if (c.ever_connected) {
        long queued, max;
        listen_queue(&queued, &max); /* the listener's drops as they stand when the hold ends */
    }
    long closed = close_all();
    c.t_closed = now();
    print_summary(closed);
    close(c.ep);
    if (c.diag >= 0) close(c.diag);
    close(sfd);
    free(c.fd);
    free(c.state);
    free(c.retry);
    return c.error ? 1 : 0;
}
