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

use mcp_resources_core::input::Inputs;
use mcp_resources_core::service::Query;
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_wire::output::Ticket;
use mcp_resources_wire::tools;
use mcp_types::jsonrpc::{ErrorObject, Request, RequestId};
use mcp_types::meta::{self, Meta};
use mcp_types::request_meta::{RequestMeta, RequestMetaError};
use mcp_types::skills::{DirectoryReadParams, GetSkillParams, ListSkillsParams};
use mcp_types::v2026_07_28 as wire;
use mcp_types::{ProtocolVersion, method};
use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::config::{ModernConfig, Shared};
use crate::errors::RequestError;
use crate::exchange::{Exchange, Pending};
use crate::headers::{self, HeaderError, RequestHeaders};

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
    pub fn start(&self, request: Request) -> Exchange {
        self.start_checked(request, None)
    }

    /// [`Handler::start`] with the request's `_meta` already checked by [`Handler::start_http`].
    fn start_checked(&self, request: Request, checked: Option<RequestMeta>) -> Exchange {
        let dispatched = self.dispatch(&request, checked);
        self.exchange(request.id, dispatched)
    }

    /// The exchange for request `id`, dispatched.
    fn exchange(&self, id: RequestId, dispatched: Result<Dispatch, RequestError>) -> Exchange {
        match dispatched {
            Ok(Dispatch::Discover(meta)) => {
                Exchange::answered_discover(self.shared.clone(), id, &meta)
            }
            Ok(Dispatch::Tools(meta)) => Exchange::answered_tools(self.shared.clone(), id, &meta),
            Ok(Dispatch::ToolError(meta, text)) => {
                Exchange::answered_tool_error(self.shared.clone(), id, &meta, &text)
            }
            Ok(Dispatch::Query {
                meta,
                query,
                pending,
            }) => {
                let ticket = Ticket::new(self.next_ticket.fetch_add(1, Ordering::Relaxed));
                Exchange::querying(self.shared.clone(), id, &meta, ticket, query, pending)
            }
            Err(error) => Exchange::failed(self.shared.clone(), id, &error),
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
    pub fn start_http(&self, request: Request, headers: &RequestHeaders<'_>) -> Exchange {
        let meta = match Handler::check_meta(&request) {
            Ok(meta) => meta,
            Err(error) => return Exchange::failed(self.shared.clone(), request.id, &error),
        };
        match headers::check(headers, &request) {
            Ok(()) => self.start_checked(request, Some(meta)),
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
        headers::check(headers, request)
            .map_err(|error| RequestError::from(error).to_error_object())
    }

    /// The first check of every request: `params._meta` is an object carrying the required keys
    /// (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientCapabilities`)
    /// and well-formed reserved keys. A malformed `clientInfo` is ignored (it is for display
    /// only); a malformed `logLevel` or `progressToken` is an error.
    pub fn check_meta(request: &Request) -> Result<RequestMeta, RequestError> {
        #[derive(Deserialize)]
        struct MetaOnly {
            #[serde(rename = "_meta")]
            meta: Option<Meta>,
        }
        let params = request.params.as_deref().ok_or(RequestError::MissingMeta)?;
        // `_meta` is a member of params given by name; params given by position have none (a
        // derived struct would take the first element for it).
        if !params.get().starts_with('{') {
            return Err(RequestError::MissingMeta);
        }
        let meta = serde_json::from_str::<MetaOnly>(params.get())
            .map_err(|_| RequestError::MissingMeta)?
            .meta
            .ok_or(RequestError::MissingMeta)?;
        match RequestMeta::parse(&meta) {
            // A malformed `clientInfo` is for display only: ignored.
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

    fn dispatch(
        &self,
        request: &Request,
        checked: Option<RequestMeta>,
    ) -> Result<Dispatch, RequestError> {
        let meta = match checked {
            Some(meta) => meta,
            None => Handler::check_meta(request)?,
        };
        self.supports(&meta.protocol_version)?;
        let (query, pending) = match request.method.as_str() {
            method::SERVER_DISCOVER => return Ok(Dispatch::Discover(meta)),
            method::TOOLS_LIST if self.shared.config.offer.tools => {
                let _: wire::PaginatedParams = params(request)?;
                return Ok(Dispatch::Tools(meta));
            }
            method::TOOLS_CALL if self.shared.config.offer.tools => {
                let params: CallToolParams = params(request)?;
                let offer = self.shared.config.offer;
                match tools::parse(&params.name, params.arguments.as_ref(), offer) {
                    Ok(call) => (call.query(), Pending::Tool(Box::new(call))),
                    Err(tools::CallError::UnknownTool(text)) => {
                        return Err(RequestError::Rejected {
                            message: text,
                            uri: None,
                        });
                    }
                    Err(tools::CallError::BadArguments(text)) => {
                        return Ok(Dispatch::ToolError(meta, text));
                    }
                }
            }
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
            method::RESOURCES_READ => read_query(params(request)?, &meta)?,
            method::RESOURCES_DIRECTORY_READ if self.shared.config.offer.directories => {
                directory_query(params(request)?)?
            }
            method::SKILLS_LIST if self.shared.config.offer.directories => {
                let params: ListSkillsParams = params(request)?;
                let cursor = params.cursor;
                (Query::ListSkills { cursor }, Pending::ListSkills)
            }
            method::SKILLS_GET if self.shared.config.offer.directories => {
                skill_query(params(request)?)?
            }
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
    input_responses: Option<Meta>,
    #[serde(default, rename = "requestState")]
    request_state: Option<String>,
}

/// The params of `tools/call` as the handler reads them (`_meta` read already); the arguments
/// are checked by the bridge.
#[derive(Debug, Deserialize)]
struct CallToolParams {
    #[serde(rename = "_meta", default)]
    _meta: IgnoredAny,
    name: String,
    #[serde(default)]
    arguments: Option<Meta>,
    #[serde(default, rename = "inputResponses")]
    _input_responses: IgnoredAny,
    #[serde(default, rename = "requestState")]
    _request_state: IgnoredAny,
}

/// The query and what its answer becomes, for a read with these params and `_meta`. The
/// answers and the state of a retry go to the core as they came: whoever asked for them
/// checks them (the engine's confirmations verify their state).
fn read_query(params: ReadParams, meta: &RequestMeta) -> Result<(Query, Pending), RequestError> {
    let uri = ResourceUri::parse(&params.uri).map_err(|error| RequestError::InvalidUri {
        uri: params.uri.clone(),
        reason: error.to_string(),
    })?;
    let inputs = Inputs {
        responses: params
            .input_responses
            .as_ref()
            .map(mcp_resources_wire::input::responses)
            .unwrap_or_default(),
        state: params.request_state,
    };
    let pending = Pending::Read {
        uri: params.uri,
        declared: Box::new(meta.client_capabilities.clone()),
    };
    Ok((Query::Read { uri, inputs }, pending))
}

/// The query and what its answer becomes, for a directory read with these params.
fn directory_query(params: DirectoryReadParams) -> Result<(Query, Pending), RequestError> {
    let uri = ResourceUri::parse(&params.uri).map_err(|error| RequestError::InvalidUri {
        uri: params.uri.clone(),
        reason: error.to_string(),
    })?;
    let query = Query::ReadDirectory {
        uri,
        cursor: params.cursor,
    };
    Ok((query, Pending::ListDirectory { uri: params.uri }))
}

/// The query and what its answer becomes, for a `skills/get` with these params.
fn skill_query(params: GetSkillParams) -> Result<(Query, Pending), RequestError> {
    let uri = ResourceUri::parse(&params.uri).map_err(|error| RequestError::InvalidUri {
        uri: params.uri.clone(),
        reason: error.to_string(),
    })?;
    Ok((
        Query::GetSkill { uri },
        Pending::GetSkill { uri: params.uri },
    ))
}

/// What a valid request turns into.
enum Dispatch {
    /// `server/discover`, answered on the spot.
    Discover(RequestMeta),
    /// `tools/list` of the resources-as-tools bridge, answered on the spot.
    Tools(RequestMeta),
    /// A `tools/call` whose arguments are refused: a tool error, on the spot.
    ToolError(RequestMeta, String),
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
    use serde_json::value::RawValue;

    use super::*;

    fn check(params: &str) -> Result<RequestMeta, RequestError> {
        let raw = RawValue::from_string(params.to_owned()).unwrap();
        Handler::check_meta(&Request::new(1, method::SERVER_DISCOVER, Some(raw)))
    }

    /// Valid `_meta`, with the keys the handler reads and others it keeps.
    #[test]
    fn valid_meta_is_read_whole() {
        let meta = check(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{"x":1},"other/key":[1,{"a":null}],"io.modelcontextprotocol/logLevel":"debug","progressToken":7}}"#,
        )
        .unwrap();
        assert_eq!(meta.protocol_version.as_str(), "1999-01-01");
        assert!(meta.log_level.is_some());
        assert!(meta.progress_token.is_some());
        assert!(meta.other.contains_key("other/key"));
        // A malformed `clientInfo` is for display only: ignored.
        let meta = check(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":[1]}}"#,
        )
        .unwrap();
        assert_eq!(meta.client_info, None);
        // An escaped key is the same key.
        assert!(
            check(
                r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#
            )
            .is_ok()
        );
    }

    /// Params given by position have no `_meta`, whatever their first element holds.
    #[test]
    fn params_by_position_have_no_meta() {
        let meta = r#"[{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}]"#;
        assert_eq!(check(meta), Err(RequestError::MissingMeta));
    }

    /// Whatever is missing or malformed is refused.
    #[test]
    fn missing_or_malformed_meta_is_refused() {
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
        ];
        for params in cases {
            assert!(check(params).is_err(), "{params}");
        }
    }
}
