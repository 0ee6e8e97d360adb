// Measures: N .NET tasks alive at once, each Task.Run(async () => await Task.Delay(sleep)).
using System;
using System.Globalization;
using System.Threading.Tasks;

static class Program
{
    static int Usage(string message)
    {
        Console.Error.WriteLine(message);
        Console.Error.WriteLine("usage: app N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)");
        return 2;
    }

    static int Main(string[] args)
    {
        if (args.Length < 1 || args.Length > 2)
            return Usage("wrong number of arguments");
        int n;
        if (!int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out n))
            return Usage("N must be a non-negative integer: " + args[0]);
        double seconds = 10;
        if (args.Length == 2 && !(double.TryParse(args[1], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds)
                                  && seconds >= 0 && seconds <= int.MaxValue / 1000.0))
            return Usage("SLEEP_SECONDS must be a non-negative number: " + args[1]);
        TimeSpan delay = TimeSpan.FromSeconds(seconds);

        var tasks = new Task[n];
        for (int i = 0; i < n; i++)
            tasks[i] = Task.Run(async () => await Task.Delay(delay));
        Console.Out.WriteLine("ready " + n.ToString(CultureInfo.InvariantCulture));
        Console.Out.Flush();
        Task.WhenAll(tasks).Wait();
        return 0;
    }
}
