// HTTP workload (tasks/README.md, "HTTP protocol"): System.Net.HttpListener, .NET's built-in HTTP
// server (on Linux a managed server over Socket), with the usual async loop: await
// GetContextAsync, then Task.Run(() => Handle(context)) per request. Keep-alive is HttpListener's
// default: a response with a Content-Length and no Connection: close leaves the connection open
// for the next request. K comes from System.Random: Random.Shared (.NET 6+) is not in the Mono
// class library mcs compiles against, so each thread-pool thread has its own [ThreadStatic] Random
// (unseeded: .NET 8 seeds each from the OS), since a Random must not be used from two threads.
using System;
using System.Globalization;
using System.Net;
using System.Threading.Tasks;

static class HttpServer
{
    static int images;

    [ThreadStatic]
    static Random random;

    static int Usage(string message)
    {
        Console.Error.WriteLine(message);
        Console.Error.WriteLine("usage: http PORT IMAGES  (PORT 1-65535, IMAGES >= 1)");
        return 2;
    }

    static bool Parse(string text, int min, out int value)
    {
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= min;
    }

    static int Main(string[] args)
    {
        if (args.Length != 2)
            return Usage("wrong number of arguments");
        int port;
        if (!Parse(args[0], 1, out port) || port > 65535)
            return Usage("PORT must be an integer from 1 to 65535: " + args[0]);
        if (!Parse(args[1], 1, out images) || images == int.MaxValue)
            return Usage("IMAGES must be an integer from 1 to 2147483646: " + args[1]);

        var listener = new HttpListener();
        listener.Prefixes.Add("http://127.0.0.1:" + port.ToString(CultureInfo.InvariantCulture) + "/");
        listener.Start();
        ServeAsync(listener).Wait(); // returns only by an exception, which ends the process
        return 1;
    }

    static async Task ServeAsync(HttpListener listener)
    {
        while (true)
        {
            HttpListenerContext context = await listener.GetContextAsync();
            _ = Task.Run(() => Handle(context));
        }
    }

    static void Handle(HttpListenerContext context)
    {
        HttpListenerResponse response = context.Response;
        if (context.Request.RawUrl == "/")
        {
            if (random == null)
                random = new Random();
            response.StatusCode = 302;
            response.RedirectLocation = "/Renard-" + random.Next(1, images + 1).ToString(CultureInfo.InvariantCulture) + ".png";
        }
        else
            response.StatusCode = 404;
        response.ContentLength64 = 0;
        response.Close();
    }
}
