// HTTP workload (tasks/README.md, "HTTP protocol"): Deno.serve, Deno's own server (hyper on tokio's
// current-thread runtime, one event loop), as Deno's docs show it, with its defaults: keep-alive on,
// no idle timeout (an idle connection still open after 40 s); an empty body is sent with
// content-length: 0.
// onListen is given only to keep Deno.serve from printing "Listening on ..." to stdout, which the
// protocol keeps empty. K from Math.random.

function usage(msg) {
  console.error(`${msg}\nusage: deno run --allow-net=127.0.0.1 http-deno.mjs PORT IMAGES  (PORT 1-65535, IMAGES >= 1)`);
  Deno.exit(2);
}

function integer(text, what, min, max) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= min && value <= max)) usage(`${what} must be an integer from ${min} to ${max}: ${text}`);
  return value;
}

const args = Deno.args;
if (args.length !== 2) usage('wrong number of arguments');
const port = integer(args[0], 'PORT', 1, 65535);
const images = integer(args[1], 'IMAGES', 1, Number.MAX_SAFE_INTEGER);

Deno.serve({ hostname: '127.0.0.1', port, onListen() {} }, (req) => {
  if (new URL(req.url).pathname === '/') {
    return new Response(null, {
      status: 302,
      headers: { Location: `/Renard-${1 + Math.floor(Math.random() * images)}.png` },
    });
  }
  return new Response(null, { status: 404 });
});
