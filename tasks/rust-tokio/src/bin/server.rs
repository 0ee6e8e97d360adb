//! Connections workload: one tokio task per accepted TCP connection (tokio::spawn on the default
//! multi-thread runtime), each reading into its own buffer until EOF (tasks/README.md, "Connections
//! protocol").
use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::{env, process};

use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};

/// Connections whose first message has been read; the task that makes it N prints `ready N`.
static FIRST_READS: AtomicUsize = AtomicUsize::new(0);

fn parse_args() -> Option<(u16, usize, usize)> {
    let args: Vec<String> = env::args().skip(1).collect();
    let [port, n, buffer] = args.as_slice() else {
        return None;
    };
    // A task must be able to read its first message: at least one byte of buffer.
    let buffer = buffer.parse().ok().filter(|&b: &usize| b > 0)?;
    Some((port.parse().ok()?, n.parse().ok()?, buffer))
}

fn print_ready(n: usize) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
}

/// TcpSocket rather than TcpListener::bind, whose backlog is fixed at 1024: ask for the largest
/// (tokio passes at most i32::MAX to listen(2); the kernel caps it at net.core.somaxconn).
fn listen(port: u16) -> io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    socket.listen(u32::MAX)
}

/// Reads into this connection's own buffer until EOF or an error (a reset), discarding the data.
async fn serve(mut stream: TcpStream, n: usize, buffer: usize) {
    let mut buf = vec![0u8; buffer];
    let mut first = true;
    while let Ok(read) = stream.read(&mut buf).await {
        if read == 0 {
            break;
        }
        if first {
            first = false;
            if FIRST_READS.fetch_add(1, Ordering::AcqRel) + 1 == n {
                print_ready(n);
            }
        }
    }
}

#[tokio::main]
async fn main() {
    let Some((port, n, buffer)) = parse_args() else {
        eprintln!("usage: rust-tokio-server PORT N BUFFER_BYTES");
        process::exit(2);
    };
    let listener = listen(port).unwrap_or_else(|e| {
        eprintln!("listen on 127.0.0.1:{port}: {e}");
        process::exit(1);
    });
    if n == 0 {
        print_ready(0);
    }
    let mut handles = Vec::with_capacity(n);
    for _ in 0..n {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("accept: {e}");
                process::exit(1);
            }
        };
        handles.push(tokio::spawn(serve(stream, n, buffer)));
    }
    drop(listener); // N accepted: stop listening
    for h in handles {
        h.await.expect("task panicked");
    }
}
