//! The floor of `cargo xtask bench`: what transport and JSON alone cost. It answers
//! `resources/read` (and anything else, with the same shape) by a typed serde parse of the
//! request and a typed serialization of the reply, with no protocol machinery at all:
//! a bare pipe loop on stdio, a bare hyper handler on HTTP.
//!
//! Usage: `bench-floor stdio` or `bench-floor http 127.0.0.1:PORT`.

use std::io::{BufRead, Write};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use rmcp_anchor::{RESOURCE_COUNT, index_of, text};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Req<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[allow(dead_code)]
    method: &'a str,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    uri: String,
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ReadResult<'a>,
}

#[derive(Serialize)]
struct ReadResult<'a> {
    contents: [Contents<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Contents<'a> {
    uri: &'a str,
    mime_type: &'static str,
    text: &'a str,
}

fn answer(texts: &[String], line: &[u8], out: &mut Vec<u8>) {
    let Ok(request) = serde_json::from_slice::<Req<'_>>(line) else {
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
        );
        return;
    };
    let uri = request
        .params
        .as_ref()
        .map_or("", |params| params.uri.as_str());
    let body = index_of(uri).map_or("", |index| texts[index].as_str());
    let reply = Reply {
        jsonrpc: "2.0",
        id: request.id,
        result: ReadResult {
            contents: [Contents {
                uri,
                mime_type: "text/plain",
                text: body,
            }],
        },
    };
    serde_json::to_writer(&mut *out, &reply).expect("serializing to memory cannot fail");
}

fn stdio(texts: &[String]) {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut reader = std::io::BufReader::with_capacity(1 << 16, stdin);
    let mut line = Vec::new();
    let mut out = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        out.clear();
        answer(texts, line.trim_ascii_end(), &mut out);
        out.push(b'\n');
        if stdout.write_all(&out).is_err() {
            return;
        }
        // Flush when no further request is already buffered, as a pipelining server would.
        if reader.buffer().is_empty() && stdout.flush().is_err() {
            return;
        }
    }
}

async fn http(texts: Arc<Vec<String>>, addr: &str) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let texts = texts.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let texts = texts.clone();
                async move {
                    let body = request.into_body().collect().await?.to_bytes();
                    let mut out = Vec::with_capacity(1400);
                    answer(&texts, &body, &mut out);
                    let mut response = Response::new(Full::new(Bytes::from(out)));
                    response.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static("application/json"),
                    );
                    Ok::<_, hyper::Error>(response)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() {
    let texts: Vec<String> = (0..RESOURCE_COUNT).map(text).collect();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => stdio(&texts),
        ["http", addr] => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            if let Err(error) = runtime.block_on(http(Arc::new(texts), addr)) {
                eprintln!("bench-floor: {error}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!("usage: bench-floor stdio | bench-floor http ADDR");
            std::process::exit(2);
        }
    }
}
