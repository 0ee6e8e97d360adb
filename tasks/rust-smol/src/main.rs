//! Measures: N smol tasks (smol::spawn on smol's global executor), each awaiting smol::Timer::after.
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use std::{env, process};

// Tasks that have reached their timer: async-io registers it on its first poll, so `ready` waits
// for all N to get there. A static, so no task holds more than its Duration.
static SLEEPING: AtomicUsize = AtomicUsize::new(0);

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

fn main() {
    let Some((n, sleep)) = parse_args() else {
        eprintln!("usage: rust-smol N [SLEEP_SECONDS]");
        process::exit(2);
    };
    // smol's defaults: the global executor runs the spawned tasks on its own thread(s)
    // (SMOL_THREADS, default 1); main blocks on joining them with smol::block_on.
    smol::block_on(async {
        let mut handles = Vec::with_capacity(n);
        for _ in 0..n {
            handles.push(smol::spawn(async move {
                SLEEPING.fetch_add(1, Ordering::Relaxed);
                smol::Timer::after(sleep).await;
            }));
        }
        while SLEEPING.load(Ordering::Relaxed) < n {
            smol::Timer::after(Duration::from_millis(1)).await;
        }
        let mut out = std::io::stdout().lock();
        writeln!(out, "ready {n}")
            .and_then(|_| out.flush())
            .expect("write stdout");
        drop(out);
        for h in handles {
            h.await;
        }
    });
}
