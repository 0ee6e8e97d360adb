/*
 * A harness for memrun's HTTP load client (runner/workloads/web/client.c, included whole) that
 * drives its send and receive paths over a socketpair, with no server and no timing: built with
 * -Dsend=harness_send -Dmain=client_main by tests/workloads/web/test_client.py, which reads the
 * JSON lines it prints.
 *
 * `partial N`: a partial send is all but impossible to force through a real socket (a request of
 * at most 1 KiB, one per connection in flight, into buffers of several KiB), so send() here takes
 * N bytes of request 0 (0: none, EAGAIN); the rest must go on EPOLLOUT, from where it stopped.
 * The peer reads every byte the client sent and answers right; then request 1 goes out whole and
 * is answered right.
 *
 * `framing`: one request per case, answered with the case's bytes in the pieces given (`|`
 * between two writes; a final `$` closes the peer's end); one line per case with the counters.
 */
#include "client.c"
#undef main /* client.c's own is client_main */

static long take = -1; /* the next send takes this many bytes (0: none, EAGAIN); -1: all */

ssize_t harness_send(int fd, const void *buf, size_t n, int flags) {
    if (take == 0) {
        take = -1;
        errno = EAGAIN;
        return -1;
    }
    size_t m = take > 0 && (size_t)take < n ? (size_t)take : n;
    take = -1;
    return (ssize_t)syscall(SYS_sendto, fd, buf, m, flags, NULL, 0);
}

/* What the peer has read so far. */
static char got[4096];
static size_t got_len;
static int peer = -1;

static void peer_read(void) {
    ssize_t r;
    while ((r = read(peer, got + got_len, sizeof got - 1 - got_len)) > 0) got_len += (size_t)r;
    got[got_len] = 0;
}

static void peer_write(const char *s, size_t n) {
    if (write(peer, s, n) != (ssize_t)n) exit(1);
}

/* Hand the client its pending events until none come within 50 ms. */
static void pump(void) {
    struct epoll_event evs[8];
    int n;
    while ((n = epoll_wait(S.epfd, evs, 8, 50)) > 0)
        for (int e = 0; e < n; e++) on_event((long)evs[e].data.u64, evs[e].events, now_ns());
}

/* Load connection 0 on a fresh socketpair (its peer end in `peer`), open and free. */
static void open_pair(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) exit(1);
    if (peer >= 0) close(peer);
    peer = sv[1];
    conn_t *k = &S.conns[0];
    k->fd = sv[0];
    k->state = OPEN;
    k->free_ns = now_ns();
    S.open = 1;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = 0};
    epoll_ctl(S.epfd, EPOLL_CTL_ADD, sv[0], &ev);
    mark_ready(0);
}

/* The client as main() leaves it, with one load connection, and a phase at 1/s whose window
 * holds requests 0..9 (request j due j seconds after now). */
static void setup(void) {
    static char bufs[2][BUF];
    S.c = 1;
    S.images = 1000;
    S.request_len = (size_t)snprintf(S.request, sizeof S.request, "GET / HTTP/1.1\r\nHost: harness\r\n\r\n");
    S.conns = calloc(2, sizeof *S.conns);
    S.pending = calloc(2, sizeof *S.pending);
    S.ready = calloc(1, sizeof *S.ready);
    S.conns[0].buf = bufs[0];
    S.conns[0].fd = -1;
    S.conns[1].buf = bufs[1];
    S.conns[1].fd = -1;
    S.epfd = epoll_create1(0);
    S.rate = 1;
    S.t0 = now_ns();
    S.window_start = S.t0;
    S.window_end = S.t0 + 10000000000LL;
    S.drain_end = S.window_end;
    S.ja = 0;
    S.jz = S.last = 10;
    S.settled_bits = calloc(2, 1);
    S.running = 1;
}

static int partial(long first) {
    conn_t *k = &S.conns[0];
    S.opened = 1;
    open_pair();
    take = first;
    maybe_send(0, S.t0);
    int in_parts = k->busy && k->unsent == S.request_len - (size_t)first && S.partial_sends == 1;
    int ready_while_busy = (int)(S.ready[0] & 1);
    peer_read();
    size_t first_part = got_len;
    pump(); /* EPOLLOUT: the rest, from where it stopped */
    peer_read();
    int whole_once = got_len == S.request_len && memcmp(got, S.request, S.request_len) == 0;
    int done_sending = k->unsent == 0;
    const char *answer = "HTTP/1.1 302 Found\r\nLocation: /Renard-7.png\r\nContent-Length: 0\r\n\r\n";
    peer_write(answer, strlen(answer));
    pump();
    uint64_t answered_after_partial = S.answered, latency_after_partial = S.corrected.n;
    int settled = S.settled_bits[0] & 1;
    got_len = 0;
    maybe_send(0, sched_of(1)); /* whole this time */
    peer_read();
    int second_whole = got_len == S.request_len && memcmp(got, S.request, S.request_len) == 0;
    peer_write(answer, strlen(answer));
    pump();
    printf("{\"in_parts\": %d, \"ready_while_busy\": %d, \"first_part\": %zu, \"whole_once\": %d, "
           "\"done_sending\": %d, \"answered_after_partial\": %llu, \"latency_after_partial\": %llu, "
           "\"settled\": %d, \"second_whole\": %d, \"partial_sends\": %llu, \"answered\": %llu, "
           "\"latency\": %llu, \"wrong\": %llu, \"bad_framing\": %llu, \"sent\": %llu}\n",
           in_parts, ready_while_busy, first_part, whole_once, done_sending,
           (unsigned long long)answered_after_partial, (unsigned long long)latency_after_partial, settled,
           second_whole, (unsigned long long)S.partial_sends, (unsigned long long)S.answered,
           (unsigned long long)S.corrected.n, (unsigned long long)S.wrong, (unsigned long long)S.bad_framing,
           (unsigned long long)S.sent);
    return 0;
}

#define HEAD302 "HTTP/1.1 302 Found\r\nLocation: /Renard-7.png\r\n"

static const struct {
    const char *name, *bytes;
} CASES[] = {
    {"content-length", HEAD302 "Content-Length: 3\r\n\r\nabc"},
    {"gzip-chunked",
     HEAD302 "Transfer-Encoding: gzip, chunked\r\n\r\n7;x=1\r\n123|4567\r\n3\r|\nabc\r\n0\r\nX-T: 1\r\n|\r\n"},
    {"no-length-closed", HEAD302 "\r\nsome body|$"},
    {"no-length-open", HEAD302 "\r\nsome body"},
    {"chunked-not-last", HEAD302 "Transfer-Encoding: chunked, gzip\r\n\r\nxyz|$"},
    {"length-list", HEAD302 "Content-Length: 2, 2\r\n\r\nok"},
    {"length-conflict", HEAD302 "Content-Length: 2, 3\r\n\r\nok"},
    {"length-invalid", HEAD302 "Content-Length: 1x\r\n\r\n"},
    {"chunk-invalid", HEAD302 "Transfer-Encoding: chunked\r\n\r\nzz\r\n"},
    {"interim", "HTTP/1.1 100 Continue\r\n\r\n" HEAD302 "Content-Length: 0\r\n\r\n"},
    {"no-content", "HTTP/1.1 204 No Content\r\nLocation: /Renard-7.png\r\n\r\n"},
    {"status", "HTTP/1.1 200 OK\r\nLocation: /Renard-7.png\r\nContent-Length: 2\r\n\r\nok"},
    {"location", "HTTP/1.1 302 Found\r\nLocation: /Renard-0.png\r\nContent-Length: 0\r\n\r\n"},
    {"no-status-line", "HTTP/1.1 3xx Found\r\nContent-Length: 0\r\n\r\n"},
    {"unasked", "HTTP/1.1 302 Found\r\nLocation: /Renard-7.png\r\nContent-Length: 0\r\n\r\n"},
};

static int framing(void) {
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        conn_t *k = &S.conns[0];
        close_conn(k, 1);
        open_pair();
        S.opened = 0; /* a lost connection is not opened again: the next case opens its own */
        S.answered = S.wrong = S.wrong_status = S.wrong_location = S.bad_framing = S.close_delimited = 0;
        S.closed_by_server = S.dropped = 0;
        S.framing_quote[0] = S.wrong_quote[0] = 0;
        memset(S.settled_bits, 0, 2);
        hdr_reset(&S.corrected);
        if (strcmp(CASES[c].name, "unasked") != 0) {
            k->next_j = 0;
            maybe_send(0, S.t0);
            got_len = 0;
            peer_read();
        }
        const char *s = CASES[c].bytes;
        int closed = 0;
        while (*s) {
            const char *bar = strchr(s, '|');
            size_t n = bar ? (size_t)(bar - s) : strlen(s);
            if (n == 1 && *s == '$') {
                shutdown(peer, SHUT_WR);
                closed = 1;
            } else {
                peer_write(s, n);
            }
            pump();
            s += n + (bar ? 1 : 0);
        }
        printf("{\"case\": \"%s\", \"answered\": %llu, \"latency\": %llu, \"wrong_status\": %llu, "
               "\"wrong_location\": %llu, \"bad_framing\": %llu, \"close_delimited\": %llu, "
               "\"settled\": %d, \"busy\": %d, \"open\": %d, \"closed\": %d, \"reading_to_close\": %d, "
               "\"example\": ",
               CASES[c].name, (unsigned long long)S.answered, (unsigned long long)S.corrected.n,
               (unsigned long long)S.wrong_status, (unsigned long long)S.wrong_location,
               (unsigned long long)S.bad_framing, (unsigned long long)S.close_delimited, S.settled_bits[0] & 1,
               k->busy, k->state == OPEN, closed, k->busy && k->rstate == R_TO_CLOSE);
        json_string(S.framing_quote[0] ? S.framing_quote : S.wrong_quote);
        printf("}\n");
    }
    return 0;
}

int main(int argc, char **argv) {
    setup();
    if (argc > 2 && strcmp(argv[1], "partial") == 0) return partial(atol(argv[2]));
    if (argc > 1 && strcmp(argv[1], "framing") == 0) return framing();
    fprintf(stderr, "usage: %s partial N | framing\n", argv[0]);
    return 2;
}
