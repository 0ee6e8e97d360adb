// Measures: memory of N Kotlin coroutines alive at once, each suspended in delay(): launched with
// `launch` on runBlocking's event loop (the main thread), their Jobs kept in a preallocated list.
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import kotlin.system.exitProcess
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: the coroutines run the traced body, the plain one with a `start` line just
// before delay() and an `end` line after it, on System.out, where `ready` goes.
// MEMRUN_STALL_MS=K: main holds the event loop's thread K ms (Thread.sleep: no other coroutine runs
// meanwhile) after the last launch and again just before `ready`.
private val TRACE = System.getenv("MEMRUN_TRACE_WAITS") == "1"
private val STALL_MS = System.getenv("MEMRUN_STALL_MS")?.toLongOrNull() ?: 0L

private fun stall() {
    if (STALL_MS > 0) Thread.sleep(STALL_MS)
}

private const val USAGE = "usage: MainKt N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"

private fun usage(msg: String): Nothing {
    System.err.println(msg)
    System.err.println(USAGE)
    exitProcess(2)
}

private fun parse(args: Array<String>): Pair<Int, Duration> {
    if (args.size !in 1..2) usage("wrong number of arguments")
    val n = args[0].toIntOrNull()
    if (n == null || n < 0) usage("N must be a non-negative integer: ${args[0]}")
    val secs = if (args.size == 2) args[1].toDoubleOrNull() else 10.0
    if (secs == null || !secs.isFinite() || secs < 0) usage("SLEEP_SECONDS must be a non-negative number: ${args[1]}")
    return n to secs.seconds
}

fun main(args: Array<String>) {
    val (n, sleep) = parse(args)
    runBlocking {
        // runBlocking would wait for its children anyway (structured concurrency); the list makes
        // "wait for all" explicit, like the other programs' handle arrays, at one reference per task.
        val jobs = ArrayList<Job>(n)
        if (TRACE) {
            repeat(n) { jobs.add(launch { println("start"); delay(sleep); println("end") }) }
        } else {
            repeat(n) { jobs.add(launch { delay(sleep) }) }
        }
        stall()
        // launch only queues each coroutine on this single-threaded event loop, in order (FIFO):
        // yield() queues main behind all N, so it resumes once each has run up to its delay()
        // (its timer is in the loop's heap), as asyncio.sleep(0) does after create_task. And none
        // has resumed: the loop moves due delays to the end of its queue, behind main, which was
        // queued before the first coroutine ran. Self-contained.
        yield()
        stall()
        println("ready $n")
        System.out.flush()
        jobs.joinAll()
    }
}
