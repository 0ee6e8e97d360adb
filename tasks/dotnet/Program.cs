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

    // The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have
    // neither. MEMRUN_TRACE_WAITS=1: the tasks run the traced bodies, the plain ones with a `start`
    // line just before the count (or the Task.Delay) and an `end` line once the wait is over, on
    // Console.Out, where `ready` goes (a synchronized writer: whole lines, in order).
    // MEMRUN_STALL_MS=K: main stalls K ms after the last spawn and again just before `ready`.
    static readonly bool s_trace = Environment.GetEnvironmentVariable("MEMRUN_TRACE_WAITS") == "1";
    static readonly int s_stallMs = StallSetting();

    static int StallSetting()
    {
        int ms;
        return int.TryParse(Environment.GetEnvironmentVariable("MEMRUN_STALL_MS"), out ms) ? ms : 0;
    }

    static void Trace(string line) => Console.Out.WriteLine(line);

    static void Stall()
    {
        if (s_stallMs > 0)
            Thread.Sleep(s_stallMs);
    }

    static Task TracedDelay(TimeSpan delay)
    {
        Trace("start");
        Task t = Task.Delay(delay);
        t.ContinueWith(_ => Trace("end"), TaskContinuationOptions.ExecuteSynchronously);
        return t;
    }

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
                threads[i] = s_trace
                    ? new Thread(() => { Trace("start"); Interlocked.Increment(ref s_waiting); Thread.Sleep(delay); Trace("end"); })
                    : new Thread(() => { Interlocked.Increment(ref s_waiting); Thread.Sleep(delay); });
                threads[i].Start();
            }
            Stall();
            // Start() only makes a thread runnable. A thread past its sleep counts too: `ready`
            // proves N waiting with the runner's rule that it comes before the sleep can end.
            WaitUntilWaiting(n);
            Stall();
            Ready(n);
            foreach (Thread t in threads)
                t.Join();
            return 0;
        }

        var tasks = new Task[n];
        if (mode == "run")
        {
            for (int i = 0; i < n; i++)
                tasks[i] = s_trace
                    ? Task.Run(async () => { Trace("start"); Interlocked.Increment(ref s_waiting); await Task.Delay(delay); Trace("end"); })
                    : Task.Run(async () => { Interlocked.Increment(ref s_waiting); await Task.Delay(delay); });
            Stall();
            // Task.Run only queues a work item: its Task.Delay exists once the pool has run it.
            WaitUntilWaiting(n);
        }
        else
        {
            // Task.Delay registers its timer before it returns: all N wait once the loop ends.
            // The timers fire on a pool thread, though, not on main: a sleep shorter than the loop
            // can end before `ready` (the runner's rule, `ready` before the sleep's end, excludes it).
            for (int i = 0; i < n; i++)
                tasks[i] = s_trace ? TracedDelay(delay) : Task.Delay(delay);
            Stall();
        }
        Stall();
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
