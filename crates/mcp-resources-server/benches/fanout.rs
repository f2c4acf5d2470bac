//! Benchmark of the fan-out of one change: 10,000 legacy sessions, each served by the real
//! stdio transport (`Server::serve_lines`) over an in-memory pipe and subscribed to one URI;
//! one `Server::resource_updated` call; the time until every session's client has read its
//! `notifications/resources/updated` line. Sockets are left out on purpose (`cargo xtask bench`
//! measures over real HTTP connections): this is the cost of the hub, the wake-ups, the
//! adapters and the transport's writes.
//!
//! Run with `cargo bench -p mcp-resources-server --bench fanout`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::Server;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

fn main() {
    divan::main();
}

/// The URI every session subscribes to.
const URI: &str = "mem:///fanout/hot";

/// The sessions of one run, their server and how many notifications they have read.
struct Sessions {
    runtime: tokio::runtime::Runtime,
    server: Server,
    received: Arc<AtomicUsize>,
    all_received: Arc<Notify>,
    count: usize,
}

impl Sessions {
    /// `count` legacy sessions, initialized and subscribed to [`URI`].
    fn start(count: usize) -> Sessions {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let uri = ResourceUri::parse(URI).expect("a valid URI");
        let server = Server::builder()
            .static_resource(
                Resource::new(uri.clone(), "hot"),
                vec![Contents::text(uri, "hot")],
            )
            .build()
            .expect("a server");
        let received = Arc::new(AtomicUsize::new(0));
        let all_received = Arc::new(Notify::new());
        let subscribed = Arc::new(AtomicUsize::new(0));
        let all_subscribed = Arc::new(Notify::new());
        runtime.block_on(async {
            for _ in 0..count {
                let (client, server_end) = tokio::io::duplex(64 * 1024);
                let (server_read, server_write) = tokio::io::split(server_end);
                tokio::spawn(
                    server
                        .clone()
                        .serve_lines(BufReader::new(server_read), server_write),
                );
                let received = Arc::clone(&received);
                let all_received = Arc::clone(&all_received);
                let subscribed = Arc::clone(&subscribed);
                let all_subscribed = Arc::clone(&all_subscribed);
                tokio::spawn(async move {
                    let (read, mut write) = tokio::io::split(client);
                    let script = format!(
                        "{}\n{}\n{}\n",
                        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fanout","version":"1"}}}"#,
                        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                        format_args!(
                            r#"{{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{{"uri":"{URI}"}}}}"#
                        ),
                    );
                    write.write_all(script.as_bytes()).await.expect("the server reads");
                    let mut lines = BufReader::new(read).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        if line.contains(r#""id":2"#) {
                            if subscribed.fetch_add(1, Ordering::AcqRel) + 1 == count {
                                all_subscribed.notify_one();
                            }
                        } else if line.contains("notifications/resources/updated") {
                            assert!(line.contains(URI), "{line}");
                            if (received.fetch_add(1, Ordering::AcqRel) + 1) % count == 0 {
                                all_received.notify_one();
                            }
                        }
                    }
                    drop(write);
                });
            }
            let waiting = all_subscribed.notified();
            if subscribed.load(Ordering::Acquire) < count {
                tokio::time::timeout(Duration::from_secs(60), waiting)
                    .await
                    .expect("every session subscribes within a minute");
            }
        });
        Sessions {
            runtime,
            server,
            received,
            all_received,
            count,
        }
    }

    /// One change, until every session has read its notification.
    fn fan_out(&self) -> Duration {
        self.runtime.block_on(async {
            let before = self.received.load(Ordering::Acquire);
            let done = self.all_received.notified();
            let started = Instant::now();
            // From a task, as the server's change feeds call it: wake-ups then go to the
            // worker's own queue instead of crossing from a foreign thread.
            let server = self.server.clone();
            tokio::spawn(async move { server.resource_updated(URI) })
                .await
                .expect("the change is fed");
            tokio::time::timeout(Duration::from_secs(30), done)
                .await
                .expect("every session is told within 30 s");
            let elapsed = started.elapsed();
            assert_eq!(
                self.received.load(Ordering::Acquire),
                before + self.count,
                "each session is told exactly once"
            );
            elapsed
        })
    }
}

/// One change to 1,000 and to 10,000 subscribed sessions (each notified once per change).
#[divan::bench(args = [1_000, 10_000], sample_count = 20, sample_size = 1)]
fn change_to_every_session(bencher: divan::Bencher<'_, '_>, sessions: usize) {
    let sessions = Sessions::start(sessions);
    bencher.bench_local(|| sessions.fan_out());
    sessions.server.shutdown();
}
