//! The core's answers as rmcp's results and errors, for the era of each request.
//!
//! **Layer:** the bridge's `to_wire` edge. A value is converted by `mcp-resources-wire` (the
//! conversion both of our adapters use) into our wire types for the request's shape, written
//! as JSON, and read back as rmcp's type: both sides spell the schema, so nothing is mapped
//! field by field here. Errors are the adapters' own mappings (`-32002` for a missing resource
//! in the legacy era, `-32602` in 2026-07-28, and so on). The 2026-07-28 results get the
//! core's cache hints and `resultType`. This module never asks the service anything.

use mcp_2026::RequestError;
use mcp_legacy_2025::errors as legacy;
use mcp_resources_core::cache::{CacheHint, CacheScope};
use mcp_resources_core::completion::Completion;
use mcp_resources_core::engine::{ReadOutput, SkillOutput};
use mcp_resources_core::error::{CompleteError, DirectoryError, ListError, ReadError, SkillError};
use mcp_resources_core::input::InputRequired;
use mcp_resources_core::pagination::Page;
use mcp_resources_core::resource::{Resource, ResourceTemplate};
use mcp_resources_core::skill::Skill;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_wire::{self as to_wire, Shape};
use mcp_types::capabilities::ClientCapabilities;
use mcp_types::error::echo;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::resources as wire;
use mcp_types::{ProtocolVersion, v2024_11_05, v2025_06_18};
use rmcp::model::{
    CompleteResult, GetSkillResult, InputRequiredResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ReadResourceResponse, ReadResourceResult,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, Peer};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// The era a request is served in, with the legacy session's negotiated version.
#[derive(Debug)]
pub(crate) enum Era {
    /// 2024-11-05 … 2025-11-25, negotiated by `initialize`.
    Legacy(ProtocolVersion),
    /// 2026-07-28 on.
    Modern {
        /// Every result private to caches, whatever the engine's hints say.
        private: bool,
    },
}

impl Era {
    /// The era of `context`'s request, as rmcp serves it: 2026-07-28 when the request's own
    /// `_meta` names it (such a request carries everything it needs and never uses a
    /// session's capabilities); else the version its connection's `initialize` negotiated (a
    /// request's `_meta` cannot change a session's version); else, on a connection without a
    /// session, the legacy version the request names (answered with no one to ask).
    pub(crate) fn of(context: &RequestContext<RoleServer>, private: bool) -> Era {
        let ours = |version: rmcp::model::ProtocolVersion| {
            ProtocolVersion::new(version.as_str().to_owned())
        };
        let requested = context.meta.protocol_version().map(ours);
        if requested
            .as_ref()
            .is_some_and(|version| version.era() == Some(mcp_types::Era::Modern))
        {
            return Era::Modern { private };
        }
        let negotiated = context
            .peer
            .peer_info()
            .map(|session| ours(session.protocol_version.clone()));
        match negotiated.or(requested) {
            Some(version) if version.era() == Some(mcp_types::Era::Modern) => {
                Era::Modern { private }
            }
            Some(version) if version.is_known() => Era::Legacy(version),
            Some(_) => Era::Legacy(ProtocolVersion::LATEST_LEGACY),
            None => Era::Modern { private },
        }
    }

    fn shape(&self) -> Shape {
        match self {
            Era::Legacy(version) => Shape::of(version),
            Era::Modern { .. } => Shape::Newest,
        }
    }

    /// `text` as a resource URI, or the `-32602` both adapters answer a bad one with.
    pub(crate) fn parse_uri(&self, text: &str) -> Result<ResourceUri, ErrorData> {
        ResourceUri::parse(text).map_err(|problem| {
            ErrorData::invalid_params(
                format!("invalid resource uri {}: {problem}", echo(text)),
                Some(json!({ "uri": echo(text) })),
            )
        })
    }

    pub(crate) fn list_error(&self, failure: ListError) -> ErrorData {
        error(match self {
            Era::Legacy(_) => legacy::list(&failure),
            Era::Modern { .. } => RequestError::from_list(failure).to_error_object(),
        })
    }

    pub(crate) fn read_error(&self, failure: ReadError, requested: &str) -> ErrorData {
        error(match self {
            Era::Legacy(_) => legacy::read(&failure, requested),
            Era::Modern { .. } => RequestError::from_read(failure, requested).to_error_object(),
        })
    }

    pub(crate) fn directory_error(&self, failure: DirectoryError, requested: &str) -> ErrorData {
        error(match self {
            Era::Legacy(_) => legacy::directory(&failure, requested),
            Era::Modern { .. } => {
                RequestError::from_directory(failure, requested).to_error_object()
            }
        })
    }

    pub(crate) fn skill_error(&self, failure: SkillError, requested: &str) -> ErrorData {
        error(match self {
            Era::Legacy(_) => legacy::skill(&failure, requested),
            Era::Modern { .. } => RequestError::from_skill(failure, requested).to_error_object(),
        })
    }

    pub(crate) fn complete_error(&self, failure: CompleteError) -> ErrorData {
        error(match self {
            Era::Legacy(_) => legacy::complete(&failure),
            Era::Modern { .. } => RequestError::from_complete(failure).to_error_object(),
        })
    }

    /// `result` with the 2026-07-28 result fields when the request is of that era: a
    /// `resultType`, and the cache hints when there are any.
    fn finish(&self, mut result: Map<String, Value>, hint: Option<CacheHint>) -> Value {
        if let Era::Modern { private } = self {
            result.insert("resultType".to_owned(), json!("complete"));
            if let Some(hint) = hint {
                let scope = match hint.scope {
                    CacheScope::Public if !private => "public",
                    CacheScope::Public | CacheScope::Private => "private",
                };
                result.insert("ttlMs".to_owned(), json!(hint.ttl_ms));
                result.insert("cacheScope".to_owned(), json!(scope));
            }
        }
        Value::Object(result)
    }
}

/// A page of resources (`resources/list`, `resources/directory/read`).
pub(crate) fn resources(page: Page<Resource>, era: &Era) -> Result<ListResourcesResult, ErrorData> {
    let shape = era.shape();
    let listed = page
        .items
        .iter()
        .map(|resource| match shape {
            Shape::Original => value(&to_wire::listed(
                resource,
                shape,
                v2024_11_05::Annotations::narrowed,
            )),
            Shape::Titled | Shape::Newest => value(&to_wire::listed(resource, shape, Some)),
        })
        .collect::<Result<Vec<Value>, ErrorData>>()?;
    let mut result = Map::new();
    result.insert("resources".to_owned(), Value::Array(listed));
    cursor(&mut result, page.next_cursor);
    rmcp_value(era.finish(result, Some(page.cache)))
}

/// A page of templates, narrowed to what the session's version knows.
pub(crate) fn templates(
    page: Page<ResourceTemplate>,
    era: &Era,
) -> Result<ListResourceTemplatesResult, ErrorData> {
    let newest = wire::ListResourceTemplatesResult {
        resource_templates: page.items.into_iter().map(to_wire::template).collect(),
        next_cursor: page.next_cursor,
        meta: None,
    };
    let shaped = match era.shape() {
        Shape::Original => value(&newest.into_version::<v2024_11_05::ResourceTemplate>()),
        Shape::Titled => value(&newest.into_version::<v2025_06_18::ResourceTemplate>()),
        Shape::Newest => value(&newest),
    }?;
    let Value::Object(result) = shaped else {
        return Err(mismatched());
    };
    rmcp_value(era.finish(result, Some(page.cache)))
}

/// A read's contents; no contents at all is answered as a missing resource, as by both
/// adapters.
pub(crate) fn read(
    output: &ReadOutput,
    requested: &str,
    era: &Era,
) -> Result<ReadResourceResponse, ErrorData> {
    if output.contents.is_empty() {
        let missing = ReadError::NotFound {
            uri: requested.to_owned(),
        };
        return Err(era.read_error(missing, requested));
    }
    let contents = output
        .contents
        .iter()
        .map(|contents| value(&to_wire::contents(contents)))
        .collect::<Result<Vec<Value>, ErrorData>>()?;
    let mut result = Map::new();
    result.insert("contents".to_owned(), Value::Array(contents));
    let read: ReadResourceResult = rmcp_value(era.finish(result, Some(output.cache)))?;
    Ok(read.into())
}

/// Completion values.
pub(crate) fn completion(completion: Completion, era: &Era) -> Result<CompleteResult, ErrorData> {
    let mut result = Map::new();
    result.insert(
        "completion".to_owned(),
        value(&to_wire::completion(completion))?,
    );
    rmcp_value(era.finish(result, None))
}

/// A page of skills.
pub(crate) fn skills(page: Page<Skill>, era: &Era) -> Result<ListSkillsResult, ErrorData> {
    let skills = page
        .items
        .iter()
        .map(|skill| value(&to_wire::skill(skill)))
        .collect::<Result<Vec<Value>, ErrorData>>()?;
    let mut result = Map::new();
    result.insert("skills".to_owned(), Value::Array(skills));
    cursor(&mut result, page.next_cursor);
    rmcp_value(era.finish(result, Some(page.cache)))
}

/// One skill, named by its canonical URI (rmcp checks that the manifest lists the `SKILL.md`
/// the result names, which holds for that spelling only).
pub(crate) fn skill(found: SkillOutput, era: &Era) -> Result<GetSkillResult, ErrorData> {
    let skill = to_wire::skill(&found.skill);
    let mut result = Map::new();
    result.insert("skill".to_owned(), value(&skill)?);
    rmcp_value(era.finish(result, Some(found.cache)))
}

/// A 2026-07-28 read that needs input: an `InputRequiredResult`, or `-32021` naming the
/// capabilities the request did not declare (a client is never asked through one it did not
/// declare).
pub(crate) fn input_required(
    input: &InputRequired,
    context: &RequestContext<RoleServer>,
) -> Result<InputRequiredResult, ErrorData> {
    let declared = context
        .meta
        .client_capabilities()
        .map(ours)
        .unwrap_or_default();
    if let Some(required) = to_wire::input::missing_capabilities(&input.requests, &declared) {
        let refusal = RequestError::MissingClientCapability {
            required: Box::new(required),
        };
        return Err(error(refusal.to_error_object()));
    }
    let mut result = Map::new();
    result.insert("resultType".to_owned(), json!("input_required"));
    result.insert(
        "inputRequests".to_owned(),
        Value::Object(to_wire::input::requests(&input.requests)),
    );
    if let Some(state) = &input.state {
        result.insert("requestState".to_owned(), json!(state));
    }
    rmcp_value(Value::Object(result))
}

/// The client capabilities `peer`'s legacy session declared at `initialize`, in our wire
/// types; none without a session.
pub(crate) fn session_capabilities(peer: &Peer<RoleServer>) -> ClientCapabilities {
    peer.peer_info()
        .map(|session| ours(session.capabilities.clone()))
        .unwrap_or_default()
}

/// rmcp's client capabilities in our wire types; none when they do not read back.
fn ours(declared: rmcp::model::ClientCapabilities) -> ClientCapabilities {
    serde_json::to_value(declared)
        .ok()
        .and_then(|declared| serde_json::from_value(declared).ok())
        .unwrap_or_default()
}

/// One of our error objects as rmcp's.
pub(crate) fn error(object: ErrorObject) -> ErrorData {
    let code = i32::try_from(object.code.0).unwrap_or(-32603);
    ErrorData::new(rmcp::model::ErrorCode(code), object.message, object.data)
}

/// The service answered with an answer of another kind: a bug.
pub(crate) fn mismatched() -> ErrorData {
    ErrorData::internal_error("internal error", None)
}

fn cursor(result: &mut Map<String, Value>, next: Option<String>) {
    if let Some(next) = next {
        result.insert("nextCursor".to_owned(), Value::String(next));
    }
}

fn value<T: Serialize>(value: &T) -> Result<Value, ErrorData> {
    serde_json::to_value(value).map_err(unconvertible)
}

fn rmcp_value<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(unconvertible)
}

/// A value that does not convert: our wire types and rmcp's disagree, a bug on one side.
fn unconvertible(problem: serde_json::Error) -> ErrorData {
    tracing::error!(%problem, "a result did not convert to rmcp's types");
    ErrorData::internal_error(format!("internal error: {problem}"), None)
}
