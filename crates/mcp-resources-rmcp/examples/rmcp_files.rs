//! An rmcp server with one tool of its own and a directory's files as live resources, in both
//! protocol eras, on stdio: `cargo run -p mcp-resources-rmcp --example rmcp_files -- DIR`.

use std::sync::Arc;

use mcp_resources_fs::{FilesystemProvider, FsConfig};
use mcp_resources_rmcp::{Resources, serve_resources};
use mcp_resources_server::Server;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    /// The text to count the words of.
    text: String,
}

#[derive(Clone)]
struct Files {
    resources: Resources,
}

#[tool_router]
impl Files {
    #[tool(description = "Counts the words of a text")]
    fn count_words(&self, Parameters(Text { text }): Parameters<Text>) -> String {
        text.split_whitespace().count().to_string()
    }
}

#[tool_handler]
impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        let tools = ServerCapabilities::builder().enable_tools().build();
        ServerConfig::new(self.resources.capabilities(tools))
            .with_server_info(Implementation::new("rmcp-files", "0.1.0"))
    }

    serve_resources!(resources);
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".to_owned());
    let files = FilesystemProvider::new(FsConfig::new([root]))?;
    let changes = files.watch()?;
    let server = Server::builder().provider(Arc::new(files)).build()?;
    server.follow(changes);
    let resources = Resources::new(server);
    let running = Files { resources }.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
