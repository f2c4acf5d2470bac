//! The per-request [`Handler`]: validates a request's `_meta` and version, dispatches its
//! method, and starts one [`Exchange`] for it.
//!
//! **Layer:** adapter, the `from_wire` side. Checks run in a fixed order: `params._meta` and its
//! required keys (`-32602`, HTTP 400), then the version (`-32022`, HTTP 400), then the method
//! (`-32601`, HTTP 404), then the method's own params. The handler holds no protocol state
//! between requests (only a ticket counter), so it is shared by reference across every request
//! of a server. This module must never know a transport, a clock or the legacy era.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mcp_resources_core::service::{Answer, Query};
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_types::capabilities::ClientCapabilities;
use mcp_types::jsonrpc::{self, ErrorObject, Request, RequestId};
use mcp_types::meta::{self, Meta, ProgressToken};
use mcp_types::request_meta::{RequestMeta, RequestMetaError};
use mcp_types::v2026_07_28 as wire;
use mcp_types::{ProtocolVersion, method};
use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::compact::{self, CompactRead};
use crate::config::{ModernConfig, Shared};
use crate::errors::RequestError;
use crate::exchange::{Exchange, Pending};
use crate::headers::{self, HeaderError, RequestHeaders};
use crate::output::Ticket;

/// Serves 2026-07-28 requests: one [`Exchange`] per request. Stateless and shareable (`&self`).
#[derive(Debug)]
pub struct Handler {
    shared: Arc<Shared>,
    next_ticket: AtomicU64,
}

impl Handler {
    /// A handler presenting the server as `config` says.
    pub fn new(config: Arc<ModernConfig>) -> Handler {
        Handler {
            shared: Arc::new(Shared::new(config)),
            next_ticket: AtomicU64::new(1),
        }
    }

    /// The configuration the handler was made with.
    pub fn config(&self) -> &ModernConfig {
        &self.shared.config
    }

    /// Starts serving one request (already decoded; the binary has already chosen the modern
    /// era). Drain the exchange with [`Exchange::poll_output`].
    ///
    /// Checks, in this order: `params._meta` with its required keys, the protocol version, the
    /// method, the method's params. The first failure is the exchange's only output.
    pub fn start(&self, request: Request, now: Instant) -> Exchange {
        self.start_checked(request, None, now)
    }

    /// [`Handler::start`] with the request's `_meta` (and a read's params) already read by
    /// [`Handler::start_http`], so that they are not read twice.
    fn start_checked(&self, request: Request, checked: Option<Checked>, now: Instant) -> Exchange {
        let _ = now;
        let dispatched = self.dispatch(&request, checked);
        self.exchange(request.id, dispatched)
    }

    /// The exchange for request `id`, dispatched.
    fn exchange(&self, id: RequestId, dispatched: Result<Dispatch, RequestError>) -> Exchange {
        match dispatched {
            Ok(Dispatch::Discover(meta)) => {
                Exchange::answered_discover(self.shared.clone(), id, &meta)
            }
            Ok(Dispatch::Query {
                meta,
                query,
                pending,
            }) => {
                let ticket = Ticket(self.next_ticket.fetch_add(1, Ordering::Relaxed));
                Exchange::querying(self.shared.clone(), id, &meta, ticket, query, pending)
            }
            Err(error) => Exchange::failed(self.shared.clone(), id, &error),
        }
    }

    /// Starts serving `line` (one stdio line) when it is a `resources/read` request of this
    /// era in its usual shape ([`ReadLine::parse`]): [`Handler::start`] without decoding the
    /// line first. `None` for any other line: decode it and [`Handler::start`] it then, which
    /// gives the same exchange, or says what is wrong. Which era a line belongs to is the
    /// transport's decision: this serves it as a modern request (it carries the version key in
    /// `_meta`, and it is not `initialize`), so call it where the transport's rules say so, such
    /// as stdio while no legacy session is open.
    pub fn start_read_line(&self, line: &[u8], now: Instant) -> Option<Exchange> {
        self.start_read_line_with(line, now, Err)
    }

    /// Starts serving a read already read with [`ReadLine::parse`], as [`Handler::start`]
    /// serves it.
    pub fn start_read(&self, read: ReadLine, now: Instant) -> Exchange {
        self.start_read_with(read, now, Err)
    }

    /// Like [`start_read_line`](Self::start_read_line), with `answer_now` to answer the read's
    /// query on the spot when it can (a static resource; `Err` gives the query back): the
    /// exchange of such a read comes back finished, its response queued, and never gives out
    /// an [`Output::Query`](crate::Output::Query). Any other read's exchange gives out the
    /// query `answer_now` gave back, as usual.
    pub fn start_read_line_with(
        &self,
        line: &[u8],
        now: Instant,
        answer_now: impl FnOnce(Query) -> Result<Answer, Query>,
    ) -> Option<Exchange> {
        ReadLine::parse(line).map(|read| self.start_read_with(read, now, answer_now))
    }

    /// Starts serving a read already read with [`ReadLine::parse`], as
    /// [`Handler::start_read_line_with`] serves it.
    pub fn start_read_with(
        &self,
        read: ReadLine,
        now: Instant,
        answer_now: impl FnOnce(Query) -> Result<Answer, Query>,
    ) -> Exchange {
        self.exchange_of(self.answer_read_with(read, now, answer_now))
    }

    /// Serves a read already read with [`ReadLine::parse`], as
    /// [`Handler::start_read_with`] does, but gives a read that `answer_now` answers with
    /// contents as its messages alone (the response, after the final progress notification
    /// when progress was asked): no [`Exchange`] is made for it. The transport writes them,
    /// or refuses the request if its id is in flight, as it would an exchange's.
    pub fn answer_read_with(
        &self,
        read: ReadLine,
        now: Instant,
        answer_now: impl FnOnce(Query) -> Result<Answer, Query>,
    ) -> ReadStart {
        let _ = now;
        let ReadLine { id, mut meta, read } = read;
        let checked = self
            .supports(meta.version())
            .and_then(|()| read_query(read));
        match checked {
            Ok((query, pending)) => match answer_now(query) {
                Ok(Answer::Read(Ok(output))) if !output.contents.is_empty() => {
                    // Written first, as the exchange writes it: a message's buffer is taken
                    // from the thread's spare, which the response, the larger, should get.
                    let response = crate::exchange::read_response(&self.shared, &id, &output);
                    let progress = meta.take_progress().map(crate::exchange::progress_done);
                    ReadStart::Answered {
                        id,
                        progress,
                        response,
                    }
                }
                Ok(answer) => ReadStart::Exchange(Exchange::answered(
                    self.shared.clone(),
                    id,
                    &meta.into_full(),
                    pending,
                    answer,
                )),
                Err(query) => ReadStart::Exchange(self.exchange(
                    id,
                    Ok(Dispatch::Query {
                        meta: meta.into_full(),
                        query,
                        pending,
                    }),
                )),
            },
            Err(error) => ReadStart::Exchange(self.exchange(id, Err(error))),
        }
    }

    /// The exchange of a read as [`Handler::answer_read_with`] started it: a read answered
    /// there becomes an exchange with its response queued.
    fn exchange_of(&self, start: ReadStart) -> Exchange {
        match start {
            ReadStart::Answered {
                id,
                progress,
                response,
            } => Exchange::responded(self.shared.clone(), id, progress, response),
            ReadStart::Exchange(exchange) => exchange,
        }
    }

    /// Starts serving a read that came over Streamable HTTP, already read with
    /// [`ReadLine::parse`], as [`Handler::start_http`] serves it: the headers are checked
    /// against the body first.
    pub fn start_http_read(
        &self,
        read: ReadLine,
        headers: &RequestHeaders<'_>,
        now: Instant,
    ) -> Exchange {
        self.start_http_read_with(read, headers, now, Err)
    }

    /// Like [`start_http_read`](Self::start_http_read), answering the read's query on the spot
    /// when `answer_now` can, as [`Handler::start_read_with`] does.
    pub fn start_http_read_with(
        &self,
        read: ReadLine,
        headers: &RequestHeaders<'_>,
        now: Instant,
        answer_now: impl FnOnce(Query) -> Result<Answer, Query>,
    ) -> Exchange {
        self.exchange_of(self.answer_http_read_with(read, headers, now, answer_now))
    }

    /// [`Handler::answer_read_with`] for a read that came over Streamable HTTP: the headers
    /// are checked against the body first, as [`Handler::start_http_read`] checks them. An
    /// answered read's response goes out with HTTP status 200, as a JSON body.
    pub fn answer_http_read_with(
        &self,
        read: ReadLine,
        headers: &RequestHeaders<'_>,
        now: Instant,
        answer_now: impl FnOnce(Query) -> Result<Answer, Query>,
    ) -> ReadStart {
        let agree = headers::check_parts(
            headers,
            read.protocol_version(),
            method::RESOURCES_READ,
            Some(&read.read.uri),
        );
        match agree {
            Ok(()) => self.answer_read_with(read, now, answer_now),
            Err(error) => ReadStart::Exchange(self.disagreeing(read.id, error)),
        }
    }

    /// The version check, after `_meta`: this era's version, or `-32022`.
    fn supports(&self, version: &ProtocolVersion) -> Result<(), RequestError> {
        if *version == ProtocolVersion::V2026_07_28 {
            return Ok(());
        }
        Err(RequestError::UnsupportedVersion {
            requested: version.as_str().to_owned(),
            supported: self.shared.config.supported_versions(),
        })
    }

    /// The exchange answering a request whose headers disagree with its body.
    fn disagreeing(&self, id: RequestId, error: HeaderError) -> Exchange {
        Exchange::failed(self.shared.clone(), id, &RequestError::from(error))
    }

    /// Starts serving one request that came over Streamable HTTP, with the header checks in the
    /// order the official conformance suite probes: `_meta` fields (`-32602`), then header
    /// agreement ([`Handler::check_headers`], `-32020`), then version support (`-32022`), then
    /// the method.
    pub fn start_http(
        &self,
        request: Request,
        headers: &RequestHeaders<'_>,
        now: Instant,
    ) -> Exchange {
        let checked = match Checked::read(&request) {
            Ok(checked) => checked,
            Err(error) => return Exchange::failed(self.shared.clone(), request.id, &error),
        };
        match agreement(headers, &request, &checked) {
            Ok(()) => self.start_checked(request, Some(checked), now),
            Err(error) => self.disagreeing(request.id, error),
        }
    }

    /// HTTP only: checks the headers against the body before [`Handler::start`]:
    /// `MCP-Protocol-Version` against `_meta`, `Mcp-Method` against the method (both required
    /// on every request), `Mcp-Name` against `params.uri` (required on `resources/read`),
    /// after decoding the `=?base64?…?=` form. Returns the `-32020` error object (HTTP 400) on
    /// a missing, repeated, malformed or mismatching header. This is the check
    /// [`Handler::start_http`] makes once `_meta` is valid; members of the params that nobody
    /// reads are skipped, not read.
    pub fn check_headers(
        headers: &RequestHeaders<'_>,
        request: &Request,
    ) -> Result<(), ErrorObject> {
        let agree = match Checked::read(request) {
            Ok(checked) => agreement(headers, request, &checked),
            // An invalid `_meta` (which `start_http` answers before the headers are looked
            // at): compared with what the params say as far as they can be read.
            Err(_) => headers::check(headers, request),
        };
        agree.map_err(|error| RequestError::from(error).to_error_object())
    }

    /// The first check of every request: `params._meta` is an object carrying the required keys
    /// (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientCapabilities`)
    /// and well-formed reserved keys. A malformed `clientInfo` is ignored (it is for display
    /// only); a malformed `logLevel` or `progressToken` is an error.
    pub fn check_meta(request: &Request) -> Result<RequestMeta, RequestError> {
        let raw = request.params.as_deref().ok_or(RequestError::MissingMeta)?;
        match quick_meta(raw.get()) {
            Some(meta) => Ok(meta),
            None => general_meta(raw.get()),
        }
    }

    fn dispatch(
        &self,
        request: &Request,
        checked: Option<Checked>,
    ) -> Result<Dispatch, RequestError> {
        let Checked { meta, read } = match checked {
            Some(checked) => checked,
            None => Checked::read(request)?,
        };
        self.supports(&meta.protocol_version)?;
        let (query, pending) = match request.method.as_str() {
            method::SERVER_DISCOVER => return Ok(Dispatch::Discover(meta)),
            method::RESOURCES_LIST => {
                let params: wire::PaginatedParams = params(request)?;
                let cursor = params.cursor;
                (Query::ListResources { cursor }, Pending::ListResources)
            }
            method::RESOURCES_TEMPLATES_LIST => {
                let params: wire::PaginatedParams = params(request)?;
                let cursor = params.cursor;
                (Query::ListTemplates { cursor }, Pending::ListTemplates)
            }
            method::RESOURCES_READ => read_query(match read {
                Some(read) => read,
                None => params::<ReadParams>(request)?,
            })?,
            method::COMPLETION_COMPLETE if self.shared.config.offer.completions => {
                complete_query(params(request)?)?
            }
            method::SUBSCRIPTIONS_LISTEN => {
                let params: wire::SubscriptionsListenParams = params(request)?;
                let filter = params.notifications;
                let asked_updates = filter.resource_subscriptions.is_some();
                let query = Query::Listen {
                    uris: filter.resource_subscriptions.unwrap_or_default(),
                    list_changes: filter.resources_list_changed == Some(true),
                };
                (query, Pending::Listen { asked_updates })
            }
            other => {
                return Err(RequestError::MethodNotFound {
                    method: other.to_owned(),
                });
            }
        };
        Ok(Dispatch::Query {
            meta,
            query,
            pending,
        })
    }
}

/// Whether the headers agree with the body of a request whose `_meta` is valid, compared with
/// what was just read: the version (a string, or `_meta` would not have passed) and a read's
/// `uri`. Params that are not an object, and a read whose params were not read with its `_meta`
/// (they are off in some way), are compared the long way, with what the params say as far as
/// they can be read.
fn agreement(
    headers: &RequestHeaders<'_>,
    request: &Request,
    checked: &Checked,
) -> Result<(), HeaderError> {
    let object = request
        .params
        .as_deref()
        .is_some_and(|params| params.get().starts_with('{'));
    match (&checked.read, request.method.as_str()) {
        (None, method::RESOURCES_READ) => headers::check(headers, request),
        _ if !object => headers::check(headers, request),
        (read, method) => headers::check_parts(
            headers,
            checked.meta.protocol_version.as_str(),
            method,
            read.as_ref().map(|read| read.uri.as_str()),
        ),
    }
}

/// A request's `_meta`, checked, and for a read its params, read with it.
struct Checked {
    meta: RequestMeta,
    read: Option<ReadParams>,
}

impl Checked {
    /// [`Handler::check_meta`]; a read, the request served most, has its `_meta` and its params
    /// read in one pass.
    fn read(request: &Request) -> Result<Checked, RequestError> {
        Ok(match quick_read(request) {
            Some((meta, read)) => Checked {
                meta,
                read: Some(read),
            },
            None => Checked {
                meta: Handler::check_meta(request)?,
                read: None,
            },
        })
    }
}

/// [`Handler::check_meta`] the general way: `_meta` read into a [`Meta`] map, then parsed.
fn general_meta(params: &str) -> Result<RequestMeta, RequestError> {
    #[derive(Deserialize)]
    struct MetaOnly {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    // `_meta` is a member of params given by name; params given by position have none (a
    // derived struct would take the first element for it).
    if !params.starts_with('{') {
        return Err(RequestError::MissingMeta);
    }
    let meta = serde_json::from_str::<MetaOnly>(params)
        .map_err(|_| RequestError::MissingMeta)?
        .meta
        .ok_or(RequestError::MissingMeta)?;
    match RequestMeta::parse(&meta) {
        Err(RequestMetaError::Invalid {
            key: meta::CLIENT_INFO,
            ..
        }) => {
            let mut without_info = meta;
            without_info.remove(meta::CLIENT_INFO);
            Ok(RequestMeta::parse(&without_info)?)
        }
        parsed => Ok(parsed?),
    }
}

/// The `_meta` of `params` when it is valid, read without building a map: the reserved keys
/// stay borrowed raw JSON until each is deserialized into its type, and only the keys nobody
/// reserves are kept as values. `None` whenever anything is off (no `_meta`, a missing or
/// malformed key, a duplicated member, an escaped key or version): [`Handler::check_meta`] then reads the params the
/// general way, which gives the same result on valid input and the error on invalid input. A
/// malformed `clientInfo` is ignored, as there.
fn quick_meta(params: &str) -> Option<RequestMeta> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<MetaKeys<'a>>,
    }
    if !params.starts_with('{') {
        return None;
    }
    let keys = serde_json::from_str::<Params<'_>>(params).ok()?.meta?;
    meta_from_keys(keys)
}

/// A `resources/read` request's `_meta` and params in one pass over the params, when both are
/// valid (see [`quick_meta`]); `None` for another method and whenever anything is off, to be
/// read the general way, check by check.
fn quick_read(request: &Request) -> Option<(RequestMeta, ReadParams)> {
    if request.method != method::RESOURCES_READ {
        return None;
    }
    let text = request.params.as_deref()?.get();
    if !text.starts_with('{') {
        return None;
    }
    serde_json::from_str::<QuickReadParams<'_>>(text)
        .ok()?
        .checked()
}

/// How [`Handler::answer_read_with`] served a read.
#[derive(Debug)]
pub enum ReadStart {
    /// Answered as it was read: the whole JSON-RPC response to request `id`, after the
    /// request's final `notifications/progress` when it asked for progress. On HTTP, status
    /// 200 with the response alone as a JSON body, or both messages as an SSE body.
    Answered {
        /// The request's id, for the transport's check that no request with it is in flight.
        id: RequestId,
        /// The progress notification's bytes, to send first, when the request carried a
        /// `progressToken`.
        progress: Option<Vec<u8>>,
        /// The response's bytes.
        response: Vec<u8>,
    },
    /// Any other read (an error, a query to wait for): serve its exchange.
    Exchange(Exchange),
}

/// A `resources/read` request of this era, read in one pass over its line or body.
#[derive(Debug)]
pub struct ReadLine {
    id: RequestId,
    meta: ReadMeta,
    read: ReadParams,
}

/// A read's `_meta`: in the compact shape ([`compact`]) only its version and progress token,
/// as the rest is known (`{}` capabilities and nothing else), so that a read served at once
/// builds no [`RequestMeta`].
#[derive(Debug)]
enum ReadMeta {
    /// The version and the progress token, if any, with `{}` capabilities and no other key.
    Bare(ProtocolVersion, Option<ProgressToken>),
    /// Any other valid `_meta` (boxed: it is several times the size of a version, and read
    /// only the long way).
    Full(Box<RequestMeta>),
}

impl ReadMeta {
    fn version(&self) -> &ProtocolVersion {
        match self {
            ReadMeta::Bare(version, _) => version,
            ReadMeta::Full(meta) => &meta.protocol_version,
        }
    }

    /// The token of the progress notifications the client asked for, taken out.
    fn take_progress(&mut self) -> Option<ProgressToken> {
        match self {
            ReadMeta::Bare(_, token) => token.take(),
            ReadMeta::Full(meta) => meta.progress_token.take(),
        }
    }

    fn into_full(self) -> RequestMeta {
        match self {
            ReadMeta::Bare(version, progress_token) => RequestMeta {
                protocol_version: version,
                client_capabilities: ClientCapabilities::default(),
                client_info: None,
                log_level: None,
                progress_token,
                other: Meta::default(),
            },
            ReadMeta::Full(meta) => *meta,
        }
    }
}

impl ReadLine {
    /// Reads `line` (one stdio line, one POST body) when it is a `resources/read` request in
    /// its usual shape ([`jsonrpc::decode_request`]) with a valid `_meta`: one pass over its
    /// bytes, instead of decoding it into a [`Request`] whose params are then read again. The
    /// compact shape nearly every client writes is read by hand (`compact.rs`), any other with
    /// serde.
    ///
    /// `None` for any other line, and whenever anything about it is unusual (an escape where a
    /// name was expected, a repeated member, leading whitespace): decode it then. Finding out
    /// that a line is something else costs a parse of it, up to where it goes off: try this
    /// where requests of this era are the ones expected.
    pub fn parse(line: &[u8]) -> Option<ReadLine> {
        if let Some(compact) = compact::read(line) {
            return Some(ReadLine::from_compact(compact));
        }
        let (id, params) =
            jsonrpc::decode_request::<QuickReadParams<'_>>(line, method::RESOURCES_READ)?;
        let (meta, read) = params.checked()?;
        Some(ReadLine {
            id,
            meta: ReadMeta::Full(Box::new(meta)),
            read,
        })
    }

    /// What [`compact::read`] read: a `_meta` of the version and `{}` capabilities only.
    fn from_compact(compact: CompactRead<'_>) -> ReadLine {
        let meta = ReadMeta::Bare(ProtocolVersion::from(compact.version), compact.progress);
        let read = ReadParams {
            _meta: IgnoredAny,
            uri: compact.uri.to_owned(),
            _input_responses: None,
            _request_state: None,
        };
        ReadLine {
            id: compact.id,
            meta,
            read,
        }
    }

    /// The protocol version its `_meta` names, which may be another era's: what era routing
    /// looks at.
    pub fn protocol_version(&self) -> &str {
        self.meta.version().as_str()
    }
}

/// The params of a `resources/read` with its `_meta`, as read in one pass.
#[derive(Deserialize)]
struct QuickReadParams<'a> {
    #[serde(rename = "_meta", borrow)]
    meta: Option<MetaKeys<'a>>,
    uri: String,
    #[serde(default, rename = "inputResponses")]
    _input_responses: Option<Meta>,
    #[serde(default, rename = "requestState")]
    _request_state: Option<String>,
}

impl QuickReadParams<'_> {
    /// The request metadata and the read's params; `None` when `_meta` is missing or off.
    fn checked(self) -> Option<(RequestMeta, ReadParams)> {
        let meta = meta_from_keys(self.meta?)?;
        let read = ReadParams {
            _meta: IgnoredAny,
            uri: self.uri,
            _input_responses: None,
            _request_state: None,
        };
        Some((meta, read))
    }
}

/// The request metadata of valid `_meta` members; `None` when one is off.
fn meta_from_keys(keys: MetaKeys<'_>) -> Option<RequestMeta> {
    let version = plain_string(keys.protocol_version?.get())?;
    let capabilities = keys.client_capabilities?.get();
    if !capabilities.starts_with('{') {
        return None;
    }
    // What nearly every client sends, without a parse.
    let client_capabilities = if capabilities == "{}" {
        ClientCapabilities::default()
    } else {
        serde_json::from_str(capabilities).ok()?
    };
    let client_info = keys.client_info.and_then(|info| {
        let info = info.get();
        info.starts_with('{')
            .then(|| serde_json::from_str(info).ok())
            .flatten()
    });
    let log_level = match keys.log_level {
        Some(level) => Some(serde_json::from_str(level.get()).ok()?),
        None => None,
    };
    let progress_token = match keys.progress_token {
        Some(token) => Some(serde_json::from_str(token.get()).ok()?),
        None => None,
    };
    Some(RequestMeta {
        protocol_version: ProtocolVersion::from(version),
        client_capabilities,
        client_info,
        log_level,
        progress_token,
        other: keys.other,
    })
}

/// The text of a raw JSON string with no escape in it (what a version always is); `None` for
/// anything else, to be read the general way.
fn plain_string(raw: &str) -> Option<&str> {
    let text = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!text.contains(['"', '\\'])).then_some(text)
}

/// The members of a request `_meta`: the reserved keys as raw JSON (the last one wins when a
/// key is repeated, as in a [`Meta`] map), every other key as a value.
#[derive(Default)]
struct MetaKeys<'a> {
    protocol_version: Option<&'a RawValue>,
    client_capabilities: Option<&'a RawValue>,
    client_info: Option<&'a RawValue>,
    log_level: Option<&'a RawValue>,
    progress_token: Option<&'a RawValue>,
    other: Meta,
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaKeys<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for KeysVisitor<'a> {
            type Value = MetaKeys<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a _meta object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaKeys<'a>, A::Error> {
                let mut keys = MetaKeys::default();
                // A key with an escape cannot be borrowed: an error, and the general path.
                while let Some(key) = map.next_key::<&'de str>()? {
                    let slot = match key {
                        meta::PROTOCOL_VERSION => &mut keys.protocol_version,
                        meta::CLIENT_CAPABILITIES => &mut keys.client_capabilities,
                        meta::CLIENT_INFO => &mut keys.client_info,
                        meta::LOG_LEVEL => &mut keys.log_level,
                        meta::PROGRESS_TOKEN => &mut keys.progress_token,
                        _ => {
                            let value = map.next_value::<serde_json::Value>()?;
                            keys.other.insert(key.to_owned(), value);
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(keys)
            }
        }
        deserializer.deserialize_map(KeysVisitor(std::marker::PhantomData))
    }
}

/// [`wire::ReadResourceParams`] as the handler reads them, with the same fields and checks but
/// `_meta` skipped: [`Handler::check_meta`] has already read it (so it is a valid map), and a
/// read is the request served most, so it is not built into a map a second time.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadParams {
    #[serde(rename = "_meta", default)]
    _meta: IgnoredAny,
    uri: String,
    #[serde(default, rename = "inputResponses")]
    _input_responses: Option<Meta>,
    #[serde(default, rename = "requestState")]
    _request_state: Option<String>,
}

/// The query and what its answer becomes, for a read with these params.
fn read_query(params: ReadParams) -> Result<(Query, Pending), RequestError> {
    let uri = ResourceUri::parse(&params.uri).map_err(|error| RequestError::InvalidUri {
        uri: params.uri.clone(),
        reason: error.to_string(),
    })?;
    Ok((Query::Read { uri }, Pending::Read { uri: params.uri }))
}

/// What a valid request turns into.
enum Dispatch {
    /// `server/discover`, answered on the spot.
    Discover(RequestMeta),
    /// A question for the service.
    Query {
        meta: RequestMeta,
        query: Query,
        pending: Pending,
    },
}

fn params<T: DeserializeOwned>(request: &Request) -> Result<T, RequestError> {
    request
        .params()
        .map_err(|error| RequestError::InvalidParams(error.0.to_string()))
}

fn complete_query(params: wire::CompleteParams) -> Result<(Query, Pending), RequestError> {
    let template = match params.reference {
        wire::CompletionReference::Resource(reference) => reference.uri,
        wire::CompletionReference::Prompt(prompt) => {
            return Err(RequestError::NoPrompts { name: prompt.name });
        }
    };
    let context: Variables = params
        .context
        .and_then(|context| context.arguments)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let query = Query::Complete {
        template,
        variable: params.argument.name,
        prefix: params.argument.value,
        context,
    };
    Ok((query, Pending::Complete))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick reading of `_meta`, when it gives an answer, gives the general one.
    #[test]
    fn quick_meta_agrees_with_the_general_reading() {
        let cases = [
            r#"{"uri":"mem:///a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{"x":1},"other/key":[1,{"a":null}],"io.modelcontextprotocol/logLevel":"debug","progressToken":7}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":"t"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":[1]}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"a":1,"a":2,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{ }}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}"#,
        ];
        for params in cases {
            let quick = quick_meta(params).expect(params);
            let general = general_meta(params).expect(params);
            assert_eq!(quick, general, "{params}");
        }
    }

    /// A read's `_meta` and params read in one pass are those read check by check; a read
    /// that is off in any way is left to the checks.
    #[test]
    fn quick_read_agrees_with_the_checks() {
        let read = |params: &str| {
            let raw = RawValue::from_string(params.to_owned()).unwrap();
            Request::new(1, method::RESOURCES_READ, Some(raw))
        };
        let valid = r#"{"uri":"mem:///a","requestState":"s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
        let request = read(valid);
        let (meta, params) = quick_read(&request).expect(valid);
        assert_eq!(Some(meta), Handler::check_meta(&request).ok());
        assert_eq!(
            params.uri,
            super::params::<ReadParams>(&request).unwrap().uri
        );
        for off in [
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"uri":"mem:///a"}"#,
            r#"{"uri":"mem:///a","uri":"mem:///b","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"uri":"mem:///a","requestState":7,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"["mem:///a"]"#,
        ] {
            assert!(quick_read(&read(off)).is_none(), "{off}");
        }
        let mut list = read(valid);
        list.method = method::RESOURCES_LIST.to_owned();
        assert!(quick_read(&list).is_none());
    }

    /// Params given by position have no `_meta`, whatever their first element holds.
    #[test]
    fn params_by_position_have_no_meta() {
        let meta = r#"[{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}]"#;
        assert_eq!(quick_meta(meta), None);
        assert_eq!(general_meta(meta), Err(RequestError::MissingMeta));
        let raw = RawValue::from_string(meta.to_owned()).unwrap();
        let discover = Request::new(1, method::SERVER_DISCOVER, Some(raw));
        assert_eq!(
            Handler::check_meta(&discover),
            Err(RequestError::MissingMeta)
        );
    }

    /// Whatever is off goes the general way, which says what is wrong.
    #[test]
    fn quick_meta_leaves_every_doubt_to_the_general_reading() {
        let cases = [
            r#"{}"#,
            r#"{"_meta":null}"#,
            r#"{"_meta":[]}"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1.5}}"#,
            r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{},"_meta":{}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":7}}}"#,
        ];
        for params in cases {
            assert_eq!(quick_meta(params), None, "{params}");
        }
    }
}
