//! The Redis change feed: the instances of one deployment publish the changes their own
//! sources see on one Redis pub/sub channel, and each takes every instance's changes from it.
//!
//! **Layer:** a feed, beside the providers: the core's [`ChangeFeed`] seam over Redis (the
//! `redis` crate, on tokio). It knows the core's [`Change`] only, written as a small JSON
//! object of its own ([`message`]), never a protocol frame; it must never know the server,
//! the adapters, a session or a subscriber. Whoever consumes it (the server) keeps the hub.
//!
//! # Delivery
//!
//! [`RedisFeed::connect`] connects (a Redis it cannot reach is a start-up error, not a feed
//! that is silently down), subscribes once, and keeps the subscription in a task: every
//! message becomes a [`FeedEvent::Change`] for every consumer of [`ChangeFeed::events`]. When
//! the connection is lost the consumers get [`FeedEvent::Lost`] (changes may be missed from
//! then on), the task reconnects with a growing pause (from 100 ms to 5 s), and once
//! subscribed again they get [`FeedEvent::Restored`]; a connection that stops answering
//! pings counts as lost too. A consumer that falls more than [`EVENTS_BUFFERED`] events behind
//! gets [`FeedEvent::Missed`] (it missed changes, and is told so rather than left thinking it
//! did not); if the feed is away by then, `Lost` instead, then `Restored` once it is connected.
//! Redis is trusted infrastructure; still, a message is
//! read only up to [`message::MAX_MESSAGE_BYTES`] and [`message::MAX_URIS`] URIs, so that a
//! flood on the channel stays finite. Pub/sub delivers to whoever listens
//! at the time: nothing is replayed, which is the level-triggered contract the protocol gives
//! clients (a stream that ended is listened to again, and what it cares about is read again).
//!
//! Publishing goes through redis' `ConnectionManager`, which reconnects by itself; a change
//! that cannot be published is an error for the publisher to log.
//!
//! # Sessions
//!
//! The same value is the deployment's [`SessionStore`]: a record is a Redis hash under
//! `<channel>:session:<key>` with the record's lifetime as the key's, written field by field
//! (a small Lua script, so that a record that expired is not brought back half-written), and
//! every write or removal is announced on the channel (`{"session": KEY}`), so that every
//! instance hears it as a [`SessionNotice::Changed`]. Whenever changes may have been missed
//! (the events' `Lost`, `Restored` and `Missed`), consumers of the notices get
//! [`SessionNotice::Unsure`]. The store never reads what the fields say.
//!
//! # Tickets
//!
//! It is the deployment's [`TicketStore`] too: issuing is `SET <channel>:ticket:<key> 1 PX`,
//! redeeming is `DEL`, which only one instance can see delete it. Store commands and
//! publishing that find the connection dropped are tried once more (the first try never
//! reached Redis).

pub mod message;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use mcp_resources_core::change::{Change, ChangeFeed, FeedError, FeedEvent, FeedEvents};
use mcp_resources_core::store::{
    Fields, SessionNotice, SessionNotices, SessionStore, StoreError, TicketStore, Write,
};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

/// How many events a consumer may fall behind before it is told it lost some.
pub const EVENTS_BUFFERED: usize = 1024;
/// How often the subscription's connection is pinged, and how long a ping may go unanswered
/// before the connection counts as lost (a partition or a stalled Redis closes nothing).
const PING_EVERY: Duration = Duration::from_secs(5);
/// The first pause before reconnecting; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest pause between two attempts to reconnect.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Why a feed could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RedisFeedError {
    /// The URL is not a Redis URL.
    #[error("invalid Redis URL: {0}")]
    Url(redis::RedisError),
    /// Redis could not be reached or refused the subscription.
    #[error("cannot reach Redis at {url}: {error}")]
    Connect {
        /// The URL, without its password.
        url: String,
        /// What went wrong.
        error: redis::RedisError,
    },
    /// Another instance of the channel holds another value ([`RedisFeed::agree`]).
    #[error("another instance on the Redis channel {channel} has another {name}")]
    Disagreement {
        /// The channel.
        channel: String,
        /// What the instances disagree on.
        name: String,
    },
    /// A command failed.
    #[error("Redis refused a command: {0}")]
    Command(redis::RedisError),
}

/// The change feed of one deployment on one Redis channel.
pub struct RedisFeed {
    channel: String,
    publisher: redis::aio::ConnectionManager,
    events: broadcast::Sender<FeedEvent>,
    notices: broadcast::Sender<SessionNotice>,
    /// Whether the subscription is connected now.
    connected: Arc<AtomicBool>,
    subscription: JoinHandle<()>,
}

impl std::fmt::Debug for RedisFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisFeed")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl RedisFeed {
    /// Connects to Redis at `url` (`redis://host:port/db`, a password in the URL or not) and
    /// subscribes to `channel`. Spawns the subscription's task on the current runtime.
    ///
    /// # Errors
    ///
    /// [`RedisFeedError::Url`] for a URL that is not Redis', [`RedisFeedError::Connect`] when
    /// Redis cannot be reached or refuses the subscription.
    pub async fn connect(url: &str, channel: &str) -> Result<RedisFeed, RedisFeedError> {
        RedisFeed::connect_with_password(url, None, channel).await
    }

    /// [`RedisFeed::connect`] with a password given apart from the URL (from the environment,
    /// say, rather than a command line or a file), which wins over one in the URL.
    ///
    /// # Errors
    ///
    /// As [`RedisFeed::connect`].
    pub async fn connect_with_password(
        url: &str,
        password: Option<&str>,
        channel: &str,
    ) -> Result<RedisFeed, RedisFeedError> {
        use redis::IntoConnectionInfo as _;
        let mut info = url.into_connection_info().map_err(RedisFeedError::Url)?;
        if let Some(password) = password {
            let settings = info.redis_settings().clone().set_password(password);
            info = info.set_redis_settings(settings);
        }
        let client = redis::Client::open(info).map_err(RedisFeedError::Url)?;
        let shown = shown_url(url);
        let connect_error = |error| RedisFeedError::Connect {
            url: shown.clone(),
            error,
        };
        // The subscription first: one attempt, so that an unreachable Redis fails at once
        // (the connection manager would retry for seconds first).
        let mut pubsub = client.get_async_pubsub().await.map_err(connect_error)?;
        pubsub.subscribe(channel).await.map_err(connect_error)?;
        // Commands wait for a lost connection to come back two times at most (up to 200 and
        // 400 ms), not the crate's default six (over 6 s): a request that needs Redis while it
        // refuses connections fails in about a second (a `503`, a confirmation refused) rather
        // than hanging; an unreachable host costs the 1 s connection timeout per attempt.
        let reconnecting = redis::aio::ConnectionManagerConfig::new().set_number_of_retries(2);
        let publisher = client
            .get_connection_manager_with_config(reconnecting)
            .await
            .map_err(connect_error)?;
        let (events, _) = broadcast::channel(EVENTS_BUFFERED);
        let (notices, _) = broadcast::channel(EVENTS_BUFFERED);
        let connected = Arc::new(AtomicBool::new(true));
        let subscription = tokio::spawn(subscribe(
            client,
            channel.to_owned(),
            pubsub,
            Senders {
                events: events.clone(),
                notices: notices.clone(),
            },
            Arc::clone(&connected),
        ));
        tracing::info!(url = %shown, channel, "the change feed is connected to Redis");
        Ok(RedisFeed {
            channel: channel.to_owned(),
            publisher,
            events,
            notices,
            connected,
            subscription,
        })
    }
}

impl RedisFeed {
    /// Agrees with the other instances of the channel on the value named `name` (a key's
    /// fingerprint, say): the first instance records `value` in Redis (under
    /// `<channel>:<name>`, for `lasting`), and every instance that agrees extends the record;
    /// an instance with another value is told, while the record lasts. Call it again before
    /// `lasting` is over to keep the record. Needs Redis 7.0 or later (`SET` with both `NX` and
    /// `GET`).
    ///
    /// # Errors
    ///
    /// [`RedisFeedError::Disagreement`] when another instance recorded another value;
    /// [`RedisFeedError::Command`] when Redis cannot be asked.
    pub async fn agree(
        &self,
        name: &str,
        value: &str,
        lasting: Duration,
    ) -> Result<(), RedisFeedError> {
        let key = format!("{}:{name}", self.channel);
        let millis = millis(lasting);
        let mut connection = self.publisher.clone();
        // `SET … GET` answers with the value it replaced, in the same step: `NX` records the
        // value when there is none, `XX` renews it, both telling what was there (Redis 7.0).
        let mut set = async |condition: &str| -> Result<Option<String>, RedisFeedError> {
            redis::cmd("SET")
                .arg(&key)
                .arg(value)
                .arg(condition)
                .arg("GET")
                .arg("PX")
                .arg(millis)
                .query_async(&mut connection)
                .await
                .map_err(RedisFeedError::Command)
        };
        let disagreement = || RedisFeedError::Disagreement {
            channel: self.channel.clone(),
            name: name.to_owned(),
        };
        match set("NX").await? {
            // Recorded now, by this instance.
            None => Ok(()),
            Some(recorded) if recorded != value => Err(disagreement()),
            // Renewed, unless another value took the record in between (then it is replaced,
            // and both instances are told: this one now, the other at its next renewal).
            Some(_) => match set("XX").await? {
                Some(replaced) if replaced != value => Err(disagreement()),
                // Expired in between, so not renewed: recorded again.
                None => match set("NX").await? {
                    Some(recorded) if recorded != value => Err(disagreement()),
                    _ => Ok(()),
                },
                Some(_) => Ok(()),
            },
        }
    }
}

impl Drop for RedisFeed {
    fn drop(&mut self) {
        self.subscription.abort();
    }
}

#[async_trait]
impl ChangeFeed for RedisFeed {
    async fn publish(&self, change: &Change) -> Result<(), FeedError> {
        for payload in message::encode(change) {
            self.once_more_if_lost::<()>(redis::cmd("PUBLISH").arg(&self.channel).arg(payload))
                .await
                .map_err(|error| FeedError(error.0))?;
        }
        Ok(())
    }

    fn events(&self) -> Box<dyn FeedEvents> {
        Box::new(Events {
            receiver: self.events.subscribe(),
            connected: Arc::clone(&self.connected),
            behind: false,
        })
    }
}

/// One consumer's events.
struct Events {
    receiver: broadcast::Receiver<FeedEvent>,
    connected: Arc<AtomicBool>,
    /// It fell behind while the feed was away and was told `Lost`: `Restored` comes once the
    /// feed is connected.
    behind: bool,
}

#[async_trait]
impl FeedEvents for Events {
    async fn next_event(&mut self) -> Option<FeedEvent> {
        loop {
            if self.behind && self.connected.load(Ordering::Acquire) {
                self.behind = false;
                return Some(FeedEvent::Restored);
            }
            match self.receiver.recv().await {
                // Behind, everything but the feed's return is part of what was lost.
                Ok(FeedEvent::Change(_) | FeedEvent::Lost) if self.behind => {}
                Ok(FeedEvent::Restored) if self.behind => {
                    self.behind = false;
                    return Some(FeedEvent::Restored);
                }
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a consumer of the change feed fell behind");
                    if self.behind {
                        continue;
                    }
                    // Connected, only changes were skipped; otherwise the loss itself may have
                    // been among them.
                    if self.connected.load(Ordering::Acquire) {
                        return Some(FeedEvent::Missed);
                    }
                    self.behind = true;
                    return Some(FeedEvent::Lost);
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// The subscription's task: messages to events while connected, `Lost` when the connection
/// goes (closed, or silent: a ping unanswered for [`PING_EVERY`]), reconnecting with a growing
/// pause, `Restored` once subscribed again.
async fn subscribe(
    client: redis::Client,
    channel: String,
    first: redis::aio::PubSub,
    senders: Senders,
    connected: Arc<AtomicBool>,
) {
    let mut pubsub = Some(first);
    let mut backoff = FIRST_BACKOFF;
    loop {
        if let Some(subscribed) = pubsub.take() {
            follow(subscribed, &senders).await;
            connected.store(false, Ordering::Release);
            tracing::warn!(
                channel,
                "the change feed lost Redis: changes may be missed until it is back"
            );
            let _ = senders.events.send(FeedEvent::Lost);
            let _ = senders.notices.send(SessionNotice::Unsure);
            backoff = FIRST_BACKOFF;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
        match reconnect(&client, &channel).await {
            Ok(subscribed) => {
                tracing::info!(channel, "the change feed is connected to Redis again");
                pubsub = Some(subscribed);
                connected.store(true, Ordering::Release);
                let _ = senders.events.send(FeedEvent::Restored);
                let _ = senders.notices.send(SessionNotice::Unsure);
            }
            Err(error) => {
                tracing::debug!(%error, "Redis is still unreachable");
            }
        }
    }
}

/// Where the subscription's messages go: changes to the events, session notices to the
/// notices.
struct Senders {
    events: broadcast::Sender<FeedEvent>,
    notices: broadcast::Sender<SessionNotice>,
}

/// Turns one connection's messages into events and notices until it closes or stops
/// answering pings.
async fn follow(subscribed: redis::aio::PubSub, senders: &Senders) {
    let (mut sink, mut messages) = subscribed.split();
    let mut pings = tokio::time::interval(PING_EVERY);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            message = messages.next() => {
                let Some(message) = message else { return };
                let payload = message.get_payload_bytes();
                // No consumer yet is no error: the change or notice concerned no one.
                if let Some(change) = message::decode(payload) {
                    let _ = senders.events.send(FeedEvent::Change(change));
                } else if let Some(key) = message::decode_session(payload) {
                    let _ = senders.notices.send(SessionNotice::Changed(key));
                } else {
                    tracing::warn!(
                        bytes = payload.len(),
                        "a message on the change feed's channel is neither a change nor a \
                         session notice; ignored"
                    );
                }
            }
            _ = pings.tick() => {
                let answered = tokio::time::timeout(PING_EVERY, sink.ping::<redis::Value>()).await;
                if !matches!(answered, Ok(Ok(_))) {
                    return;
                }
            }
        }
    }
}

/// Writes fields of one hash and makes it last, only if it is there unless asked to make it:
/// `KEYS[1]` the hash; `ARGV`: `1` to make it, the lifetime in milliseconds, how many fields
/// to set, then name and value of each, then the names of the fields to remove.
const WRITE_SCRIPT: &str = r"
if ARGV[1] ~= '1' and redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  i = i + 1
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

impl RedisFeed {
    /// The Redis key of the record under `key`.
    fn record_key(&self, key: &str) -> Result<String, StoreError> {
        self.key_in("session", key)
    }

    /// The Redis key of `key` in the part `part` of this feed's keys (`<channel>:<part>:<key>`),
    /// when `key` is well formed.
    fn key_in(&self, part: &str, key: &str) -> Result<String, StoreError> {
        if !message::is_session_key(key) {
            return Err(StoreError(format!("not a key of the store: {key:?}")));
        }
        Ok(format!("{}:{part}:{key}", self.channel))
    }

    /// Runs `command`, and once more when the first try found the connection dropped (after
    /// Redis came back, the publishing connection learns that it was lost by failing once):
    /// such a first try never reached Redis. A timeout is not tried again (the first try may
    /// still run).
    async fn once_more_if_lost<T: redis::FromRedisValue>(
        &self,
        command: &redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut connection = self.publisher.clone();
        let mut answer = command.query_async(&mut connection).await;
        if let Err(error) = &answer
            && error.is_connection_dropped()
        {
            tracing::debug!(%error, "a Redis command failed on the connection; trying once more");
            answer = command.query_async(&mut connection).await;
        }
        answer.map_err(store_error)
    }

    /// Tells every instance that the record under `key` changed.
    async fn announce(&self, key: &str) -> Result<(), StoreError> {
        self.once_more_if_lost(
            redis::cmd("PUBLISH")
                .arg(&self.channel)
                .arg(message::encode_session(key)),
        )
        .await
    }
}

fn store_error(error: redis::RedisError) -> StoreError {
    StoreError(error.to_string())
}

fn millis(lasting: Duration) -> u64 {
    u64::try_from(lasting.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

#[async_trait]
impl SessionStore for RedisFeed {
    async fn write(
        &self,
        key: &str,
        write: &Write,
        create: bool,
        lasting: Duration,
    ) -> Result<bool, StoreError> {
        let record = self.record_key(key)?;
        let mut command = redis::cmd("EVAL");
        command
            .arg(WRITE_SCRIPT)
            .arg(1)
            .arg(&record)
            .arg(if create { "1" } else { "0" })
            .arg(millis(lasting))
            .arg(write.set.len());
        for (name, value) in &write.set {
            command.arg(name).arg(value);
        }
        for name in &write.unset {
            command.arg(name);
        }
        let written: i64 = self.once_more_if_lost(&command).await?;
        self.announce(key).await?;
        Ok(written == 1)
    }

    async fn read(&self, key: &str) -> Result<Option<Fields>, StoreError> {
        let record = self.record_key(key)?;
        let fields: Fields = self
            .once_more_if_lost(redis::cmd("HGETALL").arg(&record))
            .await?;
        Ok((!fields.is_empty()).then_some(fields))
    }

    async fn extend(&self, key: &str, lasting: Duration) -> Result<bool, StoreError> {
        let record = self.record_key(key)?;
        let extended: bool = self
            .once_more_if_lost(redis::cmd("PEXPIRE").arg(&record).arg(millis(lasting)))
            .await?;
        Ok(extended)
    }

    async fn remove(&self, key: &str) -> Result<(), StoreError> {
        let record = self.record_key(key)?;
        self.once_more_if_lost::<()>(redis::cmd("DEL").arg(&record))
            .await?;
        self.announce(key).await
    }

    fn notices(&self) -> Box<dyn SessionNotices> {
        Box::new(Notices {
            receiver: self.notices.subscribe(),
        })
    }
}

#[async_trait]
impl TicketStore for RedisFeed {
    async fn issue(&self, key: &str, lasting: Duration) -> Result<(), StoreError> {
        let ticket = self.key_in("ticket", key)?;
        let mut command = redis::cmd("SET");
        command.arg(&ticket).arg("1").arg("PX").arg(millis(lasting));
        self.once_more_if_lost::<()>(&command)
            .await
            .inspect_err(|error| tracing::warn!(%error, "a confirmation ticket cannot be issued"))
    }

    async fn redeem(&self, key: &str) -> Result<bool, StoreError> {
        let ticket = self.key_in("ticket", key)?;
        let mut command = redis::cmd("DEL");
        command.arg(&ticket);
        // A reply lost after the ticket was deleted (a timeout) is an error: the answer is
        // refused, and its retry finds no ticket (asked anew); never served twice.
        let deleted: i64 = self.once_more_if_lost(&command).await.inspect_err(
            |error| tracing::warn!(%error, "a confirmation ticket cannot be redeemed"),
        )?;
        Ok(deleted == 1)
    }
}

/// One consumer's session notices.
struct Notices {
    receiver: broadcast::Receiver<SessionNotice>,
}

#[async_trait]
impl SessionNotices for Notices {
    async fn next_notice(&mut self) -> Option<SessionNotice> {
        match self.receiver.recv().await {
            Ok(notice) => Some(notice),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "a consumer of session notices fell behind");
                Some(SessionNotice::Unsure)
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

async fn reconnect(
    client: &redis::Client,
    channel: &str,
) -> redis::RedisResult<redis::aio::PubSub> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    Ok(pubsub)
}

/// `url` without what may hold a password (user information, and the query, where
/// `redis+unix` URLs take it), for logs and errors.
pub fn shown_url(url: &str) -> String {
    let url = match url.split_once('?') {
        Some((before, _)) => format!("{before}?…"),
        None => url.to_owned(),
    };
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            shown_url("redis://user:secret@10.0.0.1:6379/0"),
            "redis://…@10.0.0.1:6379/0"
        );
        assert_eq!(
            shown_url("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379"
        );
        assert_eq!(
            shown_url("redis+unix:///run/redis.sock?pass=hunter2"),
            "redis+unix:///run/redis.sock?…"
        );
    }
}
