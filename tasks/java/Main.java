// Measures: memory of N Java threads alive at once, each in Thread.sleep;
// mode "threads" = platform (OS) threads, mode "virtual" = virtual threads (JDK 21+).
import java.time.Duration;

public class Main {
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

        Runnable sleeper = () -> {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
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
        // start() only makes a thread runnable: wait until each one is in its sleep (TIMED_WAITING;
        // for a virtual thread that is its first park, which froze its stack into a heap chunk and
        // scheduled its timer), or already past it (short sleeps), so `ready` means all N wait.
        for (Thread t : threads) {
            Thread.State s;
            while ((s = t.getState()) != Thread.State.TIMED_WAITING && s != Thread.State.TERMINATED) {
                Thread.sleep(1);
            }
        }
        System.out.println("ready " + n);
        System.out.flush();
        for (Thread t : threads) {
            t.join();
        }
    }
}
