//! Tick workload (tasks/README.md, "Tick protocol"): N futures awaited together with
//! futures::future::join_all, no tokio::spawn (default multi-thread runtime), as the sleep program:
//! all N are polled by the one task that runs main. Each future keeps its own Vec<u8> state and
//! waits with tokio::time::sleep_until for its absolute due times t0 + offset_i + k·P.
use std::io::Write;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use std::{env, process};

/// Futures that have done their first wake's work; main's other branch (joined with join_all in
/// the same task) waits (1 ms async sleeps) until N.
static READY: AtomicUsize = AtomicUsize::new(0);
/// The window [W, E) in µs since t0, set once by main (E last, Release); 0 while unset.
static W: AtomicU64 = AtomicU64::new(0);
static E: AtomicU64 = AtomicU64::new(0);
static ACHIEVED: AtomicU64 = AtomicU64::new(0);
/// Sum of the tasks' last checksums, mod 2^32 (fetch_add wraps).
static CHECKSUM: AtomicU32 = AtomicU32::new(0);
/// Lateness histogram: 3,328 atomic counters, Relaxed (only main's task touches them here).
const BUCKETS: usize = 3328;
#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static HIST: [AtomicU64; BUCKETS] = [ZERO; BUCKETS];

fn bucket(v: u64) -> usize {
    let v = v.min(u32::MAX as u64);
    if v < 256 {
        return v as usize;
    }
    let m = 63 - v.leading_zeros() as u64;
    (256 + (m - 8) * 128 + (v >> (m - 7)) - 128) as usize
}

fn us_since(t0: Instant) -> u64 {
    t0.elapsed().as_micros() as u64
}

fn parse_args() -> Option<(usize, Duration, usize, u64)> {
    let args: Vec<String> = env::args().skip(1).collect();
    let [n, sleep, state, period] = args.as_slice() else {
        return None;
    };
    let n = n.parse().ok().filter(|&n: &usize| n > 0)?;
    let sleep = Duration::try_from_secs_f64(sleep.parse().ok()?).ok()?;
    let period = period.parse().ok().filter(|&p: &u64| p > 0)?;
    Some((n, sleep, state.parse().ok()?, period))
}

async fn tick_task(i: usize, n: usize, s: usize, p: u64, t0: Instant) {
    let mut state: Vec<u8> = (0..s).map(|j| (1 + (i * 31 + j) % 251) as u8).collect();
    let off = (i as u128 * p as u128 / n as u128) as u64;
    let mut k: u64 = 1;
    let mut last: u32 = 0;
    loop {
        let due = off + k * p;
        let e = E.load(Ordering::Acquire);
        if e != 0 && due >= e {
            break;
        }
        tokio::time::sleep_until((t0 + Duration::from_micros(due)).into()).await;
        let now = us_since(t0);
        let late = now.saturating_sub(due);
        let mut c: u32 = 0;
        for b in state.iter_mut() {
            c = c.wrapping_add(*b as u32);
            *b = b.wrapping_add(1);
        }
        last = c;
        if k == 1 {
            READY.fetch_add(1, Ordering::Relaxed);
        }
        let e = E.load(Ordering::Acquire);
        if e != 0 {
            if W.load(Ordering::Relaxed) <= due && due < e {
                HIST[bucket(late)].fetch_add(1, Ordering::Relaxed);
                if now < e {
                    ACHIEVED.fetch_add(1, Ordering::Relaxed);
                }
            }
            if now >= e {
                break;
            }
        }
        k += 1;
    }
    CHECKSUM.fetch_add(last, Ordering::Relaxed);
}

#[tokio::main]
async fn main() {
    let t0 = Instant::now();
    let Some((n, sleep, s, p)) = parse_args() else {
        eprintln!("usage: rust-futures-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US (N, PERIOD_US > 0)");
        process::exit(2);
    };
    // The N futures go to join_all as an iterator, as in the sleep program (its FuturesOrdered
    // holds one node per future: the container of the N handles). futures::join! polls it and the
    // waiting branch in main's task, so nothing is spawned.
    let all = futures::future::join_all((0..n).map(|i| tick_task(i, n, s, p, t0)));
    let control = async {
        while READY.load(Ordering::Relaxed) < n {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let t_ready = us_since(t0);
        let w = (t_ready / p + 1) * p;
        let k = (t_ready as i128 + sleep.as_micros() as i128 - w as i128).div_euclid(p as i128).max(0) as u64;
        W.store(w, Ordering::Relaxed);
        E.store(w + k * p, Ordering::Release);
        let mut out = std::io::stdout().lock();
        writeln!(out, "ready {n}").and_then(|_| out.flush()).expect("write stdout");
        k
    };
    let (_, k) = futures::join!(all, control);
    let mut line = String::from("lateness_us");
    for (i, c) in HIST.iter().enumerate() {
        let c = c.load(Ordering::Relaxed);
        if c > 0 {
            line.push_str(&format!(" {i}:{c}"));
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "tick periods {k} asked {} achieved {} checksum {}\n{line}",
        n as u64 * k,
        ACHIEVED.load(Ordering::Relaxed),
        CHECKSUM.load(Ordering::Relaxed)
    )
    .and_then(|_| out.flush())
    .expect("write stdout");
}
