//! Measures: N OS threads (std::thread::spawn, default stack size), each sleeping.
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use std::{env, process, thread};

// Threads that have reached their sleep: `ready` waits for all N, so it means N threads sleeping at
// once. A static, so no closure holds more than its Duration.
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
        eprintln!("usage: rust-threads N [SLEEP_SECONDS]");
        process::exit(2);
    };
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        // thread::spawn panics if the OS cannot create the thread.
        handles.push(thread::spawn(move || {
            SLEEPING.fetch_add(1, Ordering::Relaxed);
            thread::sleep(sleep)
        }));
    }
    while SLEEPING.load(Ordering::Relaxed) < n {
        thread::sleep(Duration::from_millis(1));
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
    drop(out);
    for h in handles {
        h.join().expect("thread panicked");
    }
}
