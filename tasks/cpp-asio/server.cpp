// Connections workload: one C++20 coroutine per accepted TCP connection, co_spawned on one
// standalone-Asio io_context run by the main thread (as the sleep program), each awaiting
// async_read_some with asio::use_awaitable into its own buffer until EOF (tasks/README.md,
// "Connections protocol").
#include <asio.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>

static_assert(ASIO_VERSION >= 101700, "needs Asio >= 1.17 (co_spawn, use_awaitable)");

using asio::ip::tcp;

// Connections whose first message has been read. One thread runs every handler and coroutine,
// so a plain counter is exact; the coroutine that makes it N prints `ready N`.
static std::size_t first_reads = 0;

static void print_ready(std::size_t n) {
    std::printf("ready %zu\n", n);
    std::fflush(stdout);
}

// asio::detached would swallow an exception (std::bad_alloc); rethrow it out of run().
static void rethrow(std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
}

// Reads into this connection's own buffer until EOF or an error (a reset), discarding the data;
// the socket closes when the coroutine ends. The buffer is not zeroed (make_unique_for_overwrite):
// a read buffer needs no initial value, and C's malloc and Rust's calloc'd Vec leave a large one's
// pages untouched too.
static asio::awaitable<void> serve(tcp::socket socket, std::size_t n, std::size_t buffer) {
    auto buf = std::make_unique_for_overwrite<char[]>(buffer);
    bool first = true;
    for (;;) {
        asio::error_code ec;
        co_await socket.async_read_some(asio::buffer(buf.get(), buffer),
                                        asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;  // asio::error::eof, or a reset
        if (first) {
            first = false;
            if (++first_reads == n) print_ready(n);
        }
    }
}

// Accepts N connections, co_spawning one serve() each, then closes the acceptor (stops listening).
static asio::awaitable<void> accept_n(tcp::acceptor acceptor, std::size_t n, std::size_t buffer) {
    for (std::size_t i = 0; i < n; i++) {
        asio::error_code ec;
        tcp::socket socket =
            co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            std::fprintf(stderr, "accept: %s (after %zu connections)\n", ec.message().c_str(), i);
            std::exit(1);
        }
        asio::co_spawn(acceptor.get_executor(), serve(std::move(socket), n, buffer), rethrow);
    }
}

// Digits only (no sign, no spaces), at most max.
static std::optional<std::size_t> parse_size(const char *s, std::size_t max) {
    std::size_t v;
    const char *end = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, end, v);
    if (ec != std::errc() || p != end || v > max) return std::nullopt;
    return v;
}

int main(int argc, char **argv) {
    std::optional<std::size_t> port, n, buffer;
    if (argc == 4) {
        port = parse_size(argv[1], 65535);
        n = parse_size(argv[2], std::numeric_limits<std::size_t>::max());
        buffer = parse_size(argv[3], std::numeric_limits<std::size_t>::max());
    }
    // A task must be able to read its first message: at least one byte of buffer.
    if (!port || !n || !buffer || *buffer == 0) {
        std::fputs("usage: cpp-asio-server PORT N BUFFER_BYTES\n", stderr);
        return 2;
    }

    asio::io_context ctx;
    // The acceptor's (endpoint) constructor would listen with max_listen_connections (SOMAXCONN,
    // 4096): ask for the largest listen() takes instead (the kernel caps it at net.core.somaxconn).
    tcp::acceptor acceptor(ctx);
    try {
        tcp::endpoint at(asio::ip::address_v4::loopback(), static_cast<unsigned short>(*port));
        acceptor.open(at.protocol());
        acceptor.set_option(tcp::acceptor::reuse_address(true));
        acceptor.bind(at);
        acceptor.listen(std::numeric_limits<int>::max());
    } catch (const std::system_error &e) {
        std::fprintf(stderr, "listen on 127.0.0.1:%zu: %s\n", *port, e.code().message().c_str());
        return 1;
    }
    if (*n == 0) print_ready(0);
    asio::co_spawn(ctx, accept_n(std::move(acceptor), *n, *buffer), rethrow);
    ctx.run();  // returns once the acceptor and every connection's coroutine have ended
    return 0;
}
