// Measures: N idle TCP connections, one task per connection reading into its own byte[]
// (tasks/README.md, "Connections protocol"); mode "run" = Task.Run(() => ServeAsync(stream)),
// an async read loop awaiting NetworkStream.ReadAsync, mode "direct" = the same async method
// called without Task.Run, mode "threads" = one new Thread per connection in NetworkStream.Read.
using System;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

static class Server
{
    static int n;
    static int size;
    static int first; // connections whose first message has been read

    static int Usage(string message)
    {
        Console.Error.WriteLine(message);
        Console.Error.WriteLine("usage: server run|direct|threads PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)");
        return 2;
    }

    static bool Parse(string text, int min, out int value)
    {
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= min;
    }

    static int Main(string[] args)
    {
        if (args.Length != 4)
            return Usage("wrong number of arguments");
        string mode = args[0];
        if (mode != "run" && mode != "direct" && mode != "threads")
            return Usage("mode must be 'run', 'direct' or 'threads': " + mode);
        int port;
        if (!Parse(args[1], 1, out port) || port > 65535)
            return Usage("PORT must be an integer from 1 to 65535: " + args[1]);
        if (!Parse(args[2], 0, out n))
            return Usage("N must be a non-negative integer: " + args[2]);
        if (!Parse(args[3], 1, out size))
            return Usage("BUFFER_BYTES must be a positive integer: " + args[3]);

        // .NET sets SO_REUSEADDR itself before binding a TCP socket on Unix (seen with strace);
        // SocketOptionName.ReuseAddress would set SO_REUSEPORT as well, letting another server
        // share the port.
        var listener = new TcpListener(IPAddress.Loopback, port);
        Thread[] threads = mode == "threads" ? new Thread[n] : null;
        Task[] tasks = mode == "threads" ? null : new Task[n];
        // Failing to listen or accept ends the process with the exception on stderr (a thread
        // already started would otherwise keep it alive).
        try
        {
            listener.Start(int.MaxValue); // the kernel caps the backlog at net.core.somaxconn
            if (n == 0)
                Ready();
            for (int i = 0; i < n; i++)
            {
                var stream = new NetworkStream(listener.AcceptSocket(), true);
                if (mode == "threads")
                {
                    threads[i] = new Thread(() => Serve(stream));
                    threads[i].Start();
                }
                else if (mode == "run")
                    tasks[i] = Task.Run(() => ServeAsync(stream));
                else
                    tasks[i] = ServeAsync(stream);
            }
            listener.Stop();
        }
        catch (SocketException e)
        {
            Console.Error.WriteLine(e);
            Environment.Exit(1);
        }

        if (threads != null)
        {
            foreach (Thread t in threads)
                t.Join();
        }
        else
            Task.WhenAll(tasks).Wait();
        return 0;
    }

    // Reads into the connection's own buffer until EOF (a read of 0) or an error (a reset).
    static async Task ServeAsync(NetworkStream stream)
    {
        using (stream)
        {
            var buffer = new byte[size];
            try
            {
                int got = await stream.ReadAsync(buffer, 0, buffer.Length);
                if (got > 0)
                    FirstMessage();
                while (got > 0)
                    got = await stream.ReadAsync(buffer, 0, buffer.Length);
            }
            catch (IOException)
            {
            }
        }
    }

    // The same loop, blocking its own thread in each read.
    static void Serve(NetworkStream stream)
    {
        using (stream)
        {
            var buffer = new byte[size];
            try
            {
                int got = stream.Read(buffer, 0, buffer.Length);
                if (got > 0)
                    FirstMessage();
                while (got > 0)
                    got = stream.Read(buffer, 0, buffer.Length);
            }
            catch (IOException)
            {
            }
        }
    }

    // The task that reads the Nth first message prints the ready line.
    static void FirstMessage()
    {
        if (Interlocked.Increment(ref first) == n)
            Ready();
    }

    static void Ready()
    {
        Console.Out.WriteLine("ready " + n.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
    }
}
