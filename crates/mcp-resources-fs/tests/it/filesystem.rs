//! The filesystem provider against real temporary directories: listing and paging, reads (text,
//! binary, percent-encoded names, ranges, the size limit), everything that must stay hidden,
//! traversal attempts, completion through the engine, and the watcher.
#![cfg(unix)]

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::change::Change;
use mcp_resources_core::engine::Engine;
use mcp_resources_core::error::ReadError;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::provider::{ListRequest, Provider, ProviderError, ReadRequest};
use mcp_resources_core::resource::{Body, ByteRange, Resource, Timestamp};
use mcp_resources_core::template::{UriTemplate, Variables};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_fs::{FilesystemProvider, FsConfig, FsWatcher};
use tempfile::TempDir;

const BINARY: &[u8] = &[0, 159, 146, 150, 255, b'a'];

/// A served tree and, beside it, a directory outside the root.
struct Fixture {
    _outside: TempDir,
    root: TempDir,
    /// `file://` and the canonical root path (plain ASCII for temp dirs).
    prefix: String,
}

impl Fixture {
    fn new() -> Fixture {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("passwd"), "root:x:0:0").unwrap();
        fs::create_dir(outside.path().join("dir")).unwrap();
        fs::write(outside.path().join("dir/secret.txt"), "outside secret").unwrap();

        let root = tempfile::tempdir().unwrap();
        let files: &[(&str, &[u8])] = &[
            ("README.md", b"# Hello\n"),
            ("a b.txt", b"spaced"),
            ("\u{fc}n\u{ef}.md", b"unicode name"),
            ("bin.dat", BINARY),
            ("nul.txt", b"text\0with nul"),
            (".editorconfig", b"root = true\n"),
            (".github/workflows/x.yml", b"on: push\n"),
            ("src/main.rs", b"fn main() {}\n"),
            (".gitignore", b"*.log\ntarget/\n!keep.log\n"),
            ("debug.log", b"ignored"),
            ("keep.log", b"kept"),
            ("target/out.txt", b"ignored dir"),
            (".git/config", b"[core]"),
            (".git/HEAD", b"ref: refs/heads/main"),
            (".env", b"TOKEN=1"),
            (".env.local", b"TOKEN=2"),
            ("id_rsa", b"PRIVATE"),
            ("id_rsa.pub", b"ssh-rsa AAAA"),
            ("server.pem", b"CERT"),
            ("credentials.json", b"{}"),
            ("config/.env/inner.txt", b"below a secret dir"),
            ("sub/.gitignore", b"secret.txt\n"),
            ("sub/secret.txt", b"ignored below"),
            ("sub/ok.txt", b"ok"),
        ];
        for (relative, contents) in files {
            let path = root.path().join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, contents).unwrap();
        }
        symlink("README.md", root.path().join("link_in.md")).unwrap();
        symlink(".env", root.path().join("innocent.txt")).unwrap();
        symlink(
            outside.path().join("passwd"),
            root.path().join("link_out.txt"),
        )
        .unwrap();
        symlink(outside.path().join("dir"), root.path().join("dir_out")).unwrap();

        let canonical = fs::canonicalize(root.path()).unwrap();
        let text = canonical.to_str().unwrap();
        assert!(
            text.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b)),
            "the tests assume a plain temp path, got {text}"
        );
        Fixture {
            _outside: outside,
            root,
            prefix: format!("file://{text}"),
        }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    fn uri(&self, encoded_relative: &str) -> String {
        format!("{}/{encoded_relative}", self.prefix)
    }

    fn template(&self) -> String {
        format!("{}/{{+path}}{{?offset,length}}", self.prefix)
    }

    fn provider(&self) -> FilesystemProvider {
        self.provider_with(|_| {})
    }

    fn provider_with(&self, tweak: impl FnOnce(&mut FsConfig)) -> FilesystemProvider {
        let mut config = FsConfig::new([self.path()]);
        config.watch = false;
        tweak(&mut config);
        FilesystemProvider::new(config).unwrap()
    }
}

fn engine(provider: &FilesystemProvider) -> Engine {
    Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

async fn list_all(provider: &FilesystemProvider, limit: usize) -> Vec<Resource> {
    let principal = Principal::anonymous();
    let mut all = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = provider
            .list(ListRequest {
                principal: &principal,
                after: after.as_deref(),
                limit,
            })
            .await
            .unwrap();
        assert!(page.len() <= limit);
        let done = page.len() < limit;
        after = page.last().map(|resource| resource.uri.to_string());
        all.extend(page);
        if done {
            return all;
        }
    }
}

/// Reads `uri` (which parses) from the provider directly, as the anonymous principal.
async fn try_read(
    provider: &FilesystemProvider,
    uri: &ResourceUri,
) -> Result<Option<Vec<mcp_resources_core::resource::Contents>>, ProviderError> {
    let principal = Principal::anonymous();
    provider
        .read(ReadRequest {
            inputs: mcp_resources_core::input::Inputs::none(),
            principal: &principal,
            uri,
            template: None,
            variables: None,
            range: None,
        })
        .await
}

/// Reads `uri` from the provider directly: `None` for a URI that does not parse or names
/// nothing.
async fn read(provider: &FilesystemProvider, uri: &str) -> Option<Body> {
    let uri = ResourceUri::parse(uri).ok()?;
    let contents = try_read(provider, &uri).await.unwrap()?;
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0].uri, uri);
    Some(contents[0].body.clone())
}

fn titles(resources: &[Resource]) -> BTreeSet<String> {
    resources
        .iter()
        .map(|resource| resource.title.clone().unwrap())
        .collect()
}

/// The directories of the fixture that are directory resources (the root aside).
const DIRECTORIES: &[&str] = &[".github", ".github/workflows", "config", "src", "sub"];

const SERVED: &[&str] = &[
    ".editorconfig",
    ".github/workflows/x.yml",
    ".gitignore",
    "README.md",
    "a b.txt",
    "bin.dat",
    "id_rsa.pub",
    "keep.log",
    "nul.txt",
    "src/main.rs",
    "sub/.gitignore",
    "sub/ok.txt",
    "\u{fc}n\u{ef}.md",
];

#[tokio::test]
async fn lists_every_served_file_in_uri_order_through_pages() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let whole = list_all(&provider, 1000).await;
    assert_eq!(
        titles(&whole),
        SERVED.iter().map(|s| s.to_string()).collect()
    );
    assert_eq!(provider.len(), SERVED.len());
    let uris: Vec<&str> = whole.iter().map(|r| r.uri.as_str()).collect();
    let mut sorted = uris.clone();
    sorted.sort_unstable();
    assert_eq!(uris, sorted, "ascending canonical-uri order");
    for resource in &whole {
        let canonical = ResourceUri::parse(resource.uri.as_str()).unwrap();
        assert_eq!(canonical.as_str(), resource.uri.as_str());
    }
    for limit in [1, 2, 3, 5] {
        let paged = list_all(&provider, limit).await;
        assert_eq!(paged, whole, "pages of {limit}");
    }
}

#[tokio::test]
async fn listed_metadata_and_percent_encoded_uris() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let whole = list_all(&provider, 1000).await;
    let find = |title: &str| {
        whole
            .iter()
            .find(|r| r.title.as_deref() == Some(title))
            .unwrap()
            .clone()
    };
    let readme = find("README.md");
    assert_eq!(readme.uri.as_str(), fixture.uri("README.md"));
    assert_eq!(readme.name, "README.md");
    assert_eq!(readme.size, Some(8));
    assert_eq!(readme.mime_type.as_deref(), Some("text/markdown"));
    let modified = readme.annotations.unwrap().last_modified.unwrap();
    assert!(Timestamp::parse(modified.as_str()).is_ok());
    assert!(modified.as_str().ends_with('Z'), "{modified}");
    assert!(modified.as_str() > "2020", "{modified}");

    assert_eq!(find("a b.txt").uri.as_str(), fixture.uri("a%20b.txt"));
    assert_eq!(find("a b.txt").mime_type.as_deref(), Some("text/plain"));
    assert_eq!(
        find("\u{fc}n\u{ef}.md").uri.as_str(),
        fixture.uri("%C3%BCn%C3%AF.md")
    );
    assert_eq!(find("sub/ok.txt").name, "ok.txt");
}

#[tokio::test]
async fn reads_text_binary_and_encoded_names() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let text = |s: &str| Some(Body::Text(s.into()));
    assert_eq!(
        read(&provider, &fixture.uri("README.md")).await,
        text("# Hello\n")
    );
    assert_eq!(
        read(&provider, &fixture.uri("a%20b.txt")).await,
        text("spaced")
    );
    assert_eq!(
        read(&provider, &fixture.uri("%C3%BCn%C3%AF.md")).await,
        text("unicode name")
    );
    // Lowercase hex digits are the same resource once canonicalized.
    assert_eq!(
        read(&provider, &fixture.uri("%c3%bcn%c3%af.md")).await,
        text("unicode name")
    );
    assert_eq!(
        read(&provider, &fixture.uri("bin.dat")).await,
        Some(Body::Bytes(BINARY.into()))
    );
    assert_eq!(
        read(&provider, &fixture.uri("nul.txt")).await,
        Some(Body::Bytes(b"text\0with nul".as_slice().into()))
    );
    assert_eq!(
        read(&provider, &fixture.uri(".github/workflows/x.yml")).await,
        text("on: push\n")
    );
    assert_eq!(
        read(&provider, &fixture.uri(".editorconfig")).await,
        text("root = true\n")
    );
    assert_eq!(
        read(&provider, &fixture.uri("link_in.md")).await,
        None,
        "a symlink is not followed, even to a served file"
    );
    assert_eq!(read(&provider, &fixture.uri("missing.txt")).await, None);
    assert_eq!(
        read(&provider, &fixture.uri("src")).await,
        None,
        "a directory"
    );

    // Every listed resource reads back through the engine's routing.
    let engine = engine(&provider);
    let anyone = Principal::anonymous();
    for resource in list_all(&provider, 1000).await {
        let output = engine.read(&anyone, &resource.uri).await.unwrap();
        assert_eq!(output.contents[0].body.len(), resource.size.unwrap());
    }
}

#[tokio::test]
async fn hidden_files_are_neither_listed_nor_readable() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let listed = titles(&list_all(&provider, 1000).await);
    for hidden in [
        "debug.log",
        "target/out.txt",
        ".git/config",
        ".git/HEAD",
        ".env",
        ".env.local",
        "id_rsa",
        "server.pem",
        "credentials.json",
        "config/.env/inner.txt",
        "sub/secret.txt",
        "innocent.txt",
        "link_out.txt",
        "link_in.md",
        "dir_out/secret.txt",
    ] {
        assert!(!listed.contains(hidden), "{hidden} is listed");
        let encoded = hidden.replace(' ', "%20");
        assert_eq!(
            read(&provider, &fixture.uri(&encoded)).await,
            None,
            "{hidden}"
        );
    }
    // The same files become visible when their rules are turned off, so the rules (not
    // something else) hid them.
    let lax = fixture.provider_with(|config| {
        config.respect_ignore_files = false;
        config.secret_patterns.clear();
    });
    let lax_listed = titles(&list_all(&lax, 1000).await);
    for shown in [
        "debug.log",
        "target/out.txt",
        ".env",
        "id_rsa",
        "sub/secret.txt",
    ] {
        assert!(lax_listed.contains(shown), "{shown}");
    }
    assert!(!lax_listed.contains(".git/config"), ".git is never served");
    assert_eq!(
        read(&lax, &fixture.uri(".env")).await,
        Some(Body::Text("TOKEN=1".into()))
    );
    // A symlink stays unfollowed whatever the rules: it would reach `.env` by another name.
    assert_eq!(read(&lax, &fixture.uri("innocent.txt")).await, None);
    assert!(!lax_listed.contains("innocent.txt"));
}

#[tokio::test]
async fn extra_secret_patterns_extend_the_defaults() {
    let fixture = Fixture::new();
    let provider = fixture.provider_with(|config| config.secret_patterns.push("*.md".into()));
    let listed = titles(&list_all(&provider, 1000).await);
    assert!(!listed.contains("README.md"));
    assert!(!listed.contains("link_in.md"));
    assert!(listed.contains("a b.txt"));
    assert_eq!(read(&provider, &fixture.uri("README.md")).await, None);
    assert_eq!(read(&provider, &fixture.uri(".env")).await, None);
}

#[tokio::test]
async fn traversal_attempts_name_nothing() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    for attempt in [
        "../etc/passwd",
        "sub/../../etc/passwd",
        "%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "sub%2Fok.txt",
        "sub%2fok.txt",
        "sub/..%2Fsecret.txt",
        "sub/../.env",
        "link_out.txt",
        "dir_out/secret.txt",
        "innocent.txt",
        "README.md%00.txt",
        "a%00b",
        "sub//ok.txt",
        "README.md?rev=1",
        "README.md?offset=1&offset=2",
    ] {
        let uri = fixture.uri(attempt);
        assert_eq!(read(&provider, &uri).await, None, "{uri}");
    }
    // A NUL cannot even reach the provider: it is not a valid resource uri.
    assert!(ResourceUri::parse(&fixture.uri("a%00b")).is_err());
    // Outside every root, or another authority: not claimed, and not read.
    for other in ["file:///etc/passwd", "file://example.com/etc/passwd"] {
        let uri = ResourceUri::parse(other).unwrap();
        assert!(!provider.claims(&uri), "{other}");
        assert_eq!(read(&provider, other).await, None);
    }
    // Through the engine, the same attempts are plain "not found".
    let engine = engine(&provider);
    let anyone = Principal::anonymous();
    for attempt in ["%2e%2e/passwd", "dir_out/secret.txt", "sub%2Fok.txt"] {
        let uri = ResourceUri::parse(&fixture.uri(attempt)).unwrap();
        let error = engine.read(&anyone, &uri).await.unwrap_err();
        assert!(matches!(error, ReadError::NotFound { .. }), "{error}");
    }
}

/// A grant covers `public/**` only; links inside `public/` lead into `private/`. A principal
/// must never receive bytes (or names, or sizes) of a file whose own URI no grant covers.
#[tokio::test]
async fn links_never_carry_a_grant_beyond_its_pattern() {
    use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, UriPattern};
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("public")).unwrap();
    fs::create_dir_all(root.path().join("private")).unwrap();
    fs::write(root.path().join("public/open.txt"), "open").unwrap();
    fs::write(root.path().join("private/secret.txt"), "private bytes").unwrap();
    symlink(
        "../private/secret.txt",
        root.path().join("public/pfile.txt"),
    )
    .unwrap();
    symlink("../private", root.path().join("public/linkdir")).unwrap();
    fs::hard_link(
        root.path().join("private/secret.txt"),
        root.path().join("public/hard.txt"),
    )
    .unwrap();
    let canonical = fs::canonicalize(root.path()).unwrap();
    let prefix = format!("file://{}", canonical.to_str().unwrap());
    let policy = PatternPolicy::new().grant(
        Grantee::Anyone,
        ActionSet::ALL,
        UriPattern::parse(&format!("{prefix}/public/**")).unwrap(),
    );
    let serve = |refuse_hard_links: bool| {
        let mut config = FsConfig::new([root.path()]);
        config.watch = false;
        config.refuse_hard_links = refuse_hard_links;
        let provider = FilesystemProvider::new(config).unwrap();
        Engine::builder(CursorKey::new([7; 32]))
            .provider(Arc::new(provider))
            .policy(Arc::new(policy.clone()))
            .build()
            .unwrap()
    };
    let anyone = Principal::anonymous();
    for refuse_hard_links in [false, true] {
        let engine = serve(refuse_hard_links);
        let listed: Vec<String> = engine
            .list_resources(&anyone, None)
            .await
            .unwrap()
            .items
            .iter()
            .map(|resource| resource.uri.to_string())
            .collect();
        let mut expected = vec![format!("{prefix}/public/open.txt")];
        if !refuse_hard_links {
            // A hard link is the file itself: it cannot be told apart, so it is served unless
            // the provider refuses files with other links.
            expected.insert(0, format!("{prefix}/public/hard.txt"));
        }
        assert_eq!(listed, expected, "refuse_hard_links: {refuse_hard_links}");
        for attempt in [
            "public/pfile.txt",
            "public/pfile.txt?offset=0&length=4",
            "public/linkdir/secret.txt",
            "public/linkdir/secret.txt?offset=2",
            "private/secret.txt",
        ] {
            let uri = ResourceUri::parse(&format!("{prefix}/{attempt}")).unwrap();
            let error = engine.read(&anyone, &uri).await.unwrap_err();
            assert!(
                matches!(error, ReadError::NotFound { .. }),
                "{attempt}: {error}"
            );
        }
        let hard = ResourceUri::parse(&format!("{prefix}/public/hard.txt")).unwrap();
        assert_eq!(
            engine.read(&anyone, &hard).await.is_ok(),
            !refuse_hard_links
        );
        let template = format!("{prefix}/{{+path}}{{?offset,length}}");
        let completion = engine
            .complete(&anyone, &template, "path", "public/", &Variables::new())
            .await
            .unwrap();
        let mut offered = vec!["public/open.txt"];
        if !refuse_hard_links {
            offered.insert(0, "public/hard.txt");
        }
        assert_eq!(completion.values, offered);
    }
}

#[tokio::test]
async fn a_file_that_became_a_symlink_is_checked_on_read() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let uri = fixture.uri("sub/ok.txt");
    assert!(read(&provider, &uri).await.is_some());
    // The index still lists it; the read must look at the disk again.
    let ok = fixture.path().join("sub/ok.txt");
    fs::remove_file(&ok).unwrap();
    symlink(fixture._outside.path().join("passwd"), &ok).unwrap();
    assert_eq!(read(&provider, &uri).await, None);
}

#[tokio::test]
async fn ranged_reads_return_the_exact_bytes() {
    let fixture = Fixture::new();
    let digits: String = (0..100)
        .map(|i| char::from(b'0' + (i % 10) as u8))
        .collect();
    fs::write(fixture.path().join("big.txt"), &digits).unwrap();
    let provider = fixture.provider();
    let engine = engine(&provider);
    let anyone = Principal::anonymous();

    async fn check(engine: &Engine, uri: String, expect: Body) {
        let uri = ResourceUri::parse(&uri).unwrap();
        let output = engine.read(&Principal::anonymous(), &uri).await.unwrap();
        assert_eq!(output.contents[0].body, expect, "{uri}");
        assert_eq!(output.contents[0].uri, uri);
    }
    let text = |s: &str| Body::Text(s.into());
    check(
        &engine,
        fixture.uri("big.txt?offset=13&length=5"),
        text("34567"),
    )
    .await;
    check(
        &engine,
        fixture.uri("big.txt?length=4&offset=98"),
        text("89"),
    )
    .await;
    check(&engine, fixture.uri("big.txt?length=3"), text("012")).await;
    check(&engine, fixture.uri("big.txt?offset=95"), text("56789")).await;
    check(
        &engine,
        fixture.uri("big.txt?offset=500&length=5"),
        text(""),
    )
    .await;
    check(
        &engine,
        fixture.uri("bin.dat?offset=1&length=3"),
        Body::Bytes(BINARY[1..4].into()),
    )
    .await;
    // Cut inside a UTF-8 character: the exact bytes, as bytes.
    fs::write(fixture.path().join("utf8.txt"), "\u{fc}ber").unwrap();
    check(
        &engine,
        fixture.uri("utf8.txt?offset=0&length=2"),
        text("\u{fc}"),
    )
    .await;
    check(
        &engine,
        fixture.uri("utf8.txt?offset=0&length=1"),
        Body::Bytes([0xC3_u8].as_slice().into()),
    )
    .await;
    // The engine's own range applies within the query's part.
    let uri = ResourceUri::parse(&fixture.uri("big.txt?offset=10&length=10")).unwrap();
    let output = engine
        .read_range(
            &anyone,
            &uri,
            ByteRange {
                offset: 2,
                length: 3,
            },
        )
        .await
        .unwrap();
    assert_eq!(output.contents[0].body, text("234"));
    // Hidden files stay hidden in ranged form.
    assert_eq!(
        read(&provider, &fixture.uri(".env?offset=0&length=3")).await,
        None
    );
    // A bad number is a public error.
    let uri = ResourceUri::parse(&fixture.uri("big.txt?offset=x")).unwrap();
    let error = engine.read(&anyone, &uri).await.unwrap_err();
    assert!(error.to_string().contains("offset \"x\""), "{error}");
}

#[tokio::test]
async fn reads_over_the_limit_fail_and_point_to_the_ranged_form() {
    let fixture = Fixture::new();
    fs::write(fixture.path().join("big.bin"), vec![0u8; 100]).unwrap();
    let provider = fixture.provider_with(|config| config.max_read_bytes = 64);
    let uri = ResourceUri::parse(&fixture.uri("big.bin")).unwrap();
    let anyone = Principal::anonymous();
    let request = |uri| ReadRequest {
        inputs: mcp_resources_core::input::Inputs::none(),
        principal: &anyone,
        uri,
        template: None,
        variables: None,
        range: None,
    };
    let error = provider.read(request(&uri)).await.unwrap_err();
    assert!(error.is_public());
    assert!(error.is_invalid_params(), "{error:?}");
    let message = error.message();
    assert!(message.contains("100 bytes"), "{message}");
    assert!(message.contains("limit of 64 bytes"), "{message}");
    assert!(message.contains(&fixture.template()), "{message}");
    assert!(
        message.contains(&format!("{}?offset=0&length=48", fixture.uri("big.bin"))),
        "{message}"
    );
    // The ranged form it names works: three quarters of the limit, which fits in base64.
    let part = ResourceUri::parse(&fixture.uri("big.bin?offset=0&length=48")).unwrap();
    let contents = provider.read(request(&part)).await.unwrap().unwrap();
    assert_eq!(contents[0].body, Body::Bytes(vec![0u8; 48].into()));
    // A part longer than the limit is refused too; a hidden big file is just absent.
    let long = ResourceUri::parse(&fixture.uri("big.bin?length=65")).unwrap();
    assert!(provider.read(request(&long)).await.unwrap_err().is_public());
    assert!(
        provider
            .read(request(&long))
            .await
            .unwrap_err()
            .is_invalid_params()
    );
    fs::write(fixture.path().join("huge.pem"), vec![0u8; 100]).unwrap();
    let hidden = ResourceUri::parse(&fixture.uri("huge.pem")).unwrap();
    assert_eq!(provider.read(request(&hidden)).await.unwrap(), None);
}

/// A read the client got wrong (a bad number in the query, a part or a whole file over the read
/// limit) is answered invalid params in both eras, never internal error; a missing file is
/// still not found (`-32002` in the legacy era).
#[tokio::test]
async fn client_mistakes_in_reads_are_invalid_params_in_both_eras() {
    let fixture = Fixture::new();
    fs::write(fixture.path().join("big.bin"), vec![0u8; 100]).unwrap();
    let provider = fixture.provider_with(|config| config.max_read_bytes = 64);
    let server = mcp_resources_server::Server::builder()
        .provider(Arc::new(provider))
        .build()
        .unwrap();
    let meta = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let mistakes = [
        "README.md?offset=abc",
        "README.md?offset=-1",
        "README.md?length=-5",
        "big.bin?length=65",
        "big.bin",
        "big.bin?offset=10",
    ];
    let read = |id: usize, name: &str, meta: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"{}"{meta}}}}}"#,
            fixture.uri(name)
        )
    };
    let mut lines: Vec<String> = mistakes
        .iter()
        .enumerate()
        .map(|(id, name)| read(id, name, meta))
        .collect();
    lines.push(read(100, "missing.txt", meta));
    lines.push(
        r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            .to_owned(),
    );
    lines.push(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
    lines.extend(
        mistakes
            .iter()
            .enumerate()
            .map(|(id, name)| read(id + 200, name, "")),
    );
    lines.push(read(300, "missing.txt", ""));
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let mut output = Vec::new();
    tokio::time::timeout(
        Duration::from_secs(10),
        server.serve_lines(input.as_bytes(), &mut output),
    )
    .await
    .expect("served in time")
    .unwrap();
    let mut codes: Vec<(i64, i64)> = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter_map(|message| {
            let id = message["id"].as_i64()?;
            Some((id, message["error"]["code"].as_i64().unwrap_or(0)))
        })
        .collect();
    codes.sort_unstable();
    let expected: Vec<(i64, i64)> = (0..6)
        .map(|id| (id, -32602))
        .chain([(100, -32602)])
        .chain((200..206).map(|id| (id, -32602)))
        .chain([(300, -32002)])
        .collect();
    assert_eq!(codes, expected);
}

#[tokio::test]
async fn completes_paths_relative_to_the_root() {
    let fixture = Fixture::new();
    let provider = fixture.provider();
    let engine = engine(&provider);
    let templates = engine
        .list_templates(&Principal::anonymous(), None)
        .await
        .unwrap();
    assert_eq!(templates.items.len(), 1);
    assert_eq!(templates.items[0].uri_template.as_str(), fixture.template());

    async fn check(engine: &Engine, template: &str, prefix: &str, expect: &[&str]) {
        let completion = engine
            .complete(
                &Principal::anonymous(),
                template,
                "path",
                prefix,
                &Variables::new(),
            )
            .await
            .unwrap();
        assert_eq!(completion.values, expect, "prefix {prefix:?}");
    }
    let template = fixture.template();
    // Directories too, which a directory read takes.
    check(
        &engine,
        &template,
        "s",
        &["src", "src/main.rs", "sub", "sub/.gitignore", "sub/ok.txt"],
    )
    .await;
    check(&engine, &template, "sub/o", &["sub/ok.txt"]).await;
    check(&engine, &template, "a ", &["a b.txt"]).await;
    check(&engine, &template, "\u{fc}", &["\u{fc}n\u{ef}.md"]).await;
    check(&engine, &template, ".e", &[".editorconfig"]).await;
    check(&engine, &template, "id_", &["id_rsa.pub"]).await;
    check(&engine, &template, "target/", &[]).await;
    check(&engine, &template, ".git/", &[]).await;
    let everything = engine
        .complete(
            &Principal::anonymous(),
            &template,
            "path",
            "",
            &Variables::new(),
        )
        .await
        .unwrap();
    assert_eq!(everything.values.len(), SERVED.len() + DIRECTORIES.len());
    let offsets = engine
        .complete(
            &Principal::anonymous(),
            &template,
            "offset",
            "",
            &Variables::new(),
        )
        .await
        .unwrap();
    assert!(offsets.values.is_empty());
}

/// The completion values of `prefix` for the fixture's template, through the engine.
async fn complete_path(engine: &Engine, fixture: &Fixture, prefix: &str) -> Vec<String> {
    engine
        .complete(
            &Principal::anonymous(),
            &fixture.template(),
            "path",
            prefix,
            &Variables::new(),
        )
        .await
        .unwrap()
        .values
}

/// The URI a client makes of `path` (and `offset`, if given) with the fixture's template, as
/// RFC 6570 says, before anything canonicalizes it.
fn expand(fixture: &Fixture, path: &str, offset: Option<&str>) -> String {
    let template = UriTemplate::parse(&fixture.template()).unwrap();
    let mut variables = Variables::new();
    variables.insert("path", path);
    if let Some(offset) = offset {
        variables.insert("offset", offset);
    }
    template.expand(&variables)
}

/// Reads `uri` through the engine, as an adapter does with what a client sent: the body and
/// the URI of the contents.
async fn engine_read(engine: &Engine, uri: &str) -> (Body, String) {
    let uri = ResourceUri::parse(uri).unwrap_or_else(|error| panic!("{uri}: {error}"));
    let output = engine
        .read(&Principal::anonymous(), &uri)
        .await
        .unwrap_or_else(|error| panic!("{uri}: {error}"));
    assert_eq!(output.contents.len(), 1);
    (
        output.contents[0].body.clone(),
        output.contents[0].uri.to_string(),
    )
}

/// Finding 16: route files of web frameworks (`app/[slug]/page.tsx`) are listed with `%5B` and
/// `%5D`, while the template's reserved expansion leaves the brackets raw. Both are one
/// resource: a client reading the listed URI and one reading the expansion get the same file,
/// and completion proposes the name.
#[tokio::test]
async fn bracketed_names_read_the_same_through_the_listing_and_the_template() {
    let fixture = Fixture::new();
    for (relative, contents) in [
        ("app/[slug]/page.tsx", "slug page"),
        ("app/[...all]/page.tsx", "catch-all"),
        ("app/(group)/[[opt]]/x].md", "odd brackets"),
    ] {
        let path = fixture.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
    let provider = fixture.provider();
    let engine = engine(&provider);
    let listed = list_all(&provider, 1000).await;
    let slug = listed
        .iter()
        .find(|resource| resource.title.as_deref() == Some("app/[slug]/page.tsx"))
        .expect("listed");
    assert_eq!(slug.uri.as_str(), fixture.uri("app/%5Bslug%5D/page.tsx"));

    for (title, contents) in [
        ("app/[slug]/page.tsx", "slug page"),
        ("app/[...all]/page.tsx", "catch-all"),
        ("app/(group)/[[opt]]/x].md", "odd brackets"),
    ] {
        let listed_uri = listed
            .iter()
            .find(|resource| resource.title.as_deref() == Some(title))
            .unwrap()
            .uri
            .to_string();
        let expanded = expand(&fixture, title, None);
        assert!(
            expanded.contains('['),
            "reserved expansion keeps {expanded}"
        );
        let by_listing = engine_read(&engine, &listed_uri).await;
        let by_template = engine_read(&engine, &expanded).await;
        assert_eq!(
            by_listing,
            (Body::Text(contents.into()), listed_uri.clone())
        );
        assert_eq!(by_template, by_listing, "{expanded}");
        // The ranged form of the template too.
        let ranged = engine_read(&engine, &expand(&fixture, title, Some("5"))).await;
        assert_eq!(ranged.0, Body::Text(contents[5..].into()));
        assert_eq!(ranged.1, format!("{listed_uri}?offset=5"));
    }

    // In URI order: `%5B` comes before `(`; directories are proposed too.
    assert_eq!(
        complete_path(&engine, &fixture, "app/").await,
        [
            "app/[...all]",
            "app/[...all]/page.tsx",
            "app/[slug]",
            "app/[slug]/page.tsx",
            "app/(group)",
            "app/(group)/[[opt]]",
            "app/(group)/[[opt]]/x].md",
        ]
    );
    assert_eq!(
        complete_path(&engine, &fixture, "app/[s").await,
        ["app/[slug]", "app/[slug]/page.tsx"]
    );
}

/// Finding 18: completion proposes only values whose expansion reads the file they name. A
/// name that is not UTF-8 (titled with U+FFFD), or that holds `?`, `#` or a literal `%XX`, is
/// left out, and stays readable by its listed URI.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn completion_proposes_only_names_that_read_back() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let fixture = Fixture::new();
    let dir = fixture.path().join("names");
    fs::create_dir(&dir).unwrap();
    let unreachable: [(&[u8], &str); 5] = [
        (b"caf\xe9.txt", "caf%E9.txt"),
        (b"\xff\xfe", "%FF%FE"),
        (b"what?.txt", "what%3F.txt"),
        (b"hash#1.txt", "hash%231.txt"),
        (b"%41.txt", "%2541.txt"),
    ];
    let reachable = [
        "plain.txt",
        "50%.txt",
        "[id].txt",
        "real \u{fffd} replacement.txt",
    ];
    for (name, _) in unreachable {
        fs::write(dir.join(OsStr::from_bytes(name)), name).unwrap();
    }
    for name in reachable {
        fs::write(dir.join(name), name).unwrap();
    }
    let provider = fixture.provider();
    let engine = engine(&provider);

    // Every file is listed, and readable by its listed URI.
    let listed = list_all(&provider, 1000).await;
    for (name, encoded) in unreachable {
        let uri = fixture.uri(&format!("names/{encoded}"));
        assert!(
            listed.iter().any(|resource| resource.uri == uri.as_str()),
            "{uri} is listed"
        );
        assert_eq!(engine_read(&engine, &uri).await.0.len(), name.len() as u64);
    }

    let mut expected: Vec<String> = reachable
        .iter()
        .map(|name| format!("names/{name}"))
        .collect();
    // In the order of their URIs.
    expected.sort_by_key(|title| ResourceUri::parse(&expand(&fixture, title, None)).unwrap());
    let values = complete_path(&engine, &fixture, "names/").await;
    assert_eq!(values, expected);
    assert_eq!(
        complete_path(&engine, &fixture, "names/caf").await,
        Vec::<String>::new()
    );
    // Every value proposed, put in the template, reads the file whose title it is, or names
    // a directory that a directory read takes.
    for value in complete_path(&engine, &fixture, "").await {
        let expanded = ResourceUri::parse(&expand(&fixture, &value, None)).unwrap();
        if let Ok(page) = engine
            .list_directory(&Principal::anonymous(), &expanded, None)
            .await
        {
            assert!(
                DIRECTORIES.contains(&value.as_str()) || value == "names",
                "{value}"
            );
            drop(page);
            continue;
        }
        let (body, uri) = engine_read(&engine, expanded.as_str()).await;
        let resource = listed
            .iter()
            .find(|resource| resource.uri == uri.as_str())
            .unwrap_or_else(|| panic!("{value} read {uri}, which is not listed"));
        assert_eq!(resource.title.as_deref(), Some(value.as_str()));
        assert_eq!(Some(body.len()), resource.size);
    }
}

#[tokio::test]
async fn nested_and_repeated_roots_serve_each_file_once() {
    let fixture = Fixture::new();
    let mut config = FsConfig::new([fixture.path(), &fixture.path().join("sub"), fixture.path()]);
    config.watch = false;
    let provider = FilesystemProvider::new(config).unwrap();
    assert_eq!(provider.roots().count(), 1);
    assert_eq!(list_all(&provider, 1000).await.len(), SERVED.len());
    let missing = FsConfig::new([fixture.path().join("nope")]);
    assert!(FilesystemProvider::new(missing).is_err());
    let bad_glob = {
        let mut config = FsConfig::new([fixture.path()]);
        config.secret_patterns.push("a[".into());
        config
    };
    let error = FilesystemProvider::new(bad_glob).unwrap_err();
    assert!(error.to_string().contains("\"a[\""), "{error}");
}

/// Receives changes until `wanted` accepts one, for at most 5 seconds.
async fn wait_for(watcher: &mut FsWatcher, mut wanted: impl FnMut(&Change) -> bool) -> Change {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut seen = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, watcher.recv()).await {
            Ok(Some(change)) if wanted(&change) => return change,
            Ok(Some(change)) => seen.push(change),
            Ok(None) => panic!("the watcher stopped; seen {seen:?}"),
            Err(_) => panic!("no such change within 5 s; seen {seen:?}"),
        }
    }
}

fn created(change: &Change, uri: &str) -> bool {
    matches!(change, Change::ListChanged { created, .. } if created.iter().any(|u| u == uri))
}

fn removed(change: &Change, uri: &str) -> bool {
    matches!(change, Change::ListChanged { removed, .. } if removed.iter().any(|u| u == uri))
}

async fn listed(provider: &FilesystemProvider) -> BTreeSet<String> {
    list_all(provider, 1000)
        .await
        .into_iter()
        .map(|resource| resource.uri.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watcher_reports_updates_creations_and_removals() {
    let fixture = Fixture::new();
    let provider = fixture.provider_with(|config| {
        config.watch = true;
        config.debounce = Duration::from_millis(50);
    });
    let mut watcher = provider.watch().unwrap();
    assert!(provider.watch().is_err(), "one watcher per provider");

    let readme = fixture.uri("README.md");
    fs::write(fixture.path().join("README.md"), "# Changed, longer\n").unwrap();
    wait_for(&mut watcher, |c| {
        *c == Change::Updated(ResourceUri::parse(&readme).unwrap())
    })
    .await;
    let size = list_all(&provider, 1000)
        .await
        .into_iter()
        .find(|r| r.uri == readme.as_str())
        .unwrap()
        .size;
    assert_eq!(size, Some(18));

    let fresh = fixture.uri("fresh%20file.txt");
    fs::write(fixture.path().join("fresh file.txt"), "new").unwrap();
    wait_for(&mut watcher, |c| created(c, &fresh)).await;
    assert!(listed(&provider).await.contains(&fresh));

    let deep = fixture.uri("new/dir/deep.txt");
    fs::create_dir_all(fixture.path().join("new/dir")).unwrap();
    fs::write(fixture.path().join("new/dir/deep.txt"), "deep").unwrap();
    wait_for(&mut watcher, |c| created(c, &deep)).await;
    assert!(listed(&provider).await.contains(&deep));
    // A file in a directory that appeared after the start is watched too.
    let deeper = fixture.uri("new/dir/later.txt");
    fs::write(fixture.path().join("new/dir/later.txt"), "later").unwrap();
    wait_for(&mut watcher, |c| created(c, &deeper)).await;

    fs::remove_file(fixture.path().join("fresh file.txt")).unwrap();
    wait_for(&mut watcher, |c| removed(c, &fresh)).await;
    assert!(!listed(&provider).await.contains(&fresh));

    fs::remove_dir_all(fixture.path().join("new")).unwrap();
    wait_for(&mut watcher, |c| removed(c, &deep)).await;
    assert!(!listed(&provider).await.contains(&deeper));

    // A renamed directory: its files move, and the watch follows the new path.
    let before = fixture.uri("src/main.rs");
    let after = fixture.uri("source/main.rs");
    fs::rename(fixture.path().join("src"), fixture.path().join("source")).unwrap();
    let change = wait_for(&mut watcher, |c| created(c, &after)).await;
    assert!(removed(&change, &before), "{change:?}");
    fs::write(
        fixture.path().join("source/main.rs"),
        "fn main() { run() }\n",
    )
    .unwrap();
    wait_for(&mut watcher, |c| {
        *c == Change::Updated(ResourceUri::parse(&after).unwrap())
    })
    .await;

    // Secret and ignored files never show up, even when created live.
    fs::write(fixture.path().join(".env.production"), "X=1").unwrap();
    fs::write(fixture.path().join("trace.log"), "log").unwrap();
    let marker = fixture.uri("marker.txt");
    fs::write(fixture.path().join("marker.txt"), "m").unwrap();
    let change = wait_for(&mut watcher, |c| created(c, &marker)).await;
    let Change::ListChanged { created, .. } = change else {
        unreachable!()
    };
    assert!(
        created
            .iter()
            .all(|u| !u.as_str().contains(".env") && !u.as_str().ends_with(".log"))
    );
    assert!(!listed(&provider).await.contains(&fixture.uri("trace.log")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_do_not_hold_a_change_back() {
    let fixture = Fixture::new();
    let provider = fixture.provider_with(|config| {
        config.watch = true;
        config.debounce = Duration::from_millis(300);
    });
    let mut watcher = provider.watch().unwrap();
    // A reader opening the file every 20 ms, as clients (or the other instances of a
    // deployment rescanning the same tree) do: were opening and closing events, each would
    // restart the debounce, and the change would wait for the longest batch.
    let path = fixture.path().join("README.md");
    let reading = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let reader = {
        let (path, reading) = (path.clone(), Arc::clone(&reading));
        std::thread::spawn(move || {
            for _ in 0..500 {
                if !reading.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let _ = fs::read(&path);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let readme = fixture.uri("README.md");
    let written = std::time::Instant::now();
    fs::write(&path, "# Changed while read\n").unwrap();
    wait_for(&mut watcher, |c| {
        *c == Change::Updated(ResourceUri::parse(&readme).unwrap())
    })
    .await;
    let waited = written.elapsed();
    reading.store(false, std::sync::atomic::Ordering::SeqCst);
    reader.join().unwrap();
    assert!(
        waited < mcp_resources_fs::MAX_BATCH_DELAY,
        "told after {waited:?}: the reads held the change back"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gitignore_change_refilters_its_directory() {
    let fixture = Fixture::new();
    let provider = fixture.provider_with(|config| {
        config.watch = true;
        config.debounce = Duration::from_millis(50);
    });
    let mut watcher = provider.watch().unwrap();
    let ok = fixture.uri("sub/ok.txt");
    let secret = fixture.uri("sub/secret.txt");
    fs::write(fixture.path().join("sub/.gitignore"), "ok.txt\n").unwrap();
    let change = wait_for(&mut watcher, |c| removed(c, &ok)).await;
    assert!(created(&change, &secret), "{change:?}");
    let now = listed(&provider).await;
    assert!(!now.contains(&ok) && now.contains(&secret));
    assert_eq!(read(&provider, &ok).await, None);
    assert!(read(&provider, &secret).await.is_some());
}

#[test]
fn watching_needs_a_runtime_and_can_be_disabled() {
    let fixture = Fixture::new();
    let disabled = fixture.provider();
    assert!(disabled.watch().is_err());
    let enabled = fixture.provider_with(|config| config.watch = true);
    assert!(enabled.watch().is_err(), "no runtime here");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = runtime.enter();
    assert!(
        enabled.watch().is_ok(),
        "the events were kept for a later call"
    );
}

/// Small files are read on the asking task (so the read is ready when first polled); larger
/// ones, and every read with `inline_read_bytes = 0`, on the blocking pool (whose thread may or
/// may not be done by the first poll), with the same bytes.
#[tokio::test]
async fn small_files_are_read_inline_and_large_ones_on_the_pool() {
    use futures_util::FutureExt;

    let fixture = Fixture::new();
    let large: String = "0123456789".repeat(10_000);
    fs::write(fixture.path().join("small.txt"), "small file").unwrap();
    fs::write(fixture.path().join("large.txt"), &large).unwrap();
    let principal = Principal::anonymous();

    async fn first_poll(
        provider: &FilesystemProvider,
        principal: &Principal,
        uri: &str,
    ) -> (bool, Body) {
        let uri = ResourceUri::parse(uri).unwrap();
        let mut read = std::pin::pin!(provider.read(ReadRequest {
            inputs: mcp_resources_core::input::Inputs::none(),
            principal,
            uri: &uri,
            template: None,
            variables: None,
            range: None,
        }));
        let ready = read.as_mut().now_or_never();
        let was_ready = ready.is_some();
        let contents = match ready {
            Some(contents) => contents,
            None => read.await,
        };
        (was_ready, contents.unwrap().unwrap()[0].body.clone())
    }

    let default = fixture.provider();
    let small = fixture.uri("small.txt");
    let ranged = fixture.uri("small.txt?offset=6&length=4");
    let large_uri = fixture.uri("large.txt");
    assert_eq!(
        first_poll(&default, &principal, &small).await,
        (true, Body::Text("small file".into()))
    );
    assert_eq!(
        first_poll(&default, &principal, &ranged).await,
        (true, Body::Text("file".into()))
    );
    assert_eq!(
        first_poll(&default, &principal, &large_uri).await.1,
        Body::Text(large.as_str().into())
    );

    let pooled = fixture.provider_with(|config| config.inline_read_bytes = 0);
    assert_eq!(
        first_poll(&pooled, &principal, &small).await.1,
        Body::Text("small file".into())
    );
    assert_eq!(
        first_poll(&pooled, &principal, &ranged).await.1,
        Body::Text("file".into())
    );
}

/// The read limit counts bytes as sent: a binary file under it raw but over it in base64, or
/// text whose escapes take it over, is refused with invalid params naming the template and a
/// ranged URI that fits; that ranged URI then reads.
#[tokio::test]
async fn the_read_limit_counts_the_encoded_size() {
    let fixture = Fixture::new();
    // 90 raw bytes: 120 in base64, over a limit of 100.
    fs::write(fixture.path().join("blob.bin"), vec![0u8; 90]).unwrap();
    // 40 raw bytes of control characters: 240 once escaped.
    fs::write(fixture.path().join("controls.txt"), vec![1u8; 40]).unwrap();
    fs::write(fixture.path().join("plain.txt"), vec![b'a'; 100]).unwrap();
    let provider = fixture.provider_with(|config| config.max_read_bytes = 100);
    for (name, fits) in [("blob.bin", 75), ("controls.txt", 16)] {
        let uri = ResourceUri::parse(&fixture.uri(name)).unwrap();
        let error = try_read(&provider, &uri).await.unwrap_err();
        assert!(error.is_invalid_params(), "{name}: {error}");
        let message = error.message();
        assert!(message.contains(&fixture.template()), "{message}");
        let suggested = format!("{}?offset=0&length={fits}", fixture.uri(name));
        assert!(message.contains(&suggested), "{message}");
        let part = read(&provider, &suggested)
            .await
            .expect("the suggested part reads");
        assert_eq!(part.len(), fits);
    }
    // Text with nothing to escape is its own size: exactly the limit reads.
    assert!(read(&provider, &fixture.uri("plain.txt")).await.is_some());
}

/// Found by the security review: with `refuse_hard_links`, a hard link made while the server
/// runs was listed (with the linked file's size) and announced; only the start-up walk
/// checked the links.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hard_link_made_live_is_refused_like_one_found_at_start() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), vec![b's'; 12_345]).unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut config = FsConfig::new([root.path()]);
    config.refuse_hard_links = true;
    config.debounce = Duration::from_millis(50);
    let provider = FilesystemProvider::new(config).unwrap();
    let mut watcher = provider.watch().unwrap();
    fs::hard_link(
        outside.path().join("secret.txt"),
        root.path().join("hard.txt"),
    )
    .unwrap();
    fs::write(root.path().join("plain.txt"), "plain").unwrap();
    let prefix = format!(
        "file://{}",
        fs::canonicalize(root.path()).unwrap().to_str().unwrap()
    );
    let (hard, plain) = (format!("{prefix}/hard.txt"), format!("{prefix}/plain.txt"));
    // The plain file's arrival shows the rescan happened.
    let mut created = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !created.contains(&plain) {
        match tokio::time::timeout_at(deadline, watcher.recv()).await {
            Ok(Some(Change::ListChanged { created: new, .. })) => {
                created.extend(new.iter().map(|uri| uri.to_string()));
            }
            Ok(Some(_)) => {}
            _ => panic!("the new files were not seen in time"),
        }
    }
    assert!(!created.contains(&hard), "a refused hard link is announced");
    let listed: Vec<String> = list_all(&provider, 100)
        .await
        .iter()
        .map(|resource| resource.uri.to_string())
        .collect();
    assert_eq!(listed, [plain]);
    assert_eq!(read(&provider, &hard).await, None);
}

/// Found by the security review: an ignore file within the size and pattern bounds whose
/// globs are too costly to compile was dropped, exposing what it hides; it now hides its
/// directory as an oversized one does.
#[tokio::test]
async fn an_ignore_file_that_cannot_compile_hides_its_directory() {
    for lines in [10, 5_000] {
        let root = tempfile::tempdir().unwrap();
        let mut gitignore = String::from("secret.txt\n");
        for index in 0..lines {
            gitignore.push_str("x*a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*y*z*0*1*2*3*");
            gitignore.push_str(&format!("{index}\n"));
        }
        fs::write(root.path().join(".gitignore"), &gitignore).unwrap();
        fs::write(root.path().join("secret.txt"), "hidden").unwrap();
        fs::write(root.path().join("other.txt"), "shown unless hidden whole").unwrap();
        let mut config = FsConfig::new([root.path()]);
        config.watch = false;
        let provider = FilesystemProvider::new(config).unwrap();
        let prefix = format!(
            "file://{}",
            fs::canonicalize(root.path()).unwrap().to_str().unwrap()
        );
        let titles = titles(&list_all(&provider, 100).await);
        assert!(!titles.contains("secret.txt"), "{lines} patterns");
        assert_eq!(read(&provider, &format!("{prefix}/secret.txt")).await, None);
        // The small file compiles and hides only what it names; the large one hides all.
        assert_eq!(
            titles.contains("other.txt"),
            lines == 10,
            "{lines} patterns"
        );
    }
}

/// Found by the security review: backup suffixes matched in lower case only, while secret
/// patterns match any case.
#[tokio::test]
async fn backup_copies_of_secrets_are_hidden_in_any_case() {
    let root = tempfile::tempdir().unwrap();
    let names = [
        "server.pem.bak",
        "server.pem.BAK",
        "tls.key.OLD",
        "vault.kdbx.Orig",
        ".pgpass.SAVE",
        "application_default_credentials.json",
    ];
    for name in names {
        fs::write(root.path().join(name), "k").unwrap();
    }
    fs::write(root.path().join("notes.BAK"), "not a secret").unwrap();
    let mut config = FsConfig::new([root.path()]);
    config.watch = false;
    let provider = FilesystemProvider::new(config).unwrap();
    let listed = titles(&list_all(&provider, 100).await);
    assert_eq!(listed, BTreeSet::from(["notes.BAK".to_owned()]));
}

/// The engine's content rules over real files: secrets in ordinary files are masked in whole
/// reads and in ranged reads that start or end inside them, the size kept; near-misses and
/// binary files come back byte for byte.
#[tokio::test]
async fn content_rules_mask_secrets_across_the_edges_of_ranged_reads() {
    use mcp_resources_core::redact::Redactor;
    let fixture = Fixture::new();
    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----\n";
    let token = "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";
    let near_miss = "commit 9fceb02d0ae598e95dc970b74767f19372d61af8, id 123e4567-e89b-12d3-a456-426614174000\n";
    let readme =
        format!("# Setup\n{near_miss}paste this:\n{key}then export GITHUB_TOKEN={token} and go.\n");
    fs::write(fixture.path().join("README.md"), &readme).unwrap();
    fs::write(
        fixture.path().join("blob.bin"),
        [b"\0".as_slice(), token.as_bytes()].concat(),
    )
    .unwrap();
    let provider = fixture.provider();
    let engine = Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider.clone()))
        .redactor(Redactor::credentials())
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let read_text = |uri: String| {
        let engine = &engine;
        let anyone = &anyone;
        async move {
            let uri = ResourceUri::parse(&uri).unwrap();
            match &engine.read(anyone, &uri).await.unwrap().contents[0].body {
                Body::Text(text) => text.to_string(),
                Body::Bytes(bytes) => panic!("{uri} is text: {bytes:?}"),
            }
        }
    };
    let whole = read_text(fixture.uri("README.md")).await;
    assert_eq!(whole.len(), readme.len(), "the size is kept");
    assert!(
        !whole.contains("b3BlbnNz") && !whole.contains(token),
        "{whole}"
    );
    assert!(whole.contains(near_miss), "{whole}");
    // Every range, from every offset, shows masked bytes only: never a piece of a secret.
    let secret_pieces = ["b3BlbnNz", "AAAAMwAAAAtz", "wWPw5k4a", "LO0pINUx"];
    for offset in (0..readme.len()).step_by(7) {
        for length in [5, 16, 64] {
            let part =
                read_text(fixture.uri(&format!("README.md?offset={offset}&length={length}"))).await;
            assert_eq!(
                part,
                whole[offset..(offset + length).min(whole.len())],
                "at {offset}+{length}"
            );
            for piece in secret_pieces {
                assert!(
                    !part.contains(piece),
                    "{piece} at {offset}+{length}: {part}"
                );
            }
        }
    }
    // The engine's own range, too.
    let uri = ResourceUri::parse(&fixture.uri("README.md")).unwrap();
    let start = readme.find(token).unwrap() + 10;
    let part = engine
        .read_range(
            &anyone,
            &uri,
            ByteRange {
                offset: start as u64,
                length: 8,
            },
        )
        .await
        .unwrap();
    assert_eq!(part.contents[0].body, Body::Text("********".into()));
    // Bytes bodies are scanned too, run of text by run, the NUL kept.
    let uri = ResourceUri::parse(&fixture.uri("blob.bin")).unwrap();
    let blob = engine.read(&anyone, &uri).await.unwrap();
    let Body::Bytes(bytes) = &blob.contents[0].body else {
        panic!("bytes");
    };
    assert_eq!(bytes.len(), token.len() + 1);
    assert_eq!(bytes[0], 0);
    assert!(bytes[1..].iter().all(|byte| *byte == b'*'), "{bytes:?}");
}

/// The content rules where the review found the edges: a file that is text but for one
/// Latin-1 byte (answered as bytes), a range that starts inside a multibyte character, and a
/// configured rule scoped to `*.csv` read through a range URI.
#[tokio::test]
async fn content_rules_hold_for_bytes_bodies_cut_characters_and_scoped_rules() {
    use mcp_resources_core::redact::{Kind, Mask, Pattern, RedactRule, Redactor};
    let fixture = Fixture::new();
    let password = "Xk9#mQ2$vL7pW4zR";
    let mut latin1 = b"# caf\xe9\npassword = ".to_vec();
    latin1.extend_from_slice(password.as_bytes());
    latin1.push(b'\n');
    fs::write(fixture.path().join("latin1.conf"), &latin1).unwrap();
    let multi = format!(
        "{}\npassword = {password}\n{}",
        "\u{e9}".repeat(100),
        "\u{e9}".repeat(100)
    );
    fs::write(fixture.path().join("multi.txt"), &multi).unwrap();
    fs::write(
        fixture.path().join("people.csv"),
        "name,email\nZhang,zhang@example.com\n",
    )
    .unwrap();
    let provider = fixture.provider();
    let redactor = Redactor::credentials()
        .with_rules(&[RedactRule {
            name: "emails".to_owned(),
            pattern: Pattern::Kind(Kind::Email),
            mask: Mask::KeepFirst(1),
            uris: vec![format!("{}/**.csv", fixture.prefix)],
        }])
        .unwrap();
    let engine = Engine::builder(CursorKey::new([7; 32]))
        .provider(Arc::new(provider.clone()))
        .redactor(redactor)
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let body = |uri: String| {
        let engine = &engine;
        let anyone = &anyone;
        async move {
            let uri = ResourceUri::parse(&uri).unwrap();
            let output = engine.read(anyone, &uri).await.unwrap();
            match &output.contents[0].body {
                Body::Text(text) => text.as_bytes().to_vec(),
                Body::Bytes(bytes) => bytes.to_vec(),
            }
        }
    };
    let whole = body(fixture.uri("latin1.conf")).await;
    assert_eq!(whole.len(), latin1.len());
    assert!(
        !whole.windows(6).any(|window| window == b"Xk9#mQ"),
        "{whole:?}"
    );
    assert!(whole.starts_with(b"# caf\xe9\n"));
    // 201 bytes into the text is the middle of an `é`; the range ends inside the password.
    let at = multi.find(password).unwrap();
    let part = body(fixture.uri(&format!("multi.txt?offset=201&length={}", at + 6 - 201))).await;
    assert!(!part.windows(4).any(|window| window == b"Xk9#"), "{part:?}");
    assert_eq!(part.len(), at + 6 - 201);
    let ranged = body(fixture.uri("people.csv?offset=0&length=39")).await;
    assert_eq!(
        String::from_utf8(ranged).unwrap(),
        "name,email\nZhang,z****************\n"
    );
}
