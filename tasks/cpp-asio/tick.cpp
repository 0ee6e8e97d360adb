// Tick workload (tasks/README.md, "Tick protocol"): N C++20 coroutines co_spawned on one standalone-Asio
// io_context run by the main thread, each with its own std::vector<unsigned char> state, waking with an
// asio::steady_timer set by expires_at(due) and co_await async_wait(use_awaitable).
#include <asio.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

static_assert(ASIO_VERSION >= 101700, "needs Asio >= 1.17 (co_spawn, use_awaitable)");

using namespace std::chrono;

// Everything runs on the io_context's one thread (main's), so plain variables: no atomics.
// Times are µs since t0; W and E are 0 until set (both are at least one period after t0).
static steady_clock::time_point t0;
static std::size_t n_tasks, state_bytes;
static std::int64_t period_us, sleep_us;
static std::size_t ready_count;  // coroutines that finished their first wake's work
static std::int64_t window_start, window_end, periods;
static std::uint64_t achieved;
static std::uint32_t checksum_total;  // unsigned: wraps mod 2^32
static std::array<std::uint64_t, 3328> hist;

static std::int64_t since_t0_us() {
    return duration_cast<microseconds>(steady_clock::now() - t0).count();
}

// Exact below 256 µs, then 128 buckets per power of two (tasks/README.md).
static int bucket(std::int64_t v) {
    if (v > (std::int64_t)UINT32_MAX) v = UINT32_MAX;
    if (v < 256) return (int)v;
    int m = 63 - __builtin_clzll((unsigned long long)v);
    return 256 + (m - 8) * 128 + (int)(v >> (m - 7)) - 128;
}

// The coroutine whose first wake is the N-th sets the window and writes `ready` itself, in the same
// handler: main's thread runs the io_context, so there is no other place to wait from.
static void all_ready() {
    std::int64_t t_ready = since_t0_us();
    window_start = (t_ready / period_us + 1) * period_us;
    periods = (t_ready + sleep_us - window_start) / period_us;
    if (periods < 0) periods = 0;
    window_end = window_start + periods * period_us;
    std::printf("ready %zu\n", n_tasks);
    std::fflush(stdout);
}

static asio::awaitable<void> ticker(std::size_t i) {
    std::vector<unsigned char> state(state_bytes);
    for (std::size_t j = 0; j < state_bytes; j++) state[j] = (unsigned char)(1 + (i * 31 + j) % 251);
    std::int64_t off = (std::int64_t)((unsigned __int128)i * (std::uint64_t)period_us / n_tasks);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    std::uint32_t last = 0;
    for (std::int64_t k = 1;; k++) {
        std::int64_t due = off + k * period_us;
        if (window_end != 0 && due >= window_end) break;
        timer.expires_at(t0 + microseconds(due));
        co_await timer.async_wait(asio::use_awaitable);
        std::int64_t now = since_t0_us();
        std::int64_t late = now > due ? now - due : 0;
        std::uint32_t c = 0;
        for (unsigned char &b : state) {
            c += b;
            b++;
        }
        last = c;
        if (k == 1 && ++ready_count == n_tasks) all_ready();
        if (window_end != 0) {
            if (due >= window_start && due < window_end) {
                hist[bucket(late)]++;
                if (now < window_end) achieved++;
            }
            if (now >= window_end) break;
        }
    }
    checksum_total += last;
}

static std::optional<std::uint64_t> parse_uint(const char *s, std::uint64_t max) {
    std::uint64_t v;
    const char *end = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, end, v);  // digits only: no sign, no spaces
    if (ec != std::errc() || p != end || v > max) return std::nullopt;
    return v;
}

static std::optional<double> parse_sleep(const char *s) {
    double secs;
    const char *end = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, end, secs);
    if (ec != std::errc() || p != end || !std::isfinite(secs) || secs < 0 || secs > 1e9) return std::nullopt;
    return secs;
}

int main(int argc, char **argv) {
    t0 = steady_clock::now();
    std::optional<std::uint64_t> n, state, period;
    std::optional<double> sleep;
    if (argc == 5) {
        n = parse_uint(argv[1], SIZE_MAX);
        sleep = parse_sleep(argv[2]);
        state = parse_uint(argv[3], SIZE_MAX / 2);
        period = parse_uint(argv[4], 1000000000000ULL);
    }
    if (!n || !sleep || !state || !period || *period < 1) {
        std::fputs("usage: cpp-asio-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)\n", stderr);
        return 2;
    }
    n_tasks = *n;
    sleep_us = std::llround(*sleep * 1e6);
    state_bytes = *state;
    period_us = (std::int64_t)*period;

    asio::io_context ctx;
    for (std::size_t i = 0; i < n_tasks; i++) {
        // asio::detached would swallow an exception (std::bad_alloc); rethrow it out of run().
        asio::co_spawn(ctx, ticker(i), [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    }
    if (n_tasks == 0) all_ready();
    ctx.run();  // returns once every coroutine has stopped

    std::printf("tick periods %lld asked %llu achieved %llu checksum %u\nlateness_us", (long long)periods,
                (unsigned long long)n_tasks * (unsigned long long)periods, (unsigned long long)achieved,
                (unsigned)checksum_total);
    for (std::size_t b = 0; b < hist.size(); b++)
        if (hist[b]) std::printf(" %zu:%llu", b, (unsigned long long)hist[b]);
    std::printf("\n");
    return std::fflush(stdout) == 0 ? 0 : 1;
}
