// Measures: memory of N idle TCP connections, one coroutine per connection suspended in a read
// into its own buffer (tasks/README.md, "Connections protocol"). The coroutines run on
// runBlocking's event loop (the main thread), as in Main.kt; the sockets are NIO.2 asynchronous
// channels whose completion handlers resume them, wrapped in suspend functions with
// suspendCancellableCoroutine (what kotlinx-coroutines' own NIO integration did). Not Ktor: its
// openReadChannel() gives each socket a reader coroutine that borrows a buffer from Ktor's pool,
// so a task would neither own its buffer nor be the only coroutine of its connection.
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.Job
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.suspendCancellableCoroutine
import java.io.IOException
import java.net.InetSocketAddress
import java.net.StandardSocketOptions
import java.nio.ByteBuffer
import java.nio.channels.AsynchronousServerSocketChannel
import java.nio.channels.AsynchronousSocketChannel
import java.nio.channels.CompletionHandler
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlin.system.exitProcess

private const val SERVER_USAGE =
    "usage: ServerKt PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)"

private fun serverUsage(msg: String): Nothing {
    System.err.println(msg)
    System.err.println(SERVER_USAGE)
    exitProcess(2)
}

private fun arg(text: String, range: IntRange, what: String): Int =
    text.toIntOrNull()?.takeIf { it in range } ?: serverUsage("$what: $text")

// One stateless handler for every operation: the continuation travels as the attachment.
private object Resumer : CompletionHandler<Any, CancellableContinuation<Any>> {
    override fun completed(result: Any, cont: CancellableContinuation<Any>) = cont.resume(result)

    override fun failed(e: Throwable, cont: CancellableContinuation<Any>) = cont.resumeWithException(e)
}

@Suppress("UNCHECKED_CAST")
private fun <T> resumer() = Resumer as CompletionHandler<T, CancellableContinuation<T>>

private suspend fun AsynchronousServerSocketChannel.acceptSuspending(): AsynchronousSocketChannel =
    suspendCancellableCoroutine { cont -> accept(cont, resumer()) }

private suspend fun AsynchronousSocketChannel.readSuspending(buf: ByteBuffer): Int =
    suspendCancellableCoroutine { cont -> read(buf, cont, resumer()) }

private fun ready(n: Int) {
    println("ready $n")
    System.out.flush()
}

// Reads into the connection's own buffer until EOF or an error (a reset). The first read that
// returns data is the connection's first message; the coroutine that counts the Nth prints ready.
private suspend fun serve(channel: AsynchronousSocketChannel, size: Int, n: Int, first: AtomicInteger) {
    channel.use {
        val buf = ByteBuffer.allocate(size)
        try {
            var got = it.readSuspending(buf)
            if (got > 0 && first.incrementAndGet() == n) ready(n)
            while (got >= 0) {
                buf.clear()
                got = it.readSuspending(buf)
            }
        } catch (e: IOException) {
            // a reset ends the connection like EOF does
        }
    }
}

fun main(args: Array<String>) {
    if (args.size != 3) serverUsage("wrong number of arguments")
    val port = arg(args[0], 1..65535, "PORT must be an integer from 1 to 65535")
    val n = arg(args[1], 0..Int.MAX_VALUE, "N must be a non-negative integer")
    val size = arg(args[2], 1..Int.MAX_VALUE, "BUFFER_BYTES must be a positive integer")

    val first = AtomicInteger()
    runBlocking {
        val jobs = ArrayList<Job>(n)
        try {
            AsynchronousServerSocketChannel.open().use { server ->
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true)
                // The kernel caps the backlog at net.core.somaxconn.
                server.bind(InetSocketAddress("127.0.0.1", port), Int.MAX_VALUE)
                if (n == 0) ready(0)
                repeat(n) {
                    val channel = server.acceptSuspending()
                    jobs.add(launch { serve(channel, size, n, first) })
                }
            }
        } catch (e: IOException) {
            e.printStackTrace()
            exitProcess(1)
        }
        jobs.joinAll()
    }
}
