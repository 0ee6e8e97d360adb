// Measures: memory of N idle TCP connections, each a net.Socket with a 'data' callback that copies
// what it reads into the connection's own buffer (tasks/README.md, "Connections protocol").
import net from 'node:net';
import { constants } from 'node:buffer';

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node main-server.mjs PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)\n`);
  process.exit(2);
}

function integer(text, what, min, max) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= min && value <= max)) usage(`${what} must be an integer from ${min} to ${max}: ${text}`);
  return value;
}

const args = process.argv.slice(2);
if (args.length !== 3) usage('wrong number of arguments');
const port = integer(args[0], 'PORT', 1, 65535);
const n = integer(args[1], 'N', 0, Number.MAX_SAFE_INTEGER);
const bufferBytes = integer(args[2], 'BUFFER_BYTES', 1, constants.MAX_LENGTH);

// listen(2)'s backlog is a C int: ask for the largest and let the kernel cap it at somaxconn
// (Node's default is 511). Node 20 and Deno 2.9 pass it on; Bun 1.4 ignores the option and listens
// with 512 (all three seen with strace).
const BACKLOG = 2 ** 31 - 1;

let accepted = 0;
let firstReads = 0;

const server = net.createServer((socket) => {
  // Stop listening after the N-th connection; the accepted sockets stay open. Once every socket
  // has closed nothing is left in the event loop and the process exits 0 by itself.
  if (++accepted === n) server.close();
  // Buffer.alloc, not allocUnsafe: allocUnsafe hands out slices of a shared pool below 4 KiB.
  const buffer = Buffer.alloc(bufferBytes);
  let first = true;
  socket.on('data', (chunk) => {
    for (let at = 0; at < chunk.length; at += buffer.length) chunk.copy(buffer, 0, at);
    if (first) {
      first = false;
      if (++firstReads === n) process.stdout.write(`ready ${n}\n`);
    }
  });
  // A reset destroys the socket after 'error'; without a listener it would be thrown. At EOF the
  // socket ends its side too (allowHalfOpen is false) and closes.
  socket.on('error', () => {});
});

server.listen({ host: '127.0.0.1', port, backlog: BACKLOG }, () => {
  if (n === 0) {
    server.close();
    process.stdout.write('ready 0\n');
  }
});
