// Measures: N C++20 coroutines co_spawned on one standalone-Asio io_context, each awaiting an
// asio::steady_timer with asio::use_awaitable; io_context::run() on the main thread waits for all.
#include <asio.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <thread>

static_assert(ASIO_VERSION >= 101700, "needs Asio >= 1.17 (co_spawn, use_awaitable)");

using namespace std::chrono;

static asio::awaitable<void> sleeper(steady_clock::duration d) {
    asio::steady_timer timer(co_await asio::this_coro::executor, d);
    co_await timer.async_wait(asio::use_awaitable);
}

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: the coroutines are traced_sleeper, the sleeper above with a `start` line
// just before its timer is armed and an `end` line after the wait, on stdout, where `ready` goes.
// MEMRUN_STALL_MS=K: main stalls K ms after the last co_spawn, and the `ready` handler K ms before
// it prints (every timer armed by then, and due by its end when the sleep is short).
static bool trace = false;
static milliseconds stall_for{0};

static asio::awaitable<void> traced_sleeper(steady_clock::duration d) {
    std::fputs("start\n", stdout);
    asio::steady_timer timer(co_await asio::this_coro::executor, d);
    co_await timer.async_wait(asio::use_awaitable);
    std::fputs("end\n", stdout);
}

static void read_switches() {
    const char *t = std::getenv("MEMRUN_TRACE_WAITS"), *s = std::getenv("MEMRUN_STALL_MS");
    trace = t != nullptr && std::strcmp(t, "1") == 0;
    stall_for = milliseconds(s != nullptr ? std::atol(s) : 0);
}

static void stall() {
    if (stall_for.count() > 0) std::this_thread::sleep_for(stall_for);
}

static std::optional<std::size_t> parse_n(const char *s) {
    std::size_t n;
    const char *end = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, end, n);  // digits only: no sign, no spaces
    if (ec != std::errc() || p != end) return std::nullopt;
    return n;
}

static std::optional<steady_clock::duration> parse_sleep(const char *s) {
    double secs;
    const char *end = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, end, secs);
    if (ec != std::errc() || p != end || !std::isfinite(secs) || secs < 0 || secs > 1e9)
        return std::nullopt;
    return duration_cast<steady_clock::duration>(duration<double>(secs));
}

int main(int argc, char **argv) {
    std::optional<std::size_t> n;
    std::optional<steady_clock::duration> sleep = seconds(10);
    if (argc >= 2 && argc <= 3) n = parse_n(argv[1]);
    if (argc == 3) sleep = parse_sleep(argv[2]);
    if (!n || !sleep) {
        std::fputs("usage: cpp-asio N [SLEEP_SECONDS]\n", stderr);
        return 2;
    }

    read_switches();
    asio::io_context ctx;
    for (std::size_t i = 0; i < *n; i++) {
        // asio::detached would swallow an exception (std::bad_alloc); rethrow it out of run().
        asio::co_spawn(ctx, trace ? traced_sleeper(*sleep) : sleeper(*sleep), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    }
    stall();
    // co_spawn only allocates the coroutine and queues its start: no timer exists before run().
    // "Spawned" here means started and suspended on its armed timer. The io_context runs queued
    // handlers in FIFO order on this one thread, so this one runs after all N coroutines started.
    // And no wait has ended: a due timer's completion is queued by the reactor, which runs as one
    // more queued operation, behind this handler (queued before run() began). Self-contained.
    asio::post(ctx, [n = *n] {
        stall();
        std::printf("ready %zu\n", n);
        std::fflush(stdout);
    });
    ctx.run();  // returns once no timer or handler is left
    return 0;
}
