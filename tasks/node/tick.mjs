// Tick workload (tasks/README.md, "Tick protocol"): N async functions, each with its own Uint8Array
// state, waking at absolute due times through node:timers/promises setTimeout (the sleep program's
// timer), awaited together with Promise.all. Run by Node, Bun and Deno alike.
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';

function usage(msg) {
  process.stderr.write(`${msg}\nusage: tick.mjs N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, STATE_BYTES >= 0, 1 <= PERIOD_US <= 10^12; sleep may be fractional)\n`);
  process.exit(2);
}

function integer(text, what, min, max) {
  if (!/^\d+$/.test(text) || !(Number(text) >= min && Number(text) <= max)) {
    usage(`${what} must be an integer from ${min} to ${max}: ${text}`);
  }
  return Number(text);
}

const args = process.argv.slice(2);
if (args.length !== 4) usage('wrong number of arguments');
const N = integer(args[0], 'N', 0, 2 ** 32);
const seconds = args[1].trim() === '' ? NaN : Number(args[1]);
if (!(seconds >= 0 && seconds <= 1e9)) usage(`SLEEP_SECONDS must be a number from 0 to 1e9: ${args[1]}`);
const SLEEP_US = Math.round(seconds * 1e6);
const S = integer(args[2], 'STATE_BYTES', 0, 2 ** 32);
// 10^12 µs: a first wait (< 2 periods) stays under Node's setTimeout cap of 2^31 - 1 ms.
const P = integer(args[3], 'PERIOD_US', 1, 1e12);

// The monotonic clock in whole µs: performance.now() is in ms, with a fractional part (µs and
// finer under Node 20, Bun 1.4 and Deno 2.9, no permission needed).
const nowUs = () => Math.floor(performance.now() * 1000);
const t0 = nowUs();

// The lateness histogram (one thread: plain counters), the same buckets in every program.
const hist = new Uint32Array(3328);
function bucket(v) {
  if (v > 4294967295) v = 4294967295;
  if (v < 256) return v;
  const m = 31 - Math.clz32(v);
  return 256 + (m - 8) * 128 + (v >>> (m - 7)) - 128;
}

let readyCount = 0;
let W = 0;
let E = 0; // 0: the window is not set yet
let achieved = 0;
let checksumTotal = 0;
let allReady;
const ready = new Promise((resolve) => { allReady = resolve; });

async function task(i) {
  const state = new Uint8Array(S);
  const base = (i * 31) % 251;
  for (let j = 0; j < S; j++) state[j] = 1 + ((base + j) % 251);
  const off = Number((BigInt(i) * BigInt(P)) / BigInt(N)); // i*P can pass 2^53
  let last = 0;
  for (let k = 1; ; k++) {
    const due = t0 + off + k * P;
    if (E !== 0 && due >= E) break;
    // setTimeout takes whole ms: the remaining time rounded up. A timer can still fire early, each
    // runtime measuring the delay on its own ms clock (Node: 3 wakes in 300 came up to 0.5 ms
    // early), so the task waits again for what is left. A due time already past (a long spawn, a
    // task behind) wakes at once, after one turn of the loop.
    let left = due - nowUs();
    if (left <= 0) await yieldToLoop();
    while (left > 0) {
      await sleep(Math.ceil(left / 1000));
      left = due - nowUs();
    }
    const now = nowUs();
    const late = Math.max(0, now - due); // never negative: the wait above ends at the due time
    let c = 0;
    for (let j = 0; j < S; j++) {
      const b = state[j];
      c += b;
      state[j] = b + 1; // a Uint8Array stores mod 256
    }
    last = c >>> 0; // mod 2^32 (c < 2^53)
    if (k === 1 && ++readyCount === N) allReady();
    if (E !== 0) {
      if (due >= W && due < E) {
        hist[bucket(late)]++;
        if (now < E) achieved++;
      }
      if (now >= E) break;
    }
  }
  checksumTotal = (checksumTotal + last) >>> 0;
}

const tasks = new Array(N);
for (let i = 0; i < N; i++) tasks[i] = task(i);
if (N === 0) allReady();
// The last task to finish its first wake resolves `ready`; main resumes in a microtask after that
// task's step, before any further timer callback.
await ready;
const tReady = nowUs();
// W is the first period boundary after t_ready. No task has woken for a due time at or after it
// (none acts before its due time), so every wake of the window comes after main has set it.
W = t0 + (Math.floor((tReady - t0) / P) + 1) * P;
const K = Math.max(0, Math.floor((tReady + SLEEP_US - W) / P));
E = W + K * P;
process.stdout.write(`ready ${N}\n`);
await Promise.all(tasks);
let line = 'lateness_us';
for (let b = 0; b < hist.length; b++) if (hist[b] !== 0) line += ` ${b}:${hist[b]}`;
process.stdout.write(`tick periods ${K} asked ${N * K} achieved ${achieved} checksum ${checksumTotal}\n${line}\n`);
