// Measures: the http workload (tasks/README.md, "HTTP protocol"): GET / -> 302 to /Renard-K.png,
// anything else -> 404. The JDK's own server, com.sun.net.httpserver.HttpServer, as its javadoc
// shows it: default backlog (0), keep-alive as it does by default for HTTP/1.1 (one dispatcher
// thread owns the selector and the idle connections; the executor runs only the exchanges), K from
// ThreadLocalRandom. Mode "threads" = Executors.newCachedThreadPool() (platform threads, reused),
// mode "virtual" = Executors.newVirtualThreadPerTaskExecutor() (a virtual thread per exchange).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

public class Http {
    private static void usage(String msg) {
        System.err.println(msg);
        System.err.println("usage: java Http threads|virtual PORT IMAGES  (PORT 1-65535, IMAGES >= 1)");
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

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            usage("wrong number of arguments");
        }
        String mode = args[0];
        if (!mode.equals("threads") && !mode.equals("virtual")) {
            usage("mode must be 'threads' or 'virtual': " + mode);
        }
        int port = parse(args[1], 1, 65535, "PORT must be an integer from 1 to 65535");
        int images = parse(args[2], 1, Integer.MAX_VALUE - 1, "IMAGES must be a positive integer");

        ExecutorService executor = mode.equals("virtual")
                ? Executors.newVirtualThreadPerTaskExecutor()
                : Executors.newCachedThreadPool();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/", exchange -> handle(exchange, images));
        server.setExecutor(executor);
        server.start();
    }

    private static void handle(HttpExchange exchange, int images) throws IOException {
        try (exchange) {
            if (exchange.getRequestURI().getPath().equals("/")) {
                int k = ThreadLocalRandom.current().nextInt(1, images + 1);
                exchange.getResponseHeaders().set("Location", "/Renard-" + k + ".png");
                exchange.sendResponseHeaders(302, -1);
            } else {
                exchange.sendResponseHeaders(404, -1);
            }
        }
    }
}
