// Measures: memory of N idle TCP connections, one Java thread per connection blocked in
// InputStream.read into its own byte[] (tasks/README.md, "Connections protocol");
// mode "threads" = platform (OS) threads, mode "virtual" = virtual threads (JDK 21+).
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

public class Server {
    private static void usage(String msg) {
        System.err.println(msg);
        System.err.println("usage: java Server threads|virtual PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)");
        System.exit(2);
    }

    private static int parse(String text, int min, int max, String what) {
        try {
            int v = Integer.parseInt(text);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        usage(what + ": " + text);
        return -1; // not reached
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            usage("wrong number of arguments");
        }
        String mode = args[0];
        if (!mode.equals("threads") && !mode.equals("virtual")) {
            usage("mode must be 'threads' or 'virtual': " + mode);
        }
        int port = parse(args[1], 1, 65535, "PORT must be an integer from 1 to 65535");
        int n = parse(args[2], 0, Integer.MAX_VALUE, "N must be a non-negative integer");
        int size = parse(args[3], 1, Integer.MAX_VALUE, "BUFFER_BYTES must be a positive integer");

        AtomicInteger first = new AtomicInteger();
        Thread[] threads = new Thread[n];
        boolean virtual = mode.equals("virtual");
        // Any failure to listen, accept or start a thread ends the process with the exception on
        // stderr: a platform thread already started would otherwise keep the JVM alive.
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            // The kernel caps the backlog at net.core.somaxconn.
            server.bind(new InetSocketAddress("127.0.0.1", port), Integer.MAX_VALUE);
            if (n == 0) {
                ready(0);
            }
            for (int i = 0; i < n; i++) {
                Socket socket = server.accept();
                Runnable task = () -> serve(socket, size, n, first);
                if (virtual) {
                    threads[i] = Thread.startVirtualThread(task);
                } else {
                    Thread t = new Thread(task);
                    t.start();
                    threads[i] = t;
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            e.printStackTrace();
            System.exit(1);
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // Reads into the connection's own buffer until EOF or an error (a reset). The first read that
    // returns data is the connection's first message; the thread that counts the Nth prints ready.
    private static void serve(Socket socket, int size, int n, AtomicInteger first) {
        try (socket) {
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[size];
            int got = in.read(buf);
            if (got > 0 && first.incrementAndGet() == n) {
                ready(n);
            }
            while (got >= 0) {
                got = in.read(buf);
            }
        } catch (IOException e) {
            // a reset ends the connection like EOF does
        }
    }

    private static void ready(int n) {
        System.out.println("ready " + n);
        System.out.flush();
    }
}
