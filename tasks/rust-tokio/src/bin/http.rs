//! HTTP workload (tasks/README.md, "HTTP protocol"): hyper 1.x as its server guide has it, a tokio
//! TcpListener accept loop, `tokio::spawn` per connection, each served by
//! `hyper::server::conn::http1::Builder` with its defaults: HTTP/1.1 keep-alive on, so the
//! connection stays open between requests. `#[tokio::main]`'s default multi-thread runtime (a
//! worker per CPU it sees). `TcpListener::bind`'s backlog: tokio's default, 1024.
//!
//! GET / answers 302 with Location /Renard-K.png, K from `rand::random_range`: the thread-local
//! `ThreadRng` (each worker thread its own, no lock). The body is `Empty<Bytes>`, which hyper sends
//! as Content-Length: 0. A connection's error (a peer gone mid-request) only ends that connection,
//! and is not printed.
use std::net::{Ipv4Addr, SocketAddr};
use std::{env, process};

use bytes::Bytes;
use http_body_util::Empty;
use hyper::header::{HeaderValue, LOCATION};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

fn parse_args() -> Option<(u16, u32)> {
    let args: Vec<String> = env::args().skip(1).collect();
    let [port, images] = args.as_slice() else {
        return None;
    };
    let port = port.parse().ok().filter(|&p: &u16| p > 0)?;
    let images = images.parse().ok().filter(|&n: &u32| n > 0)?;
    Some((port, images))
}

/// `GET /` (any method, as the other servers): 302 to a random image; any other path: 404.
fn respond(req: &Request<hyper::body::Incoming>, images: u32) -> Response<Empty<Bytes>> {
    let mut res = Response::new(Empty::new());
    if req.uri().path() == "/" {
        let k = rand::random_range(1..=images);
        let location = HeaderValue::try_from(format!("/Renard-{k}.png")).expect("ASCII");
        *res.status_mut() = StatusCode::FOUND;
        res.headers_mut().insert(LOCATION, location);
    } else {
        *res.status_mut() = StatusCode::NOT_FOUND;
    }
    res
}

#[tokio::main]
async fn main() {
    let Some((port, images)) = parse_args() else {
        eprintln!("usage: rust-tokio-http PORT IMAGES  (PORT 1-65535, IMAGES >= 1)");
        process::exit(2);
    };
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
        .unwrap_or_else(|e| {
            eprintln!("listen on 127.0.0.1:{port}: {e}");
            process::exit(1);
        });
    loop {
        // The guide's loop ends main on an accept error (`?`); so does this one, saying why.
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("accept: {e}");
                process::exit(1);
            }
        };
        tokio::spawn(async move {
            let service = service_fn(move |req| async move {
                Ok::<_, std::convert::Infallible>(respond(&req, images))
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
