// HTTP workload (tasks/README.md, "HTTP protocol"): node:http's createServer as the Node docs show
// it, with its defaults: one event loop; keep-alive on, an idle connection closed after
// keepAliveTimeout, 5 s (seen closing after 6 s). writeHead then end() with no body: Node 20 sends
// the answer chunked (Transfer-Encoding: chunked, the empty last chunk). K from Math.random.
import http from 'node:http';

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node http-node.mjs PORT IMAGES  (PORT 1-65535, IMAGES >= 1)\n`);
  process.exit(2);
}

function integer(text, what, min, max) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= min && value <= max)) usage(`${what} must be an integer from ${min} to ${max}: ${text}`);
  return value;
}

const args = process.argv.slice(2);
if (args.length !== 2) usage('wrong number of arguments');
const port = integer(args[0], 'PORT', 1, 65535);
const images = integer(args[1], 'IMAGES', 1, Number.MAX_SAFE_INTEGER);

http.createServer((req, res) => {
  if (req.url === '/') {
    res.writeHead(302, { Location: `/Renard-${1 + Math.floor(Math.random() * images)}.png` });
  } else {
    res.writeHead(404);
  }
  res.end();
}).listen(port, '127.0.0.1');
