//! A legacy read that needs the user's input: the server's own `elicitation/create`,
//! `sampling/createMessage` or `roots/list` requests, sent through rmcp's peer.
//!
//! **Layer:** the bridge's transport edge for the legacy era, with the rules of our own legacy
//! adapter: only capabilities the session's client declared at `initialize` are used
//! (elicitation from 2025-06-18 on), each request is written by `mcp-resources-wire` and sent
//! as it writes it, an error in answer is an unusable answer (the core then refuses the read),
//! every request of one read shares one deadline of `ASK_TICKS` seconds, and a read the client
//! cancels cancels its requests. It never decides whether the answers suffice: the core does,
//! on the retried read.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use mcp_legacy_2025::errors as legacy;
use mcp_resources_core::input::{InputRequest, InputRequired, InputResponse, Inputs};
use mcp_resources_wire::input as to_wire_input;
use mcp_types::ProtocolVersion;
use rmcp::model::{CancelledNotificationParam, CustomRequest, ServerRequest};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleServer, ServiceError};
use rmcp::{ErrorData, Peer};

use crate::convert;

/// How long all the requests of one read may wait for the client, as in our legacy adapter.
pub(crate) fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(u64::from(mcp_legacy_2025::ASK_TICKS))
}

/// The legacy adapter's `-32600` when the session's client cannot be asked what `input`
/// needs: it did not declare a capability the requests need at `initialize` (elicitation
/// needs 2025-06-18 too), or there is no session.
pub(crate) fn refusal(
    context: &RequestContext<RoleServer>,
    version: &ProtocolVersion,
    uri: &str,
    input: &InputRequired,
) -> Option<ErrorData> {
    let mut declared = convert::session_capabilities(&context.peer);
    if !version.has_titles() {
        declared.elicitation = None;
    }
    let missing = to_wire_input::missing_capabilities(&input.requests, &declared)?;
    let names = to_wire_input::capability_names(&missing);
    Some(convert::error(legacy::input_unsupported(uri, &names)))
}

/// Asks the session's client what `input` needs (checked by [`refusal`] first); the answers
/// (and the state) to read `uri` again with.
pub(crate) async fn ask(
    context: &RequestContext<RoleServer>,
    version: &ProtocolVersion,
    uri: &str,
    input: InputRequired,
    deadline: Instant,
) -> Result<Inputs, ErrorData> {
    let mut responses = BTreeMap::new();
    for (key, request) in &input.requests {
        let response = ask_one(context, request, version.has_icons(), uri, deadline).await?;
        responses.insert(key.clone(), response);
    }
    Ok(Inputs {
        responses,
        state: input.state,
    })
}

/// Sends one request, exactly as the wire conversion writes it, and reads the answer back.
async fn ask_one(
    context: &RequestContext<RoleServer>,
    request: &InputRequest,
    with_mode: bool,
    uri: &str,
    deadline: Instant,
) -> Result<InputResponse, ErrorData> {
    if context.ct.is_cancelled() {
        return Err(ErrorData::internal_error("the read was cancelled", None));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(convert::error(legacy::input_timed_out(uri)));
    }
    let (method, params) = to_wire_input::request(request, with_mode);
    let request = ServerRequest::CustomRequest(CustomRequest::new(method, params));
    let peer: &Peer<RoleServer> = &context.peer;
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::with_timeout(left))
        .await
        .map_err(|error| undeliverable(uri, &error))?;
    let id = handle.id.clone();
    let answered = tokio::select! {
        answered = handle.await_response() => answered,
        () = context.ct.cancelled() => {
            let reason = "the read it was for was cancelled".to_owned();
            let cancelled = CancelledNotificationParam::new(Some(id), Some(reason));
            let _ = peer.notify_cancelled(cancelled).await;
            return Err(ErrorData::internal_error("the read was cancelled", None));
        }
    };
    match answered {
        Ok(result) => Ok(
            serde_json::to_value(result).map_or(InputResponse::Unusable, |value| {
                to_wire_input::response(&value)
            }),
        ),
        // The client refused the request: an answer the core cannot use.
        Err(ServiceError::McpError(_)) => Ok(InputResponse::Unusable),
        Err(ServiceError::Timeout { .. }) => Err(convert::error(legacy::input_timed_out(uri))),
        Err(error) => Err(undeliverable(uri, &error)),
    }
}

fn undeliverable(uri: &str, error: &ServiceError) -> ErrorData {
    tracing::debug!(%error, "a request for input did not reach the client");
    convert::error(legacy::input_undeliverable(uri))
}
