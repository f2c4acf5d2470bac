//! Legacy sessions kept in a session store shared by instances, over real HTTP on 127.0.0.1:
//! a session opened on one instance is served by another, its GET stream hears what it
//! subscribed to anywhere, DELETE anywhere ends it everywhere, another principal never finds
//! it, and a store that cannot be reached is `503`, never a lost session. The store here is an
//! in-memory one of the test's own (the test can take it down); the Redis store is tested
//! against a real Redis in its crate and in the binary's deployment test.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_resources_core::change::{Change, ChangeFeed};
use mcp_resources_core::store::{
    Fields, SessionNotice, SessionNotices, SessionStore, StoreError, Write,
};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::HttpOptions;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::feed::{MemoryFeed, WATCHED, list_changed, next, updated};
use crate::http::{
    EventReader, TestServer, authorization, bearer, fixture, initialize_request, quiet,
    subscribe_request,
};

const VERSION: &str = "2025-06-18";

/// Records in a map, each with its end; down, every call fails.
struct MemoryStore {
    records: Mutex<HashMap<String, (Fields, Instant)>>,
    notices: broadcast::Sender<SessionNotice>,
    down: AtomicBool,
}

impl MemoryStore {
    fn new() -> Arc<MemoryStore> {
        Arc::new(MemoryStore {
            records: Mutex::default(),
            notices: broadcast::channel(256).0,
            down: AtomicBool::new(false),
        })
    }

    fn check(&self) -> Result<(), StoreError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(StoreError("the store is down".into()));
        }
        Ok(())
    }

    fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
        let _ = self.notices.send(SessionNotice::Unsure);
    }

    fn tell(&self, key: &str) {
        let _ = self.notices.send(SessionNotice::Changed(key.to_owned()));
    }

    fn len(&self) -> usize {
        self.records.lock().unwrap().len()
    }

    /// The fields of the one record there is.
    fn only(&self) -> Fields {
        let records = self.records.lock().unwrap();
        assert_eq!(records.len(), 1);
        records.values().next().unwrap().0.clone()
    }
}

#[async_trait]
impl SessionStore for MemoryStore {
    async fn write(
        &self,
        key: &str,
        write: &Write,
        create: bool,
        lasting: Duration,
    ) -> Result<bool, StoreError> {
        self.check()?;
        let written = {
            let mut records = self.records.lock().unwrap();
            records.retain(|_, (_, end)| *end > Instant::now());
            match records.get_mut(key) {
                Some((fields, end)) => {
                    write.apply_to(fields);
                    *end = Instant::now() + lasting;
                    true
                }
                None if create => {
                    let mut fields = Fields::new();
                    write.apply_to(&mut fields);
                    records.insert(key.to_owned(), (fields, Instant::now() + lasting));
                    true
                }
                None => false,
            }
        };
        self.tell(key);
        Ok(written)
    }

    async fn read(&self, key: &str) -> Result<Option<Fields>, StoreError> {
        self.check()?;
        let records = self.records.lock().unwrap();
        Ok(records
            .get(key)
            .filter(|(_, end)| *end > Instant::now())
            .map(|(fields, _)| fields.clone()))
    }

    async fn extend(&self, key: &str, lasting: Duration) -> Result<bool, StoreError> {
        self.check()?;
        let mut records = self.records.lock().unwrap();
        Ok(match records.get_mut(key) {
            Some((_, end)) if *end > Instant::now() => {
                *end = Instant::now() + lasting;
                true
            }
            _ => false,
        })
    }

    async fn remove(&self, key: &str) -> Result<(), StoreError> {
        self.check()?;
        self.records.lock().unwrap().remove(key);
        self.tell(key);
        Ok(())
    }

    fn notices(&self) -> Box<dyn SessionNotices> {
        Box::new(Notices(self.notices.subscribe()))
    }
}

struct Notices(broadcast::Receiver<SessionNotice>);

#[async_trait]
impl SessionNotices for Notices {
    async fn next_notice(&mut self) -> Option<SessionNotice> {
        match self.0.recv().await {
            Ok(notice) => Some(notice),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(SessionNotice::Unsure),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

/// An instance of the fixture on `feed` and `store`, served with `options`.
async fn instance(
    feed: &Arc<MemoryFeed>,
    store: &Arc<MemoryStore>,
    options: HttpOptions,
) -> TestServer {
    let feed: Arc<dyn ChangeFeed> = feed.clone();
    let store: Arc<dyn SessionStore> = store.clone();
    let server = fixture().feed(feed).session_store(store).build().unwrap();
    TestServer::serve(server, options).await
}

/// Headers naming `session`, with more.
fn named<'a>(session: &'a str, more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("mcp-session-id", session),
        ("mcp-protocol-version", VERSION),
    ];
    headers.extend_from_slice(more);
    headers
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The session's GET stream on `server`.
async fn get_stream(server: &TestServer, session: &str) -> EventReader {
    let headers = named(session, &[("accept", "text/event-stream")]);
    EventReader::new(server.send("GET", &headers, None).await)
}

/// Gives the instances a moment to hear the store's notices (in memory, far less than this).
async fn settle() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_is_served_by_every_instance_and_ends_everywhere() {
    let (feed, store) = (MemoryFeed::new(), MemoryStore::new());
    let one = instance(&feed, &store, quiet()).await;
    let two = instance(&feed, &store, quiet()).await;

    // Opened on one; initialized, subscribed and read on two.
    let opened = one.post(&[], &initialize_request(VERSION)).await;
    let session = opened.session.expect("a session id");
    assert_eq!(store.len(), 1);
    let headers = named(&session, &[]);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(two.post(&headers, &initialized).await.status, 202);
    let subscribed = two.post(&headers, &subscribe_request(WATCHED)).await;
    assert_eq!(
        subscribed.json["result"],
        json!({}),
        "{:?}",
        subscribed.json
    );
    let read = two
        .post(
            &headers,
            &request(2, "resources/read", json!({"uri": WATCHED})),
        )
        .await;
    assert_eq!(read.json["result"]["contents"][0]["uri"], WATCHED);

    // The GET stream on one hears the subscription made on two: told once as changed when
    // one takes it up (a change could have come between), then each change once.
    let mut stream = get_stream(&one, &session).await;
    assert_eq!(next(&mut stream).await, updated());
    feed.publish(&Change::Updated(ResourceUri::parse(WATCHED).unwrap()))
        .await
        .unwrap();
    assert_eq!(next(&mut stream).await, updated());
    // Ready on one too: list changes reach the stream.
    one.server.list_changed();
    assert_eq!(next(&mut stream).await, list_changed());

    // Unsubscribed on two: one stops telling.
    let unsubscribed = two
        .post(
            &headers,
            &request(3, "resources/unsubscribe", json!({"uri": WATCHED})),
        )
        .await;
    assert_eq!(unsubscribed.json["result"], json!({}));
    settle().await;
    one.server.resource_updated(WATCHED);
    one.server.list_changed();
    assert_eq!(next(&mut stream).await, list_changed());

    let ping = one.post(&headers, &request(4, "ping", json!({}))).await;
    assert_eq!(ping.json["result"], json!({}));

    // DELETE on two ends the session everywhere: the stream on one ends, its id is gone.
    let deleted = two.send("DELETE", &headers, None).await;
    assert_eq!(deleted.status(), 204);
    let ended = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
    assert_eq!(ended.expect("the stream ends in time"), None);
    assert_eq!(store.len(), 0);
    for server in [&one, &two] {
        let gone = server.post(&headers, &request(5, "ping", json!({}))).await;
        assert_eq!(gone.status, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_session_is_found_by_its_owner_only() {
    let (feed, store) = (MemoryFeed::new(), MemoryStore::new());
    let options = HttpOptions {
        authorization: Some(authorization()),
        ..quiet()
    };
    let one = instance(&feed, &store, options.clone()).await;
    let two = instance(&feed, &store, options).await;
    let alice = bearer("alice", "");
    let opened = one
        .post(&[("authorization", &alice)], &initialize_request(VERSION))
        .await;
    assert_eq!(opened.status, 200, "{:?}", opened.json);
    let session = opened.session.expect("a session id");
    let ping = request(1, "ping", json!({}));

    let mallory = bearer("mallory", "");
    let stolen = two
        .post(&named(&session, &[("authorization", &mallory)]), &ping)
        .await;
    assert_eq!(
        stolen.status, 404,
        "another subject never finds the session"
    );
    let anonymous = two.post(&named(&session, &[]), &ping).await;
    assert_eq!(anonymous.status, 401);
    let deleted = two
        .send(
            "DELETE",
            &named(&session, &[("authorization", &mallory)]),
            None,
        )
        .await;
    assert_eq!(deleted.status(), 404);

    let own = two
        .post(&named(&session, &[("authorization", &alice)]), &ping)
        .await;
    assert_eq!(own.status, 200);
    assert_eq!(own.json["result"], json!({}));
}

/// Two instances on one feed and store, and a legacy session opened and initialized on the
/// first; its id.
async fn two_instances_and_a_session() -> (
    Arc<MemoryFeed>,
    Arc<MemoryStore>,
    TestServer,
    TestServer,
    String,
) {
    let (feed, store) = (MemoryFeed::new(), MemoryStore::new());
    let one = instance(&feed, &store, quiet()).await;
    let two = instance(&feed, &store, quiet()).await;
    let opened = one.post(&[], &initialize_request(VERSION)).await;
    let session = opened.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        one.post(&named(&session, &[]), &initialized).await.status,
        202
    );
    (feed, store, one, two, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_cannot_be_reached_is_unavailable_never_a_lost_session() {
    let (_feed, store, one, two, session) = two_instances_and_a_session().await;
    let headers = named(&session, &[]);
    let ping = request(1, "ping", json!({}));

    store.set_down(true);
    // No new session without a record; no copy to take up; the copy here goes on serving.
    let refused = one.post(&[], &initialize_request(VERSION)).await;
    assert_eq!(refused.status, 503);
    assert_eq!(two.post(&headers, &ping).await.status, 503);
    let served = one
        .post(
            &headers,
            &request(2, "resources/subscribe", json!({"uri": WATCHED})),
        )
        .await;
    assert_eq!(served.json["result"], json!({}));

    // Back: the subscription made while it was away is written after the next request, and
    // the other instance takes the session up with it.
    store.set_down(false);
    assert_eq!(one.post(&headers, &ping).await.status, 200);
    let mut stream = get_stream(&two, &session).await;
    assert_eq!(next(&mut stream).await, updated());

    // A session id no instance minted, or one unknown, is not found.
    let unknown = "0".repeat(64);
    for id in [unknown.as_str(), "not-a-session"] {
        let answer = two.post(&named(id, &[]), &ping).await;
        assert_eq!(answer.status, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_last_word_wins_over_a_change_an_instance_has_not_followed_yet() {
    let (feed, store, one, two, session) = two_instances_and_a_session().await;
    let headers = named(&session, &[]);
    let subscribed = one.post(&headers, &subscribe_request(WATCHED)).await;
    assert_eq!(subscribed.json["result"], json!({}));
    let level = |id, level| request(id, "logging/setLevel", json!({"level": level}));

    // Undone through two, then at once done again through one, which may not have followed
    // two's write yet (and then holds what the client asks already): the last word stands.
    let unsubscribe = request(2, "resources/unsubscribe", json!({"uri": WATCHED}));
    assert_eq!(
        two.post(&headers, &unsubscribe).await.json["result"],
        json!({})
    );
    assert_eq!(
        two.post(&headers, &level(3, "error")).await.json["result"],
        json!({})
    );
    let subscribe = request(4, "resources/subscribe", json!({"uri": WATCHED}));
    let again = one.post(&headers, &subscribe).await;
    assert_eq!(again.json["result"], json!({}));
    assert_eq!(
        one.post(&headers, &level(5, "info")).await.json["result"],
        json!({})
    );
    settle().await;
    let record = store.only();
    assert!(record.contains_key(&format!("s:{WATCHED}")), "{record:?}");
    assert_eq!(
        record.get("log").map(String::as_str),
        Some("info"),
        "{record:?}"
    );

    // Every copy agrees: the session's GET stream on two hears a change.
    let mut stream = get_stream(&two, &session).await;
    feed.publish(&Change::Updated(ResourceUri::parse(WATCHED).unwrap()))
        .await
        .unwrap();
    assert_eq!(next(&mut stream).await, updated());
}
