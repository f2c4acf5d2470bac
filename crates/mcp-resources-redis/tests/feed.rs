//! The Redis feed against a real `redis-server` on a Unix socket (Debian's package; `.ci/run`
//! installs it): changes published by one instance reach every instance, in order; a message
//! that is not a change is skipped; other channels are not heard; and when Redis goes away the
//! consumers are told they may miss changes, then told again when it is back. Without
//! `redis-server` the tests say so loudly and pass, except under `CI=true`, where they fail.

use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_resources_core::change::{Change, ChangeFeed, FeedEvent, FeedEvents};
use mcp_resources_core::store::{
    Fields, SessionNotice, SessionNotices, SessionStore, TicketStore, Write,
};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_redis::RedisFeed;

/// How long an event may take to arrive.
const WAIT: Duration = Duration::from_secs(10);

/// A `redis-server` listening only on a Unix socket in a directory of its own (no port that
/// another test's server could take), killed when dropped.
struct Redis {
    child: Child,
    socket: PathBuf,
    /// Its directory, removed when dropped; taken by [`Redis::stop`].
    dir: Option<tempfile::TempDir>,
}

impl Redis {
    /// A fresh server, or `None` (said loudly) when `redis-server` is not installed.
    fn start() -> Option<Redis> {
        Redis::start_in(tempfile::tempdir().expect("a temporary directory"), &[])
    }

    /// A server on the socket in `dir` (a stopped one's, to start it again), with `extra`
    /// arguments.
    fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> Option<Redis> {
        let socket = dir.path().join("redis.sock");
        let spawned = Command::new("redis-server")
            .args(["--port", "0", "--unixsocket"])
            .arg(&socket)
            .args(["--save", "", "--appendonly", "no"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "redis-server is needed under CI=true: {error}"
                );
                eprintln!(
                    "!!! redis-server cannot be started ({error}): the Redis feed is NOT tested"
                );
                return None;
            }
        };
        let deadline = Instant::now() + WAIT;
        while UnixStream::connect(&socket).is_err() {
            if let Some(status) = child.try_wait().expect("the server's status") {
                panic!("redis-server ended at start: {status}");
            }
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Redis {
            child,
            socket,
            dir: Some(dir),
        })
    }

    fn url(&self) -> String {
        format!("redis+unix://{}", self.socket.display())
    }

    /// Kills the server, keeping its directory for [`Redis::start_in`].
    fn stop(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.socket);
        self.dir.take().expect("a running server's directory")
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

async fn next(events: &mut Box<dyn FeedEvents>) -> FeedEvent {
    tokio::time::timeout(WAIT, events.next_event())
        .await
        .expect("an event in time")
        .expect("the feed goes on")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_instance_hears_every_change_in_order() {
    let Some(redis) = Redis::start() else { return };
    let one = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let two = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let elsewhere = RedisFeed::connect(&redis.url(), "other-deployment")
        .await
        .unwrap();
    let (mut heard_by_one, mut heard_by_two) = (one.events(), two.events());
    let mut heard_elsewhere = elsewhere.events();
    let changes = [
        Change::Updated(uri("file:///srv/a.txt")),
        Change::ListChanged {
            created: vec![uri("file:///srv/new.txt")],
            removed: vec![uri("file:///srv/old.txt")],
        },
        Change::Updated(uri("file:///srv/a.txt")),
    ];
    // Published by both instances, heard by both (the publisher too).
    one.publish(&changes[0]).await.unwrap();
    two.publish(&changes[1]).await.unwrap();
    one.publish(&changes[2]).await.unwrap();
    for change in &changes {
        assert_eq!(
            next(&mut heard_by_one).await,
            FeedEvent::Change(change.clone())
        );
        assert_eq!(
            next(&mut heard_by_two).await,
            FeedEvent::Change(change.clone())
        );
    }
    // Another channel heard nothing.
    let quiet = tokio::time::timeout(Duration::from_millis(300), heard_elsewhere.next_event());
    assert!(quiet.await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_is_no_change_is_skipped() {
    let Some(redis) = Redis::start() else { return };
    let feed = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut events = feed.events();
    let client = redis::Client::open(redis.url()).unwrap();
    let mut raw = client.get_multiplexed_async_connection().await.unwrap();
    for junk in [&b"junk"[..], br#"{"updated": "not a uri"}"#] {
        let _: () = redis::cmd("PUBLISH")
            .arg("changes")
            .arg(junk)
            .query_async(&mut raw)
            .await
            .unwrap();
    }
    let change = Change::Updated(uri("file:///srv/a.txt"));
    feed.publish(&change).await.unwrap();
    assert_eq!(next(&mut events).await, FeedEvent::Change(change));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_redis_is_told_and_so_is_its_return() {
    let Some(redis) = Redis::start() else { return };
    let feed = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut events = feed.events();
    let dir = redis.stop();
    assert_eq!(next(&mut events).await, FeedEvent::Lost);
    assert!(
        feed.publish(&Change::Updated(uri("file:///srv/a.txt")))
            .await
            .is_err(),
        "nothing to publish to"
    );
    let _back = Redis::start_in(dir, &[]).expect("redis-server starts again");
    assert_eq!(next(&mut events).await, FeedEvent::Restored);
    let change = Change::Updated(uri("file:///srv/b.txt"));
    // The publishing connection comes back by itself, in a moment.
    let deadline = Instant::now() + WAIT;
    while feed.publish(&change).await.is_err() {
        assert!(Instant::now() < deadline, "publishing did not come back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(next(&mut events).await, FeedEvent::Change(change));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_stops_answering_is_lost_too() {
    let Some(redis) = Redis::start() else { return };
    let feed = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut events = feed.events();
    let pid = redis.child.id().to_string();
    // Stalled, not closed: only an unanswered ping tells.
    assert!(
        Command::new("kill")
            .args(["-STOP", &pid])
            .status()
            .unwrap()
            .success()
    );
    let lost = tokio::time::timeout(WAIT * 2, events.next_event()).await;
    let _ = Command::new("kill").args(["-CONT", &pid]).status();
    assert_eq!(lost.expect("told in time"), Some(FeedEvent::Lost));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_redis_is_an_error_at_start() {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let error = RedisFeed::connect(&format!("redis://u:hunter2@127.0.0.1:{port}/"), "changes")
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("cannot reach Redis"), "{error}");
    assert!(
        !error.contains("hunter2"),
        "the password is not shown: {error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_agree_on_a_value_or_are_told_they_do_not() {
    let Some(redis) = Redis::start() else { return };
    let one = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let two = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let other_channel = RedisFeed::connect(&redis.url(), "elsewhere").await.unwrap();
    let lasting = Duration::from_millis(400);
    one.agree("key", "aaaa", lasting).await.unwrap();
    two.agree("key", "aaaa", lasting).await.unwrap();
    let error = two.agree("key", "bbbb", lasting).await.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(
            error,
            mcp_resources_redis::RedisFeedError::Disagreement { .. }
        ),
        "{text}"
    );
    assert!(text.contains("changes") && text.contains("key"), "{text}");
    assert!(!text.contains("aaaa") && !text.contains("bbbb"), "{text}");
    // Each channel is a deployment of its own.
    other_channel.agree("key", "bbbb", lasting).await.unwrap();
    // Once no instance holding the old value has renewed it, a new one is taken.
    tokio::time::sleep(lasting * 2).await;
    two.agree("key", "bbbb", lasting).await.unwrap();
    assert!(one.agree("key", "aaaa", lasting).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_that_falls_behind_is_told_it_missed_changes() {
    let Some(redis) = Redis::start() else { return };
    let feed = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut events = feed.events();
    let change = Change::Updated(uri("file:///srv/a.txt"));
    let published = mcp_resources_redis::EVENTS_BUFFERED + 100;
    for _ in 0..published {
        feed.publish(&change).await.unwrap();
    }
    // Every message is heard by the feed's task; this consumer read none of them.
    let mut seen = Vec::new();
    loop {
        let event = next(&mut events).await;
        if event == FeedEvent::Missed {
            break;
        }
        seen.push(event);
        assert!(seen.len() <= published, "never told: {:?}", seen.last());
    }
    assert!(
        seen.iter()
            .all(|event| *event == FeedEvent::Change(change.clone()))
    );
    // Connected all along: never `Lost`, and the changes go on.
    feed.publish(&Change::Updated(uri("file:///srv/b.txt")))
        .await
        .unwrap();
    let last = Change::Updated(uri("file:///srv/b.txt"));
    loop {
        match next(&mut events).await {
            FeedEvent::Change(heard) if heard == last => break,
            // The feed's task may still be taking the flood from Redis: missed again.
            FeedEvent::Change(_) | FeedEvent::Missed => {}
            other => panic!("connected all along: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_given_apart_from_the_url_is_used() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let Some(redis) = Redis::start_in(dir, &["--requirepass", "hunter2"]) else {
        return;
    };
    let refused = RedisFeed::connect(&redis.url(), "changes")
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("cannot reach Redis"),
        "{refused}"
    );
    let feed = RedisFeed::connect_with_password(&redis.url(), Some("hunter2"), "changes")
        .await
        .unwrap();
    let mut events = feed.events();
    let change = Change::Updated(uri("file:///srv/a.txt"));
    feed.publish(&change).await.unwrap();
    assert_eq!(next(&mut events).await, FeedEvent::Change(change));
}

async fn next_notice(notices: &mut Box<dyn SessionNotices>) -> SessionNotice {
    tokio::time::timeout(WAIT, notices.next_notice())
        .await
        .expect("a notice in time")
        .expect("the store goes on")
}

fn fields(pairs: &[(&str, &str)]) -> Fields {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_records_are_shared_written_field_by_field_and_announced() {
    let Some(redis) = Redis::start() else { return };
    let one = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let two = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut heard_by_two = two.notices();
    let mut changes_heard = two.events();
    let lasting = Duration::from_secs(60);

    // Nothing is written to a record that is not there, unless it is made.
    let first = Write {
        set: fields(&[("v", "{}"), ("s:file:///a", "")]),
        unset: vec![],
    };
    assert!(!one.write("k1", &first, false, lasting).await.unwrap());
    assert_eq!(two.read("k1").await.unwrap(), None);
    assert_eq!(
        next_notice(&mut heard_by_two).await,
        SessionNotice::Changed("k1".into())
    );
    assert!(one.write("k1", &first, true, lasting).await.unwrap());
    assert_eq!(
        next_notice(&mut heard_by_two).await,
        SessionNotice::Changed("k1".into())
    );
    // Two instances writing different fields both win.
    let (add, remove) = (
        Write {
            set: fields(&[("s:file:///b", "")]),
            unset: vec![],
        },
        Write {
            set: Fields::new(),
            unset: vec!["s:file:///a".into()],
        },
    );
    let (added, removed) = tokio::join!(
        one.write("k1", &add, false, lasting),
        two.write("k1", &remove, false, lasting)
    );
    assert!(added.unwrap() && removed.unwrap());
    assert_eq!(
        one.read("k1").await.unwrap(),
        Some(fields(&[("v", "{}"), ("s:file:///b", "")]))
    );
    // Notices are no changes.
    let quiet = tokio::time::timeout(Duration::from_millis(200), changes_heard.next_event());
    assert!(
        quiet.await.is_err(),
        "a session notice reached the change events"
    );

    // A record lasts as long as it is made to, and is then gone for good.
    assert!(one.extend("k1", Duration::from_millis(50)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(one.read("k1").await.unwrap(), None);
    assert!(!one.extend("k1", lasting).await.unwrap());
    assert!(!one.write("k1", &add, false, lasting).await.unwrap());

    // Removed, and told.
    assert!(one.write("k2", &first, true, lasting).await.unwrap());
    one.remove("k2").await.unwrap();
    assert_eq!(two.read("k2").await.unwrap(), None);
    let mut heard = Vec::new();
    while let Ok(Some(notice)) =
        tokio::time::timeout(Duration::from_millis(300), heard_by_two.next_notice()).await
    {
        heard.push(notice);
    }
    assert!(
        heard.ends_with(&[
            SessionNotice::Changed("k2".into()),
            SessionNotice::Changed("k2".into())
        ]),
        "{heard:?}"
    );
    // A key that could reach outside the store's own keys is refused.
    assert!(one.read("../x").await.is_err());
    assert!(one.write("a:b", &first, true, lasting).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_redis_makes_session_notices_unsure() {
    let Some(redis) = Redis::start() else { return };
    let store = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let mut notices = store.notices();
    let dir = redis.stop();
    assert_eq!(next_notice(&mut notices).await, SessionNotice::Unsure);
    assert!(store.read("k1").await.is_err(), "nothing to read from");
    let _back = Redis::start_in(dir, &[]).expect("redis-server starts again");
    assert_eq!(next_notice(&mut notices).await, SessionNotice::Unsure);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_is_redeemed_once_across_instances_and_lost_tickets_are_refused() {
    let Some(redis) = Redis::start() else { return };
    let one = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let two = RedisFeed::connect(&redis.url(), "changes").await.unwrap();
    let other_channel = RedisFeed::connect(&redis.url(), "elsewhere").await.unwrap();
    let lasting = Duration::from_secs(60);

    // Issued by one, redeemed ten times at once from two instances: exactly once.
    one.issue("ticket-a", lasting).await.unwrap();
    let redeemed = (0..10).map(|at| {
        let store = if at % 2 == 0 { &one } else { &two };
        store.redeem("ticket-a")
    });
    let won = futures_util::future::join_all(redeemed)
        .await
        .into_iter()
        .map(Result::unwrap)
        .filter(|won| *won)
        .count();
    assert_eq!(won, 1);
    // Never issued, or issued on another deployment's channel: nothing to redeem. A ticket is
    // no session record.
    assert!(!two.redeem("ticket-b").await.unwrap());
    other_channel.issue("ticket-c", lasting).await.unwrap();
    assert!(!one.redeem("ticket-c").await.unwrap());
    one.issue("ticket-d", lasting).await.unwrap();
    assert_eq!(one.read("ticket-d").await.unwrap(), None);
    // Expired: nothing to redeem.
    one.issue("ticket-e", Duration::from_millis(100))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!two.redeem("ticket-e").await.unwrap());
    // A key that could reach outside the store's own keys is refused.
    assert!(one.issue("../x", lasting).await.is_err());
    assert!(one.redeem("a:b").await.is_err());

    // Redis restarted empty: the tickets issued before are gone (refused, not served), and
    // the first command after the restart works (tried once more on the new connection).
    let dir = redis.stop();
    assert!(one.redeem("ticket-d").await.is_err(), "Redis is away");
    let _back = Redis::start_in(dir, &[]).expect("redis-server starts again");
    let answer = one.redeem("ticket-d").await;
    assert_eq!(answer, Ok(false), "a ticket Redis lost is not redeemed");
    two.issue("ticket-f", lasting).await.unwrap();
    assert!(one.redeem("ticket-f").await.unwrap());
}
