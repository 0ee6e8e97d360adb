// Measures: memory of N Java threads alive at once, each in Thread.sleep;
// mode "threads" = platform (OS) threads, mode "virtual" = virtual threads (JDK 21+).
import java.time.Duration;

public class Main {
    // The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have
    // neither. MEMRUN_TRACE_WAITS=1: the threads run the traced body, the plain one with a `start`
    // line just before Thread.sleep and an `end` line after it, on System.out, where `ready` goes.
    // MEMRUN_STALL_MS=K: main stalls K ms after the last start() and again just before `ready`.
    private static final boolean TRACE = "1".equals(System.getenv("MEMRUN_TRACE_WAITS"));
    private static final long STALL_MS = stallSetting();

    private static long stallSetting() {
        try {
            return Long.parseLong(System.getenv().getOrDefault("MEMRUN_STALL_MS", "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void stall() throws InterruptedException {
        if (STALL_MS > 0) {
            Thread.sleep(STALL_MS);
        }
    }

    private static void usage(String msg) {
        System.err.println(msg);
        System.err.println("usage: java Main threads|virtual N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)");
        System.exit(2);
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2 || args.length > 3) {
            usage("wrong number of arguments");
        }
        String mode = args[0];
        if (!mode.equals("threads") && !mode.equals("virtual")) {
            usage("mode must be 'threads' or 'virtual': " + mode);
        }
        int n = -1;
        try {
            n = Integer.parseInt(args[1]);
        } catch (NumberFormatException e) {
            // reported below
        }
        if (n < 0) {
            usage("N must be a non-negative integer: " + args[1]);
        }
        double seconds = 10;
        if (args.length == 3) {
            try {
                seconds = Double.parseDouble(args[2]);
            } catch (NumberFormatException e) {
                seconds = Double.NaN;
            }
            if (!(seconds >= 0 && seconds * 1000 < Long.MAX_VALUE)) {
                usage("SLEEP_SECONDS must be a non-negative number: " + args[2]);
            }
        }
        Duration d = Duration.ofMillis(Math.round(seconds * 1000));

        Runnable plain = () -> {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Runnable traced = () -> {
            System.out.println("start");
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.println("end");
        };
        Runnable sleeper = TRACE ? traced : plain;
        Thread[] threads = new Thread[n];
        boolean virtual = mode.equals("virtual");
        for (int i = 0; i < n; i++) {
            if (virtual) {
                threads[i] = Thread.startVirtualThread(sleeper);
            } else {
                Thread t = new Thread(sleeper);
                t.start();
                threads[i] = t;
            }
        }
        stall();
        // start() only makes a thread runnable: wait until each one is in its sleep (TIMED_WAITING;
        // for a virtual thread that is its first park, which froze its stack into a heap chunk and
        // scheduled its timer), or already past it (short sleeps), so `ready` means all N wait with
        // the runner's rule that it comes before the sleep can end (a state proof).
        for (Thread t : threads) {
            Thread.State s;
            while ((s = t.getState()) != Thread.State.TIMED_WAITING && s != Thread.State.TERMINATED) {
                Thread.sleep(1);
            }
        }
        stall();
        System.out.println("ready " + n);
        System.out.flush();
        for (Thread t : threads) {
            t.join();
        }
    }
}
