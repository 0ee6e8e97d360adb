// Measures: N Kotlin coroutines that each keep S bytes of state and wake every PERIOD_US µs at
// absolute due times (tasks/README.md, "Tick protocol"): launched with `launch` on runBlocking's
// event loop (the main thread), their Jobs kept in a preallocated list, as in Main.kt; each waits
// with delay().
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlin.system.exitProcess

private const val TICK_BUCKETS = 3328
private const val TICK_USAGE =
    "usage: TickKt N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, sleep may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)"

private fun tickUsage(msg: String): Nothing {
    System.err.println(msg)
    System.err.println(TICK_USAGE)
    exitProcess(2)
}

private fun tickArg(text: String, range: LongRange, what: String): Long =
    text.toLongOrNull()?.takeIf { it in range } ?: tickUsage("$what: $text")

// The monotonic clock: System.nanoTime() from TICK_ORIGIN, in whole µs (never negative); the
// event loop's timers use System.nanoTime() too.
private val TICK_ORIGIN = System.nanoTime()

private fun monoUs(): Long = (System.nanoTime() - TICK_ORIGIN) / 1000

private fun latenessBucket(value: Long): Int {
    val v = minOf(value, 0xFFFFFFFFL)
    if (v < 256) return v.toInt()
    val m = 63 - java.lang.Long.numberOfLeadingZeros(v)
    return (256 + (m - 8) * 128 + (v shr (m - 7)) - 128).toInt()
}

fun main(args: Array<String>) {
    val t0 = monoUs()
    if (args.size != 4) tickUsage("wrong number of arguments")
    val n = tickArg(args[0], 0L..Int.MAX_VALUE, "N must be a non-negative integer").toInt()
    val secs = args[1].toDoubleOrNull()
    if (secs == null || !(secs >= 0 && secs * 1e6 < 1e15)) tickUsage("SLEEP_SECONDS must be a non-negative number: ${args[1]}")
    val sleepUs = Math.round(secs * 1e6)
    val stateBytes = tickArg(args[2], 0L..(Int.MAX_VALUE - 8), "STATE_BYTES must be a non-negative integer").toInt()
    // Bounded so that i * PERIOD_US and the due times fit in a Long.
    val periodUs = tickArg(args[3], 1L..1_000_000_000_000L, "PERIOD_US must be an integer from 1 to 10^12")

    runBlocking {
        // Every coroutine and main run on this one thread (runBlocking's event loop), so the shared
        // counters and the histogram are plain variables: no atomics needed.
        var ready = 0
        var windowStart = 0L  // W; 0 means unset
        var windowEnd = 0L    // E; 0 means unset
        var achieved = 0L
        var checksumTotal = 0L
        val hist = LongArray(TICK_BUCKETS)
        val jobs = ArrayList<Job>(n)
        repeat(n) { i ->
            jobs.add(launch {
                val state = ByteArray(stateBytes) { j -> (1 + (i * 31L + j) % 251).toByte() }
                val off = i * periodUs / n
                var last = 0
                var k = 1L
                while (true) {
                    val due = t0 + off + k * periodUs
                    if (windowEnd != 0L && due >= windowEnd) break
                    // delay() takes whole ms (delay(Duration) rounds up to whole ms too, so nothing
                    // finer exists): round the remaining time up. The loop resumes a delayed task
                    // once System.nanoTime() has reached its time: no early wake.
                    val remainingNs = TICK_ORIGIN + due * 1000 - System.nanoTime()
                    if (remainingNs > 0) delay((remainingNs + 999_999) / 1_000_000)
                    val now = monoUs()
                    val late = maxOf(0L, now - due)
                    var c = 0
                    for (j in state.indices) {
                        val b = state[j].toInt() and 0xFF
                        c += b  // Int arithmetic wraps: the sum mod 2^32
                        state[j] = (b + 1).toByte()
                    }
                    last = c
                    if (k == 1L) ready++
                    if (windowEnd != 0L) {
                        if (due >= windowStart && due < windowEnd) {
                            hist[latenessBucket(late)]++
                            if (now < windowEnd) achieved++
                        }
                        if (now >= windowEnd) break
                    }
                    k++
                }
                checksumTotal += last.toLong() and 0xFFFFFFFFL
            })
        }
        // Each coroutine counts itself after its first wake's work (a counter proof); main polls
        // it in 1 ms delays, which lets the loop run them meanwhile.
        while (ready < n) delay(1)
        val tReady = monoUs()
        val w = t0 + ((tReady - t0) / periodUs + 1) * periodUs
        val k = maxOf(0L, Math.floorDiv(tReady + sleepUs - w, periodUs))
        windowStart = w
        windowEnd = w + k * periodUs
        println("ready $n")
        System.out.flush()
        jobs.joinAll()
        val line = StringBuilder("lateness_us")
        for (b in 0 until TICK_BUCKETS) {
            if (hist[b] != 0L) line.append(' ').append(b).append(':').append(hist[b])
        }
        println("tick periods $k asked ${n.toLong() * k} achieved $achieved checksum ${checksumTotal and 0xFFFFFFFFL}")
        println(line)
        System.out.flush()
    }
}
