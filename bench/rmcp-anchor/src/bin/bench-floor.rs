//! The floor of `cargo xtask bench`: what transport and JSON alone cost. It answers
//! `resources/list` with pages of 100 (the cursor is the index of the next item) and
//! `resources/read` (and anything else, with the read's shape) by a typed serde parse of the
//! request and a typed serialization of the reply, with no protocol machinery at all:
//! a bare pipe loop on stdio, a bare hyper handler on HTTP (JSON replies, or with `http-sse`
//! the same reply as one SSE `data:` event).
//!
//! Usage: `bench-floor stdio`, `bench-floor http 127.0.0.1:PORT` or
//! `bench-floor http-sse 127.0.0.1:PORT`.

use std::io::{BufRead, Write};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use rmcp_anchor::{RESOURCE_COUNT, index_of, text, uri};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The list page size, as every server of the bench uses.
const PAGE: usize = 100;

#[derive(Deserialize)]
struct Req<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(default)]
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(default)]
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

/// What the floor serves: the texts, and the URIs and names of the list.
struct Workload {
    texts: Vec<String>,
    uris: Vec<String>,
    names: Vec<String>,
}

impl Workload {
    fn new() -> Workload {
        Workload {
            texts: (0..RESOURCE_COUNT).map(text).collect(),
            uris: (0..RESOURCE_COUNT).map(uri).collect(),
            names: (0..RESOURCE_COUNT)
                .map(|index| format!("r{index:04}"))
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ReadResult<'a>,
}

#[derive(Serialize)]
struct ListReply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ListResult<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListResult<'a> {
    resources: Vec<Listed<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    uri: &'a str,
    name: &'a str,
    mime_type: &'static str,
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

fn answer(workload: &Workload, line: &[u8], out: &mut Vec<u8>) {
    let Ok(request) = serde_json::from_slice::<Req<'_>>(line) else {
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#,
        );
        return;
    };
    if request.method == "resources/list" {
        let start = request
            .params
            .as_ref()
            .and_then(|params| params.cursor.as_deref())
            .and_then(|cursor| cursor.parse::<usize>().ok())
            .unwrap_or(0)
            .min(RESOURCE_COUNT);
        let end = (start + PAGE).min(RESOURCE_COUNT);
        let reply = ListReply {
            jsonrpc: "2.0",
            id: request.id,
            result: ListResult {
                resources: (start..end)
                    .map(|index| Listed {
                        uri: &workload.uris[index],
                        name: &workload.names[index],
                        mime_type: "text/plain",
                    })
                    .collect(),
                next_cursor: (end < RESOURCE_COUNT).then(|| end.to_string()),
            },
        };
        serde_json::to_writer(&mut *out, &reply).expect("serializing to memory cannot fail");
        return;
    }
    let texts = &workload.texts;
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

fn stdio(workload: &Workload) {
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
        answer(workload, line.trim_ascii_end(), &mut out);
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

async fn http(workload: Arc<Workload>, addr: &str, sse: bool) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let workload = workload.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let workload = workload.clone();
                async move {
                    let body = request.into_body().collect().await?.to_bytes();
                    let mut out = Vec::with_capacity(1400);
                    if sse {
                        out.extend_from_slice(b"data: ");
                    }
                    answer(&workload, &body, &mut out);
                    let content_type = if sse {
                        out.extend_from_slice(b"\n\n");
                        "text/event-stream"
                    } else {
                        "application/json"
                    };
                    let mut response = Response::new(Full::new(Bytes::from(out)));
                    response.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static(content_type),
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
    let workload = Workload::new();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => stdio(&workload),
        [mode @ ("http" | "http-sse"), addr] => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            let sse = *mode == "http-sse";
            if let Err(error) = runtime.block_on(http(Arc::new(workload), addr, sse)) {
                eprintln!("bench-floor: {error}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!(
                "usage: bench-floor stdio | bench-floor http ADDR | bench-floor http-sse ADDR"
            );
            std::process::exit(2);
        }
    }
}
