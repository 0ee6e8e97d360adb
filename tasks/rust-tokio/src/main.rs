//! Measures: N tokio tasks (tokio::spawn on the default multi-thread runtime), each sleeping.
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use std::{env, process};

// Tasks that have reached their sleep: tokio registers a timer on its first poll, so `ready` waits
// for all N to get there. A static, so no task holds more than its Duration.
static SLEEPING: AtomicUsize = AtomicUsize::new(0);

// The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
// MEMRUN_TRACE_WAITS=1: the tasks run the traced body, the plain one with a `start` line just before
// the count and an `end` line after the sleep, on stdout, where `ready` goes (stdout's lock keeps
// each line whole). MEMRUN_STALL_MS=K: main holds its thread K ms after the last spawn and again
// just before `ready`. Statics, so no task holds more than before.
static TRACE: AtomicBool = AtomicBool::new(false);
static STALL_MS: AtomicU64 = AtomicU64::new(0);

fn read_switches() {
    TRACE.store(env::var("MEMRUN_TRACE_WAITS").as_deref() == Ok("1"), Ordering::Relaxed);
    let ms = env::var("MEMRUN_STALL_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    STALL_MS.store(ms, Ordering::Relaxed);
}

fn say(line: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

fn stall() {
    let ms = STALL_MS.load(Ordering::Relaxed);
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms));
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

#[tokio::main]
async fn main() {
    let Some((n, sleep)) = parse_args() else {
        eprintln!("usage: rust-tokio N [SLEEP_SECONDS]");
        process::exit(2);
    };
    read_switches();
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        handles.push(if TRACE.load(Ordering::Relaxed) {
            tokio::spawn(async move {
                say("start");
                SLEEPING.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(sleep).await;
                say("end")
            })
        } else {
            tokio::spawn(async move {
                SLEEPING.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(sleep).await
            })
        });
    }
    stall();
    while SLEEPING.load(Ordering::Relaxed) < n {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    stall();
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
    drop(out);
    for h in handles {
        h.await.expect("task panicked");
    }
}
