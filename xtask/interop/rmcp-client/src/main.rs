//! rmcp's own client against the `mcp-resources` binary, for `cargo xtask interop`: one era,
//! one transport per run, each check printed as a JSON line (`{"check", "ok", "detail"}`).
//!
//! **Layer:** tooling, outside the product's workspace. `cargo xtask interop` builds it, makes
//! the fixture directory and runs it; it never judges more than what it prints. The fixture:
//! `a.txt` ("alpha\n"), `b.txt`, `c.txt`, `d.txt`, `logo.bin` (bytes 0 to 255) and
//! `docs/guide.md`, served two to a page.
//!
//! `interop-rmcp-client --era legacy|modern --transport stdio|http
//!     (--command "BIN serve --page-size 2 DIR" | --url http://127.0.0.1:PORT/mcp) --tree DIR`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, ResourceContents,
    ResourceUpdatedNotificationParam, ServerNotification, SubscribeRequestParams,
    SubscriptionFilter,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;
use tokio::sync::mpsc;

/// How long an update may take to arrive after the file changed.
const UPDATE_WAIT: Duration = Duration::from_secs(20);

/// The names the fixture's resources have.
const NAMES: [&str; 6] = ["a.txt", "b.txt", "c.txt", "d.txt", "guide.md", "logo.bin"];

struct Args {
    modern: bool,
    command: Option<String>,
    url: Option<String>,
    tree: PathBuf,
}

/// Tells the run about `notifications/resources/updated` in a legacy session.
#[derive(Clone)]
struct Updates(mpsc::UnboundedSender<String>);

impl ClientHandler for Updates {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("mcp-resources-interop", "0.0.0"),
        )
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

type Client = RunningService<RoleClient, Updates>;

fn report(check: &str, outcome: Result<String, String>) {
    let (ok, detail) = match outcome {
        Ok(detail) => (true, detail),
        Err(detail) => (false, detail),
    };
    println!("{}", json!({ "check": check, "ok": ok, "detail": detail }));
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut era, mut command, mut url, mut tree) = (None, None, None, None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--era" => era = Some(value),
            "--transport" => {}
            "--command" => command = Some(value),
            "--url" => url = Some(value),
            "--tree" => tree = Some(PathBuf::from(value)),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    let modern = match era.as_deref() {
        Some("legacy") => false,
        Some("modern") => true,
        _ => return Err("--era legacy|modern is required".to_owned()),
    };
    let tree = tree.ok_or("--tree is required")?;
    if command.is_none() == url.is_none() {
        return Err("give one of --command and --url".to_owned());
    }
    Ok(Args {
        modern,
        command,
        url,
        tree,
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(problem) => {
            eprintln!("interop-rmcp-client: {problem}");
            return std::process::ExitCode::from(2);
        }
    };
    let (sender, updates) = mpsc::unbounded_channel();
    let lifecycle = if args.modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let handler = Updates(sender);
    let connected = match (&args.command, &args.url) {
        (Some(command), _) => {
            let mut words = command.split_whitespace();
            let mut process = tokio::process::Command::new(words.next().unwrap_or_default());
            process.args(words).stderr(std::process::Stdio::null());
            match TokioChildProcess::new(process) {
                Ok(transport) => handler.serve_with_lifecycle(transport, lifecycle).await,
                Err(error) => {
                    report("connect", Err(error.to_string()));
                    return std::process::ExitCode::SUCCESS;
                }
            }
        }
        (None, Some(url)) => {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            handler.serve_with_lifecycle(transport, lifecycle).await
        }
        (None, None) => unreachable!("checked by parse_args"),
    };
    let client = match connected {
        Ok(client) => client,
        Err(error) => {
            report("connect", Err(error.to_string()));
            return std::process::ExitCode::SUCCESS;
        }
    };
    let tree = args.tree.canonicalize().unwrap_or(args.tree.clone());
    report("list every page", list_every_page(&client).await);
    report("read text", read_text(&client, &tree).await);
    report("read blob", read_blob(&client, &tree).await);
    report("read a directory", read_directory(&client, &tree).await);
    let update = if args.modern {
        listen(&client, &tree).await
    } else {
        subscribe(&client, &tree, updates).await
    };
    report("subscribe, see an update", update);
    let _ = client.cancel().await;
    std::process::ExitCode::SUCCESS
}

fn uri_of(tree: &Path, name: &str) -> String {
    format!("file://{}", tree.join(name).display())
}

async fn list_every_page(client: &Client) -> Result<String, String> {
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = client
            .list_resources(Some(params))
            .await
            .map_err(|error| error.to_string())?;
        pages += 1;
        names.extend(
            page.resources
                .into_iter()
                .map(|resource| resource.name.clone()),
        );
        cursor = page.next_cursor;
        if cursor.is_none() || pages > 20 {
            break;
        }
    }
    names.sort();
    let detail = format!("{pages} pages: {}", names.join(", "));
    if names == NAMES && pages > 1 {
        Ok(detail)
    } else {
        Err(detail)
    }
}

async fn read_one(client: &Client, uri: String) -> Result<ResourceContents, String> {
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map_err(|error| error.to_string())?;
    let mut contents = read.contents;
    match contents.len() {
        1 => Ok(contents.remove(0)),
        n => Err(format!("{n} contents")),
    }
}

async fn read_text(client: &Client, tree: &Path) -> Result<String, String> {
    let expected = std::fs::read_to_string(tree.join("a.txt")).map_err(|e| e.to_string())?;
    match read_one(client, uri_of(tree, "a.txt")).await? {
        ResourceContents::TextResourceContents { text, .. } if text == expected => {
            Ok(format!("{} bytes", text.len()))
        }
        other => Err(format!("{other:?}")),
    }
}

async fn read_blob(client: &Client, tree: &Path) -> Result<String, String> {
    match read_one(client, uri_of(tree, "logo.bin")).await? {
        ResourceContents::BlobResourceContents { blob, .. } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|error| error.to_string())?;
            let expected: Vec<u8> = (0..=255).collect();
            if bytes == expected {
                Ok("256 bytes".to_owned())
            } else {
                Err(format!("{} other bytes", bytes.len()))
            }
        }
        other => Err(format!("{other:?}")),
    }
}

async fn read_directory(client: &Client, tree: &Path) -> Result<String, String> {
    let params = ReadResourceDirectoryRequestParams::new(uri_of(tree, "docs"));
    let page = client
        .read_resource_directory(params)
        .await
        .map_err(|error| error.to_string())?;
    let names: Vec<String> = page.resources.into_iter().map(|child| child.name).collect();
    if names == ["guide.md"] {
        Ok(names.join(", "))
    } else {
        Err(format!("{names:?}"))
    }
}

/// Appends a line to `a.txt`, as a user editing it would.
fn touch(tree: &Path) -> Result<Instant, String> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(tree.join("a.txt"))
        .map_err(|error| error.to_string())?;
    writeln!(file, "more").map_err(|error| error.to_string())?;
    Ok(Instant::now())
}

#[expect(
    deprecated,
    reason = "resources/subscribe is what a legacy session has"
)]
async fn subscribe(
    client: &Client,
    tree: &Path,
    mut updates: mpsc::UnboundedReceiver<String>,
) -> Result<String, String> {
    let uri = uri_of(tree, "a.txt");
    client
        .subscribe(SubscribeRequestParams::new(uri.clone()))
        .await
        .map_err(|error| error.to_string())?;
    let started = touch(tree)?;
    let told = tokio::time::timeout(UPDATE_WAIT, async {
        while let Some(updated) = updates.recv().await {
            if updated == uri {
                return true;
            }
        }
        false
    })
    .await;
    match told {
        Ok(true) => Ok(format!("told after {:?}", started.elapsed())),
        Ok(false) => Err("the session ended first".to_owned()),
        Err(_) => Err(format!("no update within {UPDATE_WAIT:?}")),
    }
}

async fn listen(client: &Client, tree: &Path) -> Result<String, String> {
    let uri = uri_of(tree, "a.txt");
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec![uri.clone()]);
    let mut stream = client
        .listen(filter)
        .await
        .map_err(|error| error.to_string())?;
    if stream.acknowledged().resource_subscriptions.as_deref() != Some(&[uri.clone()][..]) {
        return Err(format!("acknowledged {:?}", stream.acknowledged()));
    }
    let started = touch(tree)?;
    let told = tokio::time::timeout(UPDATE_WAIT, async {
        loop {
            match stream.next().await {
                Ok(Some(ServerNotification::ResourceUpdatedNotification(update)))
                    if update.params.uri == uri =>
                {
                    return Ok(());
                }
                Ok(Some(_)) => {}
                Ok(None) => return Err("the stream ended first".to_owned()),
                Err(error) => return Err(error.to_string()),
            }
        }
    })
    .await;
    let _ = stream.cancel().await;
    match told {
        Ok(Ok(())) => Ok(format!("told after {:?}", started.elapsed())),
        Ok(Err(problem)) => Err(problem),
        Err(_) => Err(format!("no update within {UPDATE_WAIT:?}")),
    }
}
