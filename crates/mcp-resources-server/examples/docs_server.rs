//! The shortest useful custom server: two static `docs://` pages and a template answered by a
//! function, served on stdio to clients of every MCP version.
//!
//! Run it with `cargo run -p mcp-resources-server --example docs_server`, or point an MCP client at
//! that command.

use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::Server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = Server::builder().server_info("docs", "1.0.0");
    for (path, text) in [
        ("intro", "# Intro\nStart here."),
        ("faq", "# FAQ\nAsk away."),
    ] {
        let uri = ResourceUri::parse(&format!("docs://pages/{path}"))?;
        let resource = Resource::new(uri.clone(), path).with_mime_type("text/markdown");
        server = server.static_resource(resource, vec![Contents::text(uri, text)]);
    }
    let release_notes = UriTemplate::parse("docs://releases/{version}")?;
    let server = server
        .template_fn(
            ResourceTemplate::new(release_notes, "release notes").with_mime_type("text/plain"),
            |uri, variables| {
                let version = variables.get_str("version").unwrap_or_default();
                let text = format!("Release {version}: everything is faster.");
                let contents = vec![Contents::text(uri.clone(), text)];
                async move { Ok(contents) }
            },
        )
        .build()?;
    Ok(server.serve_stdio().await?)
}
