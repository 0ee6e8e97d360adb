/*
 * memrun-http: memrun's own open-loop HTTP/1.1 load client for the http workload.
 *
 * Why a client of memrun's own: the closed-loop tools the HTTP shoot-outs used (wrk, ab) send a
 * connection's next request only once its previous answer came, so while a server stalls they
 * stop sending, and the stall vanishes from their percentiles (coordinated omission). This
 * client sends at a constant total rate R, spread evenly over C keep-alive connections, and
 * measures each answer from the time its request was SCHEDULED (wrk2's correction): request j
 * is due at t0 + j/R on connection j mod C. A connection still waiting for an answer when its
 * next request falls due sends it the moment the answer comes (HTTP/1.1 without pipelining), and
 * that wait is counted in full. The latency from the actual send (what a closed-loop tool sees)
 * is recorded beside it, so the two can be compared. It runs on its own CPUs, in its own cgroup,
 * one thread with epoll, and reports its own CPU time per phase.
 *
 * Every answer is checked: `302` with `Location: /Renard-K.png`, 1 <= K <= IMAGES, for `GET /`;
 * one `GET /memrun-404` on the first connection must answer 404 first. A wrong answer is counted
 * (and the first one quoted): memrun makes such a run invalid.
 *
 * Usage: memrun-http [-a ADDR] [-I IMAGES] [-d DRAIN_S] [-w WINDOW] PORT C
 * stdin, one command per line:
 *   rate R WARMUP_S WINDOW_S   send at R requests/s: WARMUP_S unrecorded, then WINDOW_S recorded;
 *                              then wait up to DRAIN_S for answers to the window's requests
 *   close                      close every connection (reset) and exit 0 (so do EOF and SIGTERM)
 * stdout, one line each, flushed:
 *   connected C SECONDS LISTEN all C connections are open and the 404 check passed (LISTEN: when
 *                              the server's port began to listen; connects began GRACE_S later)
 *   phase {JSON}               one per `rate` command (see print_phase)
 *   summary {JSON}             at exit
 * Exit status: 0 after close, 1 when it gave up (see "error" in the summary), 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TAG_STDIN UINT64_MAX
#define TAG_SIGNAL (UINT64_MAX - 1)
#define MAX_EVENTS 1024
#define BUF 8192
#define QUOTE 160

/* A log-linear histogram of microseconds, about 1.6 % wide per bucket (HdrHistogram's idea with
 * 64 sub-buckets per power of two): exact below 128 us, up to 2^36 us. */
#define HBUCKETS 2048
typedef struct {
    uint64_t count[HBUCKETS];
    uint64_t n, max_us, sum_us;
} hist_t;

static int hbucket(uint64_t us) {
    if (us < 128) return (int)us;
    int e = 63 - __builtin_clzll(us);
    if (e > 36) return HBUCKETS - 1;
    return 128 + (e - 7) * 64 + (int)((us >> (e - 6)) - 64);
}

static uint64_t hvalue(int b) { /* the bucket's upper bound: a percentile never reads low */
    if (b < 128) return (uint64_t)b;
    int e = (b - 128) / 64 + 7, m = (b - 128) % 64 + 64;
    return (((uint64_t)m + 1) << (e - 6)) - 1;
}

static void hrecord(hist_t *h, uint64_t us) {
    h->count[hbucket(us)]++;
    h->n++;
    h->sum_us += us;
    if (us > h->max_us) h->max_us = us;
}

static uint64_t hpercentile(const hist_t *h, double p) {
    if (!h->n) return 0;
    uint64_t want = (uint64_t)(p / 100.0 * (double)h->n + 0.999999), seen = 0;
    if (want < 1) want = 1;
    for (int b = 0; b < HBUCKETS; b++) {
        seen += h->count[b];
        if (seen >= want) return hvalue(b) < h->max_us ? hvalue(b) : h->max_us;
    }
    return h->max_us;
}

enum { FREE = 0, CONNECTING, OPEN };

typedef struct {
    int fd, state;
    int busy;           /* a request is in flight */
    int check404;       /* the in-flight request is the 404 check */
    int retry;          /* the in-flight request was lost with its connection: send it again */
    uint64_t cur_j;     /* the in-flight request's global index */
    uint64_t next_j;    /* global index of this connection's next request (j mod C == its index) */
    int64_t sched_ns;   /* the in-flight request's scheduled time */
    int64_t sent_ns;    /* ... and when it was sent */
    int in_window;      /* the in-flight request was scheduled inside the measured window */
    size_t len;         /* bytes in buf */
    char *buf;
} conn_t;

static struct {
    struct sockaddr_in server;
    long c, images;
    double drain_s;
    long window; /* connects in flight while opening */
    char request[256];
    size_t request_len;
    int epfd;
    conn_t *conns;
    long open, connecting, next_connect;
    int refused_ok; /* until the first connect succeeds, ECONNREFUSED means "not listening yet" */
    int64_t t_start;
    /* the running phase */
    int running;
    double rate;
    int64_t t0, window_start, window_end, drain_end;
    uint64_t due; /* requests scheduled so far (j < due) */
    hist_t corrected, uncorrected;
    uint64_t sent, answered, answered_in_window, wrong, not_found, closed_by_server, reconnects,
        connect_errors, late_sends, retried;
    char wrong_quote[QUOTE];
    struct rusage ru0;
    /* totals */
    uint64_t total_sent, total_answered, total_wrong;
    char error[256];
} S;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    if (S.error[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.error, sizeof S.error, fmt, ap);
    va_end(ap);
}

static void close_conn(conn_t *k, int reset) {
    if (k->fd < 0) return;
    if (reset) {
        struct linger l = {1, 0};
        setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    }
    close(k->fd);
    if (k->state == OPEN) S.open--;
    if (k->state == CONNECTING) S.connecting--;
    k->fd = -1;
    k->state = FREE;
    k->busy = 0;
    k->len = 0;
}

static int start_connect(long i) {
    conn_t *k = &S.conns[i];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct linger l = {1, 0}; /* a reset at close: no TIME_WAIT socket outlives the run */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    k->fd = fd;
    k->state = CONNECTING;
    k->len = 0;
    S.connecting++;
    if (connect(fd, (struct sockaddr *)&S.server, sizeof S.server) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close_conn(k, 0);
        errno = e;
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.u64 = (uint64_t)i};
    if (epoll_ctl(S.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        fail("epoll_ctl: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void send_request(long i, uint64_t j, int64_t t) {
    conn_t *k = &S.conns[i];
    int64_t sched = S.t0 + (int64_t)((double)j * 1e9 / S.rate);
    ssize_t w = send(k->fd, S.request, S.request_len, MSG_NOSIGNAL);
    if (w != (ssize_t)S.request_len) return; /* closed: its EPOLLRDHUP comes next (on_lost) */
    k->busy = 1;
    k->check404 = 0;
    k->cur_j = j;
    k->sched_ns = sched;
    k->sent_ns = t;
    k->in_window = sched >= S.window_start && sched < S.window_end;
    k->next_j = j + (uint64_t)S.c;
    S.sent++;
    S.total_sent++;
    if (t - sched > 1000000) S.late_sends++; /* sent over 1 ms after its time (connection busy) */
}

/* Send what is due on connection i, if it is idle: its oldest unsent scheduled request. */
static void maybe_send(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    if (!S.running || k->state != OPEN || k->busy) return;
    if (k->retry) {
        k->retry = 0;
        S.retried++;
        send_request(i, k->cur_j, t);
    } else if (k->next_j < S.due) {
        send_request(i, k->next_j, t);
    }
}

static void quote_wrong(const char *what, const char *head, size_t n) {
    S.wrong++;
    S.total_wrong++;
    if (S.wrong_quote[0]) return;
    size_t m = n < 100 ? n : 100;
    char clean[104];
    for (size_t x = 0; x < m; x++) clean[x] = (head[x] == '\r' || head[x] == '\n') ? ' ' : head[x];
    clean[m] = 0;
    snprintf(S.wrong_quote, sizeof S.wrong_quote, "%s: %s", what, clean);
}

/* Case-insensitive header lookup in [head, end): the value, its length in *vlen, or NULL. */
static const char *header(const char *head, const char *end, const char *name, size_t *vlen) {
    size_t nl = strlen(name);
    const char *p = memchr(head, '\n', (size_t)(end - head));
    while (p && p + 1 < end) {
        const char *line = p + 1;
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        if ((size_t)(eol - line) > nl + 1 && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
            const char *v = line + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t')) v++;
            const char *ve = eol;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ')) ve--;
            *vlen = (size_t)(ve - v);
            return v;
        }
        p = eol < end ? eol : NULL;
    }
    return NULL;
}

/* Length of a complete chunked body at b (n bytes), or 0 while incomplete, -1 when malformed. */
static long chunked_length(const char *b, size_t n) {
    size_t at = 0;
    for (;;) {
        const char *eol = memmem(b + at, n - at, "\r\n", 2);
        if (!eol) return 0;
        char *endp;
        long size = strtol(b + at, &endp, 16);
        if (endp == b + at || size < 0) return -1;
        at = (size_t)(eol - b) + 2;
        if (size == 0) { /* trailers end with an empty line */
            const char *fin = memmem(b + at - 2, n - at + 2, "\r\n\r\n", 4);
            return fin ? (long)(fin - b) + 4 : 0;
        }
        if (at + (size_t)size + 2 > n) return 0;
        at += (size_t)size + 2;
    }
}

static int location_ok(const char *v, size_t n) {
    /* /Renard-K.png, K a decimal in 1..IMAGES without a leading zero */
    static const char pre[] = "/Renard-", post[] = ".png";
    if (n < sizeof pre - 1 + 1 + sizeof post - 1 || strncmp(v, pre, sizeof pre - 1) != 0) return 0;
    if (strncmp(v + n - (sizeof post - 1), post, sizeof post - 1) != 0) return 0;
    const char *d = v + sizeof pre - 1, *de = v + n - (sizeof post - 1);
    if (d == de || *d == '0' || de - d > 9) return 0;
    long k = 0;
    for (; d < de; d++) {
        if (*d < '0' || *d > '9') return 0;
        k = k * 10 + (*d - '0');
    }
    return k >= 1 && k <= S.images;
}

/* One complete response sits at the start of k->buf? Returns its length, 0 if incomplete. */
static long parse_response(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    char *b = k->buf;
    char *hend = memmem(b, k->len, "\r\n\r\n", 4);
    if (!hend) return k->len >= BUF ? -1 : 0;
    size_t hlen = (size_t)(hend - b) + 4;
    size_t vlen = 0;
    long body = 0;
    const char *te = header(b, hend + 2, "Transfer-Encoding", &vlen);
    if (te && vlen >= 7 && strncasecmp(te, "chunked", 7) == 0) {
        body = chunked_length(b + hlen, k->len - hlen);
        if (body < 0) return -1;
        if (body == 0) return k->len >= BUF ? -1 : 0;
    } else {
        const char *cl = header(b, hend + 2, "Content-Length", &vlen);
        body = cl ? strtol(cl, NULL, 10) : 0;
        if (body < 0 || hlen + (size_t)body > BUF) return -1;
        if (k->len < hlen + (size_t)body) return 0;
    }
    int status = (k->len > 12 && strncmp(b, "HTTP/1.", 7) == 0) ? atoi(b + 9) : 0;
    if (k->check404) {
        if (status != 404) quote_wrong("GET /memrun-404 did not answer 404", b, hlen);
        else S.not_found++;
    } else if (status != 302) {
        quote_wrong("GET / did not answer 302", b, hlen);
    } else {
        const char *loc = header(b, hend + 2, "Location", &vlen);
        if (!loc || !location_ok(loc, vlen)) quote_wrong("GET / answered a wrong Location", b, hlen);
    }
    if (!k->check404) {
        S.answered++;
        S.total_answered++;
        if (t >= S.window_start && t < S.window_end) S.answered_in_window++;
        if (k->in_window) {
            hrecord(&S.corrected, (uint64_t)((t - k->sched_ns) / 1000));
            hrecord(&S.uncorrected, (uint64_t)((t - k->sent_ns) / 1000));
        }
    }
    k->busy = 0;
    /* After `Connection: close` the server closes it next, and on_lost counts that. */
    return (long)(hlen + (size_t)body);
}

/* Connection i is gone (by_server: the server closed or reset it): open it again, so that C stay
 * open; its unsent requests go out once it is back, their wait counted. A request in flight that
 * got no byte of an answer is sent again on the new connection, as HTTP clients do when a server
 * closes an idle keep-alive connection as the request goes out (its latency still counts from its
 * scheduled time). */
static void on_lost(long i, int by_server) {
    conn_t *k = &S.conns[i];
    if (by_server) S.closed_by_server++;
    int again = by_server && k->busy && !k->check404 && k->len == 0 && S.running;
    close_conn(k, 1);
    k->retry = again;
    S.reconnects++;
    if (start_connect(i) < 0 && !S.error[0]) fail("reconnect: %s", strerror(errno));
}

static void on_readable(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    for (;;) {
        ssize_t r = recv(k->fd, k->buf + k->len, BUF - k->len, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            on_lost(i, 1);
            return;
        }
        if (r < 0) break;
        k->len += (size_t)r;
        for (;;) {
            long used = parse_response(i, t);
            if (used < 0) {
                quote_wrong("an unreadable response", k->buf, k->len);
                on_lost(i, 0);
                return;
            }
            if (used == 0) break;
            memmove(k->buf, k->buf + used, k->len - (size_t)used);
            k->len -= (size_t)used;
            maybe_send(i, t);
        }
        /* Nothing half-read: epoll (level-triggered) says when more comes, which saves the
         * recv that would only return EAGAIN (a syscall per answer: the client's main cost). */
        if (k->len == 0 || k->len == BUF) break;
    }
}

static void on_event(long i, uint32_t ev, int64_t t) {
    conn_t *k = &S.conns[i];
    if (k->state == CONNECTING) {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
            close_conn(k, 0);
            if (!(err == ECONNREFUSED && S.refused_ok)) S.connect_errors++;
            if (S.connect_errors > 100) fail("connect: %s (over 100 connects failed)", strerror(err));
            return; /* the opening loop retries this index */
        }
        if (!(ev & EPOLLOUT)) return;
        S.refused_ok = 0;
        k->state = OPEN;
        S.connecting--;
        S.open++;
        struct epoll_event e2 = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)i};
        epoll_ctl(S.epfd, EPOLL_CTL_MOD, k->fd, &e2);
        maybe_send(i, t);
        return;
    }
    if (k->state == OPEN && (ev & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))) on_readable(i, t);
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

static double cpu_s(const struct rusage *r) {
    return (double)r->ru_utime.tv_sec + r->ru_utime.tv_usec / 1e6 + (double)r->ru_stime.tv_sec +
           r->ru_stime.tv_usec / 1e6;
}

static void print_hist(const char *name, const hist_t *h) {
    printf("\"%s\": {\"count\": %llu, \"p50_us\": %llu, \"p90_us\": %llu, \"p99_us\": %llu, "
           "\"p999_us\": %llu, \"max_us\": %llu, \"mean_us\": %.1f, \"buckets\": [",
           name, (unsigned long long)h->n, (unsigned long long)hpercentile(h, 50),
           (unsigned long long)hpercentile(h, 90), (unsigned long long)hpercentile(h, 99),
           (unsigned long long)hpercentile(h, 99.9), (unsigned long long)h->max_us,
           h->n ? (double)h->sum_us / (double)h->n : 0.0);
    int first = 1; /* the non-empty buckets as [upper_us, count], for percentile curves */
    for (int b = 0; b < HBUCKETS; b++)
        if (h->count[b]) {
            printf("%s[%llu, %llu]", first ? "" : ", ", (unsigned long long)hvalue(b),
                   (unsigned long long)h->count[b]);
            first = 0;
        }
    printf("]}");
}

static void print_phase(int64_t t_end) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t scheduled = 0, unanswered = 0;
    /* requests scheduled in the window: j with window_start <= t0 + j/R < window_end */
    double a = (double)(S.window_start - S.t0) * S.rate / 1e9, z = (double)(S.window_end - S.t0) * S.rate / 1e9;
    scheduled = (uint64_t)(z + 0.999999999) - (uint64_t)(a + 0.999999999);
    unanswered = scheduled > S.corrected.n ? scheduled - S.corrected.n : 0;
    double window_s = (double)(S.window_end - S.window_start) / 1e9;
    /* the share of its CPUs the client used over the phase: near 1, the rate is its limit */
    cpu_set_t set;
    int ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    double busy = (cpu_s(&ru) - cpu_s(&S.ru0)) / ((double)(t_end - S.t0) / 1e9) / (ncpu > 0 ? ncpu : 1);
    printf("phase {\"rate\": %.3f, \"connections\": %ld, \"warmup_s\": %.3f, \"window_s\": %.3f, "
           "\"scheduled\": %llu, \"answered_in_window\": %llu, \"achieved_rate\": %.3f, "
           "\"unanswered\": %llu, \"sent\": %llu, \"answered\": %llu, \"late_sends\": %llu, "
           "\"wrong\": %llu, \"closed_by_server\": %llu, \"reconnects\": %llu, \"retried\": %llu, "
           "\"connect_errors\": %llu, \"open_at_end\": %ld, \"drain_s\": %.3f, \"cpu_s\": %.3f, "
           "\"client_busy\": %.4f, "
           "\"mono_start\": %.6f, \"mono_window\": %.6f, \"mono_window_end\": %.6f, \"mono_end\": %.6f, "
           "\"wrong_example\": ",
           S.rate, S.c, (double)(S.window_start - S.t0) / 1e9, window_s,
           (unsigned long long)scheduled, (unsigned long long)S.answered_in_window,
           (double)S.answered_in_window / window_s, (unsigned long long)unanswered,
           (unsigned long long)S.sent, (unsigned long long)S.answered,
           (unsigned long long)S.late_sends, (unsigned long long)S.wrong,
           (unsigned long long)S.closed_by_server, (unsigned long long)S.reconnects,
           (unsigned long long)S.retried,
           (unsigned long long)S.connect_errors, S.open, (double)(t_end - S.window_end) / 1e9,
           cpu_s(&ru) - cpu_s(&S.ru0), busy, (double)S.t0 / 1e9, (double)S.window_start / 1e9,
           (double)S.window_end / 1e9, (double)t_end / 1e9);
    json_string(S.wrong_quote);
    printf(", ");
    print_hist("latency", &S.corrected);
    printf(", ");
    print_hist("service", &S.uncorrected);
    printf("}\n");
    fflush(stdout);
}

static void print_summary(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("summary {\"connections\": %ld, \"open\": %ld, \"sent\": %llu, \"answered\": %llu, "
           "\"wrong\": %llu, \"not_found_checked\": %llu, \"maxrss_kib\": %ld, \"cpu_s\": %.3f, "
           "\"elapsed_s\": %.3f, \"error\": ",
           S.c, S.open, (unsigned long long)S.total_sent, (unsigned long long)S.total_answered,
           (unsigned long long)S.total_wrong, (unsigned long long)S.not_found, ru.ru_maxrss,
           cpu_s(&ru), (double)(now_ns() - S.t_start) / 1e9);
    if (S.error[0]) json_string(S.error);
    else printf("null");
    printf("}\n");
    fflush(stdout);
}

/* Wait for events until `until` (ns), or until the next request falls due. */
static int wait_events(struct epoll_event *evs, int64_t until) {
    int64_t t = now_ns(), wait = until - t;
    if (wait < 0) wait = 0;
    struct timespec ts = {.tv_sec = wait / 1000000000, .tv_nsec = wait % 1000000000};
#ifdef SYS_epoll_pwait2
    static int have = 1;
    if (have) {
        int n = (int)syscall(SYS_epoll_pwait2, S.epfd, evs, MAX_EVENTS, &ts, NULL, 0);
        if (n >= 0 || errno != ENOSYS) return n;
        have = 0;
    }
#endif
    return epoll_wait(S.epfd, evs, MAX_EVENTS, (int)((wait + 999999) / 1000000));
}

static int handle(struct epoll_event *evs, int n, char *line, size_t *line_len, int *quit) {
    int64_t t = now_ns();
    for (int e = 0; e < n; e++) {
        uint64_t tag = evs[e].data.u64;
        if (tag == TAG_SIGNAL) {
            *quit = 1;
        } else if (tag == TAG_STDIN) {
            if (*line_len >= 255) *line_len = 0; /* no command is that long */
            ssize_t r = read(0, line + *line_len, 255 - *line_len);
            if (r <= 0) *quit = 1;
            else *line_len += (size_t)r;
        } else {
            on_event((long)tag, evs[e].events, t);
        }
    }
    return 0;
}

static void run_phase(double rate, double warmup_s, double window_s, int *quit, char *line, size_t *line_len) {
    memset(&S.corrected, 0, sizeof S.corrected);
    memset(&S.uncorrected, 0, sizeof S.uncorrected);
    S.sent = S.answered = S.answered_in_window = S.wrong = S.closed_by_server = S.reconnects = 0;
    S.connect_errors = S.late_sends = S.retried = 0;
    S.wrong_quote[0] = 0;
    getrusage(RUSAGE_SELF, &S.ru0);
    S.rate = rate;
    S.t0 = now_ns();
    S.window_start = S.t0 + (int64_t)(warmup_s * 1e9);
    S.window_end = S.window_start + (int64_t)(window_s * 1e9);
    S.drain_end = S.window_end + (int64_t)(S.drain_s * 1e9);
    S.due = 0;
    double end_j = (double)(S.window_end - S.t0) * rate / 1e9;
    uint64_t last = (uint64_t)end_j + ((double)(uint64_t)end_j < end_j); /* ceil */
    for (long i = 0; i < S.c; i++) {
        S.conns[i].next_j = (uint64_t)i;
        S.conns[i].retry = 0; /* a request of an earlier phase is not this phase's */
    }
    S.running = 1;
    struct epoll_event evs[MAX_EVENTS];
    int64_t t = S.t0;
    while (!*quit && !S.error[0]) {
        t = now_ns();
        /* j < due are due now; none past the window's last (j < last: scheduled before its end),
         * and all of those once the end has passed, however late this loop wakes */
        uint64_t due = (uint64_t)((double)(t - S.t0) * rate / 1e9) + 1;
        if (due > last) due = last;
        for (uint64_t j = S.due; j < due; j++) {
            long i = (long)(j % (uint64_t)S.c);
            S.due = j + 1;
            maybe_send(i, t);
        }
        if (t >= S.window_end) {
            /* the window is over: nothing more falls due; answers to the window's requests may
             * still come until drain_end, and a connection's backlog is sent until then too */
            long busy = 0;
            for (long i = 0; i < S.c; i++) busy += S.conns[i].busy || (S.conns[i].state == OPEN && S.conns[i].next_j < S.due);
            if (!busy || t >= S.drain_end) break;
        }
        int64_t next = t < S.window_end ? S.t0 + (int64_t)((double)S.due * 1e9 / rate) : S.drain_end;
        if (next > S.window_end && t < S.window_end) next = S.window_end;
        int n = wait_events(evs, next);
        if (n < 0 && errno != EINTR) {
            fail("epoll_wait: %s", strerror(errno));
            break;
        }
        if (n > 0) handle(evs, n, line, line_len, quit);
    }
    S.running = 0;
    print_phase(now_ns());
    /* A connection still waiting for an answer would read it during the next phase: start it
     * afresh. (memrun runs no further phase after one that left answers outstanding.) */
    for (long i = 0; i < S.c; i++)
        if (S.conns[i].busy) on_lost(i, 0);
}

/* Whether something listens on the port for 127.0.0.1: a socket in state LISTEN (0A) bound to
 * 127.0.0.1 or 0.0.0.0 in /proc/net/tcp, or to ::ffff:127.0.0.1 or :: in /proc/net/tcp6 (the JVM
 * listens on a dual-stack IPv6 socket even when told 127.0.0.1). -1: neither file is readable. */
static int listening(long port) {
    static const char *files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    static const char *v4[] = {"0100007F", "00000000"};
    static const char *v6[] = {"0000000000000000FFFF00000100007F", "00000000000000000000000000000000"};
    int readable = 0;
    for (int f = 0; f < 2; f++) {
        FILE *in = fopen(files[f], "r");
        if (!in) continue;
        readable = 1;
        char line[512], addr[40];
        unsigned lport, state;
        int found = 0;
        while (!found && fgets(line, sizeof line, in))
            if (sscanf(line, " %*d: %39[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", addr, &lport, &state) == 3 &&
                state == 0x0A && lport == (unsigned)port) {
                const char **any = f ? v6 : v4;
                found = strcasecmp(addr, any[0]) == 0 || strcasecmp(addr, any[1]) == 0;
            }
        fclose(in);
        if (found) return 1;
    }
    return readable ? 0 : -1;
}

static void usage(const char *argv0) {
    fprintf(stderr, "usage: %s [-a ADDR] [-I IMAGES] [-d DRAIN_S] [-g GRACE_S] [-w WINDOW] PORT C\n", argv0);
    exit(2);
}

int main(int argc, char **argv) {
    const char *addr = "127.0.0.1";
    S.images = 1000;
    S.drain_s = 5;
    S.window = 256;
    double grace_s = 0.25;
    int opt;
    while ((opt = getopt(argc, argv, "a:I:d:g:w:")) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'g': grace_s = atof(optarg); break;
        case 'I': S.images = atol(optarg); break;
        case 'd': S.drain_s = atof(optarg); break;
        case 'w': S.window = atol(optarg); break;
        default: usage(argv[0]);
        }
    }
    if (argc - optind != 2) usage(argv[0]);
    long port = atol(argv[optind]);
    S.c = atol(argv[optind + 1]);
    if (port < 1 || port > 65535 || S.c < 1 || S.images < 1 || S.window < 1 || S.drain_s < 0) usage(argv[0]);
    S.server.sin_family = AF_INET;
    S.server.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &S.server.sin_addr) != 1) usage(argv[0]);
    S.request_len = (size_t)snprintf(S.request, sizeof S.request, "GET / HTTP/1.1\r\nHost: %s:%ld\r\n\r\n", addr, port);
    S.t_start = now_ns();
    S.conns = calloc((size_t)S.c, sizeof *S.conns);
    char *bufs = malloc((size_t)S.c * BUF);
    if (!S.conns || !bufs) {
        fprintf(stderr, "memrun-http: out of memory for %ld connections\n", S.c);
        return 1;
    }
    for (long i = 0; i < S.c; i++) {
        S.conns[i].fd = -1;
        S.conns[i].buf = bufs + (size_t)i * BUF;
    }
    S.epfd = epoll_create1(EPOLL_CLOEXEC);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    int sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_SIGNAL};
    epoll_ctl(S.epfd, EPOLL_CTL_ADD, sfd, &ev);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    ev.data.u64 = TAG_STDIN;
    epoll_ctl(S.epfd, EPOLL_CTL_ADD, 0, &ev);

    struct epoll_event evs[MAX_EVENTS];
    char line[256];
    size_t line_len = 0;
    int quit = 0;
    S.refused_ok = 1;

    /* Connect only once the server listens, and GRACE_S later: a server still starting is not
     * what is measured, and some are not ready at listen() (seen here: .NET's HttpListener
     * crashed on a connection accepted inside Start(); inets' httpd answered 500 on connections
     * accepted while it started). Where /proc/net/tcp cannot be read, connects are retried. */
    while (!quit && listening(port) == 0) {
        if (now_ns() - S.t_start > 120LL * 1000000000) {
            fail("the server did not listen within 120 s");
            break;
        }
        int n = wait_events(evs, now_ns() + 10000000);
        if (n > 0) handle(evs, n, line, &line_len, &quit);
    }
    double listening_s = (double)(now_ns() - S.t_start) / 1e9;
    for (int64_t until = now_ns() + (int64_t)(grace_s * 1e9); !quit && now_ns() < until;) {
        int n = wait_events(evs, until);
        if (n > 0) handle(evs, n, line, &line_len, &quit);
    }

    /* Open C connections, WINDOW connects in flight; until the first succeeds, a refusal means
     * the server does not listen yet (retried every 10 ms). Then the 404 check on connection 0. */
    long scan = 0;
    int checked = 0;
    while (!quit && !S.error[0]) {
        while (S.connecting < S.window && S.open + S.connecting < S.c) {
            while (S.conns[scan].state != FREE) scan = (scan + 1) % S.c;
            if (start_connect(scan) < 0) {
                if (errno == EMFILE || errno == ENFILE) fail("socket: %s", strerror(errno));
                else S.connect_errors++;
                break;
            }
        }
        if (S.error[0]) break;
        if (S.open == S.c && !checked) {
            conn_t *k = &S.conns[0];
            char req[256];
            int m = snprintf(req, sizeof req, "GET /memrun-404 HTTP/1.1\r\nHost: %s:%ld\r\n\r\n", addr, port);
            if (send(k->fd, req, (size_t)m, MSG_NOSIGNAL) != m) fail("the 404 check could not be sent");
            k->busy = 1;
            k->check404 = 1;
            checked = 1;
        }
        if (checked && !S.conns[0].busy && S.open == S.c) break;
        int n = wait_events(evs, now_ns() + (S.refused_ok ? 10000000 : 1000000000));
        if (n > 0) handle(evs, n, line, &line_len, &quit);
        if (S.refused_ok && now_ns() - S.t_start > 120LL * 1000000000)
            fail("the server did not listen within 120 s");
        if (checked && S.conns[0].state != OPEN) { /* the 404 closed the connection */
            if (!S.not_found && !S.wrong) quote_wrong("GET /memrun-404 closed the connection", "", 0);
            checked = S.not_found || S.wrong ? 1 : 0;
        }
    }
    if (!quit && !S.error[0]) {
        printf("connected %ld %.6f %.6f\n", S.c, (double)(now_ns() - S.t_start) / 1e9, listening_s);
        fflush(stdout);
    }
    while (!quit && !S.error[0]) {
        char *nl = memchr(line, '\n', line_len);
        if (nl) {
            *nl = 0;
            double rate, warmup, window;
            if (sscanf(line, "rate %lf %lf %lf", &rate, &warmup, &window) == 3 && rate > 0 && window > 0 && warmup >= 0) {
                run_phase(rate, warmup, window, &quit, line, &line_len); /* input may arrive meanwhile */
            } else if (strcmp(line, "close") == 0) {
                break;
            } else {
                fprintf(stderr, "memrun-http: unknown command: %s\n", line);
            }
            size_t used = (size_t)(nl - line) + 1;
            memmove(line, line + used, line_len - used);
            line_len -= used;
            continue;
        }
        if (line_len >= 255) line_len = 0;
        int n = wait_events(evs, now_ns() + 1000000000LL);
        if (n > 0) handle(evs, n, line, &line_len, &quit);
    }
    for (long i = 0; i < S.c; i++) close_conn(&S.conns[i], 1);
    print_summary();
    return S.error[0] ? 1 : 0;
}
