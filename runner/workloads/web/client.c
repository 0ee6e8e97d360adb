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
 * one thread with epoll.
 *
 * It wakes only for work: an event (an answer, a connect, a command), or the scheduled time of
 * the next request whose connection is free to send it. A request that falls due on a busy
 * connection wakes nothing: it stays due and goes out the moment that connection's answer comes
 * (counted from its scheduled time all the same). `client_busy` is the share of the measured
 * window the client spent working (handling events, sending), wall time from each wake that did
 * something to its next wait, of its one thread: near 1, the rate is its limit. Wakes that did
 * nothing (a poll, a timer whose connection had meanwhile become busy) are counted apart
 * (`idle_wakes` of `wakes`). Its CPU time is reported beside it (`cpu_s`, and `cpu_share` of its
 * CPUs over the phase, as an independent generator's CPU share is measured).
 *
 * The client's own lateness is measured, never charged to the server silently (Gil Tene's rule:
 * measure the load generator's send lag, and never report a latency below it as the server's):
 * - send lag: actual send time minus scheduled time, for every request whose connection was idle
 *   when it fell due (its previous answer came at or before that time; one that waited for its
 *   connection is the server's wait, counted apart);
 * - receive lag: an answer is timed when the kernel received its last bytes (the socket's
 *   software receive timestamp, SO_TIMESTAMPING), not when this thread got to them after the
 *   earlier events of its batch; the difference is the client's, recorded apart (`recv_lag`,
 *   with `rx_stamped` answers timed so; one the kernel gave no time for, or one read to the
 *   close, is timed when it was read);
 * - the client's run delay: time it was runnable but not running (/proc/thread-self/schedstat);
 * - its timer slack is set to 1 ns (the default 50 us lets every timed wake-up come that late);
 * - its timed wait is named in every phase: epoll_pwait2 (ns timeout) or, where the kernel lacks
 *   it, a timerfd beside epoll_wait (also ns); never epoll_wait's 1 ms granularity.
 *
 * No latency is left out: a request of the window that got no answer by the end of the drain is
 * counted at (end of the drain - its scheduled time), in the latency histogram and in a
 * `censored` histogram of its own, so that a reader knows which percentiles are lower bounds
 * (memrun writes the two apart as `.hgrm` files: runner/workloads/web/show.py).
 *
 * Histograms are HdrHistogram's layout (HdrHistogram_c, Python's hdrhistogram): values in ns,
 * 1 ns to HDR_HIGHEST, 3 significant digits; printed as raw counts [[index, count], ...] for
 * memrun (Python) to read, merge and encode.
 *
 * Every counted answer is a right answer: `302` with `Location: /Renard-K.png`, 1 <= K <= IMAGES,
 * for `GET /`. Before the load one `GET /memrun-404` on a connection of its own must answer 404;
 * that connection is then closed (FIN), so the server has seen a connection end before it is
 * measured, as any running server has (seen: a server whose per-request receive buffer came from
 * mmap, with three extra system calls and two page faults per request, until the first end of a
 * connection raised glibc's dynamic mmap threshold; docs/http.md, "A server that has seen a
 * connection end"). What is not a right answer is counted apart, never as an answer, never in a
 * latency histogram, never censored (it got a response), and memrun makes such a run invalid:
 * - a wrong answer: another status (`wrong_status`) or a wrong or missing Location
 *   (`wrong_location`); `wrong` is their sum, the first one quoted;
 * - bad framing (`bad_framing`, the first quoted): a response whose length HTTP/1.1 cannot tell
 *   (RFC 9112, 6.3: no status line, a Content-Length that is not one decimal number, a malformed
 *   chunk, a head over BUF bytes, an answer to no request), or one read to the connection's close
 *   whose server kept the connection open past the drain. Framing follows RFC 9112 6.3: 1xx
 *   (interim, skipped), 204 and 304 have no body; a Transfer-Encoding whose last coding is
 *   `chunked` is decoded as chunked whatever codings come before it (`gzip, chunked`; the body is
 *   skipped, never inflated: only the head is checked), one whose last coding is not is read to
 *   the close, as is a response with neither Transfer-Encoding nor Content-Length: such an answer
 *   ends when the server closes the connection (`close_delimited` counts them; the close counts in
 *   `closed_by_server`), and is a right answer if its head is right;
 * - a partial send (`partial_sends`): the kernel took only part of a request; the rest is sent
 *   from where it stopped when the socket can take more (EPOLLOUT), never the whole request again,
 *   and the answer to that request is not counted (its send waited on the server's reading).
 *
 * A connection the server closes is opened again at once, during phases too; a reconnect that
 * fails is retried every RETRY_MS until the phase's drain ends. `open_at_end` says how many of
 * the C were open when a phase ended: memrun makes a run with fewer invalid.
 *
 * Usage: memrun-http [-a ADDR] [-I IMAGES] [-d DRAIN_S] [-g GRACE_S] [-w WINDOW] [-W auto|timerfd]
 *                    [-S SPIN_US] PORT C
 * -S: poll (epoll with a zero timeout) for the last SPIN_US before each send falls due instead of
 *     sleeping: a CPU woken from idle runs the client tens of us after its timer fired (a VM's
 *     vCPU most of all); the polled time is reported (spun_s) and kept out of client_busy (a
 *     poll that found nothing to do is no work).
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
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <linux/net_tstamp.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441 /* the same number on every architecture (Linux 5.11) */
#endif

#define TAG_STDIN UINT64_MAX
#define TAG_SIGNAL (UINT64_MAX - 1)
#define TAG_TIMER (UINT64_MAX - 2)
#define MAX_EVENTS 1024
#define BUF 8192
#define QUOTE 160
#define LATE_NS 1000000LL  /* a send over 1 ms after its scheduled time is counted as late */
#define RETRY_NS 10000000LL /* a failed reconnect is tried again 10 ms later */

/* HdrHistogram with lowest 1, highest HDR_HIGHEST, 3 significant digits: sub-bucket count 2048
 * (2^ceil(log2(2 * 10^3))), half 1024, unit magnitude 0, so leading_zero_count_base =
 * 64 - 0 - 10 - 1 = 53, and 32 buckets reach 2^42 > HDR_HIGHEST: (32 + 1) * 1024 counts. */
#define HDR_HIGHEST 3600000000000LL /* 1 h in ns; a larger value is counted at it (clamped) */
#define HDR_LEN ((32 + 1) * 1024)
typedef struct {
    uint64_t counts[HDR_LEN];
    uint64_t n, clamped;
    int64_t min, max;
    double sum;
} hdr_t;

static int hdr_index(int64_t v) {
    uint64_t u = v < 0 ? 0 : (uint64_t)v;
    int bucket = 53 - __builtin_clzll(u | 2047);
    int sub = (int)(u >> bucket);
    return ((bucket + 1) << 10) + (sub - 1024);
}

static void hdr_record(hdr_t *h, int64_t v) {
    if (v < 0) v = 0;
    if (v > HDR_HIGHEST) {
        v = HDR_HIGHEST;
        h->clamped++;
    }
    h->counts[hdr_index(v)]++;
    if (!h->n || v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->n++;
    h->sum += (double)v;
}

static void hdr_reset(hdr_t *h) { memset(h, 0, sizeof *h); }

enum { FREE = 0, CONNECTING, OPEN };

/* Where the answer being read is (RFC 9112's message body length, section 6.3). */
enum { R_HEAD = 0, R_BODY, R_CHUNK_SIZE, R_CHUNK_DATA, R_CHUNK_END, R_TRAILERS, R_TO_CLOSE };
/* What its head said: right, another status, a wrong or missing Location. */
enum { V_RIGHT = 0, V_STATUS, V_LOCATION };

typedef struct {
    int fd, state;
    int busy;           /* a request is in flight */
    int check404;       /* the in-flight request is the 404 check */
    int retry;          /* the in-flight request was lost with its connection: send it again */
    int pending;        /* waiting in the reconnect list */
    uint64_t cur_j;     /* the in-flight request's global index */
    uint64_t next_j;    /* global index of this connection's next request (j mod C == its index) */
    int64_t sched_ns;   /* the in-flight request's scheduled time */
    int64_t sent_ns;    /* ... and when it was sent */
    int64_t free_ns;    /* when it last became free to send (its previous answer, or its connect) */
    int in_window;      /* the in-flight request was scheduled inside the measured window */
    size_t unsent;      /* bytes of the in-flight request still to send (a partial send's rest) */
    int partial;        /* the in-flight request's send was partial */
    int rstate;         /* R_...: where the answer being read is */
    int verdict;        /* V_...: what its head said */
    int got;            /* a byte of the in-flight request's answer came */
    int64_t rx_ns;      /* when the kernel received the bytes last read (CLOCK_MONOTONIC; 0: unknown) */
    uint64_t remaining; /* R_BODY, R_CHUNK_DATA: bytes left to skip */
    size_t len;         /* bytes in buf */
    char *buf;
} conn_t;

static struct {
    struct sockaddr_in server;
    long c, images;
    double drain_s;
    int64_t spin_ns, spun;
    long window; /* connects in flight while opening */
    char request[1024];
    size_t request_len;
    int epfd, tfd; /* tfd: the timerfd when epoll_pwait2 is missing (or -W timerfd) */
    const char *wait_name;
    unsigned long slack_ns;
    conn_t *conns; /* C load connections, and at index C the 404 check's own */
    long open, connecting;
    int opened;     /* `connected` was printed: from now on a lost connection is reconnected */
    int refused_ok; /* until the first connect succeeds, ECONNREFUSED means "not listening yet" */
    long *pending;  /* connections whose reconnect failed, retried at retry_at */
    long npending;
    int64_t retry_at;
    int64_t t_start;
    /* the running phase */
    int running;
    double rate;
    int64_t t0, window_start, window_end, drain_end;
    uint64_t due;    /* requests scheduled so far (j < due) */
    uint64_t last;   /* the phase's requests are j < last (scheduled before the window's end) */
    uint64_t ja, jz; /* the window's requests: ja <= j < jz */
    uint8_t *settled_bits; /* bit j: request j got a response (right or not): never censored */
    uint64_t *ready;       /* bit i: load connection i is open and free to send (next_wake) */
    hdr_t corrected, service, send_lag, censored, recv_lag;
    int64_t mono_minus_real; /* CLOCK_MONOTONIC - CLOCK_REALTIME, read at the phase's start */
    uint64_t rx_stamped;     /* answers timed by the kernel's receive timestamp */
    uint64_t sent, answered, answered_in_window, wrong, wrong_status, wrong_location, bad_framing,
        partial_sends, close_delimited, not_found, closed_by_server, reconnects, reconnect_failures,
        connect_errors, retried, dropped, due_idle, due_busy, late_client, late_busy, wakes, idle_wakes;
    int64_t worked_ns; /* time spent working inside the window (client_busy) */
    char wrong_quote[QUOTE], framing_quote[QUOTE]; /* the phase's first */
    char first_wrong_quote[QUOTE], first_framing_quote[QUOTE]; /* the run's first */
    char reconnect_error[128];
    struct rusage ru0;
    uint64_t sched0[3];
    int have_sched0;
    /* totals */
    uint64_t total_sent, total_answered, total_wrong, total_bad_framing, total_partial_sends;
    char error[256];
} S;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t sched_of(uint64_t j) { return S.t0 + (int64_t)((double)j * 1e9 / S.rate); }

/* The first j whose scheduled time is at or after t (t >= t0). */
static uint64_t first_at(int64_t t) {
    double x = (double)(t - S.t0) * S.rate / 1e9;
    uint64_t j = (uint64_t)x;
    while (j > 0 && sched_of(j - 1) >= t) j--;
    while (sched_of(j) < t) j++;
    return j;
}

/* How many requests fell due by t (t >= t0): the first j scheduled after t, at most S.last. */
static uint64_t due_at(int64_t t) {
    uint64_t j = first_at(t + 1);
    return j < S.last ? j : S.last;
}

/* The part of [a, b) inside the measured window, in ns. */
static int64_t in_window_ns(int64_t a, int64_t b) {
    if (a < S.window_start) a = S.window_start;
    if (b > S.window_end) b = S.window_end;
    return b > a ? b - a : 0;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    if (S.error[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.error, sizeof S.error, fmt, ap);
    va_end(ap);
}

/* The thread's time on a CPU and waiting for one (ns), and its time slices, from schedstat. */
static int schedstat(uint64_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f) return 0;
    unsigned long long a, b, c;
    int ok = fscanf(f, "%llu %llu %llu", &a, &b, &c) == 3;
    if (ok) {
        out[0] = a;
        out[1] = b;
        out[2] = c;
    }
    fclose(f);
    return ok;
}

/* Keep load connection i's bit in S.ready: set while it is open and free to send. Called after
 * every change of its state or its busy flag. */
static void mark_ready(long i) {
    if (i >= S.c || !S.ready) return;
    conn_t *k = &S.conns[i];
    uint64_t bit = 1ULL << (i & 63);
    if (k->state == OPEN && !k->busy) S.ready[i >> 6] |= bit;
    else S.ready[i >> 6] &= ~bit;
}

/* The first ready connection in [from, to) (0 <= from <= to <= C), or -1. */
static long first_ready(long from, long to) {
    for (long w = from >> 6; from < to && w <= (to - 1) >> 6; w++) {
        uint64_t bits = S.ready[w];
        if (w == from >> 6) bits &= ~0ULL << (from & 63);
        if (bits) {
            long i = (w << 6) + __builtin_ctzll(bits);
            return i < to ? i : -1;
        }
    }
    return -1;
}

/* When the timer must wake next for a send: the scheduled time of the first request at or after
 * S.due (and before S.last) whose connection is free to send it, or INT64_MAX. A free
 * connection's next request lies in [due, due + C) (it sent every earlier one that fell due), and
 * each j there is the next request of connection j mod C only: so the first ready connection in
 * circular order from due mod C is that request's. A busy connection's request wakes nothing: it
 * goes out when its answer comes. */
static int64_t next_wake(void) {
    if (S.due >= S.last) return INT64_MAX;
    uint64_t span = S.last - S.due;
    long n = span < (uint64_t)S.c ? (long)span : S.c;
    long from = (long)(S.due % (uint64_t)S.c);
    long end = from + n < S.c ? from + n : S.c;
    long i = first_ready(from, end);
    if (i >= 0) return sched_of(S.due + (uint64_t)(i - from));
    if (from + n > S.c && (i = first_ready(0, from + n - S.c)) >= 0)
        return sched_of(S.due + (uint64_t)(S.c - from + i));
    return INT64_MAX;
}

static void close_conn(conn_t *k, int reset) {
    if (k->fd < 0) return;
    struct linger l = {reset ? 1 : 0, 0};
    setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close(k->fd);
    if (k->state == OPEN) S.open--;
    if (k->state == CONNECTING) S.connecting--;
    k->fd = -1;
    k->state = FREE;
    k->busy = 0;
    k->len = 0;
    k->unsent = 0;
    k->rstate = R_HEAD;
    k->got = 0;
    mark_ready(k - S.conns);
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
    /* the kernel's software receive timestamp on every read (receive_time) */
    int stamps = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &stamps, sizeof stamps);
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

/* A load connection whose (re)connect failed: counted, its first error kept, and tried again
 * RETRY_NS later (retry_reconnects). */
static void reconnect_failed(long i, int err, int64_t t) {
    conn_t *k = &S.conns[i];
    S.reconnect_failures++;
    if (!S.reconnect_error[0]) snprintf(S.reconnect_error, sizeof S.reconnect_error, "%s", strerror(err));
    if (err == EMFILE || err == ENFILE) fail("reconnect: %s", strerror(err));
    if (!k->pending) {
        k->pending = 1;
        S.pending[S.npending++] = i;
    }
    if (!S.retry_at) S.retry_at = t + RETRY_NS;
}

static void reconnect(long i, int64_t t) {
    if (start_connect(i) < 0 && !S.error[0]) reconnect_failed(i, errno, t);
}

static void retry_reconnects(int64_t t) {
    if (!S.npending || t < S.retry_at) return;
    long n = S.npending;
    S.npending = 0;
    S.retry_at = 0;
    for (long x = 0; x < n; x++) {
        long i = S.pending[x];
        S.conns[i].pending = 0;
        if (S.conns[i].state == FREE) reconnect(i, t);
    }
}

static int in_window(uint64_t j) { return j >= S.ja && j < S.jz; }

/* Request j got a response, right or not: it is never censored. */
static void settle(uint64_t j) {
    if (S.settled_bits && j < S.last) S.settled_bits[j >> 3] |= (uint8_t)(1u << (j & 7));
}

/* Watch connection i for room to send (the rest of a partial send), or stop. */
static void want_out(long i, int on) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0), .data.u64 = (uint64_t)i};
    epoll_ctl(S.epfd, EPOLL_CTL_MOD, S.conns[i].fd, &ev);
}

/* Send request j on connection i now. Its lag (send time minus scheduled time) is the client's
 * lateness when the connection was free as j fell due (its previous answer came at or before
 * that: free_ns <= scheduled time), else the server's wait (counted apart). A send the kernel took
 * only part of is counted (partial_sends); the rest goes from where it stopped once the socket
 * has room (send_rest), never the whole request again. */
static void send_request(long i, uint64_t j) {
    conn_t *k = &S.conns[i];
    int64_t sched = sched_of(j);
    int64_t t = now_ns();
    ssize_t w = send(k->fd, S.request, S.request_len, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return; /* closed: on_lost comes next */
    k->busy = 1;
    k->check404 = 0;
    k->got = 0;
    k->cur_j = j;
    k->sched_ns = sched;
    k->sent_ns = t;
    k->in_window = in_window(j);
    k->partial = w < (ssize_t)S.request_len;
    mark_ready(i);
    if (k->partial) {
        k->unsent = S.request_len - (w > 0 ? (size_t)w : 0);
        S.partial_sends++;
        S.total_partial_sends++;
        want_out(i, 1);
    }
    if (j + (uint64_t)S.c > k->next_j) k->next_j = j + (uint64_t)S.c;
    S.sent++;
    S.total_sent++;
    if (k->in_window && !k->retry) {
        if (k->free_ns <= sched) {
            S.due_idle++;
            hdr_record(&S.send_lag, t - sched);
            if (t - sched > LATE_NS) S.late_client++;
        } else {
            S.due_busy++;
            if (t - sched > LATE_NS) S.late_busy++;
        }
    }
}

/* The rest of a partial send, from where the kernel stopped taking it. */
static void send_rest(long i) {
    conn_t *k = &S.conns[i];
    ssize_t w = send(k->fd, S.request + S.request_len - k->unsent, k->unsent, MSG_NOSIGNAL);
    if (w <= 0) return; /* no room yet (EPOLLOUT comes again), or closed: on_lost comes next */
    k->unsent -= (size_t)w;
    if (k->unsent) return;
    want_out(i, 0);
}

/* Send what is due at t on connection i, if it is open and free: a request lost with its
 * connection first, else its next request once its scheduled time has come. */
static void maybe_send(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    if (!S.running || k->state != OPEN || k->busy) return;
    if (k->retry) {
        send_request(i, k->cur_j);
        if (k->busy) { /* sent (else its connection is gone again, and it stays to retry) */
            k->retry = 0;
            S.retried++;
        }
    } else if (k->next_j < S.last && sched_of(k->next_j) <= t) {
        send_request(i, k->next_j);
    }
}

/* The first such problem of the phase (to) and of the run (first), quoted: line ends as spaces,
 * at most 100 bytes of it. */
static void quote(char *to, char *first, const char *what, const char *head, size_t n) {
    if (to[0] && first[0]) return;
    size_t m = n < 100 ? n : 100;
    char clean[104];
    for (size_t x = 0; x < m; x++) clean[x] = (head[x] == '\r' || head[x] == '\n') ? ' ' : head[x];
    clean[m] = 0;
    if (!to[0]) snprintf(to, QUOTE, "%s%s%s", what, m ? ": " : "", clean);
    if (!first[0]) snprintf(first, QUOTE, "%s%s%s", what, m ? ": " : "", clean);
}

static void count_wrong(int verdict) {
    S.wrong++;
    S.total_wrong++;
    if (verdict == V_LOCATION) S.wrong_location++;
    else S.wrong_status++;
}

static void quote_wrong(const char *what, const char *head, size_t n) {
    count_wrong(V_STATUS);
    quote(S.wrong_quote, S.first_wrong_quote, what, head, n);
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

static int is_ows(char c) { return c == ' ' || c == '\t'; }

/* [v, ve) without the optional white space around it. */
static void trim(const char **v, const char **ve) {
    while (*v < *ve && is_ows(**v)) (*v)++;
    while (*ve > *v && (is_ows((*ve)[-1]) || (*ve)[-1] == '\r')) (*ve)--;
}

/* A Content-Length value: one decimal number, or a list of the same one (RFC 9110 8.6); -1 if
 * it is neither. */
static int64_t content_length(const char *v, const char *ve) {
    int64_t out = -1;
    while (v <= ve) {
        const char *comma = memchr(v, ',', (size_t)(ve - v));
        const char *e = comma ? comma : ve, *s = v;
        trim(&s, &e);
        if (s == e || e - s > 15) return -1; /* under 10^15 bytes: no overflow */
        int64_t n = 0;
        for (; s < e; s++) {
            if (*s < '0' || *s > '9') return -1;
            n = n * 10 + (*s - '0');
        }
        if (out >= 0 && n != out) return -1;
        out = n;
        if (!comma) break;
        v = comma + 1;
    }
    return out;
}

/* Whether the last transfer coding in [v, ve) is `chunked` (parameters after `;` aside). */
static int last_coding_chunked(const char *v, const char *ve) {
    const char *s = v, *comma;
    while ((comma = memchr(s, ',', (size_t)(ve - s)))) s = comma + 1;
    const char *e = memchr(s, ';', (size_t)(ve - s));
    if (!e) e = ve;
    trim(&s, &e);
    return e - s == 7 && strncasecmp(s, "chunked", 7) == 0;
}

enum { HEAD_BODY, HEAD_DONE, HEAD_INTERIM };

/* Read the head [b, b + hlen) of connection i's answer (hlen includes the blank line): what it
 * says (k->verdict, the first wrong one quoted) and how its body is framed (RFC 9112 6.3, in its
 * order: 1xx, 204 and 304 without a body; Transfer-Encoding: chunked if its last coding is, else
 * read to the close; Content-Length; else read to the close). Returns HEAD_DONE when the answer
 * has no body, HEAD_BODY when a body follows (k->rstate says how), HEAD_INTERIM for a 1xx (the
 * final answer still to come); *why says why it cannot be framed. */
static int read_head(long i, const char *b, size_t hlen, const char **why) {
    conn_t *k = &S.conns[i];
    const char *end = b + hlen - 2; /* the blank line's CRLF */
    if (hlen < 16 || strncmp(b, "HTTP/1.", 7) != 0 || b[8] != ' ' || b[9] < '1' || b[9] > '5' ||
        b[10] < '0' || b[10] > '9' || b[11] < '0' || b[11] > '9' || (b[12] != ' ' && b[12] != '\r')) {
        *why = "not an HTTP/1.x status line";
        return HEAD_DONE;
    }
    int status = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
    const char *loc = NULL;
    size_t loc_len = 0;
    int te = 0, chunked = 0;
    int64_t cl = -2; /* -2: none; -1: invalid */
    const char *line = (const char *)memchr(b, '\n', (size_t)(end - b)) + 1;
    while (line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (!colon || colon == line) {
            *why = "a header line without a name";
            return HEAD_DONE;
        }
        const char *v = colon + 1, *ve = eol;
        trim(&v, &ve);
        size_t nl = (size_t)(colon - line);
        if (nl == 14 && strncasecmp(line, "Content-Length", 14) == 0) {
            int64_t n = content_length(v, ve);
            cl = n < 0 || (cl >= 0 && n != cl) ? -1 : n;
            if (cl == -1) {
                *why = "an invalid Content-Length";
                return HEAD_DONE;
            }
        } else if (nl == 17 && strncasecmp(line, "Transfer-Encoding", 17) == 0) {
            te = 1;
            chunked = last_coding_chunked(v, ve); /* the last line's last coding counts */
        } else if (nl == 8 && strncasecmp(line, "Location", 8) == 0) {
            loc = v;
            loc_len = (size_t)(ve - v);
        }
        line = eol + 1;
    }
    if (status >= 100 && status < 200 && status != 101) return HEAD_INTERIM;
    const char *wrong;
    if (k->check404) {
        k->verdict = status == 404 ? V_RIGHT : V_STATUS;
        wrong = "GET /memrun-404 did not answer 404";
    } else if (status != 302) {
        k->verdict = V_STATUS;
        wrong = "GET / did not answer 302";
    } else {
        k->verdict = loc && location_ok(loc, loc_len) ? V_RIGHT : V_LOCATION;
        wrong = "GET / answered a wrong Location";
    }
    if (k->verdict != V_RIGHT) quote(S.wrong_quote, S.first_wrong_quote, wrong, b, hlen);
    if (status == 101 || status == 204 || status == 304) return HEAD_DONE;
    if (te) {
        k->rstate = chunked ? R_CHUNK_SIZE : R_TO_CLOSE;
    } else if (cl >= 0) {
        if (cl == 0) return HEAD_DONE;
        k->rstate = R_BODY;
        k->remaining = (uint64_t)cl;
    } else {
        k->rstate = R_TO_CLOSE;
    }
    return HEAD_BODY;
}

/* A chunk-size line [b, eol): hex digits, then optionally white space and extensions after `;`.
 * Its size in *size, or 0 when malformed. */
static int chunk_size(const char *b, const char *eol, uint64_t *size) {
    uint64_t n = 0;
    const char *s = b;
    for (; s < eol && s - b < 15; s++) {
        int d = (*s >= '0' && *s <= '9') ? *s - '0' : (*s >= 'a' && *s <= 'f') ? *s - 'a' + 10
              : (*s >= 'A' && *s <= 'F') ? *s - 'A' + 10 : -1;
        if (d < 0) break;
        n = n * 16 + (uint64_t)d;
    }
    if (s == b) return 0;
    while (s < eol && is_ows(*s)) s++;
    if (s < eol && *s != ';') return 0;
    *size = n;
    return 1;
}

/* Connection i is gone (by_server: the server closed or reset it): open it again, so that C stay
 * open; its unsent requests go out once it is back, their wait counted. A request in flight that
 * got no byte of an answer is sent again, as HTTP clients do when a server closes an idle
 * keep-alive connection as the request goes out (its latency still counts from its scheduled
 * time); one that got part of an answer is dropped (counted, and censored at the end of the
 * drain). */
static void on_lost(long i, int by_server, int64_t t) {
    conn_t *k = &S.conns[i];
    if (by_server) S.closed_by_server++;
    int inflight = k->busy && !k->check404 && S.running;
    int again = by_server && inflight && !k->got;
    if (inflight && !again) S.dropped++;
    close_conn(k, 1);
    k->retry = again;
    if (!S.opened || i >= S.c) return; /* while opening, the opening loop connects again */
    S.reconnects++;
    reconnect(i, t);
}

/* Connection i's answer cannot be framed (why; at points at it): counted and quoted, its request
 * settled (it got a response, a broken one), and the connection opened afresh (nothing after it
 * in the stream can be read). */
static void bad_framing(long i, const char *why, const char *at, size_t n, int64_t t) {
    conn_t *k = &S.conns[i];
    S.bad_framing++;
    S.total_bad_framing++;
    quote(S.framing_quote, S.first_framing_quote, why, at, n);
    if (k->busy && !k->check404) settle(k->cur_j);
    k->busy = 0;
    on_lost(i, 0, t);
}

/* Connection i's answer came whole at t: counted as its head said. A right answer to a request
 * sent whole is an answer (in the latency histograms when its request was in the window); a
 * wrong one is counted wrong, and one to a request sent in parts only settled (its send is
 * counted in partial_sends). closing: the server is closing the connection (its body ended so),
 * so nothing is sent on it. */
static void answer_done(long i, int64_t t, int closing) {
    conn_t *k = &S.conns[i];
    int check = k->check404;
    /* the answer's time: when the kernel received its last bytes, where it said so, not when this
     * thread got to them (after the earlier events of its batch): that receive lag is the
     * client's, measured apart (recv_lag) and never charged to the server */
    int stamped = k->rx_ns > 0 && k->rx_ns <= t;
    int64_t at = stamped ? k->rx_ns : t;
    k->busy = 0;
    k->check404 = 0;
    k->got = 0;
    k->rstate = R_HEAD;
    k->free_ns = t;
    if (check) {
        if (k->verdict == V_RIGHT) S.not_found++;
        else count_wrong(k->verdict);
        return;
    }
    settle(k->cur_j);
    if (k->verdict != V_RIGHT) {
        count_wrong(k->verdict);
    } else if (!k->partial) {
        S.answered++;
        S.total_answered++;
        if (at >= S.window_start && at < S.window_end) S.answered_in_window++;
        if (k->in_window) {
            hdr_record(&S.corrected, at - k->sched_ns);
            hdr_record(&S.service, at - k->sent_ns);
            if (stamped) {
                hdr_record(&S.recv_lag, t - at);
                S.rx_stamped++;
            }
        }
    }
    if (closing) return;
    mark_ready(i);
    if (i < S.c) maybe_send(i, t);
}

/* Read what connection i holds in buf: heads checked, bodies skipped as they come (never kept),
 * each answer counted once whole. 0, or -1 when bad framing closed the connection. */
static int consume(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    size_t at = 0;
    while (at < k->len) {
        char *b = k->buf + at;
        size_t n = k->len - at;
        const char *why = NULL;
        int done = 0;
        if (k->rstate == R_HEAD) {
            char *hend = memmem(b, n, "\r\n\r\n", 4);
            if (!hend) {
                if (n < BUF) break;
                why = "a head over 8 KiB";
            } else if (!k->busy) {
                why = "an answer to no request";
            } else {
                size_t hlen = (size_t)(hend - b) + 4;
                int r = read_head(i, b, hlen, &why);
                if (!why) {
                    at += hlen;
                    done = r == HEAD_DONE;
                }
            }
        } else if (k->rstate == R_BODY || k->rstate == R_CHUNK_DATA) {
            size_t take = n < k->remaining ? n : (size_t)k->remaining;
            at += take;
            k->remaining -= take;
            if (!k->remaining) {
                done = k->rstate == R_BODY;
                k->rstate = done ? R_HEAD : R_CHUNK_END;
            }
        } else if (k->rstate == R_CHUNK_END) {
            if (n < 2) break;
            if (b[0] != '\r' || b[1] != '\n') why = "a chunk not followed by CRLF";
            at += 2;
            k->rstate = R_CHUNK_SIZE;
        } else if (k->rstate == R_CHUNK_SIZE || k->rstate == R_TRAILERS) {
            char *eol = memmem(b, n, "\r\n", 2);
            uint64_t size = 0;
            if (!eol) {
                if (n < BUF) break;
                why = "a chunk-size or trailer line over 8 KiB";
            } else if (k->rstate == R_TRAILERS) {
                done = eol == b; /* the empty line after the trailers */
                at += (size_t)(eol - b) + 2;
            } else if (!chunk_size(b, eol, &size)) {
                why = "a malformed chunk size";
            } else {
                at += (size_t)(eol - b) + 2;
                k->rstate = size ? R_CHUNK_DATA : R_TRAILERS;
                k->remaining = size;
            }
        } else { /* R_TO_CLOSE: the body ends when the server closes the connection */
            at = k->len;
        }
        if (!why && done && k->unsent) why = "an answer before the whole request was sent";
        if (why) {
            bad_framing(i, why, b, n, t);
            return -1;
        }
        if (done) answer_done(i, t, 0);
    }
    if (at) {
        memmove(k->buf, k->buf + at, k->len - at);
        k->len -= at;
    }
    return 0;
}

/* The kernel's software receive timestamp of what recvmsg just read (SCM_TIMESTAMPING: for TCP,
 * the newest segment's), on CLOCK_MONOTONIC; 0 where none came (a socket that gives none). */
static int64_t receive_time(struct msghdr *m) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPING) continue;
        struct timespec ts[3];
        memcpy(ts, CMSG_DATA(c), sizeof ts);
        if (ts[0].tv_sec || ts[0].tv_nsec)
            return (int64_t)ts[0].tv_sec * 1000000000 + ts[0].tv_nsec + S.mono_minus_real;
    }
    return 0;
}

static ssize_t receive(conn_t *k) {
    struct iovec v = {.iov_base = k->buf + k->len, .iov_len = BUF - k->len};
    union {
        char buf[CMSG_SPACE(3 * sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
    ssize_t r = recvmsg(k->fd, &m, 0);
    if (r > 0) k->rx_ns = receive_time(&m);
    return r;
}

static void on_readable(long i, int64_t t) {
    conn_t *k = &S.conns[i];
    for (;;) {
        ssize_t r = receive(k);
        if (r == 0 && k->busy && k->rstate == R_TO_CLOSE) { /* the close ends its body */
            k->rx_ns = 0; /* at the close, which no timestamp dates */
            S.close_delimited++;
            answer_done(i, t, 1);
        }
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            on_lost(i, 1, t);
            return;
        }
        if (r < 0) break;
        if (k->busy) k->got = 1;
        k->len += (size_t)r;
        if (consume(i, t) < 0) return;
        /* Nothing half-read: epoll (level-triggered) says when more comes, which saves the
         * recv that would only return EAGAIN (a syscall per answer: the client's main cost).
         * (consume leaves fewer than BUF bytes: a longer head or line is bad framing.) */
        if (k->len == 0) break;
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
            if (S.opened) {
                reconnect_failed(i, err, t);
                return;
            }
            if (!(err == ECONNREFUSED && S.refused_ok)) S.connect_errors++;
            if (S.connect_errors > 100) fail("connect: %s (over 100 connects failed)", strerror(err));
            return; /* the opening loop retries this index */
        }
        if (!(ev & EPOLLOUT)) return;
        S.refused_ok = 0;
        k->state = OPEN;
        k->free_ns = t;
        S.connecting--;
        S.open++;
        want_out(i, 0);
        mark_ready(i);
        if (i < S.c) maybe_send(i, t);
        return;
    }
    if (k->state == OPEN && (ev & EPOLLOUT) && k->unsent) send_rest(i);
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

/* A histogram as raw counts: {"count", "min_ns", "max_ns", "sum_ns", "clamped", "counts":
 * [[index, count], ...]} (index in HdrHistogram's counts array; empty: count 0, min/max null). */
static void print_hdr(const char *name, const hdr_t *h) {
    printf("\"%s\": {\"count\": %llu, \"clamped\": %llu, \"sum_ns\": %.0f, ", name,
           (unsigned long long)h->n, (unsigned long long)h->clamped, h->sum);
    if (h->n) printf("\"min_ns\": %lld, \"max_ns\": %lld, ", (long long)h->min, (long long)h->max);
    else printf("\"min_ns\": null, \"max_ns\": null, ");
    printf("\"counts\": [");
    int first = 1;
    for (int x = 0; x < HDR_LEN; x++)
        if (h->counts[x]) {
            printf("%s[%d, %llu]", first ? "" : ", ", x, (unsigned long long)h->counts[x]);
            first = 0;
        }
    printf("]}");
}

/* The window's requests that got no response: censored at the end of the drain (the latest the
 * client would have waited), in the latency histogram and the censored one. (A wrong or badly
 * framed answer is a response: counted as such, never censored.) */
static void censor(int64_t t_end) {
    int64_t at = t_end > S.drain_end ? t_end : S.drain_end;
    if (!S.settled_bits) return;
    for (uint64_t j = S.ja; j < S.jz; j++)
        if (!(S.settled_bits[j >> 3] & (1u << (j & 7)))) {
            hdr_record(&S.corrected, at - sched_of(j));
            hdr_record(&S.censored, at - sched_of(j));
        }
}

static void print_phase(int64_t t_end) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t st[3];
    int have_st = schedstat(st) && S.have_sched0;
    censor(t_end);
    uint64_t scheduled = S.jz - S.ja;
    double window_s = (double)(S.window_end - S.window_start) / 1e9;
    /* the share of the window its one thread spent working (events handled, requests sent):
     * near 1, the rate is its limit. Not its CPU time over the phase (cpu_s): that counts every
     * wake and its kernel work, whatever was done. */
    double busy = (double)S.worked_ns / 1e9 / window_s;
    /* the share of its CPUs its CPU time took over the phase, less the time it polled on purpose
     * (-S): what an independent generator's CPU share is compared with */
    cpu_set_t set;
    int ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    double cpu = cpu_s(&ru) - cpu_s(&S.ru0) - (double)S.spun / 1e9;
    double cpu_share = (cpu > 0 ? cpu : 0) / ((double)(t_end - S.t0) / 1e9) / (ncpu > 0 ? ncpu : 1);
    printf("phase {\"rate\": %.3f, \"connections\": %ld, \"warmup_s\": %.3f, \"window_s\": %.3f, "
           "\"scheduled\": %llu, \"answered_in_window\": %llu, \"achieved_rate\": %.3f, "
           "\"unanswered\": %llu, \"sent\": %llu, \"answered\": %llu, \"due_idle\": %llu, "
           "\"due_busy\": %llu, \"late_client\": %llu, \"late_busy\": %llu, "
           "\"wrong\": %llu, \"wrong_status\": %llu, \"wrong_location\": %llu, \"bad_framing\": %llu, "
           "\"partial_sends\": %llu, \"close_delimited\": %llu, "
           "\"closed_by_server\": %llu, \"reconnects\": %llu, \"retried\": %llu, "
           "\"dropped\": %llu, \"reconnect_failures\": %llu, \"reconnect_error\": ",
           S.rate, S.c, (double)(S.window_start - S.t0) / 1e9, window_s, (unsigned long long)scheduled,
           (unsigned long long)S.answered_in_window, (double)S.answered_in_window / window_s,
           (unsigned long long)S.censored.n, (unsigned long long)S.sent, (unsigned long long)S.answered,
           (unsigned long long)S.due_idle, (unsigned long long)S.due_busy,
           (unsigned long long)S.late_client, (unsigned long long)S.late_busy,
           (unsigned long long)S.wrong, (unsigned long long)S.wrong_status,
           (unsigned long long)S.wrong_location, (unsigned long long)S.bad_framing,
           (unsigned long long)S.partial_sends, (unsigned long long)S.close_delimited,
           (unsigned long long)S.closed_by_server,
           (unsigned long long)S.reconnects, (unsigned long long)S.retried,
           (unsigned long long)S.dropped, (unsigned long long)S.reconnect_failures);
    if (S.reconnect_error[0]) json_string(S.reconnect_error);
    else printf("null");
    printf(", \"connect_errors\": %llu, \"open_at_end\": %ld, \"drain_s\": %.3f, \"cpu_s\": %.3f, "
           "\"cpu_share\": %.4f, \"client_busy\": %.4f, \"wakes\": %llu, \"idle_wakes\": %llu, "
           "\"spin_us\": %.3f, \"spun_s\": %.6f, ",
           (unsigned long long)S.connect_errors, S.open, (double)(t_end - S.window_end) / 1e9,
           cpu_s(&ru) - cpu_s(&S.ru0), cpu_share, busy, (unsigned long long)S.wakes,
           (unsigned long long)S.idle_wakes, (double)S.spin_ns / 1000, (double)S.spun / 1e9);
    if (have_st)
        printf("\"run_delay_s\": %.6f, \"on_cpu_s\": %.6f, \"timeslices\": %llu, ",
               (double)(st[1] - S.sched0[1]) / 1e9, (double)(st[0] - S.sched0[0]) / 1e9,
               (unsigned long long)(st[2] - S.sched0[2]));
    else
        printf("\"run_delay_s\": null, \"on_cpu_s\": null, \"timeslices\": null, ");
    printf("\"involuntary_switches\": %ld, \"wait\": \"%s\", \"timer_slack_ns\": %lu, "
           "\"mono_start\": %.6f, \"mono_window\": %.6f, \"mono_window_end\": %.6f, \"mono_end\": %.6f, "
           "\"wrong_example\": ",
           ru.ru_nivcsw - S.ru0.ru_nivcsw, S.wait_name, S.slack_ns, (double)S.t0 / 1e9,
           (double)S.window_start / 1e9, (double)S.window_end / 1e9, (double)t_end / 1e9);
    json_string(S.wrong_quote);
    printf(", \"bad_framing_example\": ");
    json_string(S.framing_quote);
    printf(", ");
    print_hdr("latency", &S.corrected);
    printf(", ");
    print_hdr("service", &S.service);
    printf(", ");
    print_hdr("send_lag", &S.send_lag);
    printf(", ");
    print_hdr("censored", &S.censored);
    printf(", \"rx_stamped\": %llu, ", (unsigned long long)S.rx_stamped);
    print_hdr("recv_lag", &S.recv_lag);
    printf("}\n");
    fflush(stdout);
}

static void print_summary(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("summary {\"connections\": %ld, \"open\": %ld, \"sent\": %llu, \"answered\": %llu, "
           "\"wrong\": %llu, \"bad_framing\": %llu, \"partial_sends\": %llu, "
           "\"not_found_checked\": %llu, \"maxrss_kib\": %ld, \"cpu_s\": %.3f, "
           "\"elapsed_s\": %.3f, \"wait\": \"%s\", \"timer_slack_ns\": %lu, \"wrong_example\": ",
           S.c, S.open, (unsigned long long)S.total_sent, (unsigned long long)S.total_answered,
           (unsigned long long)S.total_wrong, (unsigned long long)S.total_bad_framing,
           (unsigned long long)S.total_partial_sends, (unsigned long long)S.not_found, ru.ru_maxrss,
           cpu_s(&ru), (double)(now_ns() - S.t_start) / 1e9, S.wait_name, S.slack_ns);
    json_string(S.first_wrong_quote);
    printf(", \"bad_framing_example\": ");
    json_string(S.first_framing_quote);
    printf(", \"error\": ");
    if (S.error[0]) json_string(S.error);
    else printf("null");
    printf("}\n");
    fflush(stdout);
}

/* Wait for events until `until` (ns, CLOCK_MONOTONIC): epoll_pwait2's ns timeout, or a timerfd
 * armed at `until` beside an untimed epoll_wait. Never epoll_wait's own ms timeout: rounded up to
 * the next ms, it would make every timed send up to 1 ms late. */
static int wait_events(struct epoll_event *evs, int64_t until) {
    int64_t wait = until - now_ns();
    if (wait < 0) wait = 0;
    if (S.tfd < 0) {
        struct timespec ts = {.tv_sec = wait / 1000000000, .tv_nsec = wait % 1000000000};
        return (int)syscall(SYS_epoll_pwait2, S.epfd, evs, MAX_EVENTS, &ts, NULL, 0);
    }
    if (wait == 0) return epoll_wait(S.epfd, evs, MAX_EVENTS, 0);
    struct itimerspec its = {.it_value = {.tv_sec = until / 1000000000, .tv_nsec = until % 1000000000}};
    timerfd_settime(S.tfd, TFD_TIMER_ABSTIME, &its, NULL);
    return epoll_wait(S.epfd, evs, MAX_EVENTS, -1);
}

/* Choose the timed wait: epoll_pwait2 where the kernel has it (Linux 5.11), else a timerfd. */
static void choose_wait(const char *want) {
    S.tfd = -1;
    if (strcmp(want, "timerfd") != 0) {
        struct epoll_event ev;
        struct timespec zero = {0, 0};
        if (syscall(SYS_epoll_pwait2, S.epfd, &ev, 1, &zero, NULL, 0) >= 0 || errno != ENOSYS) {
            S.wait_name = "epoll_pwait2";
            return;
        }
    }
    S.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (S.tfd < 0) {
        fprintf(stderr, "memrun-http: timerfd_create: %s\n", strerror(errno));
        exit(1);
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_TIMER};
    epoll_ctl(S.epfd, EPOLL_CTL_ADD, S.tfd, &ev);
    S.wait_name = "timerfd";
}

/* Handle n events; returns how many were work (a connection's or a command's, not a timer's). */
static int handle(struct epoll_event *evs, int n, char *line, size_t *line_len, int *quit) {
    int work = 0;
    for (int e = 0; e < n; e++) {
        uint64_t tag = evs[e].data.u64;
        if (tag == TAG_SIGNAL) {
            *quit = 1;
        } else if (tag == TAG_TIMER) {
            uint64_t expirations;
            if (read(S.tfd, &expirations, sizeof expirations) < 0) { /* EAGAIN: nothing to clear */
            }
        } else if (tag == TAG_STDIN) {
            if (*line_len >= 255) *line_len = 0; /* no command is that long */
            ssize_t r = read(0, line + *line_len, 255 - *line_len);
            if (r <= 0) *quit = 1;
            else *line_len += (size_t)r;
            work++;
        } else {
            on_event((long)tag, evs[e].events, now_ns()); /* each answer at its own time */
            work++;
        }
    }
    return work;
}

/* Whether the drain may end: no load connection busy, none with a request left to send, and
 * every one open (a reconnect still pending or in progress is waited for). */
static int drained(void) {
    if (S.open < S.c) return 0;
    for (long i = 0; i < S.c; i++)
        if (S.conns[i].busy || S.conns[i].retry || S.conns[i].next_j < S.due) return 0;
    return 1;
}

static void run_phase(double rate, double warmup_s, double window_s, int *quit, char *line, size_t *line_len) {
    hdr_reset(&S.corrected);
    hdr_reset(&S.service);
    hdr_reset(&S.send_lag);
    hdr_reset(&S.censored);
    hdr_reset(&S.recv_lag);
    S.rx_stamped = 0;
    {
        struct timespec real, mono;
        clock_gettime(CLOCK_REALTIME, &real);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        S.mono_minus_real = ((int64_t)mono.tv_sec - real.tv_sec) * 1000000000 + mono.tv_nsec - real.tv_nsec;
    }
    S.sent = S.answered = S.answered_in_window = S.wrong = S.closed_by_server = S.reconnects = 0;
    S.wrong_status = S.wrong_location = S.bad_framing = S.partial_sends = S.close_delimited = 0;
    S.reconnect_failures = S.connect_errors = S.retried = S.dropped = 0;
    S.due_idle = S.due_busy = S.late_client = S.late_busy = S.wakes = S.idle_wakes = 0;
    S.spun = S.worked_ns = 0;
    S.wrong_quote[0] = S.framing_quote[0] = S.reconnect_error[0] = 0;
    getrusage(RUSAGE_SELF, &S.ru0);
    S.have_sched0 = schedstat(S.sched0);
    S.rate = rate;
    S.t0 = now_ns();
    S.window_start = S.t0 + (int64_t)(warmup_s * 1e9);
    S.window_end = S.window_start + (int64_t)(window_s * 1e9);
    S.drain_end = S.window_end + (int64_t)(S.drain_s * 1e9);
    S.due = 0;
    S.ja = first_at(S.window_start);
    S.jz = S.last = first_at(S.window_end); /* j < last: scheduled before the window's end */
    free(S.settled_bits);
    S.settled_bits = calloc(S.last / 8 + 1, 1);
    if (!S.settled_bits) {
        fail("out of memory for %llu requests", (unsigned long long)S.last);
        return;
    }
    for (long i = 0; i < S.c; i++) {
        S.conns[i].next_j = (uint64_t)i;
        S.conns[i].retry = 0; /* a request of an earlier phase is not this phase's */
    }
    S.running = 1;
    struct epoll_event evs[MAX_EVENTS];
    int64_t woke = S.t0; /* when the loop last woke */
    int worked = 0;      /* it has handled an event since (a wake that did nothing is not work) */
    int waited = 0;      /* it has waited once (the phase's start is not a wake) */
    while (!*quit && !S.error[0]) {
        int64_t t = now_ns();
        retry_reconnects(t);
        /* j < due fell due by t; none past the window's last (j < last: scheduled before its end),
         * and all of those once the end has passed, however late this loop wakes. Each one whose
         * connection is free goes out now; one whose connection is busy goes out with its answer
         * (on_readable), and woke nothing. */
        uint64_t due = due_at(t), sent = S.sent;
        for (uint64_t j = S.due; j < due; j++) maybe_send((long)(j % (uint64_t)S.c), t);
        S.due = due;
        worked |= S.sent != sent;
        if (waited && woke >= S.window_start && woke < S.window_end) {
            S.wakes++;
            if (!worked) S.idle_wakes++;
        }
        int end = t >= S.window_end && (drained() || t >= S.drain_end);
        if (worked) S.worked_ns += in_window_ns(woke, now_ns());
        if (end) break;
        int64_t next = t < S.window_end ? next_wake() : S.drain_end;
        if (next > S.window_end && t < S.window_end) next = S.window_end;
        if (S.npending && S.retry_at < next) next = S.retry_at;
        /* the last spin_ns before a send falls due are spent polling, not asleep: a CPU woken from
         * idle (a VM's vCPU most of all) runs the client tens of us after its timer fired */
        int polling = S.spin_ns && next - t > 0 && next - t <= S.spin_ns;
        if (S.spin_ns && next - t > 0) next = polling ? t : next - S.spin_ns;
        int n = wait_events(evs, next);
        woke = now_ns();
        waited = 1;
        if (polling) S.spun += woke - t; /* about the time spent polling (no work: out of busy) */
        if (n < 0 && errno != EINTR) {
            fail("epoll_wait: %s", strerror(errno));
            break;
        }
        worked = n > 0 && handle(evs, n, line, line_len, quit) > 0;
    }
    S.running = 0;
    /* An answer still read to its connection's close when the drain ended: its server kept the
     * connection open after an answer HTTP/1.1 frames by the close (no Content-Length, no
     * chunked), so where it ended cannot be told: bad framing, and the connection starts afresh. */
    for (long i = 0; i < S.c; i++)
        if (S.conns[i].busy && S.conns[i].rstate == R_TO_CLOSE)
            bad_framing(i, "an answer without Content-Length or chunked, its connection left open", "", 0, now_ns());
    print_phase(now_ns());
    /* A connection still waiting for an answer would read it during the next phase: start it
     * afresh. (memrun runs no further phase after one that left answers outstanding.) */
    for (long i = 0; i < S.c; i++)
        if (S.conns[i].busy) on_lost(i, 0, now_ns());
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
    fprintf(stderr,
            "usage: %s [-a ADDR] [-I IMAGES] [-d DRAIN_S] [-g GRACE_S] [-w WINDOW] [-W auto|timerfd] [-S SPIN_US] "
            "[-H 'NAME: VALUE']... PORT C\n",
            argv0);
    exit(2);
}

int main(int argc, char **argv) {
    const char *addr = "127.0.0.1", *wait_how = "auto";
    /* -H: header lines sent after Host in every request, as another generator sends them (its
     * requests cost the server what ours then cost it: the comparison with vegeta). */
    char extra[768] = "";
    size_t extra_len = 0;
    S.images = 1000;
    S.drain_s = 5;
    S.window = 256;
    double grace_s = 0.25;
    int opt;
    while ((opt = getopt(argc, argv, "a:I:d:g:w:W:S:H:")) != -1) {
        switch (opt) {
        case 'a': addr = optarg; break;
        case 'g': grace_s = atof(optarg); break;
        case 'I': S.images = atol(optarg); break;
        case 'd': S.drain_s = atof(optarg); break;
        case 'w': S.window = atol(optarg); break;
        case 'W': wait_how = optarg; break;
        case 'S': S.spin_ns = (int64_t)(atof(optarg) * 1000); break;
        case 'H': {
            size_t len = strlen(optarg);
            if (!strchr(optarg, ':') || strpbrk(optarg, "\r\n") || extra_len + len + 2 >= sizeof extra) usage(argv[0]);
            memcpy(extra + extra_len, optarg, len);
            memcpy(extra + extra_len + len, "\r\n", 3);
            extra_len += len + 2;
            break;
        }
        default: usage(argv[0]);
        }
    }
    if (argc - optind != 2) usage(argv[0]);
    long port = atol(argv[optind]);
    S.c = atol(argv[optind + 1]);
    if (port < 1 || port > 65535 || S.c < 1 || S.images < 1 || S.window < 1 || S.drain_s < 0) usage(argv[0]);
    if (strcmp(wait_how, "auto") != 0 && strcmp(wait_how, "timerfd") != 0) usage(argv[0]);
    S.server.sin_family = AF_INET;
    S.server.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &S.server.sin_addr) != 1) usage(argv[0]);
    S.request_len = (size_t)snprintf(S.request, sizeof S.request, "GET / HTTP/1.1\r\nHost: %s:%ld\r\n%s\r\n", addr, port, extra);
    /* The default timer slack (50 us) lets the kernel fire every timed wake-up that late. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    S.slack_ns = slack < 0 ? 0 : (unsigned long)slack;
    S.t_start = now_ns();
    long total = S.c + 1; /* the load's C, and the 404 check's own connection */
    S.conns = calloc((size_t)total, sizeof *S.conns);
    S.pending = calloc((size_t)total, sizeof *S.pending);
    S.ready = calloc((size_t)(S.c + 63) / 64, sizeof *S.ready);
    char *bufs = malloc((size_t)total * BUF);
    if (!S.conns || !bufs || !S.pending || !S.ready) {
        fprintf(stderr, "memrun-http: out of memory for %ld connections\n", S.c);
        return 1;
    }
    for (long i = 0; i < total; i++) {
        S.conns[i].fd = -1;
        S.conns[i].buf = bufs + (size_t)i * BUF;
    }
    S.epfd = epoll_create1(EPOLL_CLOEXEC);
    choose_wait(wait_how);
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

    /* Open C + 1 connections, WINDOW connects in flight; until the first succeeds, a refusal means
     * the server does not listen yet (retried every 10 ms). Then the 404 check on the extra one,
     * which is then closed (FIN): the server sees one connection end before the load. */
    long scan = 0;
    int checked = 0;
    conn_t *check = &S.conns[S.c];
    while (!quit && !S.error[0]) {
        while (!checked && S.connecting < S.window && S.open + S.connecting < total) {
            while (S.conns[scan].state != FREE) scan = (scan + 1) % total;
            if (start_connect(scan) < 0) {
                if (errno == EMFILE || errno == ENFILE) fail("socket: %s", strerror(errno));
                else S.connect_errors++;
                break;
            }
        }
        if (S.error[0]) break;
        if (S.open == total && !checked) {
            char req[256];
            int m = snprintf(req, sizeof req, "GET /memrun-404 HTTP/1.1\r\nHost: %s:%ld\r\n\r\n", addr, port);
            if (send(check->fd, req, (size_t)m, MSG_NOSIGNAL) != m) fail("the 404 check could not be sent");
            check->busy = 1;
            check->check404 = 1;
            checked = 1;
        }
        if (checked && check->state == OPEN && !check->busy)
            close_conn(check, 0); /* answered: a FIN, so the server reads the end of a connection */
        if (checked && check->state == FREE) {
            if (!S.not_found && !S.wrong && !S.total_bad_framing)
                quote_wrong("GET /memrun-404 closed the connection", "", 0);
            if (S.open == S.c) break;
            if (S.open + S.connecting < S.c) { /* a load connection was lost meanwhile: open it */
                checked = 0;                    /* again, and check again */
                continue;
            }
        }
        int n = wait_events(evs, now_ns() + (S.refused_ok ? 10000000 : 1000000000));
        if (n > 0) handle(evs, n, line, &line_len, &quit);
        if (S.refused_ok && now_ns() - S.t_start > 120LL * 1000000000)
            fail("the server did not listen within 120 s");
    }
    if (!quit && !S.error[0]) {
        S.opened = 1;
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
        int64_t t = now_ns();
        retry_reconnects(t);
        int n = wait_events(evs, S.npending && S.retry_at < t + 1000000000LL ? S.retry_at : t + 1000000000LL);
        if (n > 0) handle(evs, n, line, &line_len, &quit);
    }
    for (long i = 0; i < total; i++) close_conn(&S.conns[i], 1);
    print_summary();
    return S.error[0] ? 1 : 0;
}
