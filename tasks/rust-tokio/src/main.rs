//! Measures: N tokio tasks (tokio::spawn on the default multi-thread runtime), each sleeping.
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use std::{env, process};

// Tasks that have reached their sleep: tokio registers a timer on its first poll, so `ready` waits
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

#[tokio::main]
async fn main() {
    let Some((n, sleep)) = parse_args() else {
        eprintln!("usage: rust-tokio N [SLEEP_SECONDS]");
        process::exit(2);
    };
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        handles.push(tokio::spawn(async move {
            SLEEPING.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(sleep).await
        }));
    }
    while SLEEPING.load(Ordering::Relaxed) < n {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
    drop(out);
    for h in handles {
        h.await.expect("task panicked");
    }
}
