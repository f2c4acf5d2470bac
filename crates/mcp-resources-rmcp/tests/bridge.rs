//! The bridge driven by rmcp's own client, over an in-memory pipe, in both eras: a directory
//! served by the filesystem provider behind an rmcp `ServerHandler` that uses
//! `serve_resources!`, listed page by page, read (text, blob, a sensitive file the user
//! confirms), refused with each era's code, and watched for changes.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::policy::UriPattern;
use mcp_resources_core::sensitive::SensitiveRule;
use mcp_resources_fs::{FilesystemProvider, FsConfig};
use mcp_resources_rmcp::{Resources, serve_resources};
use mcp_resources_server::Server;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, ResourceUpdatedNotificationParam,
    ServerCapabilities, ServerConfig, ServerNotification, SubscribeRequestParams,
    SubscriptionFilter,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RoleClient,
    RunningService, ServiceError,
};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
use tokio::sync::mpsc;

/// How long a change may take to arrive (the watcher debounces); the tests wait no longer.
const CHANGE_WAIT: Duration = Duration::from_secs(20);

#[derive(Clone)]
struct Files {
    resources: Resources,
}

impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(self.resources.capabilities(ServerCapabilities::default()))
    }

    serve_resources!(resources);
}

/// A client that confirms (or declines) every elicitation and reports resource updates.
#[derive(Clone)]
struct Client {
    version: ProtocolVersion,
    confirm: bool,
    updates: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(serde_json::json!({ "elicitation": {} })).unwrap();
        let mut config = ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("bridge-test", "1.0.0"),
        );
        config.protocol_version = self.version.clone();
        config
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(if self.confirm {
            ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "confirm": true }))
        } else {
            ElicitResult::new(ElicitationAction::Decline)
        })
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updates.send(params.uri);
    }
}

struct Fixture {
    root: tempfile::TempDir,
    server: Server,
}

impl Fixture {
    /// Six files in two directories, two to a page; `secret.txt` must be confirmed.
    fn new() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().canonicalize().unwrap();
        for name in ["a.txt", "b.txt", "c.txt", "secret.txt"] {
            std::fs::write(dir.join(name), format!("the text of {name}\n")).unwrap();
        }
        std::fs::write(dir.join("blob.bin"), [0_u8, 159, 146, 150, 255]).unwrap();
        std::fs::create_dir(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/d.md"), "# d\n").unwrap();
        let files = FilesystemProvider::new(FsConfig::new([&dir])).unwrap();
        let changes = files.watch().unwrap();
        let secret = format!("{}/secret.txt", uri_of(&dir));
        let server = Server::builder()
            .page_size(2.try_into().unwrap())
            .provider(Arc::new(files))
            .sensitive(SensitiveRule {
                name: "secret".to_owned(),
                uris: vec![UriPattern::parse(&secret).unwrap()],
                confirm: true,
                reason: Some("it is a secret".to_owned()),
            })
            .build()
            .unwrap();
        server.follow(changes);
        Fixture { root, server }
    }

    fn uri(&self, name: &str) -> String {
        format!(
            "{}/{name}",
            uri_of(&self.root.path().canonicalize().unwrap())
        )
    }

    /// An rmcp client of a new session of the bridge, in `lifecycle`.
    async fn connect(
        &self,
        lifecycle: ClientLifecycleMode,
        version: ProtocolVersion,
        confirm: bool,
    ) -> (
        RunningService<RoleClient, Client>,
        mpsc::UnboundedReceiver<String>,
    ) {
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        let files = Files {
            resources: Resources::new(self.server.clone()),
        };
        tokio::spawn(async move {
            if let Ok(running) = files.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let (updates, received) = mpsc::unbounded_channel();
        let client = Client {
            version,
            confirm,
            updates,
        };
        let running = client
            .serve_with_lifecycle(client_end, lifecycle)
            .await
            .unwrap();
        (running, received)
    }
}

fn uri_of(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

fn legacy() -> ClientLifecycleMode {
    ClientLifecycleMode::Initialize
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

fn text_of(contents: &[ResourceContents]) -> &str {
    match contents {
        [ResourceContents::TextResourceContents { text, .. }] => text,
        other => panic!("one text content expected, got {other:?}"),
    }
}

fn code_of(error: ServiceError) -> i32 {
    match error {
        ServiceError::McpError(error) => error.code.0,
        other => panic!("a JSON-RPC error expected, got {other}"),
    }
}

/// Every page of `resources/list`, walked by cursor; returns the names and the page count.
async fn all_pages(client: &RunningService<RoleClient, Client>) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = client.list_resources(Some(params)).await.unwrap();
        pages += 1;
        names.extend(page.resources.iter().map(|resource| resource.name.clone()));
        cursor = page.next_cursor;
        if cursor.is_none() || pages > 10 {
            break;
        }
    }
    names.sort();
    (names, pages)
}

async fn read(
    client: &RunningService<RoleClient, Client>,
    uri: &str,
) -> Result<Vec<ResourceContents>, ServiceError> {
    let params = ReadResourceRequestParams::new(uri);
    client.read_resource(params).await.map(|read| read.contents)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_session_lists_reads_confirms_and_is_told_of_changes() {
    let fixture = Fixture::new();
    let (client, mut updates) = fixture
        .connect(legacy(), ProtocolVersion::V_2025_06_18, true)
        .await;
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert_eq!(capabilities.resources.unwrap().subscribe, Some(true));

    let (names, pages) = all_pages(&client).await;
    assert_eq!(
        names,
        ["a.txt", "b.txt", "blob.bin", "c.txt", "d.md", "secret.txt"]
    );
    assert_eq!(pages, 3, "six resources, two to a page");

    let a = fixture.uri("a.txt");
    assert_eq!(
        text_of(&read(&client, &a).await.unwrap()),
        "the text of a.txt\n"
    );
    match read(&client, &fixture.uri("blob.bin"))
        .await
        .unwrap()
        .as_slice()
    {
        [ResourceContents::BlobResourceContents { blob, .. }] => assert_eq!(blob, "AJ+Slv8="),
        other => panic!("a blob expected, got {other:?}"),
    }
    // The legacy era's "resource not found".
    let missing = read(&client, &fixture.uri("nothing.txt"))
        .await
        .unwrap_err();
    assert_eq!(code_of(missing), -32002);
    // The sensitive file: the server asks the client, which confirms.
    let secret = read(&client, &fixture.uri("secret.txt")).await.unwrap();
    assert_eq!(text_of(&secret), "the text of secret.txt\n");

    let children = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(fixture.uri("docs")))
        .await
        .unwrap();
    let names: Vec<&str> = children
        .resources
        .iter()
        .map(|child| child.name.as_str())
        .collect();
    assert_eq!(names, ["d.md"]);

    #[expect(deprecated, reason = "the legacy era's subscription is what is tested")]
    client
        .subscribe(SubscribeRequestParams::new(a.clone()))
        .await
        .unwrap();
    std::fs::write(fixture.root.path().join("a.txt"), "changed\n").unwrap();
    let told = tokio::time::timeout(CHANGE_WAIT, async {
        loop {
            match updates.recv().await {
                Some(uri) if uri == a => return uri,
                Some(_) => {}
                None => panic!("the client stopped"),
            }
        }
    })
    .await
    .expect("an update of a.txt in time");
    assert_eq!(told, a);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_client_that_declines_is_not_served_the_sensitive_file() {
    let fixture = Fixture::new();
    let (client, _updates) = fixture
        .connect(legacy(), ProtocolVersion::V_2025_11_25, false)
        .await;
    let refused = read(&client, &fixture.uri("secret.txt")).await.unwrap_err();
    assert_eq!(code_of(refused), -32602);
    // Before 2025-06-18 the client cannot be asked at all.
    let (old, _updates) = fixture
        .connect(legacy(), ProtocolVersion::V_2025_03_26, true)
        .await;
    let refused = read(&old, &fixture.uri("secret.txt")).await.unwrap_err();
    assert_eq!(code_of(refused), -32600);
    client.cancel().await.unwrap();
    old.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_lists_reads_confirms_and_listens() {
    let fixture = Fixture::new();
    let (client, _updates) = fixture
        .connect(modern(), ProtocolVersion::V_2026_07_28, true)
        .await;

    let first = client.list_resources(None).await.unwrap();
    assert!(
        first.ttl_ms.is_some() && first.cache_scope.is_some(),
        "{first:?}"
    );
    let (names, pages) = all_pages(&client).await;
    assert_eq!(names.len(), 6, "{names:?}");
    assert_eq!(pages, 3);

    let a = fixture.uri("a.txt");
    assert_eq!(
        text_of(&read(&client, &a).await.unwrap()),
        "the text of a.txt\n"
    );
    // The 2026-07-28 era's "resource not found".
    let missing = read(&client, &fixture.uri("nothing.txt"))
        .await
        .unwrap_err();
    assert_eq!(code_of(missing), -32602);
    // The sensitive file: an InputRequiredResult, answered by rmcp's client, then the text.
    let secret = read(&client, &fixture.uri("secret.txt")).await.unwrap();
    assert_eq!(text_of(&secret), "the text of secret.txt\n");

    // A URI in another spelling than the canonical one is left out: changes name a resource
    // by its canonical URI.
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec![a.clone(), a.replacen("file://", "FILE://", 1)]);
    let mut stream = client.listen(filter).await.unwrap();
    assert_eq!(
        stream.acknowledged().resource_subscriptions,
        Some(vec![a.clone()])
    );
    std::fs::write(fixture.root.path().join("a.txt"), "changed\n").unwrap();
    let told = tokio::time::timeout(CHANGE_WAIT, async {
        loop {
            match stream.next().await.unwrap() {
                Some(ServerNotification::ResourceUpdatedNotification(update)) => {
                    return update.params.uri;
                }
                Some(_) => {}
                None => panic!("the stream ended"),
            }
        }
    })
    .await
    .expect("an update of a.txt in time");
    assert_eq!(told, a);
    stream.cancel().await.unwrap();
    client.cancel().await.unwrap();
}
