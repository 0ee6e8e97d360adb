// Measures: N Java threads that each keep S bytes of state and wake every PERIOD_US µs at absolute
// due times (tasks/README.md, "Tick protocol"); mode "threads" = platform (OS) threads, mode
// "virtual" = virtual threads (JDK 21+), each waiting in Thread.sleep(Duration) as Main.java does.
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

public class Tick {
    private static final int BUCKETS = 3328;

    // The monotonic clock: System.nanoTime() from ORIGIN, in whole µs (never negative).
    private static final long ORIGIN = System.nanoTime();

    private static long nowUs() {
        return (System.nanoTime() - ORIGIN) / 1000;
    }

    private static int n;
    private static int stateBytes;
    private static long periodUs;
    private static long t0;

    // Set once by main (W first, then E); 0 means unset. Tasks read E at every wake.
    private static volatile long windowStart;
    private static volatile long windowEnd;

    private static final AtomicInteger READY = new AtomicInteger();
    private static final AtomicLong ACHIEVED = new AtomicLong();
    private static final AtomicLong CHECKSUM = new AtomicLong();
    private static final AtomicLongArray HIST = new AtomicLongArray(BUCKETS);

    private static void usage(String msg) {
        System.err.println(msg);
        System.err.println("usage: java Tick threads|virtual N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, sleep may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)");
        System.exit(2);
    }

    private static long parseLong(String text, long min, long max, String what) {
        try {
            long v = Long.parseLong(text);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        usage(what + ": " + text);
        return -1; // not reached
    }

    static int bucket(long v) {
        if (v > 0xFFFFFFFFL) {
            v = 0xFFFFFFFFL;
        }
        if (v < 256) {
            return (int) v;
        }
        int m = 63 - Long.numberOfLeadingZeros(v);
        return (int) (256 + (m - 8) * 128 + (v >> (m - 7)) - 128);
    }

    private static void task(int i) {
        byte[] state = new byte[stateBytes];
        for (int j = 0; j < stateBytes; j++) {
            state[j] = (byte) (1 + ((long) i * 31 + j) % 251);
        }
        long off = (long) i * periodUs / n;
        int last = 0;
        try {
            for (long k = 1; ; k++) {
                long due = t0 + off + k * periodUs;
                long end = windowEnd;
                if (end != 0 && due >= end) {
                    break;
                }
                // Thread.sleep(Duration) sleeps in nanoseconds since JDK 21 and, for platform and
                // virtual threads alike, does not return before that much System.nanoTime() has
                // passed: no early wake against this clock.
                long remaining = ORIGIN + due * 1000 - System.nanoTime();
                if (remaining > 0) {
                    Thread.sleep(Duration.ofNanos(remaining));
                }
                long now = nowUs();
                long late = Math.max(0, now - due);
                int c = 0;
                for (int j = 0; j < stateBytes; j++) {
                    int b = state[j] & 0xFF;
                    c += b; // int arithmetic wraps: the sum mod 2^32
                    state[j] = (byte) (b + 1);
                }
                last = c;
                if (k == 1) {
                    READY.incrementAndGet();
                }
                end = windowEnd;
                if (end != 0) {
                    if (due >= windowStart && due < end) {
                        HIST.incrementAndGet(bucket(late));
                        if (now < end) {
                            ACHIEVED.incrementAndGet();
                        }
                    }
                    if (now >= end) {
                        break;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // nothing interrupts them
        }
        CHECKSUM.addAndGet(last & 0xFFFFFFFFL);
    }

    public static void main(String[] args) throws InterruptedException {
        t0 = nowUs();
        if (args.length != 5) {
            usage("wrong number of arguments");
        }
        String mode = args[0];
        if (!mode.equals("threads") && !mode.equals("virtual")) {
            usage("mode must be 'threads' or 'virtual': " + mode);
        }
        n = (int) parseLong(args[1], 0, Integer.MAX_VALUE, "N must be a non-negative integer");
        double seconds;
        try {
            seconds = Double.parseDouble(args[2]);
        } catch (NumberFormatException e) {
            seconds = Double.NaN;
        }
        if (!(seconds >= 0 && seconds * 1e6 < 1e15)) {
            usage("SLEEP_SECONDS must be a non-negative number: " + args[2]);
        }
        long sleepUs = Math.round(seconds * 1e6);
        stateBytes = (int) parseLong(args[3], 0, Integer.MAX_VALUE - 8, "STATE_BYTES must be a non-negative integer");
        // Bounded so that i * PERIOD_US and the due times fit in a long.
        periodUs = parseLong(args[4], 1, 1_000_000_000_000L, "PERIOD_US must be an integer from 1 to 10^12");

        // A task thread that dies (say, OutOfMemoryError on its state) ends the process, printed as
        // the JVM prints it: main would otherwise wait for its first wake forever.
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            try {
                System.err.print("Exception in thread \"" + t.getName() + "\" ");
                e.printStackTrace();
            } finally {
                System.exit(1); // even if printing ran out of memory too
            }
        });
        Thread[] threads = new Thread[n];
        boolean virtual = mode.equals("virtual");
        // Any failure to start a thread ends the process with the exception on stderr, as in
        // Server.java: the threads already started would otherwise tick on forever (no E is set).
        try {
            for (int i = 0; i < n; i++) {
                final int id = i;
                Runnable body = () -> task(id);
                if (virtual) {
                    threads[i] = Thread.startVirtualThread(body);
                } else {
                    Thread t = new Thread(body);
                    t.start();
                    threads[i] = t;
                }
            }
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            System.exit(1);
        }
        // Each thread counts itself after its first wake's work (a counter proof).
        while (READY.get() < n) {
            Thread.sleep(1);
        }
        long tReady = nowUs();
        long w = t0 + ((tReady - t0) / periodUs + 1) * periodUs;
        long k = Math.max(0, Math.floorDiv(tReady + sleepUs - w, periodUs));
        windowStart = w;
        windowEnd = w + k * periodUs; // last: a task that sees E also sees W
        System.out.println("ready " + n);
        System.out.flush();
        for (Thread t : threads) {
            t.join();
        }
        StringBuilder hist = new StringBuilder("lateness_us");
        for (int b = 0; b < BUCKETS; b++) {
            long c = HIST.get(b);
            if (c != 0) {
                hist.append(' ').append(b).append(':').append(c);
            }
        }
        System.out.println("tick periods " + k + " asked " + (long) n * k + " achieved " + ACHIEVED.get()
                + " checksum " + (CHECKSUM.get() & 0xFFFFFFFFL));
        System.out.println(hist);
        System.out.flush();
    }
}
