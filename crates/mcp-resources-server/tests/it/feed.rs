//! Instances sharing a change feed, over real HTTP on 127.0.0.1: what one instance sees reaches
//! the streams of every instance, once; losing the feed ends live streams and readiness while
//! reads go on; its return tells every subscriber that what it follows may have changed. The
//! feed here is an in-memory one of the test's own (a broadcast channel the test can take
//! down); the Redis feed is tested against a real Redis in its crate and in the binary's
//! deployment test.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use mcp_resources_core::change::{
    Change, ChangeFeed, ChangeSource, FeedError, FeedEvent, FeedEvents,
};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::store::{StoreError, TicketStore};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::{BuildError, HttpOptions, Server};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::http::{EventReader, MODERN, TestServer, fixture, modern_meta, quiet};

/// Every instance's changes, on one broadcast channel (`None` ends it); down, it takes none.
pub(crate) struct MemoryFeed {
    events: broadcast::Sender<Option<FeedEvent>>,
    down: AtomicBool,
}

impl MemoryFeed {
    pub(crate) fn new() -> Arc<MemoryFeed> {
        Arc::new(MemoryFeed {
            events: broadcast::channel(64).0,
            down: AtomicBool::new(false),
        })
    }

    /// The connection is gone: every consumer is told.
    fn lose(&self) {
        self.down.store(true, Ordering::SeqCst);
        self.tell(FeedEvent::Lost);
    }

    /// The connection is back.
    fn restore(&self) {
        self.down.store(false, Ordering::SeqCst);
        self.tell(FeedEvent::Restored);
    }

    fn tell(&self, event: FeedEvent) {
        let _ = self.events.send(Some(event));
    }

    /// The feed stops for good.
    fn end(&self) {
        let _ = self.events.send(None);
    }
}

#[async_trait]
impl ChangeFeed for MemoryFeed {
    async fn publish(&self, change: &Change) -> Result<(), FeedError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(FeedError("the feed is down".to_owned()));
        }
        self.tell(FeedEvent::Change(change.clone()));
        Ok(())
    }

    fn events(&self) -> Box<dyn FeedEvents> {
        Box::new(Heard(self.events.subscribe()))
    }
}

struct Heard(broadcast::Receiver<Option<FeedEvent>>);

#[async_trait]
impl FeedEvents for Heard {
    async fn next_event(&mut self) -> Option<FeedEvent> {
        match self.0.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(_)) => Some(FeedEvent::Lost),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

/// A source of changes the test sends into.
struct Source(mpsc::Receiver<Change>);

#[async_trait]
impl ChangeSource for Source {
    async fn next_change(&mut self) -> Option<Change> {
        self.0.recv().await
    }
}

pub(crate) const WATCHED: &str = "test://watched-resource";

fn watched() -> Change {
    Change::Updated(ResourceUri::parse(WATCHED).unwrap())
}

/// An instance of the fixture on `feed`, with the default settle time.
async fn instance(feed: &Arc<MemoryFeed>) -> TestServer {
    instance_settling(feed, mcp_resources_server::feed::DEFAULT_SETTLE).await
}

/// An instance of the fixture on `feed` whose heard changes settle for `settle`.
async fn instance_settling(feed: &Arc<MemoryFeed>, settle: Duration) -> TestServer {
    let feed: Arc<dyn ChangeFeed> = feed.clone();
    let server = fixture().feed(feed).feed_settle(settle).build().unwrap();
    TestServer::serve(
        server,
        HttpOptions {
            health: true,
            ..quiet()
        },
    )
    .await
}

/// A listen stream of `server` on the watched resource and list changes, past its
/// acknowledgment.
async fn listen(server: &TestServer, id: &str) -> EventReader {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
    "params": {"_meta": modern_meta(), "notifications": {
        "resourceSubscriptions": [WATCHED], "resourcesListChanged": true
    }}});
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "subscriptions/listen"),
    ];
    let response = server.send("POST", &headers, Some(&body.to_string())).await;
    let mut stream = EventReader::new(response);
    let ack = stream.next().await.expect("the acknowledgment");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    stream
}

/// The method and URI of a stream's next message.
pub(crate) async fn next(stream: &mut EventReader) -> (String, Value) {
    let message = stream.next().await.expect("a message");
    (
        message["method"].as_str().unwrap_or_default().to_owned(),
        message["params"]["uri"].clone(),
    )
}

pub(crate) fn updated() -> (String, Value) {
    ("notifications/resources/updated".to_owned(), json!(WATCHED))
}

pub(crate) fn list_changed() -> (String, Value) {
    (
        "notifications/resources/list_changed".to_owned(),
        Value::Null,
    )
}

/// The status and text of `GET path`.
async fn probe(server: &TestServer, path: &str) -> (u16, String) {
    use http_body_util::BodyExt as _;
    let response = server.send_at(path, "GET", &[], None).await;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_one_instance_sees_reaches_every_instances_streams_once() {
    let feed = MemoryFeed::new();
    // A settle time far above the test's gaps between instances, however slow the machine.
    let settle = Duration::from_millis(500);
    let one = instance_settling(&feed, settle).await;
    let two = instance_settling(&feed, settle).await;
    let (changes, source) = mpsc::channel(8);
    one.server.follow(Source(source));
    let mut on_one = listen(&one, "on-one").await;
    let mut on_two = listen(&two, "on-two").await;

    // Seen by the first instance only, told by both.
    changes.send(watched()).await.unwrap();
    assert_eq!(next(&mut on_one).await, updated());
    assert_eq!(next(&mut on_two).await, updated());

    // The same change published by three instances a moment apart (all watching the same
    // storage) is told once: the hub holds one pending update per subscription, and the
    // feed's changes settle before anyone is woken. A list change afterwards is the very next
    // message.
    for _ in 0..3 {
        feed.publish(&watched()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(next(&mut on_two).await, updated());
    two.server.list_changed();
    assert_eq!(next(&mut on_two).await, list_changed());
    assert_eq!(next(&mut on_one).await, updated());
    one.server.list_changed();
    assert_eq!(next(&mut on_one).await, list_changed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_the_feed_ends_live_streams_and_readiness_until_it_is_back() {
    let feed = MemoryFeed::new();
    let server = instance(&feed).await;
    assert_eq!(probe(&server, "/readyz").await, (200, "ready\n".to_owned()));
    let session = server.watching_legacy_session("2025-06-18").await;
    let get_headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
        ("accept", "text/event-stream"),
    ];
    let mut get = EventReader::new(server.send("GET", &get_headers, None).await);
    let mut listening = listen(&server, "before").await;

    feed.lose();
    // The listen stream gets its graceful result, then ends; so does the GET stream.
    let last = listening.next().await.expect("the graceful result");
    assert_eq!(last["id"], "before");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(listening.next().await, None);
    assert_eq!(get.next().await, None);
    // Not ready, alive, and reads go on.
    let (status, text) = probe(&server, "/readyz").await;
    assert_eq!(
        (status, text.as_str()),
        (503, "not ready: the change feed is away\n")
    );
    assert_eq!(probe(&server, "/healthz").await, (200, "ok\n".to_owned()));
    let read = server
        .modern("resources/read", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(read.status, 200);
    assert_eq!(
        read.json["result"]["contents"][0]["text"],
        "hello over http"
    );

    // What this instance sees while the feed is away still reaches its own subscribers.
    let (changes, source) = mpsc::channel(8);
    server.server.follow(Source(source));
    let mut during = listen(&server, "during").await;
    changes.send(watched()).await.unwrap();
    assert_eq!(next(&mut during).await, updated());

    feed.restore();
    // Whatever changed elsewhere meanwhile: everything it follows may have changed.
    assert_eq!(next(&mut during).await, list_changed());
    assert_eq!(next(&mut during).await, updated());
    assert_eq!(probe(&server, "/readyz").await, (200, "ready\n".to_owned()));
    // The legacy session (told list changes without asking), its GET stream open again, is
    // told the same.
    let mut get = EventReader::new(server.send("GET", &get_headers, None).await);
    assert_eq!(next(&mut get).await, list_changed());
    assert_eq!(next(&mut get).await, updated());
}

#[tokio::test]
async fn health_paths_are_served_when_asked_only() {
    let feed = MemoryFeed::new();
    let server = instance(&feed).await;
    assert_eq!(
        server.send_at("/readyz", "HEAD", &[], None).await.status(),
        200
    );
    assert_eq!(
        server.send_at("/healthz", "POST", &[], None).await.status(),
        405
    );
    // Without `health`, the paths are not the server's.
    let plain = TestServer::serve(fixture().build().unwrap(), quiet()).await;
    assert_eq!(
        plain.send_at("/healthz", "GET", &[], None).await.status(),
        404
    );
    assert_eq!(
        plain.send_at("/readyz", "GET", &[], None).await.status(),
        404
    );
    assert!(plain.server.is_ready());
    plain.server.shutdown();
    assert!(!plain.server.is_ready(), "not ready once shutting down");
}

#[test]
fn a_server_with_a_feed_is_built_inside_a_runtime() {
    let feed: Arc<dyn ChangeFeed> = MemoryFeed::new();
    let built = Server::builder().feed(feed).build();
    assert!(matches!(built, Err(BuildError::NoRuntime)), "{built:?}");
}

/// A ticket store that keeps nothing (the test only builds with it).
struct Forgetting;

#[async_trait]
impl TicketStore for Forgetting {
    async fn issue(&self, _key: &str, _lasting: Duration) -> Result<(), StoreError> {
        Ok(())
    }

    async fn redeem(&self, _key: &str) -> Result<bool, StoreError> {
        Ok(false)
    }
}

#[test]
fn shared_confirmations_need_the_shared_key() {
    let built = Server::builder()
        .shared_confirmations(Arc::new(Forgetting))
        .build();
    assert!(matches!(built, Err(BuildError::NoSharedKey)), "{built:?}");
    let built = Server::builder()
        .cursor_key(CursorKey::new([1; 32]))
        .shared_confirmations(Arc::new(Forgetting))
        .build();
    assert!(built.is_ok(), "{built:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_instance_sees_reaches_its_own_streams_while_it_does_not_hear_the_feed() {
    let feed = MemoryFeed::new();
    let server = instance(&feed).await;
    let (changes, source) = mpsc::channel(8);
    server.server.follow(Source(source));
    // Publishing still works (another connection), hearing does not.
    feed.tell(FeedEvent::Lost);
    let mut stream = listen(&server, "lost").await;
    changes.send(watched()).await.unwrap();
    assert_eq!(next(&mut stream).await, updated());
    // Stopped for good: the streams open until the end is heard end (their clients listen
    // again), and this instance's own changes are still told to its own streams.
    feed.end();
    let mut ending = Vec::new();
    while let Some(message) = stream.next().await {
        ending.push(message);
        assert!(ending.len() < 8, "the stream ends: {ending:?}");
    }
    assert_eq!(ending.last().map(|last| &last["id"]), Some(&json!("lost")));
    let mut after = listen(&server, "ended").await;
    changes.send(watched()).await.unwrap();
    assert_eq!(next(&mut after).await, updated());
    assert_eq!(probe(&server, "/readyz").await.0, 503);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_that_missed_changes_tells_everything_and_keeps_its_streams() {
    let feed = MemoryFeed::new();
    let server = instance(&feed).await;
    let mut stream = listen(&server, "behind").await;
    feed.tell(FeedEvent::Missed);
    assert_eq!(next(&mut stream).await, list_changed());
    assert_eq!(next(&mut stream).await, updated());
    assert_eq!(probe(&server, "/readyz").await.0, 200);
    // Still open, still told.
    feed.publish(&watched()).await.unwrap();
    assert_eq!(next(&mut stream).await, updated());
}

/// A feed whose events are always ready once started: the watched resource first, then other
/// resources without end.
struct Flood(Arc<tokio::sync::Notify>);

#[async_trait]
impl ChangeFeed for Flood {
    async fn publish(&self, _change: &Change) -> Result<(), FeedError> {
        Ok(())
    }

    fn events(&self) -> Box<dyn FeedEvents> {
        Box::new(Flooding(0, Arc::clone(&self.0)))
    }
}

struct Flooding(u64, Arc<tokio::sync::Notify>);

#[async_trait]
impl FeedEvents for Flooding {
    async fn next_event(&mut self) -> Option<FeedEvent> {
        self.0 += 1;
        let uri = match self.0 {
            1 => {
                self.1.notified().await;
                WATCHED.to_owned()
            }
            n => format!("test://elsewhere/{n}"),
        };
        Some(FeedEvent::Change(Change::Updated(
            ResourceUri::parse(&uri).unwrap(),
        )))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_changes_cannot_hold_the_settle_window_open() {
    let start = Arc::new(tokio::sync::Notify::new());
    let flood = Arc::new(Flood(Arc::clone(&start)));
    let server = fixture().feed(flood).build().unwrap();
    let server = TestServer::serve(server, quiet()).await;
    let mut stream = listen(&server, "flooded").await;
    // The watched resource is heard first, then changes elsewhere, always ready: the window
    // ends all the same, and the stream is told.
    start.notify_one();
    assert_eq!(next(&mut stream).await, updated());
    server.server.shutdown();
}
