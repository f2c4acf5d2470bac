//! The legacy path of the Streamable HTTP transport: `Mcp-Session-Id` sessions, each a
//! [`mcp_legacy_2025::Session`], fed by POSTs, with one standalone GET stream for unsolicited
//! notifications and DELETE to end it.
//!
//! **Layer:** server, HTTP transport. A session's state machine sits behind a mutex that is
//! held only to feed it and drain *all* its outputs, never across an `await`. Whoever drains a
//! query runs it (queries of other POSTs of the same session included, e.g. a subscribe the
//! session held back for ordering) and feeds the answer back; messages are routed by
//! `Outgoing::related` to the POST waiting for that request id, and unsolicited ones to the GET
//! stream. Subscription changes are drained from the hub only while a GET stream is open, so
//! that they wait, coalesced, in the hub rather than in a buffer here. A client disconnect is
//! not a cancellation in this era: queries already drained still run to the end; an explicit
//! `notifications/cancelled` lets the POST of the cancelled request go (empty `202`). A request
//! whose id is already in flight in the session is refused (`400`, `-32600`) rather than fed.
//! Sessions expire after an idle time and are bounded in number.
//!
//! With a [`SessionStore`](mcp_resources_core::store::SessionStore) (the deployment's,
//! [`crate::ServerBuilder::session_store`]), a session is also kept there
//! ([`super::stored`]), and this table holds this instance's copies: `initialize` writes the
//! record before the session id goes out; a request naming a session
//! this instance has no copy of takes one up from the store ([`adopt`]: restored, its
//! subscriptions made here, each told once as changed, since a change could have been missed
//! in between); each POST writes what it changed (a subscription, the log level, readiness)
//! before its response goes; and each copy follows what other instances write, when the
//! store tells ([`Sessions::listen`]), so that the GET stream, on whichever instance it is,
//! hears what the session subscribed to anywhere. DELETE removes the record; a copy whose
//! record is gone ends. A read that needs the client's answers is served by the instance that
//! holds the GET stream only (elsewhere it fails at once, as without a stream). This module
//! never decides an era (see [`crate::era`]) and builds no protocol message itself beyond
//! those transport errors.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::HeaderName;
use futures_util::FutureExt;
use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use mcp_legacy_2025::{LifecycleState, Outgoing, Output, Session, Ticket};
use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Answer, Query};
use mcp_resources_core::store::{Fields, SessionNotice, SessionNotices, Write};
use mcp_resources_core::uri::ResourceUri;
use mcp_types::error::INVALID_REQUEST;
use mcp_types::jsonrpc::{ErrorObject, Incoming, Message, RequestId};
use mcp_types::method;
use mcp_types::notifications::CancelledNotificationParams;
use tokio::sync::Notify;
use tokio::time::Interval;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::driver::{self, SubscriberGuard};
use crate::http::limits::Client;
use crate::http::options::HttpOptions;
use crate::http::reply::{self, Response};
use crate::http::sse;
use crate::http::state::HttpState;
use crate::http::stored::{self, Stored};
use crate::server::Shared;
use crate::wake::Wake;

/// The session header of the legacy era (`MCP-Session-Id` in 2025-11-25; names are
/// case-insensitive). A name made once: looking a header up by text parses the text each time.
pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// The maps looked up on every POST: foldhash instead of SipHash, seeded at random for each map
/// (session ids and request ids come from the client).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// How often a full table is scanned for sessions to end.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// A place in the session table, reserved for a session that is opening: given back when
/// dropped, unless a session took it ([`Place::fill`]).
pub(crate) struct Place {
    sessions: Arc<Sessions>,
    /// `None` once filled.
    client: Option<Client>,
}

impl Place {
    /// Puts `session` in the table, in this place.
    fn fill(mut self, session: Arc<LegacyHttpSession>) {
        self.client = None;
        self.sessions.lock().insert(session);
    }
}

impl Place {
    /// Puts `session`, taken up from the store, in the table, in this place; when a copy of
    /// it got there first (requests at once), that copy, and the place is given back.
    fn adopt(mut self, session: Arc<LegacyHttpSession>) -> Arc<LegacyHttpSession> {
        let mut table = self.sessions.lock();
        if let Some(first) = table.by_id.get(&session.id).cloned() {
            drop(table);
            return first;
        }
        self.client = None;
        table.insert(Arc::clone(&session));
        session
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            self.sessions.lock().release(&client);
        }
    }
}

/// How long a session must have gone unused (and without a GET stream) before it may be ended
/// to make room for a new one of its client. Anonymous local clients are one client (their
/// peer address), so a session in use is never ended for another program's `initialize`.
const IDLE_BEFORE_ENDED: Duration = Duration::from_secs(5 * 60);

/// The sessions of one router, by id, and how many each client has open.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    table: Mutex<Table>,
    /// Whether this table hears the store's notices ([`Sessions::listen`]).
    listening: AtomicBool,
}

#[derive(Debug, Default)]
struct Table {
    by_id: FastMap<String, Arc<LegacyHttpSession>>,
    /// The ids of the stored sessions, by store key (notices name keys).
    by_key: FastMap<String, String>,
    /// Sessions open and places reserved ([`Place`]), by client.
    per_client: HashMap<Client, usize>,
    /// Places reserved for sessions still opening.
    reserved: usize,
    /// When expired and idle sessions were last looked for, to make room: a client at its
    /// limit does not make every refused `initialize` scan the table.
    last_sweep: Option<Instant>,
}

impl Table {
    /// Sessions open and opening.
    fn len(&self) -> usize {
        self.by_id.len() + self.reserved
    }

    /// Puts in `session`, which held a reserved place.
    fn insert(&mut self, session: Arc<LegacyHttpSession>) {
        self.reserved -= 1;
        let keyed = session
            .stored
            .as_ref()
            .map(|stored| (stored.key.clone(), session.id.clone()));
        if let Some(replaced) = self.by_id.insert(session.id.clone(), session) {
            self.forget(&replaced);
        }
        if let Some((key, id)) = keyed {
            self.by_key.insert(key, id);
        }
    }

    /// Gives back a place reserved for `client` that no session took.
    fn release(&mut self, client: &Client) {
        self.reserved -= 1;
        self.forget_client(client);
    }

    /// Takes the session `id` out of the table and closes it.
    fn end(&mut self, id: &str) -> bool {
        match self.by_id.remove(id) {
            Some(session) => {
                self.forget(&session);
                session.close();
                true
            }
            None => false,
        }
    }

    fn forget(&mut self, session: &LegacyHttpSession) {
        self.forget_client(&session.client);
        if let Some(stored) = &session.stored
            && self.by_key.get(&stored.key) == Some(&session.id)
        {
            self.by_key.remove(&stored.key);
        }
    }

    fn forget_client(&mut self, client: &Client) {
        if let Some(count) = self.per_client.get_mut(client) {
            *count -= 1;
            if *count == 0 {
                self.per_client.remove(client);
            }
        }
    }

    fn open_for(&self, client: &Client) -> usize {
        self.per_client.get(client).copied().unwrap_or(0)
    }

    /// Ends the expired sessions of every client (they are gone already: their ids get `404`).
    fn end_expired(&mut self, idle_timeout: Duration) {
        let expired: Vec<String> = self
            .by_id
            .iter()
            .filter(|(_, session)| session.expired(idle_timeout))
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.end(&id);
        }
    }

    /// Ends up to `batch` of `client`'s least recently used sessions without an open GET
    /// stream and unused for at least [`IDLE_BEFORE_ENDED`]; returns how many.
    fn end_idle_of(&mut self, client: &Client, batch: usize) -> usize {
        let mut idle: Vec<(Instant, String)> = self
            .by_id
            .iter()
            .filter(|(_, session)| session.client == *client)
            .filter_map(|(id, session)| Some((session.idle_since()?, id.clone())))
            .filter(|(since, _)| since.elapsed() >= IDLE_BEFORE_ENDED)
            .collect();
        let batch = batch.max(1).min(idle.len());
        if batch == 0 {
            return 0;
        }
        idle.select_nth_unstable(batch - 1);
        for (_, id) in &idle[..batch] {
            self.end(id);
        }
        batch
    }
}

impl Sessions {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // Every method leaves the table and its counts whole, so a poisoned lock holds
        // consistent data.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The live session with this id, marked as used now. A session idle for longer than
    /// `idle_timeout` (no request and no open GET stream) has expired: it is ended here.
    /// Only a session `owned` accepts is looked at (and marked): another principal's session
    /// is not found, and is not kept alive by being named.
    pub(crate) fn get(
        &self,
        id: &str,
        idle_timeout: Duration,
        owned: impl FnOnce(&LegacyHttpSession) -> bool,
    ) -> Option<Arc<LegacyHttpSession>> {
        let session = self
            .lock()
            .by_id
            .get(id)
            .cloned()
            .filter(|session| owned(session))?;
        if session.expired(idle_timeout) {
            tracing::debug!("legacy session expired");
            self.remove(id);
            return None;
        }
        // Closed without leaving the table: its record is gone from the store.
        if session.closed.load(Ordering::Acquire) {
            self.end_copy(&session);
            return None;
        }
        session.touch();
        Some(session)
    }

    /// Whether `client` may open one more session. A client at its own limit first ends its
    /// least recently used sessions without an open GET stream and unused for at least
    /// [`IDLE_BEFORE_ENDED`] (one in a hundred of its limit, at least one, so that a client
    /// opening sessions at the limit does not make every `initialize` scan the table): their
    /// clients get `404` on their next request and open a new session, as the specification
    /// has them do, so a client that never ends its sessions cannot lock itself out for long.
    /// A full table ends expired sessions, then that client's own idle ones; another client's
    /// session, and a session in use, is never ended to make room. Once the table is three
    /// quarters full, a client's limit is a quarter of its share.
    ///
    /// The place is taken at once, under the table's lock, and held while the session opens
    /// ([`Place`]): `initialize` requests at once cannot all see the same free place.
    fn make_room(self: &Arc<Self>, client: &Client, options: &HttpOptions) -> Option<Place> {
        let mut table = self.lock();
        let mut own_limit = options.max_sessions_per_client.min(options.max_sessions);
        let batch = own_limit / 100;
        // The last quarter of the table is for clients holding little (as `limits` keeps it).
        let reserve = super::limits::reserve_starts(options.max_sessions, own_limit);
        if reserve < options.max_sessions && table.len() >= reserve {
            own_limit = (own_limit / 4).max(1);
        }
        let full = |table: &Table| {
            table.open_for(client) >= own_limit || table.len() >= options.max_sessions
        };
        // Making room scans the table: at most once a second.
        if full(&table)
            && table
                .last_sweep
                .is_none_or(|last| last.elapsed() >= SWEEP_INTERVAL)
        {
            table.last_sweep = Some(Instant::now());
            // Expired sessions are gone already (their ids get `404`): they go first.
            table.end_expired(options.session_idle_timeout);
            if full(&table) {
                table.end_idle_of(client, batch);
            }
        }
        if full(&table) {
            return None;
        }
        table.reserved += 1;
        *table.per_client.entry(client.clone()).or_insert(0) += 1;
        Some(Place {
            sessions: Arc::clone(self),
            client: Some(client.clone()),
        })
    }

    /// Ends the session with this id: its GET stream closes, and its subscriber goes once the
    /// last POST still using it is done. Returns whether it existed.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().end(id)
    }

    /// Ends `session` if it is the copy in the table (not a later one of the same id).
    fn end_copy(&self, session: &Arc<LegacyHttpSession>) {
        let mut table = self.lock();
        if table
            .by_id
            .get(&session.id)
            .is_some_and(|copy| Arc::ptr_eq(copy, session))
        {
            table.end(&session.id);
        }
    }

    /// The copies of stored sessions: the one under store key `key`, or every one.
    fn stored(&self, key: Option<&str>) -> Vec<Arc<LegacyHttpSession>> {
        let table = self.lock();
        match key {
            Some(key) => table
                .by_key
                .get(key)
                .and_then(|id| table.by_id.get(id))
                .cloned()
                .into_iter()
                .collect(),
            None => table
                .by_id
                .values()
                .filter(|session| session.stored.is_some())
                .cloned()
                .collect(),
        }
    }

    /// Hears the store's notices from now on (once per table), on a task that lives while
    /// the table does and the server runs: a copy whose record another instance wrote, or
    /// every copy when notices may have been missed, follows its record again.
    fn listen(self: &Arc<Self>, shared: &Arc<Shared>) {
        let Some(store) = &shared.store else {
            return;
        };
        if self.listening.swap(true, Ordering::AcqRel) {
            return;
        }
        tokio::spawn(hear_notices(
            Arc::downgrade(self),
            store.notices(),
            shared.shutdown.clone(),
        ));
    }

    /// Puts `session` in the table without asking for room, and lets the next
    /// [`Sessions::make_room`] look for sessions to end at once.
    #[cfg(test)]
    fn insert(&self, session: Arc<LegacyHttpSession>) {
        let mut table = self.lock();
        table.reserved += 1;
        *table.per_client.entry(session.client.clone()).or_insert(0) += 1;
        table.insert(session);
        table.last_sweep = None;
    }
}

/// One legacy session over HTTP.
pub(crate) struct LegacyHttpSession {
    id: String,
    /// Whose quota of sessions it counts against.
    client: Client,
    /// Its record in the deployment's store, with a store.
    stored: Option<Stored>,
    shared: Arc<Shared>,
    principal: Arc<Principal>,
    subscriber: SubscriberGuard,
    /// Notified by the hub when this session's subscriber has changes waiting (and by
    /// [`LegacyHttpSession::wake_stream`]); kept until the GET stream takes it.
    changes: Arc<Notify>,
    /// Set by DELETE and expiry ([`LegacyHttpSession::close`]): the GET stream ends.
    closed: AtomicBool,
    /// When a request last named this session.
    last_used: Mutex<Instant>,
    state: Mutex<SessionState>,
}

impl std::fmt::Debug for LegacyHttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacyHttpSession")
            .field("subscriber", &self.subscriber)
            .finish_non_exhaustive()
    }
}

struct SessionState {
    session: Session,
    /// The POSTs waiting for messages, by the id of the request they carry (for a batch, its
    /// first request).
    waiters: FastMap<RequestId, Waiter>,
    /// The messages of waiters done but not yet taken whose id a later request took, by
    /// waiter number.
    finished: FastMap<u64, Vec<Outgoing>>,
    next_waiter: u64,
    /// The open GET stream.
    stream: Option<StreamSlot>,
    next_stream: u64,
    /// Whom the session's queries run for: the principal of the latest request that named the
    /// session (with bearer tokens, its latest token's scopes and claims), the opener's at
    /// first.
    principal: Arc<Principal>,
}

/// The session's side of its open GET stream: the frames routed to it, waiting under the
/// session's lock for the stream to take them (a queue here rather than a channel, whose
/// first block of slots alone would cost every stream a kilobyte). Whoever queues a frame
/// wakes the stream the way a subscription change does ([`LegacyHttpSession::wake_stream`]),
/// so the stream looks at the session only when told to.
#[derive(Debug)]
struct StreamSlot {
    /// Tells this stream from a later one of the same session.
    generation: u64,
    frames: VecDeque<Bytes>,
}

/// A POST waiting for the messages of its request. They are kept here, under the session's
/// lock, and the POST takes them once its response is in: a read answered on the spot is
/// routed and taken within one request, with no channel between the two.
#[derive(Debug)]
struct Waiter {
    /// Tells this POST's waiter from a later POST's reusing the id.
    number: u64,
    messages: Vec<Outgoing>,
    /// The response is in, or the request was cancelled: nothing more is routed here.
    done: bool,
    /// The POST's task, while it waits.
    waker: Option<Waker>,
}

impl Waiter {
    /// Ends the wait: the POST takes what it has. Called with the session's lock held.
    fn finish(&mut self) {
        self.done = true;
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }
}

/// What feeding a POST's body routed: the number of its waiter, the queries to run and the
/// id-less responses (the error answering an unreadable body).
struct Routed {
    number: u64,
    queries: Vec<QueryFuture>,
    own: Vec<Outgoing>,
}

/// What a POST body holds, as far as the session path cares.
pub(crate) enum PostKind {
    /// `initialize`, with its id.
    Initialize(RequestId),
    /// Something with at least one request; the id a response will carry in `related`.
    Requests(RequestId),
    /// Only notifications and responses.
    NoRequests,
}

/// Classifies a decoded body.
pub(crate) fn classify(incoming: &Incoming) -> PostKind {
    match incoming {
        Incoming::Single(Message::Request(request)) if request.method == method::INITIALIZE => {
            PostKind::Initialize(request.id.clone())
        }
        Incoming::Single(Message::Request(request)) => PostKind::Requests(request.id.clone()),
        Incoming::Single(_) => PostKind::NoRequests,
        Incoming::Batch(elements) => elements
            .iter()
            .find_map(|element| match element {
                Ok(Message::Request(request)) => Some(PostKind::Requests(request.id.clone())),
                _ => None,
            })
            .unwrap_or(PostKind::NoRequests),
    }
}

impl LegacyHttpSession {
    /// A new session, under a new id; a stored one's record lasts `lasting` unused.
    fn new(
        shared: &Arc<Shared>,
        principal: Arc<Principal>,
        client: Client,
        lasting: Duration,
    ) -> Result<Arc<Self>, getrandom::Error> {
        let id = mint_session_id()?;
        let session = Session::new(Arc::clone(&shared.legacy));
        Ok(LegacyHttpSession::with(
            shared, id, session, principal, client, lasting,
        ))
    }

    /// The session `id`, in the state `session`.
    fn with(
        shared: &Arc<Shared>,
        id: String,
        session: Session,
        principal: Arc<Principal>,
        client: Client,
        lasting: Duration,
    ) -> Arc<Self> {
        let changes = Arc::new(Notify::new());
        let stored = shared
            .store
            .as_ref()
            .map(|store| Stored::new(Arc::clone(store), &id, lasting, Fields::new()));
        Arc::new(LegacyHttpSession {
            id,
            client,
            stored,
            shared: Arc::clone(shared),
            subscriber: SubscriberGuard::new(shared, Arc::clone(&changes) as Wake),
            changes,
            closed: AtomicBool::new(false),
            last_used: Mutex::new(Instant::now()),
            state: Mutex::new(SessionState {
                session,
                waiters: FastMap::default(),
                finished: FastMap::default(),
                next_waiter: 0,
                stream: None,
                next_stream: 0,
                principal: Arc::clone(&principal),
            }),
            principal,
        })
    }

    /// Ends the session's GET stream, now and for any opened later: the stream finds the
    /// session closed when it next looks, which this wake-up makes it do.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.wake_stream();
    }

    /// Makes the GET stream, if one is open, look at the session (its queued frames, the hub's
    /// changes, whether the session is closed) at its next poll: the same wake-up as a change.
    fn wake_stream(&self) {
        self.shared.wakers.wake(&[self.subscriber.id()]);
    }

    /// Whether `principal` is whom the session was opened for: the same subject from the same
    /// issuer (a token's `sub` is only unique within its issuer). Anonymous principals are all
    /// the same one.
    pub(crate) fn belongs_to(&self, principal: &Principal) -> bool {
        stored::same_owner(
            principal,
            self.principal.subject.as_ref(),
            self.principal.claims.get("iss"),
        )
    }

    /// Runs the session's next queries as `principal` (its owner's latest token), so that a
    /// token's narrower scopes apply from the first request that carries it.
    pub(crate) fn renew(&self, principal: &Arc<Principal>) {
        let mut state = self.lock();
        if *state.principal != **principal {
            state.principal = Arc::clone(principal);
        }
    }

    fn touch(&self) {
        *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Idle for longer than `idle_timeout`, without an open GET stream.
    fn expired(&self, idle_timeout: Duration) -> bool {
        self.idle_since()
            .is_some_and(|last_used| last_used.elapsed() > idle_timeout)
    }

    /// When the session was last used, if it has no open GET stream (a session with one is
    /// never idle).
    fn idle_since(&self) -> Option<Instant> {
        let last_used = *self
            .last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.lock().stream.is_none().then_some(last_used)
    }

    fn lock(&self) -> MutexGuard<'_, SessionState> {
        // The session is fed and drained within one lock scope; a panic there would leave
        // nothing half-routed that matters more than serving the next request.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Feeds one decoded body and routes what it produced ([`LegacyHttpSession::route`]). A
    /// body whose request id is already in flight in this session is not fed: `Err(())`.
    fn feed(&self, incoming: Incoming, expects: Option<&RequestId>) -> Result<Routed, ()> {
        let mut state = self.lock();
        free_waiter(&mut state, expects)?;
        state.session.handle_incoming(Ok(incoming));
        Ok(self.route(&mut state, expects))
    }

    /// Registers the waiter of the POST that fed the session, for the request `expects`, then
    /// routes what the session produced, within the lock scope that fed it: the waiter exists
    /// before any message for it is routed.
    fn route(&self, state: &mut SessionState, expects: Option<&RequestId>) -> Routed {
        let number = state.next_waiter;
        if let Some(key) = expects {
            state.next_waiter += 1;
            let waiter = Waiter {
                number,
                messages: Vec::new(),
                done: false,
                waker: None,
            };
            state.waiters.insert(key.clone(), waiter);
        }
        let mut own = Vec::new();
        let queries = self.drain(state, Some(&mut own));
        Routed {
            number,
            queries,
            own,
        }
    }

    /// Feeds the answer of one query and routes what it produced; returns the queries to run.
    fn answer(&self, ticket: Ticket, answer: Answer) -> Vec<QueryFuture> {
        let mut state = self.lock();
        state.session.handle_answer(ticket, answer);
        self.drain(&mut state, None)
    }

    /// Drains every output of the session, within the lock scope that fed it, so that
    /// messages reach their streams in the order the session produced them.
    fn drain(
        &self,
        state: &mut SessionState,
        mut own: Option<&mut Vec<Outgoing>>,
    ) -> Vec<QueryFuture> {
        let mut queries = Vec::new();
        let mut to_stream = false;
        // The session's own requests (a read that needs the user's answer) go on the GET
        // stream: without one, nothing can reach the client, and those reads fail at once.
        if state.session.is_asking() && state.stream.is_none() {
            state.session.give_up_asking();
        }
        while let Some(output) = state.session.poll_output() {
            match output {
                Output::Send(outgoing) => {
                    to_stream |= route_message(state, outgoing, own.as_deref_mut());
                }
                Output::Query { ticket, query } => {
                    let mut answer = Box::pin(driver::answer(
                        Arc::clone(&self.shared.service),
                        Arc::clone(&state.principal),
                        Some(self.subscriber.id()),
                        query,
                    ));
                    // An answer ready at once (a static read) is fed back within this loop;
                    // anything else runs as a future of its own.
                    match answer.as_mut().now_or_never() {
                        Some(answer) => state.session.handle_answer(ticket, answer),
                        None => queries
                            .push(Box::pin(async move { (ticket, answer.await) }) as QueryFuture),
                    }
                }
                // The session ignores the answer of a cancelled ticket; the query is short.
                Output::Cancel { .. } => {}
            }
        }
        if to_stream {
            self.wake_stream();
        }
        queries
    }

    /// Runs every query drained so far, and those their answers lead to, to the end.
    async fn run(self: &Arc<Self>, queries: Vec<QueryFuture>) {
        // Nearly always none: a static read is answered while it is drained.
        if !queries.is_empty() {
            self.run_all(queries.into_iter().collect()).await;
        }
    }

    async fn run_all(self: &Arc<Self>, mut queries: Queries) {
        let guard = Unfinished {
            session: Arc::clone(self),
            queries: &mut queries,
        };
        while let Some((ticket, answer)) = guard.queries.next().await {
            for query in self.answer(ticket, answer) {
                guard.queries.push(query);
            }
        }
    }

    /// Removes the waiter `number` for `key`, if it is still there (and not a later POST's),
    /// with the messages routed to it.
    fn forget_waiter(&self, key: &RequestId, number: u64) -> Option<Vec<Outgoing>> {
        let mut state = self.lock();
        if state
            .waiters
            .get(key)
            .is_some_and(|waiter| waiter.number == number)
        {
            state.waiters.remove(key).map(|waiter| waiter.messages)
        } else {
            state.finished.remove(&number)
        }
    }

    /// The messages for the waiter `number` of `key` once its wait is over (its response is
    /// in, or its request was cancelled); until then, `Pending` with the task's waker left
    /// with the waiter.
    fn poll_waiter(
        &self,
        key: &RequestId,
        number: u64,
        context: &mut Context<'_>,
    ) -> Poll<Vec<Outgoing>> {
        let mut state = self.lock();
        let Some(waiter) = state
            .waiters
            .get_mut(key)
            .filter(|waiter| waiter.number == number)
        else {
            // Done, and its id taken by a later request since.
            return Poll::Ready(state.finished.remove(&number).unwrap_or_default());
        };
        if !waiter.done {
            match &mut waiter.waker {
                Some(waker) => waker.clone_from(context.waker()),
                None => waiter.waker = Some(context.waker().clone()),
            }
            return Poll::Pending;
        }
        let waiter = state.waiters.remove(key);
        Poll::Ready(waiter.map(|waiter| waiter.messages).unwrap_or_default())
    }
}

/// The stored side of a session: writing what this copy changed, following what others did.
impl LegacyHttpSession {
    /// The fields of its record that change, as this copy holds them now.
    fn changing_fields(&self) -> Fields {
        let subscriptions = self.shared.service.subscriptions_of(self.subscriber.id());
        let state = self.lock();
        stored::changing_fields(&state.session, subscriptions)
    }

    /// Records a session that just opened, before its id goes out: `false` when the store
    /// cannot be written (the session is not opened then).
    async fn open_stored(&self) -> bool {
        let Some(stored) = &self.stored else {
            return true;
        };
        let identity = {
            let state = self.lock();
            stored::identity(&state.session, &self.principal)
        };
        let Some(identity) = identity else {
            return false;
        };
        let changing = self.changing_fields();
        let mut write = Write {
            set: changing.clone(),
            unset: Vec::new(),
        };
        write.set.insert(stored::IDENTITY.to_owned(), identity);
        match stored
            .store
            .write(&stored.key, &write, true, stored.lasting)
            .await
        {
            Ok(_) => {
                stored.set_known(changing);
                true
            }
            Err(error) => {
                tracing::warn!(
                    %error,
                    "cannot keep a new legacy session in the store; initialize refused"
                );
                false
            }
        }
    }

    /// Writes what the last request changed in the session (a subscription, the log level,
    /// readiness) to its record, and the fields it `touched` as they are here even when they
    /// did not change here (a client's last word wins over an older one another instance
    /// wrote and this copy has not followed yet), or makes the record last longer now and
    /// then. `false` when the record is gone (deleted through another instance, or expired):
    /// the session is over. A store that cannot be written is logged, and the change is
    /// written after a later request.
    async fn write_stored(&self, touched: &[String]) -> bool {
        let Some(stored) = &self.stored else {
            return true;
        };
        let _sync = stored.sync.lock().await;
        let now = self.changing_fields();
        let mut write = Write::between(&stored.known(), &now);
        for name in touched {
            match now.get(name) {
                Some(value) => {
                    write.set.insert(name.clone(), value.clone());
                }
                None if !write.unset.contains(name) => write.unset.push(name.clone()),
                None => {}
            }
        }
        let result = if write.is_empty() {
            if !stored.wants_extending() {
                return true;
            }
            stored.extended_now();
            stored.store.extend(&stored.key, stored.lasting).await
        } else {
            let written = stored
                .store
                .write(&stored.key, &write, false, stored.lasting)
                .await;
            if written == Ok(true) {
                stored.set_known(now);
            }
            written
        };
        result.unwrap_or_else(|error| {
            tracing::warn!(
                %error,
                "cannot write a legacy session to the store; retried after its next request"
            );
            true
        })
    }

    /// Makes the record of a session whose GET stream is open here last longer, now and then
    /// (the stream keeps the session in use).
    fn keep_stored(self: &Arc<Self>) {
        let Some(stored) = &self.stored else {
            return;
        };
        if !stored.wants_extending() {
            return;
        }
        stored.extended_now();
        let session = Arc::clone(self);
        tokio::spawn(async move {
            let Some(stored) = &session.stored else {
                return;
            };
            match stored.store.extend(&stored.key, stored.lasting).await {
                Ok(true) => {}
                // Gone (deleted through another instance, or expired): the stream ends, and
                // the table lets the copy go when it is next named.
                Ok(false) => session.close(),
                Err(error) => {
                    tracing::debug!(%error, "cannot make a legacy session's record last longer");
                }
            }
        });
    }

    /// Follows the record another instance wrote: its readiness and log level (where they
    /// changed there since this copy last knew them), the subscriptions it gained (made
    /// here, each told once as changed: a change could have come between) and lost. A
    /// record that is gone ends this copy; a store that cannot be read leaves it as it is.
    async fn follow_stored(self: &Arc<Self>, sessions: &Sessions) {
        let Some(stored) = &self.stored else {
            return;
        };
        let _sync = stored.sync.lock().await;
        // Taken once the lock is held: a notice while this copy follows its record marks it
        // again, for one more task, never one task per notice.
        if !stored.take_stale() {
            return;
        }
        let fields = match stored.store.read(&stored.key).await {
            Ok(Some(fields)) => fields,
            Ok(None) => {
                tracing::debug!("legacy session ended through another instance");
                sessions.end_copy(self);
                return;
            }
            Err(error) => {
                tracing::debug!(
                    %error,
                    "cannot read a legacy session's record; the copy is kept as it is"
                );
                return;
            }
        };
        let Some(read) = stored::Read::parse(&fields) else {
            tracing::warn!("a legacy session's record in the store is unreadable; ignored");
            return;
        };
        let known = stored.known();
        // What this copy holds and what it follows, under one lock: a request changing the
        // log level here meanwhile is not lost.
        let queries = {
            let mut state = self.lock();
            let here = stored::changing_fields(&state.session, Vec::new());
            let merged = stored::merged(&here, &known, &read.changing);
            state.session.follow(&read.record(&merged));
            self.drain(&mut state, None)
        };
        self.run(queries).await;
        let was: Vec<&str> = stored::subscriptions(&known).collect();
        let now: Vec<&str> = stored::subscriptions(&read.changing).collect();
        let gained = now.iter().filter(|uri| !was.contains(uri)).copied();
        let failed = self.take_up(gained).await;
        for uri in was.iter().filter(|uri| !now.contains(uri)) {
            if let Ok(uri) = ResourceUri::parse(uri) {
                self.ask(Query::Unsubscribe { uri }).await;
            }
        }
        stored.set_known(known_after(read.changing.clone(), &failed));
    }

    /// Subscribes this copy to `uris`, each then told once as changed; returns those the
    /// service refused.
    async fn take_up<'a>(&self, uris: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut failed = Vec::new();
        for text in uris {
            let subscribed = match ResourceUri::parse(text) {
                Ok(uri) => matches!(
                    self.ask(Query::Subscribe { uri }).await,
                    Answer::Subscribed(Ok(()))
                ),
                Err(_) => false,
            };
            if subscribed {
                let ready = self
                    .shared
                    .service
                    .resource_updated_for(self.subscriber.id(), text);
                self.shared.wakers.wake(&ready);
            } else {
                tracing::debug!("a stored subscription is refused here; left to the others");
                failed.push(text.to_owned());
            }
        }
        failed
    }

    /// Answers `query` for this session, as its principal.
    async fn ask(&self, query: Query) -> Answer {
        let principal = Arc::clone(&self.lock().principal);
        driver::answer(
            Arc::clone(&self.shared.service),
            principal,
            Some(self.subscriber.id()),
            query,
        )
        .await
    }
}

/// What a copy knows the store to hold after following `changing`, but for the subscriptions
/// it could not take up (not written back as removed: they are another instance's to serve).
fn known_after(mut changing: Fields, failed: &[String]) -> Fields {
    for uri in failed {
        changing.remove(&stored::subscription_field(uri));
    }
    changing
}

/// The session a request names, as far as this instance can tell.
pub(crate) enum Lookup {
    /// Here, or taken up from the store.
    Found(Arc<LegacyHttpSession>),
    /// Not here, nor in the store (or another principal's).
    Missing,
    /// The store cannot be read, or this instance has no room: try again.
    Unavailable,
}

/// Takes up the stored session `id` this instance has no copy of, if it belongs to the
/// request's principal: restored from its record, with its subscriptions made here.
pub(crate) async fn adopt(state: &HttpState, sessions: &Arc<Sessions>, id: &str) -> Lookup {
    let Some(store) = &state.shared.store else {
        return Lookup::Missing;
    };
    if !is_session_id(id) {
        return Lookup::Missing;
    }
    let fields = match store.read(&stored::key_of(id)).await {
        Ok(Some(fields)) => fields,
        Ok(None) => return Lookup::Missing,
        Err(error) => {
            tracing::warn!(%error, "cannot read a legacy session from the store");
            return Lookup::Unavailable;
        }
    };
    let Some(read) = stored::Read::parse(&fields) else {
        tracing::warn!("a legacy session's record in the store is unreadable; ignored");
        return Lookup::Missing;
    };
    if !read.belongs_to(&state.principal) {
        return Lookup::Missing;
    }
    let Some(place) = sessions.make_room(&state.client, &state.options) else {
        tracing::warn!(
            client = ?state.client,
            "session limit reached; a stored session is not taken up"
        );
        return Lookup::Unavailable;
    };
    let restored = Session::restore(
        Arc::clone(&state.shared.legacy),
        &read.record(&read.changing),
    );
    let session = LegacyHttpSession::with(
        &state.shared,
        id.to_owned(),
        restored,
        Arc::clone(&state.principal),
        state.client.clone(),
        state.options.session_idle_timeout,
    );
    let queries = {
        let mut guard = session.lock();
        session.drain(&mut guard, None)
    };
    session.run(queries).await;
    let failed = session.take_up(stored::subscriptions(&read.changing)).await;
    if let Some(stored) = &session.stored {
        stored.set_known(known_after(read.changing.clone(), &failed));
    }
    tracing::debug!("legacy session taken up from the store");
    sessions.listen(&state.shared);
    let session = place.adopt(session);
    // Notices that came while it was taken up (a subscription made elsewhere, a DELETE) found
    // no copy here: the record is followed once more now that there is one.
    follow_soon(&session, sessions);
    Lookup::Found(session)
}

/// Has `copy` follow its record on a task of its own, unless one is about to.
fn follow_soon(copy: &Arc<LegacyHttpSession>, sessions: &Arc<Sessions>) {
    if copy.stored.as_ref().is_some_and(Stored::mark_stale) {
        let (copy, sessions) = (Arc::clone(copy), Arc::clone(sessions));
        tokio::spawn(async move { copy.follow_stored(&sessions).await });
    }
}

/// Whether `id` could be a session id this server minted ([`mint_session_id`]).
fn is_session_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

/// Hears the store's notices for the table `sessions` until it is gone or the server shuts
/// down ([`Sessions::listen`]).
async fn hear_notices(
    sessions: Weak<Sessions>,
    mut notices: Box<dyn SessionNotices>,
    shutdown: CancellationToken,
) {
    loop {
        let notice = tokio::select! {
            () = shutdown.cancelled() => return,
            notice = notices.next_notice() => notice,
        };
        let Some(notice) = notice else {
            return;
        };
        let Some(table) = sessions.upgrade() else {
            return;
        };
        let copies = match &notice {
            SessionNotice::Changed(key) => table.stored(Some(key)),
            SessionNotice::Unsure => table.stored(None),
        };
        for copy in copies {
            follow_soon(&copy, &table);
        }
    }
}

/// Frees the id a POST expects a response for, before its body is fed: `Err(())` when a
/// request with it is in flight in the session (its POST still waits). A request answered or
/// cancelled whose POST has yet to take its messages leaves them aside, and the id is free.
fn free_waiter(state: &mut SessionState, expects: Option<&RequestId>) -> Result<(), ()> {
    let Some(key) = expects else {
        return Ok(());
    };
    match state.waiters.get(key) {
        Some(waiter) if !waiter.done => Err(()),
        Some(_) => {
            if let Some(done) = state.waiters.remove(key) {
                state.finished.insert(done.number, done.messages);
            }
            Ok(())
        }
        None => Ok(()),
    }
}

type QueryFuture = Pin<Box<dyn Future<Output = (Ticket, Answer)> + Send>>;
type Queries = FuturesUnordered<QueryFuture>;

/// Queries of a session still running when the POST that drained them goes away (client
/// disconnect). Legacy disconnects are not cancellations, and the session may be holding later
/// subscription changes behind one of them: they are finished on a task of their own.
struct Unfinished<'a> {
    session: Arc<LegacyHttpSession>,
    queries: &'a mut Queries,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if self.queries.is_empty() {
            return;
        }
        let queries = std::mem::take(self.queries);
        let session = Arc::clone(&self.session);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { session.run_all(queries).await });
        }
    }
}

/// Routes one message of the session: to the POST waiting for the request it relates to, to
/// `own` (the POST that fed it, for a response without an id), or, unsolicited, to the GET
/// stream's queue. Returns whether it went to the GET stream, which the caller then wakes
/// ([`LegacyHttpSession::wake_stream`]) once it is done routing.
fn route_message(
    state: &mut SessionState,
    outgoing: Outgoing,
    own: Option<&mut Vec<Outgoing>>,
) -> bool {
    match &outgoing.related {
        Some(id) => {
            // A waiter gone (its POST was dropped) or done (cancelled) loses the message.
            let Some(waiter) = state.waiters.get_mut(id).filter(|waiter| !waiter.done) else {
                tracing::debug!(%id, "legacy message for a request nobody waits for is dropped");
                return false;
            };
            let is_response = outgoing.is_response;
            waiter.messages.push(outgoing);
            if is_response {
                waiter.finish();
            }
        }
        None if outgoing.is_response => {
            if let Some(own) = own {
                own.push(outgoing);
            }
        }
        None => match &mut state.stream {
            Some(stream) => {
                stream.frames.push_back(sse::message(&outgoing.bytes));
                return true;
            }
            None => tracing::debug!("unsolicited legacy message without a GET stream is dropped"),
        },
    }
    false
}

/// 32 random bytes from the OS, hex: 64 visible ASCII characters.
fn mint_session_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// POST `initialize`: a new session; its id goes out in `Mcp-Session-Id` when the handshake
/// succeeded.
pub(crate) async fn initialize(
    state: &HttpState,
    sessions: &Arc<Sessions>,
    incoming: Incoming,
    id: RequestId,
) -> Response {
    let Some(place) = sessions.make_room(&state.client, &state.options) else {
        tracing::warn!(
            client = ?state.client,
            max = state.options.max_sessions,
            max_per_client = state.options.max_sessions_per_client,
            "session limit reached; initialize refused"
        );
        return reply::status(axum::http::StatusCode::SERVICE_UNAVAILABLE);
    };
    let session = match LegacyHttpSession::new(
        &state.shared,
        Arc::clone(&state.principal),
        state.client.clone(),
        state.options.session_idle_timeout,
    ) {
        Ok(session) => session,
        Err(error) => {
            tracing::error!(%error, "cannot draw a session id from the operating system");
            return reply::status(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        }
    };
    // A fresh session has nothing in flight.
    let messages = exchange(&session, incoming, Some(id))
        .await
        .unwrap_or_default();
    let initialized = session.lock().session.state() != LifecycleState::Uninitialized;
    if initialized && !session.open_stored().await {
        return reply::status(axum::http::StatusCode::SERVICE_UNAVAILABLE);
    }
    let mut response = reply::messages(messages);
    if initialized {
        sessions.listen(&state.shared);
        tracing::debug!("legacy session opened");
        if let Ok(value) = axum::http::HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_ID, value);
        }
        place.fill(session);
    }
    response
}

/// POST to an existing session; with a store, what it changed in the session is written
/// before its response goes.
pub(crate) async fn post(
    sessions: &Sessions,
    session: &Arc<LegacyHttpSession>,
    incoming: Incoming,
    expects: Option<RequestId>,
) -> Response {
    let has_requests = expects.is_some();
    let cancelled = cancelled_request(&incoming);
    let touched = if session.stored.is_some() {
        touched_fields(&incoming)
    } else {
        Vec::new()
    };
    let Ok(messages) = exchange(session, incoming, expects.clone()).await else {
        return in_flight(expects);
    };
    if !session.write_stored(&touched).await {
        tracing::debug!("legacy session ended through another instance");
        sessions.end_copy(session);
    }
    if let Some(id) = cancelled {
        // The session sends nothing more for a cancelled request: the POST still waiting for
        // it is let go with what it has (without a message, an empty `202`).
        if let Some(waiter) = session.lock().waiters.get_mut(&id) {
            waiter.finish();
        }
    }
    if has_requests || !messages.is_empty() {
        reply::messages(messages)
    } else {
        reply::status(axum::http::StatusCode::ACCEPTED)
    }
}

/// DELETE: ends the session here and, with a store, everywhere (its record removed; every
/// other copy ends when told). `Err(())` when the store cannot remove it.
pub(crate) async fn delete(
    sessions: &Sessions,
    session: &Arc<LegacyHttpSession>,
) -> Result<(), ()> {
    sessions.end_copy(session);
    let Some(stored) = &session.stored else {
        return Ok(());
    };
    stored.store.remove(&stored.key).await.map_err(|error| {
        tracing::warn!(%error, "cannot remove a deleted legacy session from the store");
    })
}

/// DELETE of a session this instance has no copy of: its record is removed, if it is the
/// request's principal's (`Ok(false)` when there is none of theirs), and every copy ends when
/// told. Nothing is taken up to be deleted. `Err(())` when the store cannot be asked.
pub(crate) async fn delete_stored(state: &HttpState, id: &str) -> Result<bool, ()> {
    let Some(store) = &state.shared.store else {
        return Ok(false);
    };
    if !is_session_id(id) {
        return Ok(false);
    }
    let key = stored::key_of(id);
    let unavailable = |error| {
        tracing::warn!(%error, "cannot delete a legacy session from the store");
    };
    let Some(fields) = store.read(&key).await.map_err(unavailable)? else {
        return Ok(false);
    };
    if !stored::Read::parse(&fields).is_some_and(|read| read.belongs_to(&state.principal)) {
        return Ok(false);
    }
    store.remove(&key).await.map_err(unavailable)?;
    Ok(true)
}

/// The fields of a session's record the requests of a body set, as the client last said:
/// each subscription it subscribes to or unsubscribes from, and the log level.
fn touched_fields(incoming: &Incoming) -> Vec<String> {
    let messages: Vec<&Message> = match incoming {
        Incoming::Single(message) => vec![message],
        Incoming::Batch(elements) => elements
            .iter()
            .filter_map(|element| element.as_ref().ok())
            .collect(),
    };
    let mut touched = Vec::new();
    for message in messages {
        let Message::Request(request) = message else {
            continue;
        };
        match request.method.as_str() {
            method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE => {
                let uri = request
                    .params::<mcp_types::resources::UriParams>()
                    .ok()
                    .and_then(|params| ResourceUri::parse(&params.uri).ok());
                if let Some(uri) = uri {
                    touched.push(stored::subscription_field(uri.as_str()));
                }
            }
            method::LOGGING_SET_LEVEL => touched.push(stored::LOG.to_owned()),
            _ => {}
        }
    }
    touched
}

/// `400`: a request with this id is in flight in the session already.
fn in_flight(id: Option<RequestId>) -> Response {
    let error = ErrorObject::new(
        INVALID_REQUEST,
        "a request with this id is already in flight in this session",
    );
    reply::error(axum::http::StatusCode::BAD_REQUEST, id, error)
}

/// The request a `notifications/cancelled` body cancels.
fn cancelled_request(incoming: &Incoming) -> Option<RequestId> {
    match incoming {
        Incoming::Single(Message::Notification(notification))
            if notification.method == method::NOTIFICATION_CANCELLED =>
        {
            notification
                .params::<CancelledNotificationParams>()
                .ok()
                .map(|params| params.request_id)
        }
        _ => None,
    }
}

/// Feeds a body, runs what it leads to, and collects the messages of the POST: up to and with
/// the response of `expects` (or the id-less error answering the body). `Err(())` when a
/// request with the id of `expects` is already in flight.
async fn exchange(
    session: &Arc<LegacyHttpSession>,
    incoming: Incoming,
    expects: Option<RequestId>,
) -> Result<Vec<Outgoing>, ()> {
    let routed = session.feed(incoming, expects.as_ref())?;
    Ok(wait(session, routed, expects).await)
}

/// Runs the queries a fed body led to, and collects the messages of its POST: up to and with
/// the response of `expects` (or the id-less error answering the body).
async fn wait(
    session: &Arc<LegacyHttpSession>,
    routed: Routed,
    expects: Option<RequestId>,
) -> Vec<Outgoing> {
    let Routed {
        number,
        queries,
        own,
    } = routed;
    let Some(key) = expects else {
        // Only the id-less error of an unreadable body is for this POST.
        session.run(queries).await;
        return own;
    };
    let forget = ForgetWaiter {
        session,
        key,
        number,
    };
    session.run(queries).await;
    std::future::poll_fn(|context| session.poll_waiter(&forget.key, number, context)).await
}

/// Removes a POST's waiter when the POST goes away before its response.
struct ForgetWaiter<'a> {
    session: &'a LegacyHttpSession,
    key: RequestId,
    number: u64,
}

impl Drop for ForgetWaiter<'_> {
    fn drop(&mut self) {
        // Taken out of the lock scope: dropping messages and a waker runs foreign code.
        let forgotten = self.session.forget_waiter(&self.key, self.number);
        drop(forgotten);
    }
}

/// GET: the session's standalone SSE stream (one at a time; a second gets 409).
pub(crate) fn open_stream(state: &HttpState, session: Arc<LegacyHttpSession>) -> Response {
    let generation = {
        let mut guard = session.lock();
        if guard.stream.is_some() {
            return reply::status(axum::http::StatusCode::CONFLICT);
        }
        let generation = guard.next_stream;
        guard.next_stream += 1;
        guard.stream = Some(StreamSlot {
            generation,
            frames: VecDeque::new(),
        });
        generation
    };
    // Changes that arrived while no stream was open are waiting in the hub.
    session.changes.notify_one();
    let stream = GetStream::new(
        session,
        generation,
        state.shared.cluster.streams_end(),
        state.options.keep_alive,
    );
    reply::live(stream.frames())
}

/// A session's GET stream: what it waits on (shutdown, the session's wake-up, keep-alive) and
/// the frames it took from the session. It looks at its session, under its lock once, only
/// when the session's wake-up says to: a subscription change, a frame routed to the stream and
/// the session's end all notify it ([`LegacyHttpSession::wake_stream`]).
pub(crate) struct GetStream {
    session: Arc<LegacyHttpSession>,
    generation: u64,
    /// Frames taken from the session, in its order, to send.
    frames: VecDeque<Bytes>,
    /// Ready at shutdown, or when the change feed is lost ([`crate::feed`]): one wait for the
    /// stream's whole life, not one per frame.
    shutdown: Pin<Box<WaitForCancellationFutureOwned>>,
    keep_alive: Interval,
    /// Ticks the session once a second while it waits for the client's answers
    /// ([`Session::tick`]).
    ticks: Interval,
}

impl GetStream {
    fn new(
        session: Arc<LegacyHttpSession>,
        generation: u64,
        shutdown: CancellationToken,
        keep_alive: Duration,
    ) -> GetStream {
        GetStream {
            session,
            generation,
            frames: VecDeque::new(),
            shutdown: Box::pin(shutdown.cancelled_owned()),
            keep_alive: sse::keep_alive_timer(keep_alive),
            ticks: {
                let mut ticks = tokio::time::interval(Duration::from_secs(1));
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                ticks
            },
        }
    }

    /// The stream's frames, until it is over.
    fn frames(self) -> impl futures_util::Stream<Item = Bytes> + Send + 'static {
        futures_util::stream::unfold(self, |mut stream| async move {
            let frame = stream.next_frame().await?;
            Some((frame, stream))
        })
    }

    /// The next frame to send; `None` once the stream is over: the server shut down, the
    /// session closed or has another stream, or its token expired.
    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(frame) = self.frames.pop_front() {
                return Some(frame);
            }
            let asking = self.session.lock().session.is_asking();
            tokio::select! {
                // Frames taken go out first; then, in this order: shutdown, the session (its
                // end, frames, changes), keep-alive.
                biased;
                () = &mut self.shutdown => return None,
                () = self.session.changes.notified() => self.look()?,
                _ = self.ticks.tick(), if asking => self.tick(),
                _ = self.keep_alive.tick() => {
                    // The stream lives no longer than the latest token its session was named
                    // with.
                    if super::auth::expired(&self.session.lock().principal) {
                        tracing::debug!("legacy GET stream ended: its session's token expired");
                        return None;
                    }
                    self.session.keep_stored();
                    return Some(sse::keep_alive());
                }
            }
        }
    }

    /// One second of a session waiting for the client's answers: a read that waited too long
    /// fails, its response routed to its POST.
    fn tick(&mut self) {
        let mut state = self.session.lock();
        state.session.tick();
        while let Some(output) = state.session.poll_output() {
            if let Output::Send(outgoing) = output {
                if outgoing.related.is_none() && !outgoing.is_response {
                    self.frames.push_back(sse::message(&outgoing.bytes));
                } else {
                    route_message(&mut state, outgoing, None);
                }
            }
        }
    }

    /// Looks at the session. `None` once it is closed or has another stream (or none): this
    /// one is over. Otherwise takes the frames routed to this stream, then drains the hub for
    /// the session and feeds the session, whose notifications come to this stream behind those
    /// frames.
    fn look(&mut self) -> Option<()> {
        let GetStream {
            session,
            generation,
            frames,
            ..
        } = self;
        if session.closed.load(Ordering::Acquire) {
            return None;
        }
        let mut guard = session.lock();
        let state = &mut *guard;
        let slot = state
            .stream
            .as_mut()
            .filter(|slot| slot.generation == *generation)?;
        frames.append(&mut slot.frames);
        let legacy = &mut state.session;
        driver::deliver_drained(
            &session.shared.service,
            session.subscriber.id(),
            |changes| legacy.handle_changes(changes),
        );
        // Changes only produce unsolicited messages; anything else is routed as usual.
        while let Some(output) = state.session.poll_output() {
            match output {
                Output::Send(outgoing) if outgoing.related.is_none() && !outgoing.is_response => {
                    frames.push_back(sse::message(&outgoing.bytes));
                }
                Output::Send(outgoing) => {
                    route_message(state, outgoing, None);
                }
                Output::Query { .. } | Output::Cancel { .. } => {
                    debug_assert!(false, "subscription changes produced a query");
                }
            }
        }
        Some(())
    }
}

impl Drop for GetStream {
    fn drop(&mut self) {
        let mut state = self.session.lock();
        if state
            .stream
            .as_ref()
            .is_some_and(|slot| slot.generation == self.generation)
        {
            state.stream = None;
            if state.session.is_asking() {
                state.session.give_up_asking();
                while let Some(output) = state.session.poll_output() {
                    if let Output::Send(outgoing) = output {
                        route_message(&mut state, outgoing, None);
                    }
                }
            }
            drop(state);
            // The session was in use until now: its idle time starts here.
            self.session.touch();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session last named by a request long ago, with its GET stream open.
    fn streaming_session(idle: Duration) -> (Arc<LegacyHttpSession>, reply::LiveStream) {
        streaming_session_with(idle, Duration::from_secs(15))
    }

    /// [`streaming_session`] with a keep-alive each `keep_alive`.
    fn streaming_session_with(
        idle: Duration,
        keep_alive: Duration,
    ) -> (Arc<LegacyHttpSession>, reply::LiveStream) {
        let server = crate::Server::builder().build().unwrap();
        let session = LegacyHttpSession::new(
            &server.shared,
            Arc::new(Principal::anonymous()),
            Client::Unknown,
            Duration::from_secs(3600),
        )
        .unwrap();
        let long_ago = Instant::now().checked_sub(idle * 2).unwrap();
        *session.last_used.lock().unwrap() = long_ago;
        session.lock().stream = Some(StreamSlot {
            generation: 0,
            frames: VecDeque::new(),
        });
        let stream = GetStream::new(
            Arc::clone(&session),
            0,
            CancellationToken::new(),
            keep_alive,
        );
        (session, Box::pin(stream.frames()))
    }

    /// Whether `client` gets a place (given back at once), as if no sweep had run lately.
    fn room(sessions: &Arc<Sessions>, client: &Client, options: &crate::HttpOptions) -> bool {
        sessions.lock().last_sweep = None;
        sessions.make_room(client, options).is_some()
    }

    fn options(max_sessions: usize, max_sessions_per_client: usize) -> crate::HttpOptions {
        crate::HttpOptions {
            max_sessions,
            max_sessions_per_client,
            ..crate::HttpOptions::default()
        }
    }

    #[test]
    fn a_full_table_ends_only_the_asking_clients_least_recently_used_idle_sessions() {
        let server = crate::Server::builder().build().unwrap();
        let sessions = Arc::new(Sessions::default());
        let start = Instant::now()
            .checked_sub(Duration::from_secs(1000))
            .unwrap();
        let alice = Client::Subject("alice".into());
        let victim = Client::Subject("victim".into());
        let mut ids = Vec::new();
        // 300 sessions of alice, the `n`th last used `n` seconds after `start`; the oldest one
        // streams. The victim's one session is the least recently used of all.
        for n in 0..300_u64 {
            let session = LegacyHttpSession::new(
                &server.shared,
                Arc::new(Principal::anonymous()),
                alice.clone(),
                Duration::from_secs(3600),
            )
            .unwrap();
            *session.last_used.lock().unwrap() = start + Duration::from_secs(n);
            if n == 0 {
                session.lock().stream = Some(StreamSlot {
                    generation: 0,
                    frames: VecDeque::new(),
                });
            }
            ids.push(session.id.clone());
            sessions.insert(session);
        }
        let victims = LegacyHttpSession::new(
            &server.shared,
            Arc::new(Principal::anonymous()),
            victim.clone(),
            Duration::from_secs(3600),
        )
        .unwrap();
        *victims.last_used.lock().unwrap() = start.checked_sub(Duration::from_secs(1)).unwrap();
        let victim_id = victims.id.clone();
        sessions.insert(victims);
        assert!(room(&sessions, &alice, &options(302, 1000)));
        assert_eq!(sessions.lock().by_id.len(), 301);
        // Full: one in a hundred of the client's limit goes, its least recently used without a
        // stream; never the victim's.
        assert!(room(&sessions, &alice, &options(301, 301)));
        let table = sessions.lock();
        assert_eq!(table.by_id.len(), 298);
        assert!(
            table.by_id.contains_key(&victim_id),
            "another client's session stays"
        );
        assert!(
            table.by_id.contains_key(&ids[0]),
            "a streaming session stays"
        );
        for id in &ids[1..4] {
            assert!(!table.by_id.contains_key(id));
        }
        assert!(ids[4..].iter().all(|id| table.by_id.contains_key(id)));
        assert_eq!(table.open_for(&alice), 297);
        assert_eq!(table.open_for(&victim), 1);
        drop(table);
        // A third client at a full table has nothing of its own to end: refused.
        let newcomer = Client::Peer("127.0.0.9".parse().unwrap());
        assert!(!room(&sessions, &newcomer, &options(298, 1000)));
        assert_eq!(sessions.lock().by_id.len(), 298);
        // A client at its own limit ends its own idle sessions, whatever the table holds.
        assert!(room(&sessions, &alice, &options(10_000, 297)));
        assert_eq!(
            sessions.lock().open_for(&alice),
            295,
            "one in a hundred of 297"
        );
        // Three quarters full, a client holding a quarter of its share is at its limit, while
        // one holding little still gets a place.
        assert!(!room(&sessions, &alice, &options(390, 300)));
        assert_eq!(
            sessions.lock().open_for(&alice),
            292,
            "its own idle ones went first"
        );
        assert!(room(&sessions, &victim, &options(390, 300)));
        // Sessions used in the last minutes are never ended to make room.
        let bob = Client::Subject("bob".into());
        for _ in 0..2 {
            let session = LegacyHttpSession::new(
                &server.shared,
                Arc::new(Principal::anonymous()),
                bob.clone(),
                Duration::from_secs(3600),
            )
            .unwrap();
            sessions.insert(session);
        }
        assert!(!room(&sessions, &bob, &options(10_000, 2)));
        assert_eq!(sessions.lock().open_for(&bob), 2);
        assert!(sessions.remove(&victim_id));
        assert_eq!(sessions.lock().open_for(&victim), 0);
        assert!(!sessions.lock().per_client.contains_key(&victim));
    }

    /// Counts the wake-ups of the task it stands for.
    #[derive(Default)]
    struct CountingWaker(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn unsolicited(text: &str) -> Outgoing {
        Outgoing {
            bytes: text.as_bytes().to_vec(),
            related: None,
            is_response: false,
        }
    }

    /// Polls `stream` once, for the task of `waker`.
    fn poll_with(stream: &mut reply::LiveStream, waker: &Waker) -> Poll<Option<Bytes>> {
        let mut context = Context::from_waker(waker);
        stream.as_mut().poll_next(&mut context)
    }

    /// Routes the unsolicited messages `1` and `2` to the session's GET stream.
    fn route_two(session: &LegacyHttpSession) {
        let mut state = session.lock();
        assert!(route_message(&mut state, unsolicited("1"), None));
        assert!(route_message(&mut state, unsolicited("2"), None));
    }

    /// In a runtime: a stream's keep-alive needs its timer.
    #[tokio::test]
    async fn frames_routed_to_the_stream_wake_it_in_order_until_it_is_replaced() {
        let (session, mut stream) = streaming_session(Duration::from_secs(60));
        let wakes = Arc::new(CountingWaker::default());
        let waker = Waker::from(Arc::clone(&wakes));
        let poll = |stream: &mut reply::LiveStream| poll_with(stream, &waker);
        assert!(poll(&mut stream).is_pending());
        route_two(&session);
        assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert!(poll(&mut stream).is_pending(), "not told to look yet");
        session.wake_stream();
        assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(poll(&mut stream), Poll::Ready(Some(sse::message(b"1"))));
        assert_eq!(poll(&mut stream), Poll::Ready(Some(sse::message(b"2"))));
        assert!(poll(&mut stream).is_pending());
        // Another stream of the session took the place: this one ends when next told to look.
        session.lock().stream.as_mut().unwrap().generation = 1;
        session.wake_stream();
        assert_eq!(poll(&mut stream), Poll::Ready(None));
    }

    /// In a runtime: a stream's keep-alive needs its timer.
    #[tokio::test]
    async fn a_closed_session_ends_its_stream_after_the_frames_it_took() {
        let (session, mut stream) = streaming_session(Duration::from_secs(60));
        let poll = |stream: &mut reply::LiveStream| poll_with(stream, Waker::noop());
        route_two(&session);
        // Notified: the stream's first poll looks.
        session.wake_stream();
        assert_eq!(poll(&mut stream), Poll::Ready(Some(sse::message(b"1"))));
        session.close();
        assert_eq!(poll(&mut stream), Poll::Ready(Some(sse::message(b"2"))));
        assert_eq!(poll(&mut stream), Poll::Ready(None));
        // A stream opened on the session afterwards ends at its first look too.
        let mut later: reply::LiveStream = Box::pin(
            GetStream::new(
                Arc::clone(&session),
                0,
                CancellationToken::new(),
                Duration::from_secs(15),
            )
            .frames(),
        );
        session.wake_stream();
        assert_eq!(poll(&mut later), Poll::Ready(None));
    }

    /// On tokio's paused clock: the timer's instants are exact, whatever the machine's load
    /// (the wall clock made this flaky).
    #[tokio::test(start_paused = true)]
    async fn a_stream_with_nothing_to_send_sends_a_keep_alive_each_period() {
        use tokio::time::Instant;
        let period = Duration::from_millis(30);
        let (_session, mut stream) = streaming_session_with(Duration::from_secs(60), period);
        let started = Instant::now();
        assert_eq!(stream.next().await, Some(sse::keep_alive()));
        let first = Instant::now();
        assert!(
            first - started >= period,
            "due a whole period after it opened"
        );
        assert_eq!(stream.next().await, Some(sse::keep_alive()));
        assert!(
            first.elapsed() >= period,
            "due a whole period after the last"
        );
    }

    /// In a runtime: a stream's keep-alive needs its timer.
    #[tokio::test]
    async fn a_session_idles_from_when_its_get_stream_closed() {
        let idle = Duration::from_secs(60);
        let (session, stream) = streaming_session(idle);
        assert!(!session.expired(idle), "an open GET stream keeps it alive");
        drop(stream);
        assert!(
            !session.expired(idle),
            "the idle time starts when the stream closes, not at the last request"
        );
    }
}
