/* HTTP workload (tasks/README.md, "HTTP protocol"): libevent 2.1's evhttp, as its sample
 * http-server.c sets it up: one event_base run by the main thread (a single-threaded epoll loop,
 * libevent's idiom; no threads here despite the folder's name), evhttp_new, evhttp_bind_socket,
 * one evhttp_set_gencb callback, SIGPIPE ignored (evbuffer writes with writev, which would raise
 * it on a reset connection), event_base_dispatch. No evhttp_set_* tuning. K comes from random(),
 * the C library's ordinary generator, seeded once with time ^ pid.
 *
 * Keep-alive is evhttp's own: an HTTP/1.1 connection stays open after the reply unless the client
 * asks for close. The 404 therefore uses evhttp_send_reply, not evhttp_send_error: send_error
 * (http.c, evhttp_send_page_) replaces the headers with "Content-Type: text/html" and
 * "Connection: close", writes a short HTML page and closes the connection after it.
 * evhttp's defaults in 2.1.12 (http.c, release-2.1.12-stable): no idle timeout on incoming
 * connections (evhttp_new clears http->timeout and evhttp_get_request only applies it when set;
 * the 50 s HTTP_READ_TIMEOUT/HTTP_WRITE_TIMEOUT are for outgoing client connections and for
 * evhttp_set_timeout_tv(NULL); seen here: 3000 connections left idle 65 s all answered again on
 * the same connection), no connection limit (evhttp_set_max_connections is 2.2 only),
 * listen backlog 128 (hard-coded in evhttp_bind_socket_with_handle). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>

static long images; /* IMAGES: K is drawn from 1..images */

static int usage(void) {
    fputs("usage: c-pthreads-http PORT IMAGES\n", stderr);
    return 2;
}

/* A whole decimal string of digits only (no sign, no spaces), between min and max. */
static int parse_long(const char *s, long min, long max, long *out) {
    if (*s < '0' || *s > '9') return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) return 0;
    *out = v;
    return 1;
}

/* GET / -> 302 to /Renard-K.png; any other path -> 404. Both with an empty body, kept alive. */
static void handle(struct evhttp_request *req, void *arg) {
    (void)arg;
    const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
    if (path != NULL && strcmp(path, "/") == 0) {
        char location[40];
        snprintf(location, sizeof location, "/Renard-%ld.png", 1 + random() % images);
        evhttp_add_header(evhttp_request_get_output_headers(req), "Location", location);
        evhttp_send_reply(req, 302, "Found", NULL);
    } else {
        evhttp_send_reply(req, 404, "Not Found", NULL);
    }
}

int main(int argc, char **argv) {
    long port;
    if (argc != 3 || !parse_long(argv[1], 1, 65535, &port) || !parse_long(argv[2], 1, RAND_MAX, &images))
        return usage();
    srandom((unsigned)time(NULL) ^ (unsigned)getpid());
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        perror("signal");
        return 1;
    }

    struct event_base *base = event_base_new();
    struct evhttp *http = base ? evhttp_new(base) : NULL;
    if (http == NULL) {
        fputs("event_base_new/evhttp_new failed\n", stderr);
        return 1;
    }
    evhttp_set_gencb(http, handle, NULL);
    if (evhttp_bind_socket(http, "127.0.0.1", (ev_uint16_t)port) != 0) {
        fprintf(stderr, "bind 127.0.0.1:%ld: %s\n", port, strerror(errno));
        return 1;
    }
    if (event_base_dispatch(base) != 0) {
        fputs("event_base_dispatch failed\n", stderr);
        return 1;
    }
    return 1; /* the loop only ends with no events left; a server serves until killed */
}
