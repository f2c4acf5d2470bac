//! The rmcp anchor server of `cargo xtask bench`: the official Rust SDK (`rmcp` 3.x) serving
//! the bench workload with its fastest settings, `stdio_pipes()` on stdio and stateless
//! Streamable HTTP with JSON responses; with `http-sse`, the same service answering every
//! request with an SSE stream (`json_response = false`), rmcp's default.
//!
//! Usage: `rmcp-anchor stdio`, `rmcp-anchor http 127.0.0.1:PORT` or
//! `rmcp-anchor http-sse 127.0.0.1:PORT`.

use std::sync::Arc;

use axum::serve::ListenerExt as _;
use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use rmcp_anchor::{RESOURCE_COUNT, TEMPLATE, index_of, text, uri};

const PAGE: usize = 100;

#[derive(Clone)]
struct Anchor {
    texts: Arc<Vec<String>>,
    listed: Arc<Vec<Resource>>,
}

impl Anchor {
    fn new() -> Anchor {
        let texts = (0..RESOURCE_COUNT).map(text).collect();
        let listed = (0..RESOURCE_COUNT)
            .map(|index| {
                let mut resource = Resource::new(uri(index), format!("r{index:04}"));
                resource.mime_type = Some("text/plain".into());
                resource
            })
            .collect();
        Anchor {
            texts: Arc::new(texts),
            listed: Arc::new(listed),
        }
    }
}

impl ServerHandler for Anchor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let start = match request.and_then(|params| params.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= RESOURCE_COUNT)
                .ok_or_else(|| ErrorData::invalid_params("invalid cursor", None))?,
        };
        let end = (start + PAGE).min(RESOURCE_COUNT);
        let mut result = ListResourcesResult::with_all_items(self.listed[start..end].to_vec());
        result.next_cursor = (end < RESOURCE_COUNT).then(|| end.to_string());
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(TEMPLATE, "t"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = if let Some(index) = index_of(&request.uri) {
            ResourceContents::text(self.texts[index].clone(), request.uri)
        } else if let Some(id) = request.uri.strip_prefix("mem:///t/") {
            ResourceContents::text(format!("template {id}"), request.uri.clone())
        } else {
            return Err(ErrorData::resource_not_found("resource not found", None));
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => {
            let running = Anchor::new()
                .serve(rmcp::transport::io::stdio_pipes())
                .await?;
            running.waiting().await?;
        }
        [mode @ ("http" | "http-sse"), addr] => {
            let anchor = Anchor::new();
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(*mode == "http");
            let service = StreamableHttpService::new(
                move || Ok(anchor.clone()),
                Arc::new(LocalSessionManager::default()),
                config,
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            // TCP_NODELAY, as the floor and the driver set it: without it, a reply written in
            // several pieces (an SSE stream's head and chunks) waits for delayed ACKs.
            let listener = tokio::net::TcpListener::bind(*addr)
                .await?
                .tap_io(|stream| {
                    let _ = stream.set_nodelay(true);
                });
            axum::serve(listener, router).await?;
        }
        _ => {
            return Err(
                "usage: rmcp-anchor stdio | rmcp-anchor http ADDR | rmcp-anchor http-sse ADDR"
                    .into(),
            );
        }
    }
    Ok(())
}
