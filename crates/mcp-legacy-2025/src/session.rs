//! The legacy session: one state machine per stdio process or Streamable HTTP session, from
//! `initialize` to the end of the connection.
//!
//! **Layer:** adapter. Decoded messages, engine answers and subscription changes go in;
//! [`Output`]s (messages to write, queries to run, queries to drop) come out of
//! [`Session::poll_output`]. The lifecycle is a small explicit state machine
//! ([`LifecycleState`]), in the style of async-lsp's `Lifecycle`. This module must never read a
//! clock, await, spawn, or touch a socket, and never knows the modern era.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use mcp_resources_core::error::ReadError;
use mcp_resources_core::input::{InputRequired, Inputs};
use mcp_resources_core::service::{Answer, Offer, Query};
use mcp_resources_core::subscription::Change;
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_wire::output::{Outgoing, Output, Ticket};
use mcp_resources_wire::tools::{self, CallError, ToolCall};
use mcp_resources_wire::{Shape, input};
use mcp_types::capabilities::ClientCapabilities;
use mcp_types::completion::{CompleteParams, CompletionReference};
use mcp_types::jsonrpc::{
    self, DecodeError, ErrorObject, Incoming, Message, Notification, Outcome, RawValue, Request,
    Response,
};
use mcp_types::lifecycle::{EmptyResult, Implementation, InitializeParams};
use mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelParams};
use mcp_types::meta::{self, Meta, ProgressToken};
use mcp_types::method;
use mcp_types::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use mcp_types::resources::{PaginatedParams, ResourceUpdatedNotificationParams, UriParams};
use mcp_types::skills::{
    DirectoryReadParams, EraFields, GetSkillParams, GetSkillResult, ListSkillsParams,
    ListSkillsResult,
};
use mcp_types::{Era, ProtocolVersion, RequestId};
use serde::Serialize;

use crate::asking::Asks;
use crate::errors::{self, RequestError};
use crate::wire;

/// What a legacy session serves and says about itself. Shared by every session of a server.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyConfig {
    /// The server's `serverInfo`, in its newest shape; each session narrows it to its version.
    pub server_info: Implementation,
    /// The `instructions` of the `initialize` result.
    pub instructions: Option<String>,
    /// What the service offers (from `Service::offer`): decides the declared capabilities and
    /// which methods answer at all.
    pub offer: Offer,
    /// The legacy versions this server accepts. A client asking for one of them gets it; any
    /// other client gets the newest of them. Versions that are not of the legacy era are
    /// ignored; when none is left, 2025-11-25 is used.
    pub supported: Vec<ProtocolVersion>,
}

impl LegacyConfig {
    /// A configuration supporting the four legacy versions, without instructions.
    pub fn new(server_info: Implementation, offer: Offer) -> LegacyConfig {
        LegacyConfig {
            server_info,
            instructions: None,
            offer,
            supported: LegacyConfig::all_legacy_versions(),
        }
    }

    /// 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25.
    pub fn all_legacy_versions() -> Vec<ProtocolVersion> {
        ProtocolVersion::KNOWN
            .into_iter()
            .filter(|version| version.era() == Some(Era::Legacy))
            .collect()
    }

    /// The version to answer `requested` with: itself when supported, else the newest supported
    /// legacy version.
    pub fn negotiate(&self, requested: &ProtocolVersion) -> ProtocolVersion {
        let supported = self
            .supported
            .iter()
            .filter(|version| version.era() == Some(Era::Legacy));
        if supported.clone().any(|version| version == requested) {
            return requested.clone();
        }
        supported
            .max()
            .cloned()
            .unwrap_or(ProtocolVersion::LATEST_LEGACY)
    }
}

/// Where a session is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LifecycleState {
    /// No `initialize` yet: only `initialize` and `ping` are answered.
    Uninitialized,
    /// `initialize` was answered; waiting for `notifications/initialized`. Requests are
    /// already served (the client has the result), but no resource notification is sent.
    Initializing,
    /// `notifications/initialized` arrived: everything is served, and resource notifications
    /// flow.
    Ready,
}

/// The request a pending query answers.
#[derive(Clone, Debug)]
struct Origin {
    id: RequestId,
    batch: Option<Slot>,
    progress: Option<ProgressToken>,
}

/// What a pending query was for, with what its response needs.
#[derive(Clone, Debug)]
enum Purpose {
    ListResources,
    ListTemplates,
    Read {
        uri: String,
    },
    Complete,
    ListDirectory {
        uri: String,
    },
    ListSkills,
    GetSkill {
        uri: String,
    },
    Subscribe {
        uri: String,
    },
    Unsubscribe,
    /// The session's own `WatchListChanges` after `notifications/initialized`: no response.
    WatchListChanges,
    /// A `tools/call` of the resources-as-tools bridge.
    Tool {
        call: Box<ToolCall>,
    },
}

impl Purpose {
    /// Whether the query changes the subscription state, so that its order matters.
    fn is_state_changing(&self) -> bool {
        matches!(
            self,
            Purpose::Subscribe { .. } | Purpose::Unsubscribe | Purpose::WatchListChanges
        )
    }
}

#[derive(Debug)]
struct Pending {
    origin: Option<Origin>,
    purpose: Purpose,
    /// The client cancelled a state-changing request: its query still runs (to keep the order
    /// of subscription changes) but no response is sent.
    cancelled: bool,
}

/// Where a response goes in a batch: which batch, and the position of its request.
#[derive(Clone, Copy, Debug)]
struct Slot {
    batch: u64,
    index: usize,
}

/// The responses of one batch, sent as one JSON array once every request is answered.
#[derive(Debug, Default)]
struct Batch {
    /// Requests of the batch not answered yet.
    waiting: usize,
    /// Whether every element of the batch has been dispatched.
    sealed: bool,
    /// The responses so far, with the position of their element in the batch.
    responses: Vec<(usize, Box<RawValue>)>,
    first_id: Option<RequestId>,
}

/// The session's maps, looked up on every request: foldhash instead of SipHash. Request ids
/// are chosen by the client, so the hasher is seeded at random for each map (foldhash's
/// `RandomState`), and a client could only slow down its own session's lookups anyway.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// A legacy MCP session: the sans-io state machine of one client connection.
///
/// See the [crate documentation](crate) for the driving contract.
#[derive(Debug)]
pub struct Session {
    config: Arc<LegacyConfig>,
    state: LifecycleState,
    version: Option<ProtocolVersion>,
    log_level: LoggingLevel,
    next_ticket: u64,
    next_batch: u64,
    pending: FastMap<Ticket, Pending>,
    in_flight: FastMap<RequestId, Ticket>,
    /// State-changing queries waiting for the one being run (`ordered_busy`) to be answered.
    ordered: VecDeque<(Ticket, Query)>,
    ordered_busy: Option<Ticket>,
    batches: FastMap<u64, Batch>,
    outputs: VecDeque<Output>,
    /// Changes fed while `Initializing`, delivered once `Ready`. Already coalesced by the hub,
    /// and kept without duplicates, so bounded by what the session subscribed to.
    held_changes: Vec<Change>,
    /// What the client declared in `initialize`.
    client: ClientCapabilities,
    /// Reads waiting for the client's answers to the server's own requests.
    asks: Asks<Origin>,
}

/// The level below which log messages are not sent until the client calls `logging/setLevel`.
pub const DEFAULT_LOG_LEVEL: LoggingLevel = LoggingLevel::Info;

/// What of an initialized session outlives the process serving it: enough for another process
/// to go on serving its requests ([`Session::restore`]). Requests in flight, and the
/// server's own requests waiting for answers, stay with the process; subscriptions are the
/// hub's, kept apart by whoever keeps this record.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SessionRecord {
    /// The version `initialize` negotiated.
    pub version: ProtocolVersion,
    /// What the client declared in `initialize`.
    pub client: ClientCapabilities,
    /// Whether `notifications/initialized` arrived.
    pub ready: bool,
    /// The level the client asked for with `logging/setLevel`.
    pub log_level: LoggingLevel,
}

impl Session {
    /// A new, uninitialized session.
    pub fn new(config: Arc<LegacyConfig>) -> Session {
        Session {
            config,
            state: LifecycleState::Uninitialized,
            version: None,
            log_level: DEFAULT_LOG_LEVEL,
            next_ticket: 0,
            next_batch: 0,
            pending: FastMap::default(),
            in_flight: FastMap::default(),
            ordered: VecDeque::new(),
            ordered_busy: None,
            batches: FastMap::default(),
            outputs: VecDeque::new(),
            held_changes: Vec::new(),
            client: ClientCapabilities::default(),
            asks: Asks::default(),
        }
    }

    /// A session that goes on from `record`, made by another process (or an earlier copy in
    /// this one): no request in flight. Ready, it watches list changes at once (an
    /// [`Output::Query`] to run), as after `notifications/initialized`. A version that is not
    /// of the legacy era is negotiated again, as `initialize` would.
    pub fn restore(config: Arc<LegacyConfig>, record: &SessionRecord) -> Session {
        let mut session = Session::new(config);
        let version = match record.version.era() {
            Some(Era::Legacy) => record.version.clone(),
            _ => session.config.negotiate(&record.version),
        };
        session.version = Some(version);
        session.client = record.client.clone();
        session.state = LifecycleState::Initializing;
        session.follow(record);
        session
    }

    /// What of this session outlives the process; `None` before `initialize`.
    pub fn record(&self) -> Option<SessionRecord> {
        Some(SessionRecord {
            version: self.version.clone()?,
            client: self.client.clone(),
            ready: self.state == LifecycleState::Ready,
            log_level: self.log_level,
        })
    }

    /// Takes what another copy of this session changed (`record`, as it wrote it): its log
    /// level, and its readiness (as if `notifications/initialized` arrived here; a session
    /// never goes back). The version and the client's capabilities never change.
    pub fn follow(&mut self, record: &SessionRecord) {
        self.log_level = record.log_level;
        if record.ready && self.state == LifecycleState::Initializing {
            self.become_ready();
        }
    }

    /// Whether a read waits for the client's answers to the server's own requests: while it
    /// does, the driver calls [`Session::tick`] about once a second.
    pub fn is_asking(&self) -> bool {
        !self.asks.is_empty()
    }

    /// About one second passed: a read that has waited [`ASK_TICKS`](crate::ASK_TICKS) ticks
    /// for the client's answers fails (the contents are never served without them).
    pub fn tick(&mut self) {
        for ask in self.asks.tick() {
            self.in_flight.remove(&ask.origin.id);
            let error = errors::input_timed_out(&ask.uri);
            self.respond(ask.origin.id, ask.origin.batch, Err::<(), _>(error));
        }
    }

    /// The version `initialize` negotiated; `None` before it.
    pub fn negotiated_version(&self) -> Option<&ProtocolVersion> {
        self.version.as_ref()
    }

    /// Where the session is in its lifecycle.
    pub fn state(&self) -> LifecycleState {
        self.state
    }

    /// The level at and above which [`Session::log`] sends messages.
    pub fn log_level(&self) -> LoggingLevel {
        self.log_level
    }

    /// The next effect to carry out, or `None` when there is nothing to do until the next
    /// input.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// Feeds the result of decoding one stdio line or one POST body. Only requests are
    /// answered: a notification or a response, even one that did not decode
    /// ([`DecodeError::is_answered`]), never is; this server sends no requests, so every
    /// response is unsolicited and ignored.
    pub fn handle_incoming(&mut self, incoming: Result<Incoming, DecodeError>) {
        match incoming {
            Err(error) if !error.is_answered() => {}
            Err(error) => {
                self.send_response(error.id().cloned(), Err::<(), _>(error.to_error_object()))
            }
            Ok(Incoming::Single(message)) => self.handle_message(message, None),
            Ok(Incoming::Batch(elements)) => self.handle_batch(elements),
        }
    }

    /// Feeds the answer to the query of `ticket`. Answers to cancelled or unknown tickets are
    /// ignored.
    pub fn handle_answer(&mut self, ticket: Ticket, answer: Answer) {
        if self.ordered_busy == Some(ticket) {
            self.ordered_busy = None;
            if let Some((next, query)) = self.ordered.pop_front() {
                self.ordered_busy = Some(next);
                self.outputs.push_back(Output::Query {
                    ticket: next,
                    query,
                });
            }
        }
        let Some(pending) = self.pending.remove(&ticket) else {
            return;
        };
        let Some(origin) = pending.origin else {
            // The session's own WatchListChanges: its answer produces no message (a refusal
            // only means no list-changed notifications will come).
            return;
        };
        // A cancelled request's id may have been reused since; only forget it if it is ours.
        if self.in_flight.get(&origin.id) == Some(&ticket) {
            self.in_flight.remove(&origin.id);
        }
        if pending.cancelled {
            self.finish_without_response(origin.batch);
            return;
        }
        let answer = match (&pending.purpose, answer) {
            (Purpose::Read { uri }, Answer::Read(Err(ReadError::InputRequired { input, .. }))) => {
                self.ask_client(origin, uri.clone(), *input);
                return;
            }
            (_, answer) => answer,
        };
        let Origin {
            id,
            batch,
            progress,
        } = origin;
        if let Some(token) = progress {
            self.send_progress(&id, token);
        }
        self.answer_request(id, batch, &pending.purpose, answer);
    }

    /// Answers request `id` (of `batch`, if any), made for `purpose`, with the service's
    /// answer.
    fn answer_request(
        &mut self,
        id: RequestId,
        batch: Option<Slot>,
        purpose: &Purpose,
        answer: Answer,
    ) {
        match (purpose, answer) {
            // The result borrows the contents from the answer.
            (Purpose::Read { uri }, Answer::Read(read)) => match read {
                Ok(output) => {
                    let result = wire::read(&output.contents);
                    self.respond(id, batch, Ok(&result));
                }
                Err(error) => {
                    let error = errors::read(&error, uri);
                    self.respond(id, batch, Err::<(), _>(error));
                }
            },
            (purpose, answer) => {
                let outcome = self.outcome(purpose, answer);
                self.respond(id, batch, outcome);
            }
        }
    }

    /// The server's requests cannot reach the client (over HTTP: the session has no GET
    /// stream): every read waiting for answers fails now, rather than when it times out.
    pub fn give_up_asking(&mut self) {
        for ask in self.asks.take_all() {
            self.in_flight.remove(&ask.origin.id);
            let error = errors::input_undeliverable(&ask.uri);
            self.respond(ask.origin.id, ask.origin.batch, Err::<(), _>(error));
        }
    }

    /// Sends the client the requests that the read `origin` of `uri` needs answered, or
    /// answers it with an error when the client cannot be asked: it did not declare a
    /// capability the requests need (elicitation needs 2025-06-18 or later too), or too many
    /// of its reads wait already.
    fn ask_client(&mut self, origin: Origin, uri: String, needed: InputRequired) {
        let elicits = self
            .version
            .as_ref()
            .is_some_and(ProtocolVersion::has_titles);
        let mut client = self.client.clone();
        if !elicits {
            client.elicitation = None;
        }
        if let Some(missing) = input::missing_capabilities(&needed.requests, &client) {
            let names = input::capability_names(&missing);
            let error = errors::input_unsupported(&uri, &names);
            self.respond(origin.id, origin.batch, Err::<(), _>(error));
            return;
        }
        if !self.asks.has_room() {
            let error = errors::too_many_asks(&uri);
            self.respond(origin.id, origin.batch, Err::<(), _>(error));
            return;
        }
        // Still in flight: a request reusing its id is refused, a cancellation reaches it.
        let placeholder = Ticket::new(self.next_ticket);
        self.next_ticket += 1;
        self.in_flight.insert(origin.id.clone(), placeholder);
        let with_mode = self
            .version
            .as_ref()
            .is_some_and(ProtocolVersion::has_icons);
        let id = origin.id.clone();
        for bytes in self.asks.start(id, origin, uri, needed, with_mode) {
            // Not related to the read: over HTTP it goes on the GET stream, since the read's
            // own response stream is answered whole, once the read is done.
            self.push_unsolicited(bytes);
        }
    }

    /// The client answered one of the server's own requests: once a read has every answer,
    /// it is read again with them.
    fn input_answered(&mut self, response: &Response<Box<RawValue>>) {
        let Some((ask, inputs)) = self.asks.answer(response) else {
            return;
        };
        let Ok(uri) = ResourceUri::parse(&ask.uri) else {
            return;
        };
        let Origin {
            id,
            batch,
            progress,
        } = ask.origin;
        let purpose = Purpose::Read { uri: ask.uri };
        self.ask(&id, batch, progress, purpose, Query::Read { uri, inputs });
    }

    /// Feeds the pending subscription changes of this session's subscriber (from
    /// `Service::drain_changes`). They become `notifications/resources/updated` and
    /// `notifications/resources/list_changed` once the session is ready: changes fed while
    /// `Initializing` are held (without duplicates) and sent when `notifications/initialized`
    /// arrives, since the hub has already handed them over; before `initialize` there is
    /// nothing the client could have subscribed to, and they are dropped.
    pub fn handle_changes(&mut self, changes: impl IntoIterator<Item = Change>) {
        match self.state {
            LifecycleState::Ready => self.deliver_changes(changes, &mut Session::push_unsolicited),
            LifecycleState::Initializing => {
                for change in changes {
                    if !self.held_changes.contains(&change) {
                        self.held_changes.push(change);
                    }
                }
            }
            LifecycleState::Uninitialized => {}
        }
    }

    /// Turns changes into the notifications of the kinds the session offers, each handed to
    /// `emit`.
    fn deliver_changes(
        &mut self,
        changes: impl IntoIterator<Item = Change>,
        emit: &mut impl FnMut(&mut Session, Vec<u8>),
    ) {
        for change in changes {
            let bytes = match change {
                Change::ListChanged if self.config.offer.list_changed => {
                    let params: Option<Meta> = None;
                    notification_bytes(method::NOTIFICATION_RESOURCES_LIST_CHANGED, params)
                }
                Change::ResourceUpdated(uri) if self.config.offer.subscribe => {
                    let params = ResourceUpdatedNotificationParams {
                        uri: uri.to_string(),
                        meta: None,
                    };
                    notification_bytes(method::NOTIFICATION_RESOURCES_UPDATED, Some(params))
                }
                Change::ListChanged | Change::ResourceUpdated(_) => None,
            };
            if let Some(bytes) = bytes {
                emit(self, bytes);
            }
        }
    }

    /// Queues an unsolicited message: no request relates to it.
    fn push_unsolicited(&mut self, bytes: Vec<u8>) {
        self.outputs.push_back(Output::Send(Outgoing {
            bytes,
            related: None,
            is_response: false,
        }));
    }

    /// Sends `notifications/message` to the client if `level` is at or above the level the
    /// client asked for (`logging/setLevel`; [`DEFAULT_LOG_LEVEL`] until then) and the session
    /// has been initialized. Returns whether a message was queued.
    ///
    /// `data` must hold nothing secret: no credentials, personal data or internals.
    pub fn log(
        &mut self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: serde_json::Value,
    ) -> bool {
        if self.version.is_none() || level < self.log_level {
            return false;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        self.send_notification(method::NOTIFICATION_MESSAGE, Some(params));
        true
    }

    fn handle_batch(&mut self, elements: Vec<Result<Message, DecodeError>>) {
        if !self
            .version
            .as_ref()
            .is_some_and(ProtocolVersion::allows_batches)
        {
            let error = RequestError::batch_not_allowed(self.version.as_ref());
            self.send_response(None, Err::<(), _>(error.to_error_object()));
            return;
        }
        let batch = self.next_batch;
        self.next_batch += 1;
        self.batches.insert(batch, Batch::default());
        for (index, element) in elements.into_iter().enumerate() {
            let slot = Slot { batch, index };
            match element {
                Ok(message) => self.handle_message(message, Some(slot)),
                // A would-be notification or response has no place among the responses.
                Err(error) if !error.is_answered() => {}
                Err(error) => {
                    let response = Response::<Box<RawValue>>::error(
                        error.id().cloned(),
                        error.to_error_object(),
                    );
                    self.push_batch_response(slot, &response);
                }
            }
        }
        if let Some(state) = self.batches.get_mut(&batch) {
            state.sealed = true;
        }
        self.flush_batch(batch);
    }

    fn handle_message(&mut self, message: Message, batch: Option<Slot>) {
        match message {
            Message::Request(request) => self.handle_request(request, batch),
            Message::Notification(notification) => self.handle_notification(&notification),
            // Answers to the server's own requests; any other response is ignored.
            Message::Response(response) => self.input_answered(&response),
        }
    }

    fn handle_notification(&mut self, notification: &Notification) {
        match notification.method.as_str() {
            method::NOTIFICATION_INITIALIZED if self.state == LifecycleState::Initializing => {
                self.become_ready();
            }
            method::NOTIFICATION_CANCELLED => {
                if let Ok(params) = notification.params::<CancelledNotificationParams>() {
                    self.cancel(&params.request_id);
                }
            }
            // `initialized` in another state, roots/list_changed, progress and unknown
            // notifications need nothing (a malformed cancellation is ignored too).
            _ => {}
        }
    }

    /// `Initializing` to `Ready`: held changes go out, and list changes are watched.
    fn become_ready(&mut self) {
        self.state = LifecycleState::Ready;
        let held = std::mem::take(&mut self.held_changes);
        self.deliver_changes(held, &mut Session::push_unsolicited);
        if self.config.offer.list_changed {
            self.enqueue(
                None,
                Purpose::WatchListChanges,
                Query::WatchListChanges { enabled: true },
            );
        }
    }

    fn handle_request(&mut self, request: Request, batch: Option<Slot>) {
        self.serve_request(request.id.clone(), batch, |session| {
            session.dispatch(&request, batch)
        });
    }

    /// Serves the request `id`: refused if a request with this id is in flight, else answered
    /// as `dispatch` says (now, later, or with an error).
    fn serve_request(
        &mut self,
        id: RequestId,
        batch: Option<Slot>,
        dispatch: impl FnOnce(&mut Session) -> Result<Reply, RequestError>,
    ) {
        if let Some(state) = batch.and_then(|slot| self.batches.get_mut(&slot.batch)) {
            state.waiting += 1;
            state.first_id.get_or_insert_with(|| id.clone());
        }
        if self.in_flight.contains_key(&id) {
            let error = RequestError::DuplicateId(id.clone());
            self.respond(id, batch, Err::<(), _>(error.to_error_object()));
            return;
        }
        match dispatch(self) {
            Ok(Reply::Now(result)) => {
                let outcome = result.map_err(|error| errors::unserializable(&error));
                self.respond(id, batch, outcome);
            }
            Ok(Reply::Later) => {}
            Err(error) => self.respond(id, batch, Err::<(), _>(error.to_error_object())),
        }
    }

    fn dispatch(&mut self, request: &Request, batch: Option<Slot>) -> Result<Reply, RequestError> {
        let method = request.method.as_str();
        if method == method::PING {
            return reply_now(&EmptyResult::default());
        }
        if method == method::INITIALIZE {
            if batch.is_some() {
                return Err(RequestError::InitializeInBatch);
            }
            return self.initialize(request);
        }
        let version = self.negotiated()?;
        let offer = self.config.offer;
        match method {
            method::RESOURCES_LIST => {
                let params: PaginatedParams = request.params()?;
                let query = Query::ListResources {
                    cursor: params.cursor,
                };
                Ok(self.ask(
                    &request.id,
                    batch,
                    progress_of(params.meta.as_ref()),
                    Purpose::ListResources,
                    query,
                ))
            }
            method::RESOURCES_TEMPLATES_LIST => {
                let params: PaginatedParams = request.params()?;
                let query = Query::ListTemplates {
                    cursor: params.cursor,
                };
                Ok(self.ask(
                    &request.id,
                    batch,
                    progress_of(params.meta.as_ref()),
                    Purpose::ListTemplates,
                    query,
                ))
            }
            method::RESOURCES_READ => {
                let params: UriParams = request.params()?;
                let progress = progress_of(params.meta.as_ref());
                self.read(&request.id, batch, params.uri, progress)
            }
            method::RESOURCES_DIRECTORY_READ if offer.directories => {
                let params: DirectoryReadParams = request.params()?;
                let query = Query::ReadDirectory {
                    uri: parse_uri(&params.uri)?,
                    cursor: params.cursor,
                };
                let purpose = Purpose::ListDirectory { uri: params.uri };
                let progress = progress_of(params.meta.as_ref());
                Ok(self.ask(&request.id, batch, progress, purpose, query))
            }
            method::SKILLS_LIST if offer.directories => {
                let params: ListSkillsParams = request.params()?;
                let progress = progress_of(params.meta.as_ref());
                let query = Query::ListSkills {
                    cursor: params.cursor,
                };
                Ok(self.ask(&request.id, batch, progress, Purpose::ListSkills, query))
            }
            method::SKILLS_GET if offer.directories => {
                let params: GetSkillParams = request.params()?;
                let query = Query::GetSkill {
                    uri: parse_uri(&params.uri)?,
                };
                let purpose = Purpose::GetSkill { uri: params.uri };
                let progress = progress_of(params.meta.as_ref());
                Ok(self.ask(&request.id, batch, progress, purpose, query))
            }
            method::TOOLS_LIST if offer.tools => {
                let titled = version.has_titles();
                reply_now(&serde_json::json!({ "tools": tools::definitions(titled, offer) }))
            }
            method::TOOLS_CALL if offer.tools => {
                let params: CallToolParams = request.params()?;
                match tools::parse(&params.name, params.arguments.as_ref(), offer) {
                    Err(CallError::UnknownTool(text)) => Err(RequestError::UnknownTool(text)),
                    Err(CallError::BadArguments(text)) => reply_now(&tools::failure(&text)),
                    Ok(call) => {
                        let query = call.query();
                        let purpose = Purpose::Tool {
                            call: Box::new(call),
                        };
                        let progress = progress_of(params.meta.as_ref());
                        Ok(self.ask(&request.id, batch, progress, purpose, query))
                    }
                }
            }
            method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE if !offer.subscribe => {
                Err(RequestError::MethodNotFound(format!(
                    "{method} (this server does not offer resource subscriptions)"
                )))
            }
            method::RESOURCES_SUBSCRIBE => {
                let params: UriParams = request.params()?;
                let uri = parse_uri(&params.uri)?;
                let purpose = Purpose::Subscribe { uri: params.uri };
                Ok(self.ask(
                    &request.id,
                    batch,
                    progress_of(params.meta.as_ref()),
                    purpose,
                    Query::Subscribe { uri },
                ))
            }
            method::RESOURCES_UNSUBSCRIBE => {
                let params: UriParams = request.params()?;
                let uri = parse_uri(&params.uri)?;
                let query = Query::Unsubscribe { uri };
                Ok(self.ask(
                    &request.id,
                    batch,
                    progress_of(params.meta.as_ref()),
                    Purpose::Unsubscribe,
                    query,
                ))
            }
            method::COMPLETION_COMPLETE if !offer.completions => Err(RequestError::MethodNotFound(
                format!("{method} (this server does not offer completions)"),
            )),
            method::COMPLETION_COMPLETE => {
                let params: CompleteParams = request.params()?;
                let CompletionReference::Resource(reference) = params.reference else {
                    return Err(RequestError::NoPrompts);
                };
                let mut context = Variables::new();
                if version.has_completion_context() {
                    let arguments = params.context.and_then(|context| context.arguments);
                    for (name, value) in arguments.into_iter().flatten() {
                        context.insert(name, value);
                    }
                }
                let query = Query::Complete {
                    template: reference.uri,
                    variable: params.argument.name,
                    prefix: params.argument.value,
                    context,
                };
                Ok(self.ask(
                    &request.id,
                    batch,
                    progress_of(params.meta.as_ref()),
                    Purpose::Complete,
                    query,
                ))
            }
            method::LOGGING_SET_LEVEL => {
                let params: SetLevelParams = request.params()?;
                self.log_level = params.level;
                reply_now(&EmptyResult::default())
            }
            _ => Err(RequestError::MethodNotFound(method.to_owned())),
        }
    }

    fn initialize(&mut self, request: &Request) -> Result<Reply, RequestError> {
        if self.state != LifecycleState::Uninitialized {
            return Err(RequestError::AlreadyInitialized);
        }
        let params: InitializeParams = request.params()?;
        let version = self.config.negotiate(&params.protocol_version);
        self.client = params.capabilities;
        let result = wire::initialize(
            &version,
            self.config.offer,
            &self.config.server_info,
            self.config.instructions.as_deref(),
        );
        self.version = Some(version);
        self.state = LifecycleState::Initializing;
        Ok(Reply::Now(result))
    }

    /// Registers a query for `request` and emits it (or queues it behind earlier
    /// state-changing ones).
    /// The version `initialize` negotiated: every method but `ping` and `initialize` needs one.
    fn negotiated(&self) -> Result<ProtocolVersion, RequestError> {
        self.version.clone().ok_or(RequestError::NotInitialized)
    }

    /// `resources/read`, once the session is initialized.
    fn read(
        &mut self,
        id: &RequestId,
        batch: Option<Slot>,
        text: String,
        progress: Option<ProgressToken>,
    ) -> Result<Reply, RequestError> {
        let uri = parse_uri(&text)?;
        let purpose = Purpose::Read { uri: text };
        let inputs = Inputs::default();
        Ok(self.ask(id, batch, progress, purpose, Query::Read { uri, inputs }))
    }

    /// Asks the query of request `id`, whose final progress notification, when it carried a
    /// `progress` token, goes out just before its response.
    fn ask(
        &mut self,
        id: &RequestId,
        batch: Option<Slot>,
        progress: Option<ProgressToken>,
        purpose: Purpose,
        query: Query,
    ) -> Reply {
        let origin = Origin {
            id: id.clone(),
            batch,
            progress,
        };
        let ticket = self.enqueue(Some(origin), purpose, query);
        self.in_flight.insert(id.clone(), ticket);
        Reply::Later
    }

    fn enqueue(&mut self, origin: Option<Origin>, purpose: Purpose, query: Query) -> Ticket {
        let ticket = Ticket::new(self.next_ticket);
        self.next_ticket += 1;
        let state_changing = purpose.is_state_changing();
        self.pending.insert(
            ticket,
            Pending {
                origin,
                purpose,
                cancelled: false,
            },
        );
        if state_changing && self.ordered_busy.is_some() {
            self.ordered.push_back((ticket, query));
        } else {
            if state_changing {
                self.ordered_busy = Some(ticket);
            }
            self.outputs.push_back(Output::Query { ticket, query });
        }
        ticket
    }

    fn cancel(&mut self, id: &RequestId) {
        let Some(ticket) = self.in_flight.remove(id) else {
            return;
        };
        if let Some(ask) = self.asks.cancel(id) {
            self.finish_without_response(ask.origin.batch);
            return;
        }
        let Some(pending) = self.pending.get_mut(&ticket) else {
            return;
        };
        if pending.purpose.is_state_changing() {
            // Subscription changes are instant and ordered: let it run, send nothing back.
            pending.cancelled = true;
            return;
        }
        let batch = pending.origin.as_ref().and_then(|origin| origin.batch);
        self.pending.remove(&ticket);
        self.outputs.push_back(Output::Cancel { ticket });
        self.finish_without_response(batch);
    }

    /// The response to a pending query other than a read (see [`Session::handle_answer`]),
    /// from its answer.
    fn outcome(&self, purpose: &Purpose, answer: Answer) -> Result<Box<RawValue>, ErrorObject> {
        let shape = self.shape();
        let encoded = match (purpose, answer) {
            (Purpose::ListResources, Answer::Resources(page)) => {
                wire::list_resources(page.map_err(|error| errors::list(&error))?, shape)
            }
            (Purpose::ListDirectory { uri }, Answer::Directory(page)) => {
                wire::list_resources(page.map_err(|error| errors::directory(&error, uri))?, shape)
            }
            (Purpose::ListSkills, Answer::Skills(page)) => {
                let page = page.map_err(|error| errors::list(&error))?;
                let skills = page.items.iter().map(mcp_resources_wire::skill).collect();
                wire::raw(&ListSkillsResult {
                    era: EraFields::legacy(),
                    skills,
                    next_cursor: page.next_cursor,
                    meta: None,
                })
            }
            (Purpose::GetSkill { uri }, Answer::Skill(found)) => {
                let found = found.map_err(|error| errors::skill(&error, uri))?;
                // The skill as asked for: its URI is the one the request spelled.
                let mut skill = mcp_resources_wire::skill(&found.skill);
                skill.uri.clone_from(uri);
                wire::raw(&GetSkillResult {
                    era: EraFields::legacy(),
                    skill,
                    meta: None,
                })
            }
            (Purpose::ListTemplates, Answer::Templates(page)) => {
                wire::list_templates(page.map_err(|error| errors::list(&error))?, shape)
            }
            (Purpose::Complete, Answer::Completion(completion)) => {
                wire::complete(completion.map_err(|error| errors::complete(&error))?)
            }
            (Purpose::Subscribe { uri }, Answer::Subscribed(result)) => {
                result.map_err(|error| errors::subscription(&error, uri))?;
                wire::raw(&EmptyResult::default())
            }
            (Purpose::Unsubscribe, Answer::Unsubscribed) => wire::raw(&EmptyResult::default()),
            (Purpose::Tool { call }, answer) => {
                let structured = self
                    .version
                    .as_ref()
                    .is_some_and(ProtocolVersion::has_titles);
                wire::raw(&call.result(answer, shape, structured))
            }
            _ => return Err(errors::mismatched_answer()),
        };
        encoded.map_err(|error| errors::unserializable(&error))
    }

    /// The shape of the negotiated version (the newest before one is).
    fn shape(&self) -> Shape {
        Shape::of(
            self.version
                .as_ref()
                .unwrap_or(&ProtocolVersion::LATEST_LEGACY),
        )
    }

    /// Queues the final `notifications/progress` of request `id`, which carried the progress
    /// `token`: the work is one step, and it is done. Nothing before a version is negotiated
    /// (never, for a request the session serves).
    fn send_progress(&mut self, id: &RequestId, token: ProgressToken) {
        let Some(version) = self.version.as_ref() else {
            return;
        };
        let message = version.has_progress_message().then(|| "done".to_owned());
        let params = ProgressNotificationParams::done(token, message);
        if let Some(bytes) = notification_bytes(method::NOTIFICATION_PROGRESS, Some(params)) {
            self.outputs.push_back(Output::Send(Outgoing {
                bytes,
                related: Some(id.clone()),
                is_response: false,
            }));
        }
    }

    fn send_notification<P: Serialize>(&mut self, method: &str, params: Option<P>) {
        if let Some(bytes) = notification_bytes(method, params) {
            self.push_unsolicited(bytes);
        }
    }

    /// Answers a request: directly (serializing `outcome` straight into its message), or into
    /// its batch.
    fn respond<R: Serialize>(
        &mut self,
        id: RequestId,
        batch: Option<Slot>,
        outcome: Result<R, ErrorObject>,
    ) {
        let Some(slot) = batch else {
            self.send_response(Some(id), outcome);
            return;
        };
        let response = to_response(Some(id), outcome);
        self.push_batch_response(slot, &response);
        self.finish_without_response(Some(slot));
    }

    fn finish_without_response(&mut self, batch: Option<Slot>) {
        let Some(slot) = batch else {
            return;
        };
        if let Some(state) = self.batches.get_mut(&slot.batch) {
            state.waiting = state.waiting.saturating_sub(1);
        }
        self.flush_batch(slot.batch);
    }

    fn push_batch_response<R: Serialize>(&mut self, slot: Slot, response: &Response<R>) {
        // Responses of our wire types always serialize.
        if let (Ok(raw), Some(state)) = (wire::raw(response), self.batches.get_mut(&slot.batch)) {
            state.responses.push((slot.index, raw));
        }
    }

    /// Sends the batch's array once it is sealed and fully answered.
    fn flush_batch(&mut self, batch: u64) {
        let Some(state) = self.batches.get(&batch) else {
            return;
        };
        if !state.sealed || state.waiting > 0 {
            return;
        }
        let Some(mut state) = self.batches.remove(&batch) else {
            return;
        };
        if state.responses.is_empty() {
            return;
        }
        // In the order of the batch's elements, whatever the order of the answers.
        state.responses.sort_by_key(|(index, _)| *index);
        let responses: Vec<Box<RawValue>> = state
            .responses
            .into_iter()
            .map(|(_, response)| response)
            .collect();
        if let Ok(bytes) = jsonrpc::to_vec(&responses) {
            self.outputs.push_back(Output::Send(Outgoing {
                bytes,
                related: state.first_id,
                is_response: true,
            }));
        }
    }

    fn send_response<R: Serialize>(
        &mut self,
        id: Option<RequestId>,
        outcome: Result<R, ErrorObject>,
    ) {
        let response = to_response(id.clone(), outcome);
        self.push_response(id, jsonrpc::to_vec(&response));
    }

    /// Queues the response to `id` written as `bytes`, or an internal error in its place when
    /// it could not be written.
    fn push_response(&mut self, id: Option<RequestId>, bytes: Result<Vec<u8>, serde_json::Error>) {
        let bytes = bytes.or_else(|error| {
            let failure = to_response::<()>(id.clone(), Err(errors::unserializable(&error)));
            jsonrpc::to_vec(&failure)
        });
        // An error object always serializes.
        if let Ok(bytes) = bytes {
            self.outputs.push_back(Output::Send(Outgoing {
                bytes,
                related: id,
                is_response: true,
            }));
        }
    }
}

/// How a request is answered.
enum Reply {
    /// Now, with this result.
    Now(Result<Box<RawValue>, serde_json::Error>),
    /// When the answer to its query is fed.
    Later,
}

fn reply_now<T: Serialize>(result: &T) -> Result<Reply, RequestError> {
    Ok(Reply::Now(wire::raw(result)))
}

/// The bytes of the notification `method` with `params`; `None` if they do not serialize,
/// which the params the session sends always do.
fn notification_bytes<P: Serialize>(method: &str, params: Option<P>) -> Option<Vec<u8>> {
    jsonrpc::to_vec(&Notification::new(method, params)).ok()
}

/// The progress token of a request's `_meta`, if it holds a valid one.
fn progress_of(meta: Option<&Meta>) -> Option<ProgressToken> {
    meta.and_then(meta::progress_token)
}

fn parse_uri(text: &str) -> Result<ResourceUri, RequestError> {
    ResourceUri::parse(text).map_err(|error| RequestError::InvalidUri {
        uri: text.to_owned(),
        error,
    })
}

fn to_response<R>(id: Option<RequestId>, outcome: Result<R, ErrorObject>) -> Response<R> {
    Response {
        id,
        outcome: match outcome {
            Ok(result) => Outcome::Success(result),
            Err(error) => Outcome::Failure(error),
        },
    }
}

/// The params of `tools/call`: the tool and its arguments (checked by the bridge).
#[derive(Debug, serde::Deserialize)]
struct CallToolParams {
    name: String,
    #[serde(default)]
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}
