//! Measures: N tokio::time::sleep futures awaited together with futures::future::join_all:
//! no tokio::spawn, so no task per sleep; all N are polled by the one task that runs main.
use std::future::Future;
use std::io::Write;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use std::{env, process};

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: `run` gets traced futures instead of bare Sleeps: each made with its Sleep
// (deadline fixed at the same moment), writing `start` on its first poll just before the Sleep's
// and `end` once the Sleep is over, on stdout, where `ready` goes. MEMRUN_STALL_MS=K: main holds
// its thread K ms after the N futures are made and again just before `ready`. The measured program
// is `run` with bare Sleeps, as before; the proof (one poll, then `ready`) is the same code for both.
static STALL_MS: AtomicU64 = AtomicU64::new(0);

fn say(line: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

fn stall() {
    let ms = STALL_MS.load(Ordering::Relaxed);
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

fn traced(sleep: Duration) -> impl Future<Output = ()> {
    let sleeping = tokio::time::sleep(sleep);
    async move {
        say("start");
        sleeping.await;
        say("end")
    }
}

fn parse_args() -> Option<(usize, Duration)> {
    let args: Vec<String> = env::args().skip(1).collect();
    if args.is_empty() || args.len() > 2 {
        return None;
    }
    let n = args[0].parse().ok()?;
    let secs: f64 = match args.get(1) {
        Some(s) => s.parse().ok()?,
        None => 10.0,
    };
    Some((n, Duration::try_from_secs_f64(secs).ok()?))
}

// The default (multi-thread) runtime, as #[tokio::main] gives and as the 2024 follow-up
// (hez2010/async-runtimes-benchmarks-2024) used; also the runtime of rust-tokio, so the two differ
// only in spawn vs join_all. Its worker threads stay idle here: everything runs in main's task.
#[tokio::main]
async fn main() {
    let Some((n, sleep)) = parse_args() else {
        eprintln!("usage: rust-futures N [SLEEP_SECONDS]");
        process::exit(2);
    };
    let ms = env::var("MEMRUN_STALL_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    STALL_MS.store(ms, Ordering::Relaxed);
    if env::var("MEMRUN_TRACE_WAITS").as_deref() == Ok("1") {
        run(n, || traced(sleep)).await
    } else {
        run(n, || tokio::time::sleep(sleep)).await
    }
}

// "Spawned" here: each sleep exists with its deadline fixed (tokio::time::sleep computes now + d
// when called) and join_all holds it: for N > 30 in a FuturesOrdered, one heap node per future,
// which is the container of the N handles. The sleeps go to join_all as an iterator, as in the
// 2024 follow-up: a Vec first would hold all N futures (112 bytes each) a second time while
// join_all moves them into their nodes (1M: 306 MB peak instead of 190 MB, measured).
// Nothing runs until polled: a Sleep registers its timer (intrusively: no allocation) on its
// first poll. So `ready` follows one poll of join_all, which polls each of the N once, in push
// order (FuturesUnordered stops early only for futures that wake themselves); tokio's
// cooperative budget refuses none of them, since a Sleep that stays Pending gives its unit back.
// No counter: each future would grow (an async block around the Sleep: 112 -> 120 bytes). But a
// Sleep whose deadline has passed by that first poll can complete in it, keeping its unit of the
// budget, and after 128 such the poll ends early with the later Sleeps never polled (the proof
// attack, tasks/README.md, makes it happen). No deadline can pass before the sleep has, so `ready`
// proves N waiting with the runner's rule that it comes before the sleep's end (a state proof, not
// a self-contained one).
async fn run<F: Future<Output = ()>>(n: usize, mut make: impl FnMut() -> F) {
    let all = futures::future::join_all((0..n).map(|_| make()));
    stall();
    let mut all = pin!(all);
    let _ = futures::poll!(all.as_mut());
    stall();
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
    drop(out);
    all.await;
}
