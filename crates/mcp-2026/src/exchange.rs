//! One request in flight: an [`Exchange`] turns the service's [`Answer`] into the response, and
//! for `subscriptions/listen` runs the stream (acknowledgment first, then tagged
//! notifications, then a graceful close or a cancellation).
//!
//! **Layer:** adapter, the `to_wire` side and the listen-stream state machine. Its states:
//! `Awaiting` (one query out, waiting for its answer), `Listening` (acknowledged; changes
//! become notifications) and `Finished` (nothing more will ever be produced). Every message of
//! an exchange relates to its request id; request-scoped progress and log notifications never
//! go on a listen stream. This module must never know a transport, a clock or a subscriber id.

use std::collections::VecDeque;
use std::sync::Arc;

use mcp_resources_core::error::ReadError;
use mcp_resources_core::input::InputRequired;
use mcp_resources_core::pagination::Page;
use mcp_resources_core::resource::Resource;
use mcp_resources_core::service::Answer;
use mcp_resources_core::subscription::Change;
use mcp_resources_wire::input;
use mcp_resources_wire::output::{Outgoing, Output, Ticket};
use mcp_resources_wire::tools::{self, ToolCall};
use mcp_resources_wire::{self as to_wire, Shape};
use mcp_types::capabilities::ClientCapabilities;
use mcp_types::jsonrpc::{self, Notification, RequestId, Response};
use mcp_types::lifecycle::server_info_meta;
use mcp_types::meta::{self, Meta, ProgressToken};
use mcp_types::method;
use mcp_types::request_meta::RequestMeta;
use mcp_types::skills::{EraFields, GetSkillResult, ListSkillsResult, SkillsSettings};
use mcp_types::v2026_07_28::{self as wire, LoggingLevel};
use serde::Serialize;

use crate::config::Shared;
use crate::convert;
use crate::errors::RequestError;

/// What the answer of the query in flight will be turned into.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Pending {
    /// A `resources/list` page.
    ListResources,
    /// A `resources/templates/list` page.
    ListTemplates,
    /// A `resources/read` of `uri`, as the client sent it.
    Read {
        /// The URI as the client sent it (named in a not-found error).
        uri: String,
        /// The client capabilities the request declared: a read that needs input asks only
        /// through these.
        declared: Box<ClientCapabilities>,
    },
    /// A `resources/directory/read` page of `uri`, as the client sent it.
    ListDirectory {
        /// The URI as the client sent it (named in a not-a-directory error).
        uri: String,
    },
    /// A `skills/list` page.
    ListSkills,
    /// A `skills/get` of `uri`, as the client sent it.
    GetSkill {
        /// The URI as the client sent it (named in an unknown-skill error).
        uri: String,
    },
    /// A `completion/complete`.
    Complete,
    /// A `tools/call` of the resources-as-tools bridge.
    Tool(Box<ToolCall>),
    /// The acknowledgment of a `subscriptions/listen`.
    Listen {
        /// Whether the filter had `resourceSubscriptions` at all.
        asked_updates: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum State {
    Awaiting { ticket: Ticket, pending: Pending },
    Listening { updates: bool, list_changes: bool },
    Finished,
}

/// One request being served; for `subscriptions/listen`, a long-lived stream.
///
/// Drain [`Exchange::poll_output`] after every call that feeds it. The exchange never reads the
/// clock.
#[derive(Debug)]
pub struct Exchange {
    id: RequestId,
    shared: Arc<Shared>,
    outputs: VecDeque<Output>,
    state: State,
    http_status: u16,
    listen: bool,
    log_level: Option<LoggingLevel>,
    progress_token: Option<ProgressToken>,
    /// Changes fed to a listen stream before its acknowledgment, delivered right after it.
    early_changes: Vec<Change>,
}

impl Exchange {
    fn new(shared: Arc<Shared>, id: RequestId, meta: Option<&RequestMeta>) -> Exchange {
        Exchange {
            id,
            shared,
            // Room for what most exchanges give out (a read: its query and its response, or
            // its response alone), made at once: growing the queue from empty would take a
            // path of its own through the allocator at every request.
            outputs: VecDeque::with_capacity(2),
            state: State::Finished,
            http_status: 200,
            listen: false,
            log_level: meta.and_then(|meta| meta.log_level),
            progress_token: meta.and_then(|meta| meta.progress_token.clone()),
            early_changes: Vec::new(),
        }
    }

    /// An exchange whose only output is the error response for `error`.
    pub(crate) fn failed(shared: Arc<Shared>, id: RequestId, error: &RequestError) -> Exchange {
        let mut exchange = Exchange::new(shared, id, None);
        exchange.respond_error(error);
        exchange
    }

    /// An exchange answering `tools/list` of the resources-as-tools bridge at once: the same
    /// for everyone (private when every result is), with no ttl.
    pub(crate) fn answered_tools(
        shared: Arc<Shared>,
        id: RequestId,
        meta: &RequestMeta,
    ) -> Exchange {
        let mut exchange = Exchange::new(shared, id, Some(meta));
        let private = exchange.shared.config.private_results;
        let result = serde_json::json!({
            "resultType": "complete",
            "tools": tools::definitions(true, exchange.shared.config.offer),
            "ttlMs": 0,
            "cacheScope": if private { "private" } else { "public" },
            "_meta": exchange.result_meta(),
        });
        exchange.respond(&result);
        exchange
    }

    /// An exchange answering a `tools/call` whose arguments are refused with a tool error.
    pub(crate) fn answered_tool_error(
        shared: Arc<Shared>,
        id: RequestId,
        meta: &RequestMeta,
        text: &str,
    ) -> Exchange {
        let mut exchange = Exchange::new(shared, id, Some(meta));
        let mut result = tools::failure(text);
        exchange.finish_tool(&mut result);
        exchange
    }

    /// Finishes with a `CallToolResult` of these members, `resultType` and `_meta` added.
    fn finish_tool(&mut self, result: &mut Meta) {
        result.insert("resultType".to_owned(), serde_json::Value::from("complete"));
        result.insert(
            "_meta".to_owned(),
            serde_json::Value::Object(self.result_meta()),
        );
        self.finish_with(&*result);
    }

    /// An exchange answering `server/discover` at once.
    pub(crate) fn answered_discover(
        shared: Arc<Shared>,
        id: RequestId,
        meta: &RequestMeta,
    ) -> Exchange {
        let mut exchange = Exchange::new(shared, id, Some(meta));
        let config = &exchange.shared.config;
        let offer = config.offer;
        let resources = wire::ServerCapabilities {
            resources: Some(mcp_types::capabilities::ResourcesCapability {
                subscribe: offer.subscribe.then_some(true),
                list_changed: offer.list_changed.then_some(true),
            }),
            completions: offer.completions.then(Meta::new),
            logging: Some(Meta::new()),
            tools: offer
                .tools
                .then(mcp_types::capabilities::ListChangedCapability::default),
            extensions: offer.directories.then(|| {
                SkillsSettings {
                    directory_read: true,
                }
                .declaration()
            }),
            ..wire::ServerCapabilities::default()
        };
        let result = wire::DiscoverResult {
            result_type: wire::ResultType::COMPLETE,
            supported_versions: config.supported_versions(),
            capabilities: resources,
            instructions: config.instructions.clone(),
            ttl_ms: config.discover_ttl_ms,
            // The same for everyone, but private when the configuration says every result is.
            cache_scope: if config.private_results {
                wire::CacheScope::Private
            } else {
                wire::CacheScope::Public
            },
            meta: Some(exchange.result_meta()),
        };
        exchange.respond(&result);
        exchange
    }

    /// An exchange with one query out.
    pub(crate) fn querying(
        shared: Arc<Shared>,
        id: RequestId,
        meta: &RequestMeta,
        ticket: Ticket,
        query: mcp_resources_core::service::Query,
        pending: Pending,
    ) -> Exchange {
        let mut exchange = Exchange::new(shared, id, Some(meta));
        exchange.listen = matches!(pending, Pending::Listen { .. });
        if exchange.listen {
            // Request-scoped notifications never go on a listen stream.
            exchange.log_level = None;
            exchange.progress_token = None;
        }
        exchange.state = State::Awaiting { ticket, pending };
        exchange.outputs.push_back(Output::Query { ticket, query });
        exchange
    }

    /// The next thing to do, or `None` when there is nothing until the exchange is fed again.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// Feeds the answer to the query of `ticket`. Answers to other tickets, and answers after
    /// a cancellation or a close, are ignored.
    pub fn handle_answer(&mut self, ticket: Ticket, answer: Answer) {
        let State::Awaiting {
            ticket: expected, ..
        } = &self.state
        else {
            return;
        };
        if *expected != ticket {
            return;
        }
        let State::Awaiting { pending, .. } = std::mem::replace(&mut self.state, State::Finished)
        else {
            return;
        };
        self.answer(pending, answer);
    }

    /// Answers the request, made for `pending`, with the service's answer: every arm finishes
    /// the exchange or moves it to `Listening`.
    fn answer(&mut self, pending: Pending, answer: Answer) {
        match (pending, answer) {
            (Pending::ListResources, Answer::Resources(page)) => match page {
                Ok(page) => self.finish_with_resources(page),
                Err(error) => self.finish_with_error(&RequestError::from_list(error)),
            },
            // The extension reuses the shape of `resources/list`, cache hints included.
            (Pending::ListDirectory { uri }, Answer::Directory(page)) => match page {
                Ok(page) => self.finish_with_resources(page),
                Err(error) => {
                    self.finish_with_error(&RequestError::from_directory(error, &uri));
                }
            },
            (Pending::ListTemplates, Answer::Templates(page)) => match page {
                Ok(page) => {
                    let templates = page.items.into_iter().map(to_wire::template).collect();
                    let hints =
                        convert::cache_hints(page.cache, self.shared.config.private_results);
                    let mut result =
                        wire::ListResourceTemplatesResult::new(templates, page.next_cursor, hints);
                    result.meta = Some(self.result_meta());
                    self.finish_with(&result);
                }
                Err(error) => self.finish_with_error(&RequestError::from_list(error)),
            },
            (Pending::Read { uri, declared }, Answer::Read(read)) => match read {
                // The engine never answers an existing resource with no contents; should a
                // provider do so, the client still gets "not found", never empty contents.
                Ok(output) if output.contents.is_empty() => {
                    self.finish_with_error(&RequestError::ResourceNotFound { uri });
                }
                Ok(output) => {
                    let shared = Arc::clone(&self.shared);
                    let hints = convert::cache_hints(output.cache, shared.config.private_results);
                    let result = wire::ReadResourceResult {
                        result_type: wire::ResultType::COMPLETE,
                        contents: output.contents.iter().map(to_wire::contents).collect(),
                        ttl_ms: hints.ttl_ms,
                        cache_scope: hints.cache_scope,
                        meta: Some(&*shared.result_meta),
                    };
                    self.finish_with(&result);
                }
                Err(ReadError::InputRequired { input, .. }) => self.ask_input(&input, &declared),
                Err(error) => self.finish_with_error(&RequestError::from_read(error, &uri)),
            },
            (Pending::ListSkills, Answer::Skills(page)) => match page {
                Ok(page) => {
                    let skills = page.items.iter().map(to_wire::skill).collect();
                    let hints =
                        convert::cache_hints(page.cache, self.shared.config.private_results);
                    let mut result = ListSkillsResult {
                        era: EraFields::modern(hints),
                        skills,
                        next_cursor: page.next_cursor,
                        meta: None,
                    };
                    result.meta = Some(self.result_meta());
                    self.finish_with(&result);
                }
                Err(error) => self.finish_with_error(&RequestError::from_list(error)),
            },
            (Pending::GetSkill { uri }, Answer::Skill(found)) => match found {
                Ok(found) => {
                    let hints =
                        convert::cache_hints(found.cache, self.shared.config.private_results);
                    // The skill as asked for: its URI is the one the request spelled.
                    let mut skill = to_wire::skill(&found.skill);
                    skill.uri = uri;
                    let mut result = GetSkillResult {
                        era: EraFields::modern(hints),
                        skill,
                        meta: None,
                    };
                    result.meta = Some(self.result_meta());
                    self.finish_with(&result);
                }
                Err(error) => self.finish_with_error(&RequestError::from_skill(error, &uri)),
            },
            (Pending::Complete, Answer::Completion(completion)) => match completion {
                Ok(completion) => {
                    let result = wire::CompleteResult {
                        result_type: wire::ResultType::COMPLETE,
                        completion: to_wire::completion(completion),
                        meta: Some(self.result_meta()),
                    };
                    self.finish_with(&result);
                }
                Err(error) => self.finish_with_error(&RequestError::from_complete(error)),
            },
            (Pending::Tool(call), answer) => {
                let mut result = call.result(answer, Shape::Newest, true);
                self.finish_tool(&mut result);
            }
            (Pending::Listen { asked_updates }, Answer::Listening { uris, list_changes }) => {
                self.acknowledge(asked_updates, uris, list_changes);
            }
            (_, _) => self.finish_with_error(&RequestError::Internal {
                public_message: "the service gave an answer of the wrong kind".to_owned(),
            }),
        }
    }

    /// Finishes with an `InputRequiredResult` asking for `input`, or with `-32021` when it
    /// needs a capability the request did not declare (the spec forbids asking through one).
    /// It carries no cache hints.
    fn ask_input(&mut self, input: &InputRequired, declared: &ClientCapabilities) {
        if let Some(required) = input::missing_capabilities(&input.requests, declared) {
            self.finish_with_error(&RequestError::MissingClientCapability {
                required: Box::new(required),
            });
            return;
        }
        let result = wire::InputRequiredResult {
            result_type: wire::ResultType::INPUT_REQUIRED,
            input_requests: Some(input::requests(&input.requests)),
            request_state: input.state.clone(),
            meta: Some(self.result_meta()),
        };
        self.finish_with(&result);
    }

    /// Finishes with a page of resources: `resources/list` and `resources/directory/read`.
    fn finish_with_resources(&mut self, page: Page<Resource>) {
        let resources = page
            .items
            .iter()
            .map(|resource| to_wire::listed(resource, Shape::Newest, Some))
            .collect();
        let hints = convert::cache_hints(page.cache, self.shared.config.private_results);
        let mut result = wire::ListResourcesResult::new(resources, page.next_cursor, hints);
        result.meta = Some(self.result_meta());
        self.finish_with(&result);
    }

    /// Feeds the changes the service drained for this listen stream's subscriber. Only the
    /// kinds the stream acknowledged become notifications, each tagged with the listen id.
    /// Changes fed while the listen query is still out (the hub may wake the subscriber before
    /// the answer is fed back) are held and delivered right after the acknowledgment. Ignored
    /// after the stream ended and on other exchanges.
    pub fn handle_changes(&mut self, changes: impl IntoIterator<Item = Change>) {
        self.feed_changes(changes, &mut Exchange::send_notification);
    }

    /// Feeds changes, each notification to `emit`.
    fn feed_changes(
        &mut self,
        changes: impl IntoIterator<Item = Change>,
        emit: &mut impl FnMut(&mut Exchange, Vec<u8>),
    ) {
        let (updates, list_changes) = match &self.state {
            State::Listening {
                updates,
                list_changes,
            } => (*updates, *list_changes),
            State::Awaiting {
                pending: Pending::Listen { .. },
                ..
            } => {
                // Held without duplicates, as the hub coalesces them.
                for change in changes {
                    if !self.early_changes.contains(&change) {
                        self.early_changes.push(change);
                    }
                }
                return;
            }
            State::Awaiting { .. } | State::Finished => return,
        };
        self.deliver(changes, updates, list_changes, emit);
    }

    /// Turns changes into the notifications of the kinds the stream acknowledged, each handed
    /// to `emit`.
    fn deliver(
        &mut self,
        changes: impl IntoIterator<Item = Change>,
        updates: bool,
        list_changes: bool,
        emit: &mut impl FnMut(&mut Exchange, Vec<u8>),
    ) {
        for change in changes {
            let bytes = match change {
                Change::ListChanged if list_changes => {
                    let params = wire::ResourceListChangedNotificationParams {
                        meta: Some(meta::subscription_meta(&self.id)),
                    };
                    notification(method::NOTIFICATION_RESOURCES_LIST_CHANGED, &params)
                }
                Change::ResourceUpdated(uri) if updates => {
                    let params = wire::ResourceUpdatedNotificationParams {
                        uri: uri.as_ref().to_owned(),
                        meta: Some(meta::subscription_meta(&self.id)),
                    };
                    notification(method::NOTIFICATION_RESOURCES_UPDATED, &params)
                }
                Change::ListChanged | Change::ResourceUpdated(_) => continue,
            };
            emit(self, bytes);
        }
    }

    /// Ends a listen stream gracefully (server shutdown): answers the listen request with
    /// `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId": id}}`.
    /// A query still out is cancelled. On stdio the binary then also sends
    /// [`cancelled_notification`]. No effect on other exchanges.
    pub fn close(&mut self) {
        if !self.listen || self.state == State::Finished {
            return;
        }
        if let State::Awaiting { ticket, .. } = self.state {
            self.outputs.push_back(Output::Cancel { ticket });
        }
        let mut meta = meta::subscription_meta(&self.id);
        meta.extend(self.result_meta());
        let result = wire::SubscriptionsListenResult {
            result_type: wire::ResultType::COMPLETE,
            meta,
        };
        self.finish_with(&result);
    }

    /// The client cancelled (stdio `notifications/cancelled`, HTTP disconnect): nothing more is
    /// ever sent, messages not yet drained included. A query still out comes back as
    /// [`Output::Cancel`] (unless it was not drained yet, then it simply disappears).
    pub fn cancel(&mut self) {
        let undrained_query = self
            .outputs
            .iter()
            .any(|output| matches!(output, Output::Query { .. }));
        self.outputs.clear();
        if let State::Awaiting { ticket, .. } = self.state {
            if !undrained_query {
                self.outputs.push_back(Output::Cancel { ticket });
            }
        }
        self.state = State::Finished;
    }

    /// Sends `notifications/message` for this request, if its `_meta` asked for a log level at
    /// or below `level` and the response is not out yet. Never on a listen stream.
    pub fn log(&mut self, level: LoggingLevel, logger: Option<&str>, data: serde_json::Value) {
        let asked = self.log_level.is_some_and(|minimum| level >= minimum);
        if !asked || self.state == State::Finished || self.listen {
            return;
        }
        let params = wire::LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        self.notify(method::NOTIFICATION_MESSAGE, &params);
    }

    /// Whether this exchange is a `subscriptions/listen` stream (one that passed validation).
    pub fn is_listen(&self) -> bool {
        self.listen
    }

    /// Whether the exchange will produce nothing more than what is still queued.
    pub fn is_finished(&self) -> bool {
        self.state == State::Finished
    }

    /// The HTTP status of the response: 200, or 400 / 404 for the spec-mandated error cases.
    pub fn http_status(&self) -> u16 {
        self.http_status
    }

    /// The id of the request served.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }

    fn acknowledge(&mut self, asked_updates: bool, uris: Vec<String>, list_changes: bool) {
        let offers_updates = asked_updates && self.shared.config.offer.subscribe;
        let updates = offers_updates && !uris.is_empty();
        let notifications = wire::SubscriptionFilter {
            tools_list_changed: None,
            prompts_list_changed: None,
            resources_list_changed: list_changes.then_some(true),
            resource_subscriptions: offers_updates.then_some(uris),
        };
        let params = wire::SubscriptionsAcknowledgedNotificationParams {
            meta: meta::subscription_meta(&self.id),
            notifications,
        };
        self.notify(method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED, &params);
        self.state = State::Listening {
            updates,
            list_changes,
        };
        let early = std::mem::take(&mut self.early_changes);
        if !early.is_empty() {
            // Queued, behind the acknowledgment.
            self.deliver(
                early,
                updates,
                list_changes,
                &mut Exchange::send_notification,
            );
        }
    }

    /// `_meta` of every result: the server identity.
    fn result_meta(&self) -> Meta {
        server_info_meta(&self.shared.config.server_info)
    }

    fn finish_with<R: Serialize>(&mut self, result: &R) {
        self.progress_done();
        self.respond(result);
    }

    fn finish_with_error(&mut self, error: &RequestError) {
        self.progress_done();
        self.respond_error(error);
    }

    /// The final `notifications/progress` of a request that carried a progress token: the work
    /// is one step, and it is done.
    fn progress_done(&mut self) {
        if let Some(token) = self.progress_token.take() {
            let params = wire::ProgressNotificationParams::done(token, None);
            self.notify(method::NOTIFICATION_PROGRESS, &params);
        }
    }

    /// Sends the response carrying `result`.
    fn respond<R: Serialize>(&mut self, result: &R) {
        let response = Response::success(self.id.clone(), result);
        let bytes = jsonrpc::to_vec(&response).unwrap_or_else(|_| unencodable(&self.id));
        self.send(bytes, true);
        self.state = State::Finished;
    }

    fn respond_error(&mut self, error: &RequestError) {
        self.http_status = error.http_status();
        let response: Response<()> =
            Response::error(Some(self.id.clone()), error.to_error_object());
        self.send(encode(&response), true);
        self.state = State::Finished;
    }

    fn notify<P: Serialize>(&mut self, method: &str, params: &P) {
        self.send_notification(notification(method, params));
    }

    /// Queues a notification of this request.
    fn send_notification(&mut self, bytes: Vec<u8>) {
        self.send(bytes, false);
    }

    fn send(&mut self, bytes: Vec<u8>, is_response: bool) {
        self.outputs.push_back(Output::Send(Outgoing {
            bytes,
            related: Some(self.id.clone()),
            is_response,
        }));
    }
}

/// `notifications/cancelled {requestId: listen_id}`: what the server sends on stdio, after the
/// graceful result, when it tears a listen stream down (the only use of a server-sent cancel).
pub fn cancelled_notification(listen_id: &RequestId) -> Outgoing {
    let params = wire::CancelledNotificationParams {
        request_id: listen_id.clone(),
        reason: None,
        meta: None,
    };
    Outgoing {
        bytes: encode(&Notification::new(
            method::NOTIFICATION_CANCELLED,
            Some(params),
        )),
        related: Some(listen_id.clone()),
        is_response: false,
    }
}

/// A notification's bytes, through serde.
fn notification<P: Serialize>(method: &str, params: &P) -> Vec<u8> {
    encode(&Notification::new(method, Some(params)))
}

/// The error response sent instead of a result that could not be encoded.
fn unencodable(id: &RequestId) -> Vec<u8> {
    encode(&Response::<()>::error(
        Some(id.clone()),
        RequestError::Internal {
            public_message: "the result could not be encoded".to_owned(),
        }
        .to_error_object(),
    ))
}

/// Compact JSON. The wire types always serialize (string keys, no fallible `Serialize`); the
/// fallback is a bare internal error so that a message is never silently lost.
fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    jsonrpc::to_vec(message).unwrap_or_else(|_| {
        br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"internal error: a message could not be encoded"}}"#
            .to_vec()
    })
}
