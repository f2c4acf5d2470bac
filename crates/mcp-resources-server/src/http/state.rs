//! The state a request to the endpoint is served with: [`HttpState`].
//!
//! **Layer:** server, HTTP transport, below the router and both eras' paths, which all take an
//! [`HttpState`]. It holds what every request of one router shares (the server, the options,
//! the quotas) and who the request runs for (its principal, its client). It holds nothing of
//! either era (the legacy sessions are the router's, handed to the legacy path beside it) and
//! never reads a request or writes a response.

use std::sync::Arc;

use mcp_resources_core::policy::Principal;

use super::limits;
use super::options::HttpOptions;
use crate::server::Shared;

/// What every request of one router shares, and who a request runs for: a router holds one
/// for anonymous requests, and each request a copy with its own principal and client.
#[derive(Clone, Debug)]
pub(crate) struct HttpState {
    pub(super) shared: Arc<Shared>,
    pub(super) options: Arc<HttpOptions>,
    /// The modern listen streams open (see [`HttpOptions::max_listen_streams`]).
    pub(super) listen_streams: Arc<limits::Quota>,
    /// The bytes of responses held (see [`HttpOptions::max_response_bytes`]).
    pub(super) response_bytes: Arc<limits::Quota>,
    /// The bytes of request bodies held (see [`HttpOptions::max_request_bytes`]).
    pub(super) request_bytes: Arc<limits::Quota>,
    pub(super) principal: Arc<Principal>,
    /// Whom the request counts against ([`limits::Client`]).
    pub(super) client: limits::Client,
    /// With [`HttpOptions::authorization`], the modern handler this endpoint serves with
    /// instead of the server's: the same configuration, with every result private (a token's
    /// scopes decide whether a request is answered at all, so no shared cache may hand an
    /// answer to a caller without them).
    pub(super) authorized_modern: Option<Arc<mcp_2026::Handler>>,
}

impl HttpState {
    /// The state of a router serving `shared` with `options`, for an anonymous request.
    pub(super) fn new(shared: &Arc<Shared>, options: HttpOptions) -> HttpState {
        let authorized_modern = options.authorization.is_some().then(|| {
            let config = mcp_2026::ModernConfig {
                private_results: true,
                ..shared.modern.config().clone()
            };
            Arc::new(mcp_2026::Handler::new(Arc::new(config)))
        });
        HttpState {
            authorized_modern,
            shared: Arc::clone(shared),
            listen_streams: limits::Quota::new(
                "listen streams",
                options.max_listen_streams,
                options.max_listen_streams_per_client,
            ),
            response_bytes: limits::Quota::new(
                "response bytes",
                options.max_response_bytes,
                options.max_response_bytes_per_client,
            ),
            request_bytes: limits::Quota::new(
                "request bytes",
                options.max_request_bytes,
                options.max_request_bytes_per_client,
            ),
            principal: Arc::new(Principal::anonymous()),
            client: limits::Client::Unknown,
            options: Arc::new(options),
        }
    }

    /// The modern handler of this endpoint.
    pub(super) fn modern(&self) -> &mcp_2026::Handler {
        self.authorized_modern
            .as_deref()
            .unwrap_or(&self.shared.modern)
    }
}
