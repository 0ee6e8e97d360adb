// Measures: N .NET tasks that each keep S bytes of state and wake every PERIOD_US µs at absolute due
// times (tasks/README.md, "Tick protocol"), in Program.cs's three modes: "run" = Task.Run(() =>
// TickAsync(i)), an async loop awaiting Task.Delay; "delay" = TickAsync(i) called directly (no
// Task.Run: it runs on main up to its first await, as Server.cs's "direct" mode); "threads" = one
// new Thread per task looping in Thread.Sleep, each joined.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

static class Tick
{
    const int Buckets = 3328;

    // The monotonic clock: Stopwatch (CLOCK_MONOTONIC on Linux) from s_origin, in whole µs.
    static readonly long s_origin = Stopwatch.GetTimestamp();
    static readonly long s_frequency = Stopwatch.Frequency;

    static long NowUs()
    {
        long t = Stopwatch.GetTimestamp() - s_origin;
        return t / s_frequency * 1000000 + t % s_frequency * 1000000 / s_frequency;
    }

    static int s_n;
    static int s_stateBytes;
    static long s_periodUs;
    static long s_t0;

    // Set once by main (W first, then E); 0 means unset. Tasks read E at every wake.
    static long s_windowStart;
    static long s_windowEnd;

    // Static, so no task captures them.
    static int s_ready;
    static long s_achieved;
    static long s_checksum;
    static readonly long[] s_hist = new long[Buckets];

    static int Usage(string message)
    {
        Console.Error.WriteLine(message);
        Console.Error.WriteLine("usage: tick run|delay|threads N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, sleep may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)");
        return 2;
    }

    static int Bucket(long v)
    {
        if (v > 0xFFFFFFFFL)
            v = 0xFFFFFFFFL;
        if (v < 256)
            return (int)v;
        int m = 63;
        while ((v >> m) == 0)
            m--;
        return (int)(256 + (m - 8) * 128 + (v >> (m - 7)) - 128);
    }

    static byte[] NewState(int i)
    {
        var state = new byte[s_stateBytes];
        for (int j = 0; j < state.Length; j++)
            state[j] = (byte)(1 + ((long)i * 31 + j) % 251);
        return state;
    }

    // The work of one wake: the checksum over every byte, each byte incremented (mod 256).
    static uint Work(byte[] state)
    {
        uint c = 0;
        for (int j = 0; j < state.Length; j++)
        {
            byte b = state[j];
            c += b;  // uint arithmetic wraps: the sum mod 2^32
            state[j] = (byte)(b + 1);
        }
        return c;
    }

    // After a wake's work: counts the first wake, records a wake due in [W, E); true to stop.
    static bool Record(long k, long due, long now)
    {
        if (k == 1)
            Interlocked.Increment(ref s_ready);
        long end = Volatile.Read(ref s_windowEnd);
        if (end == 0)
            return false;
        if (due >= Volatile.Read(ref s_windowStart) && due < end)
        {
            Interlocked.Increment(ref s_hist[Bucket(Math.Max(0, now - due))]);
            if (now < end)
                Interlocked.Increment(ref s_achieved);
        }
        return now >= end;
    }

    static bool PastWindow(long due)
    {
        long end = Volatile.Read(ref s_windowEnd);
        return end != 0 && due >= end;
    }

    // Task.Delay and Thread.Sleep take whole ms (a TimeSpan is cut to whole ms, not rounded):
    // the remaining µs rounded up, so no wake is early by the rounding.
    static int CeilMs(long us)
    {
        return (int)Math.Min(int.MaxValue, (us + 999) / 1000);
    }

    // A task that fails (say, OutOfMemoryException on its state) ends the process with the
    // exception on stderr: its Task would hold the exception, and main wait for its first wake
    // forever. (A Thread's unhandled exception ends the process by itself.)
    static async Task TickAsync(int i)
    {
        try
        {
            byte[] state = NewState(i);
            long off = (long)i * s_periodUs / s_n;
            uint last = 0;
            for (long k = 1; ; k++)
            {
                long due = s_t0 + off + k * s_periodUs;
                if (PastWindow(due))
                    break;
                // A loop, not one call: the timer queue behind Task.Delay counts in a coarse ms
                // clock and was seen to return early (50 of 2000 Task.Delay(3) calls after 1.6-3 ms,
                // .NET 8.0.4), so a wake before the due time waits again for what is left.
                long remaining;
                while ((remaining = due - NowUs()) > 0)
                    await Task.Delay(CeilMs(remaining));
                long now = NowUs();
                last = Work(state);
                if (Record(k, due, now))
                    break;
            }
            Interlocked.Add(ref s_checksum, last);
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("Unhandled exception. " + e);
            Environment.Exit(1);
        }
    }

    static void TickThread(int i)
    {
        byte[] state = NewState(i);
        long off = (long)i * s_periodUs / s_n;
        uint last = 0;
        for (long k = 1; ; k++)
        {
            long due = s_t0 + off + k * s_periodUs;
            if (PastWindow(due))
                break;
            // Looped as TickAsync's, though Thread.Sleep (nanosleep) was never seen early.
            long remaining;
            while ((remaining = due - NowUs()) > 0)
                Thread.Sleep(CeilMs(remaining));
            long now = NowUs();
            last = Work(state);
            if (Record(k, due, now))
                break;
        }
        Interlocked.Add(ref s_checksum, last);
    }

    static int Main(string[] args)
    {
        s_t0 = NowUs();
        if (args.Length != 5)
            return Usage("wrong number of arguments");
        string mode = args[0];
        if (mode != "run" && mode != "delay" && mode != "threads")
            return Usage("mode must be 'run', 'delay' or 'threads': " + mode);
        int n;
        if (!int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out n))
            return Usage("N must be a non-negative integer: " + args[1]);
        double seconds;
        if (!(double.TryParse(args[2], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)
              && seconds >= 0 && seconds * 1e6 < 1e15))
            return Usage("SLEEP_SECONDS must be a non-negative number: " + args[2]);
        long sleepUs = (long)Math.Round(seconds * 1e6);
        int stateBytes;
        if (!int.TryParse(args[3], NumberStyles.None, CultureInfo.InvariantCulture, out stateBytes))
            return Usage("STATE_BYTES must be a non-negative integer: " + args[3]);
        long periodUs;
        // Bounded so that i * PERIOD_US and the due times fit in a long.
        if (!(long.TryParse(args[4], NumberStyles.None, CultureInfo.InvariantCulture, out periodUs)
              && periodUs >= 1 && periodUs <= 1000000000000L))
            return Usage("PERIOD_US must be an integer from 1 to 10^12: " + args[4]);
        s_n = n;
        s_stateBytes = stateBytes;
        s_periodUs = periodUs;

        Thread[] threads = null;
        Task[] tasks = null;
        if (mode == "threads")
        {
            threads = new Thread[n];
            for (int i = 0; i < n; i++)
            {
                int id = i;
                threads[i] = new Thread(() => TickThread(id));
                threads[i].Start();
            }
        }
        else
        {
            tasks = new Task[n];
            bool run = mode == "run";
            for (int i = 0; i < n; i++)
            {
                int id = i;
                tasks[i] = run ? Task.Run(() => TickAsync(id)) : TickAsync(id);
            }
        }
        // Each task counts itself after its first wake's work (a counter proof).
        while (Volatile.Read(ref s_ready) < n)
            Thread.Sleep(1);
        long tReady = NowUs();
        long w = s_t0 + ((tReady - s_t0) / periodUs + 1) * periodUs;
        long span = tReady + sleepUs - w;
        long k = span < 0 ? 0 : span / periodUs;
        Volatile.Write(ref s_windowStart, w);
        Volatile.Write(ref s_windowEnd, w + k * periodUs);  // last: a task that sees E also sees W
        Console.Out.WriteLine("ready " + n.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        if (threads != null)
        {
            foreach (Thread t in threads)
                t.Join();
        }
        else
        {
            Task.WhenAll(tasks).Wait();
        }
        var line = new StringBuilder("lateness_us");
        for (int b = 0; b < Buckets; b++)
        {
            long c = Interlocked.Read(ref s_hist[b]);
            if (c != 0)
                line.Append(' ').Append(b.ToString(CultureInfo.InvariantCulture)).Append(':').Append(c.ToString(CultureInfo.InvariantCulture));
        }
        Console.Out.WriteLine("tick periods " + k.ToString(CultureInfo.InvariantCulture)
                              + " asked " + ((long)n * k).ToString(CultureInfo.InvariantCulture)
                              + " achieved " + Interlocked.Read(ref s_achieved).ToString(CultureInfo.InvariantCulture)
                              + " checksum " + (Interlocked.Read(ref s_checksum) & 0xFFFFFFFFL).ToString(CultureInfo.InvariantCulture));
        Console.Out.WriteLine(line.ToString());
        Console.Out.Flush();
        return 0;
    }
}
