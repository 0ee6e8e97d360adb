// Measures: N .NET tasks alive at once, each sleeping; mode "run" = Task.Run(async () => await Task.Delay(sleep)),
// mode "delay" = a bare Task.Delay(sleep) (no Task.Run), mode "threads" = one new Thread per task in Thread.Sleep.
using System;
using System.Globalization;
using System.Reflection;
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
            RegisterBooks();
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
        RegisterBooks();
        Ready(n);
        Task.WhenAll(tasks).Wait();
        return 0;
    }

    static void WaitUntilWaiting(int n)
    {
        while (Volatile.Read(ref s_waiting) < n)
            Thread.Sleep(1);
    }

    // The runtime's own books, for `memrun explain --books` only: with MEMRUN_BOOKS=1 a SIGUSR2
    // handler is registered once every task waits, just before `ready`; memrun sends the signal at
    // the hold, after its own snapshot. The handler prints the managed heap's size, then runs a full
    // GC (without one, GC.GetGCMemoryInfo has nothing to say: at small N no GC has run by the hold)
    // and prints what it found, to stderr as `books NAME VALUE`. Off by default: a figure's run
    // reads one environment variable once every task waits, and registers nothing.
    // PosixSignalRegistration (.NET 6) and GC.GetGCMemoryInfo (.NET Core 3.0) are not in Mono's
    // mscorlib, which mcs compiles against, so both are found by reflection in the runtime that
    // runs the program.
    static object s_booksRegistration;

    static void RegisterBooks()
    {
        if (Environment.GetEnvironmentVariable("MEMRUN_BOOKS") != "1")
            return;
        Type registration = Type.GetType("System.Runtime.InteropServices.PosixSignalRegistration, System.Runtime.InteropServices");
        Type context = Type.GetType("System.Runtime.InteropServices.PosixSignalContext, System.Runtime.InteropServices");
        Type signal = Type.GetType("System.Runtime.InteropServices.PosixSignal, System.Runtime.InteropServices");
        if (registration == null || context == null || signal == null)
        {
            Console.Error.WriteLine("books: no PosixSignalRegistration in this runtime");
            return;
        }
        Type handlerType = typeof(Action<>).MakeGenericType(context);
        Delegate handler = Delegate.CreateDelegate(handlerType, typeof(Program).GetMethod("OnBooksSignal", BindingFlags.NonPublic | BindingFlags.Static));
        object sigusr2 = Enum.ToObject(signal, 12);  // a raw signal number, as PosixSignal allows on Unix
        s_booksRegistration = registration.GetMethod("Create").Invoke(null, new object[] { sigusr2, handler });
    }

    static void OnBooksSignal(object context)
    {
        context.GetType().GetProperty("Cancel").SetValue(context, true, null);  // else SIGUSR2's default: exit
        Say("total_memory_before_gc", GC.GetTotalMemory(false));
        Say("working_set_before_gc", Environment.WorkingSet);
        GC.Collect();
        Say("total_memory", GC.GetTotalMemory(false));
        for (int g = 0; g <= GC.MaxGeneration; g++)
            Say("collections_gen" + g.ToString(CultureInfo.InvariantCulture), GC.CollectionCount(g));
        object last = typeof(GC).GetMethod("GetGCMemoryInfo", Type.EmptyTypes).Invoke(null, null);
        foreach (string name in new[] { "Index", "HeapSizeBytes", "TotalCommittedBytes", "FragmentedBytes", "PromotedBytes" })
            Say("gcinfo_" + name, Convert.ToInt64(last.GetType().GetProperty(name).GetValue(last, null), CultureInfo.InvariantCulture));
        Say("working_set", Environment.WorkingSet);
    }

    static void Say(string name, long value)
    {
        Console.Error.WriteLine("books " + name + " " + value.ToString(CultureInfo.InvariantCulture));
    }

    static void Ready(int n)
    {
        Console.Out.WriteLine("ready " + n.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
    }
}
