// HTTP workload (tasks/README.md, "HTTP protocol"): Bun.serve, Bun's own server (uWebSockets in
// Zig/C++, one event loop), with a fetch handler as Bun's docs show it and its defaults: keep-alive
// on, an idle connection closed after idleTimeout, 10 s (seen closing after 12 s); an empty body is
// sent with Content-Length: 0. K from Math.random.

function usage(msg) {
  console.error(`${msg}\nusage: bun http-bun.mjs PORT IMAGES  (PORT 1-65535, IMAGES >= 1)`);
  process.exit(2);
}

function integer(text, what, min, max) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= min && value <= max)) usage(`${what} must be an integer from ${min} to ${max}: ${text}`);
  return value;
}

const args = Bun.argv.slice(2);
if (args.length !== 2) usage('wrong number of arguments');
const port = integer(args[0], 'PORT', 1, 65535);
const images = integer(args[1], 'IMAGES', 1, Number.MAX_SAFE_INTEGER);

Bun.serve({
  hostname: '127.0.0.1',
  port,
  fetch(req) {
    if (new URL(req.url).pathname === '/') {
      return new Response(null, {
        status: 302,
        headers: { Location: `/Renard-${1 + Math.floor(Math.random() * images)}.png` },
      });
    }
    return new Response(null, { status: 404 });
  },
});
