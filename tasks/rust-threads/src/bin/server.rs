//! Connections workload: one OS thread per accepted TCP connection (std::thread::spawn, default
//! stack size, as the sleep program), each in a blocking read into its own buffer until EOF
//! (tasks/README.md, "Connections protocol").
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::{env, process, thread};

use socket2::{Domain, Socket, Type};

/// Connections whose first message has been read; the thread that makes it N prints `ready N`.
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
    let mut out = io::stdout().lock();
    writeln!(out, "ready {n}")
        .and_then(|_| out.flush())
        .expect("write stdout");
}

/// socket2 rather than TcpListener::bind, whose backlog std fixes at 128: ask for the largest
/// (listen(2) takes an int; the kernel caps it at net.core.somaxconn).
fn listen(port: u16) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)).into())?;
    socket.listen(i32::MAX)?;
    Ok(socket.into())
}

/// Reads into this connection's own buffer until EOF or an error (a reset), discarding the data.
fn serve(mut stream: TcpStream, n: usize, buffer: usize) {
    let mut buf = vec![0u8; buffer];
    let mut first = true;
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(_) if first => {
                first = false;
                if FIRST_READS.fetch_add(1, Ordering::AcqRel) + 1 == n {
                    print_ready(n);
                }
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

fn main() {
    let Some((port, n, buffer)) = parse_args() else {
        eprintln!("usage: rust-threads-server PORT N BUFFER_BYTES");
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
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("accept: {e}");
                process::exit(1);
            }
        };
        // thread::spawn panics if the OS cannot create the thread (the sleep program's failure).
        handles.push(thread::spawn(move || serve(stream, n, buffer)));
    }
    drop(listener); // N accepted: stop listening
    for h in handles {
        h.join().expect("thread panicked");
    }
}
