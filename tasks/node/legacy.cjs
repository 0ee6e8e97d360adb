// Measures: the same as main.mjs, for Node before 16 (the version axis: `--version node=12.22.12`).
// One pending promise per task from util.promisify(setTimeout), awaited together with Promise.all.
// Node 12 to 15 lack a stable node:timers/promises and (before 14.8) top-level await, so this file
// is CommonJS with a .then(). From Node 16 on, util.promisify(setTimeout) *is* timers/promises'
// setTimeout (lib/timers.js defines it so), so both files create the same promise per task.
'use strict';
const { promisify } = require('util');

const sleep = promisify(setTimeout);

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node legacy.cjs N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.length < 1 || args.length > 2) usage('wrong number of arguments');
if (!/^\d+$/.test(args[0]) || !Number.isSafeInteger(Number(args[0]))) {
  usage(`N must be a non-negative integer: ${args[0]}`);
}
const n = Number(args[0]);
let seconds = 10;
if (args.length === 2) {
  seconds = args[1].trim() === '' ? NaN : Number(args[1]);
  if (!(seconds >= 0 && seconds * 1000 <= 2 ** 31 - 1)) {
    usage(`SLEEP_SECONDS must be a number from 0 to 2147483.647: ${args[1]}`);
  }
}
const ms = Math.round(seconds * 1000); // Node timers cap at 2**31-1 ms, hence the range check

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: each promise comes from traced, which writes `start` just before its timer
// is set and `end` once it fires, on stdout, where `ready` goes. MEMRUN_STALL_MS=K: main holds the
// thread K ms (a spin: the event loop does not run) after the last timer is set and again just
// before `ready`.
const TRACE = process.env.MEMRUN_TRACE_WAITS === '1';
const STALL_MS = Number(process.env.MEMRUN_STALL_MS) || 0;

async function traced(ms) {
  process.stdout.write('start\n');
  await sleep(ms);
  process.stdout.write('end\n');
}

function stall() {
  const until = Date.now() + STALL_MS;
  while (Date.now() < until);
}

const tasks = new Array(n);
for (let i = 0; i < n; i++) {
  tasks[i] = TRACE ? traced(ms) : sleep(ms);
}
stall();
// setTimeout registered each timer at the call, and no timer callback can run before this
// synchronous code is over: no wait can end before `ready`. Self-contained.
stall();
process.stdout.write(`ready ${n}\n`);
Promise.all(tasks).then(() => {});
