// Measures: N .NET tasks alive at once, each sleeping; mode "run" = Task.Run(async () => await Task.Delay(sleep)),
// mode "delay" = a bare Task.Delay(sleep) (no Task.Run), mode "threads" = one new Thread per task in Thread.Sleep.
using System;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;

static class Program
{
    // Tasks (modes "run" and "threads") that have reached their sleep: static, so no task captures it.
    static int s_waiting;

    static int Usage(string message)
    {
        Console.Error.WriteLine(message);
        Console.Error.WriteLine("usage: app run|delay|threads N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)");
        return 2;
    }

    static int Main(string[] args)
    {
        if (args.Length < 2 || args.Length > 3)
            return Usage("wrong number of arguments");
        string mode = args[0];
        if (mode != "run" && mode != "delay" && mode != "threads")
            return Usage("mode must be 'run', 'delay' or 'threads': " + mode);
        int n;
        if (!int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out n))
            return Usage("N must be a non-negative integer: " + args[1]);
        double seconds = 10;
        if (args.Length == 3 && !(double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)
                                  && seconds >= 0 && seconds <= int.MaxValue / 1000.0))
            return Usage("SLEEP_SECONDS must be a non-negative number: " + args[2]);
        TimeSpan delay = TimeSpan.FromSeconds(seconds);

        if (mode == "threads")
        {
            var threads = new Thread[n];
            for (int i = 0; i < n; i++)
            {
                threads[i] = new Thread(() => { Interlocked.Increment(ref s_waiting); Thread.Sleep(delay); });
                threads[i].Start();
            }
            WaitUntilWaiting(n);  // Start() only makes a thread runnable
            Ready(n);
            foreach (Thread t in threads)
                t.Join();
            return 0;
        }

        var tasks = new Task[n];
        if (mode == "run")
        {
            for (int i = 0; i < n; i++)
                tasks[i] = Task.Run(async () => { Interlocked.Increment(ref s_waiting); await Task.Delay(delay); });
            // Task.Run only queues a work item: its Task.Delay exists once the pool has run it.
            WaitUntilWaiting(n);
        }
        else
        {
            // Task.Delay registers its timer before it returns: all N wait once the loop ends.
            for (int i = 0; i < n; i++)
                tasks[i] = Task.Delay(delay);
        }
        Ready(n);
        Task.WhenAll(tasks).Wait();
        return 0;
    }

    static void WaitUntilWaiting(int n)
    {
        while (Volatile.Read(ref s_waiting) < n)
            Thread.Sleep(1);
    }

    static void Ready(int n)
    {
        Console.Out.WriteLine("ready " + n.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
    }
}
