//! The command line and the configuration: help, the schema, file + flags, validation.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::{Command, Output};

use mcp_server_bin::config::{Config, ConfigError, RawConfig};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-resources"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_documents_commands_flags_and_config() {
    let output = run(&["serve", "--help"]);
    assert!(output.status.success());
    let help = text(&output.stdout);
    for needle in [
        "--http",
        "--config",
        "--log-level",
        "--page-size",
        "--max-read-bytes",
        "--read-cache-bytes",
        "--allowed-host",
        "--allowed-origin",
        "--secret-pattern",
        "--server-name",
        "--instructions",
        "--http-threads",
        "RUST_LOG",
        "mcp-resources serve --http 127.0.0.1:8080",
        "page_size = 100",
        "[authorization]",
        "[[grants]]",
        "mcpServers",
    ] {
        assert!(
            help.contains(needle),
            "`serve --help` lacks {needle:?}:\n{help}"
        );
    }
    let top = text(&run(&["--help"]).stdout);
    assert!(
        top.contains("serve") && top.contains("config-schema"),
        "{top}"
    );
}

#[test]
fn config_schema_lists_every_key() {
    let output = run(&["config-schema"]);
    assert!(output.status.success());
    let schema: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the schema is JSON");
    let properties = schema["properties"].as_object().expect("properties");
    for key in [
        "paths",
        "http",
        "log_level",
        "page_size",
        "max_read_bytes",
        "read_cache_bytes",
        "allowed_hosts",
        "allowed_origins",
        "secret_patterns",
        "secret_exceptions",
        "respect_ignore_files",
        "watch",
        "server_name",
        "instructions",
        "http_threads",
        "resources",
        "authorization",
        "grants",
    ] {
        assert!(properties.contains_key(key), "schema lacks {key}");
    }
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn invalid_configuration_exits_2_with_a_message() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "page_sise = 3\n").expect("write");
    let output = run(&["serve", "--config", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("bad.toml") && stderr.contains("page_sise"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "stdout is the protocol's");

    let output = run(&["serve", "--http", "localhost", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("\"localhost\""));

    let missing = dir.path().join("missing");
    let output = run(&["serve", missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("missing"));
}

#[test]
fn config_validation() {
    fn check(toml: &str, expect: Result<fn(&Config) -> bool, &str>) {
        let raw = RawConfig::from_toml(toml).unwrap_or_else(|error| panic!("{toml}: {error}"));
        match (Config::from_raw(raw), expect) {
            (Ok(config), Ok(holds)) => assert!(holds(&config), "{toml}: {config:?}"),
            (Err(error), Err(message)) => assert_eq!(error.to_string(), message, "{toml}"),
            (got, _) => panic!("{toml}: unexpected {got:?}"),
        }
    }
    check(
        "",
        Ok(|config| {
            config.paths == [PathBuf::from(".")]
                && config.http.is_none()
                && config.page_size == NonZeroUsize::new(100).unwrap()
                && config.log_level == "info"
                && config.watch
                && config.respect_ignore_files
                && config.server_name == "mcp-resources"
                && config.http_threads.get() == 1
                && config.read_cache_bytes == 8 * 1024 * 1024
                && config
                    .secret_patterns
                    .iter()
                    .any(|pattern| pattern.contains("env"))
        }),
    );
    check(
        "http = \"127.0.0.1:8080\"\npage_size = 7",
        Ok(|config| {
            config.http == Some("127.0.0.1:8080".parse().unwrap()) && config.page_size.get() == 7
        }),
    );
    check(
        "secret_patterns = [\"*.secret\"]",
        Ok(|config| {
            config.secret_patterns.last().map(String::as_str) == Some("*.secret")
                && config.secret_patterns.len() > 1
        }),
    );
    check("page_size = 0", Err("page_size must be at least 1"));
    check(
        "http_threads = 4",
        Ok(|config| config.http_threads.get() == 4),
    );
    check("http_threads = 0", Err("http_threads must be at least 1"));
    check(
        "read_cache_bytes = 0",
        Ok(|config| config.read_cache_bytes == 0),
    );
    check(
        "max_read_bytes = 0",
        Err("max_read_bytes must be at least 1"),
    );
    check("server_name = \" \"", Err("server_name must not be empty"));
    check(
        "paths = []",
        Err(
            "paths is empty: name at least one directory, or leave it out to serve the current one",
        ),
    );
    check(
        "http = \"8080\"",
        Err(
            "invalid http address \"8080\": expected an address with a port such as 127.0.0.1:8080",
        ),
    );
    check("", Ok(|config| config.policy.is_none()));
    check(
        "[[grants]]\nuris = \"file:///srv/**\"\n\
         [[grants]]\nsubject = \"alice\"\nactions = [\"read\", \"list\"]\nuris = \"db://*\"",
        Ok(|config| {
            use mcp_resources_core::policy::{Action, Grantee, Policy, Principal};
            use mcp_resources_core::uri::ResourceUri;
            let Some(policy) = &config.policy else {
                return false;
            };
            let uri = |text| ResourceUri::parse(text).unwrap();
            let alice = Principal::subject("alice");
            policy.grants.len() == 2
                && policy.grants[0].grantee == Grantee::Anyone
                && policy.allows(
                    &Principal::anonymous(),
                    Action::Subscribe,
                    &uri("file:///srv/a/b"),
                )
                && !policy.allows(
                    &Principal::anonymous(),
                    Action::Read,
                    &uri("file:///etc/passwd"),
                )
                && policy.allows(&alice, Action::Read, &uri("db://users"))
                && !policy.allows(&alice, Action::Subscribe, &uri("db://users"))
                && !policy.allows(&Principal::subject("bob"), Action::Read, &uri("db://users"))
        }),
    );
    check(
        "[[grants]]\nsubject = \"a\"\nscope = \"s\"\nuris = \"x://**\"",
        Err("invalid grant for \"x://**\": give subject or scope, not both"),
    );
    check(
        "[[grants]]\nscope = \"two words\"\nuris = \"x://**\"",
        Err("invalid grant for \"x://**\": \"two words\" is not an OAuth scope"),
    );
    check(
        "[[grants]]\nsubject = \"\"\nuris = \"x://**\"",
        Err("invalid grant for \"x://**\": subject is empty"),
    );
    check(
        "[authorization]\nresource = \"https://a.example/mcp\"\n\
         authorization_servers = [\"https://one.example\", \"https://two.example\"]\n\
         [[grants]]\nsubject = \"alice\"\nuris = \"x://**\"",
        Err(
            "invalid grant for \"x://**\": a grant to a subject needs a single authorization \
             server: a token's sub is only unique within its issuer",
        ),
    );
    check(
        "[[grants]]\nactions = []\nuris = \"x://**\"",
        Err("invalid grant for \"x://**\": actions is empty: it would allow nothing"),
    );
    assert!(
        Config::from_raw(RawConfig::from_toml("[[grants]]\nuris = \"x://***\"").unwrap()).is_err()
    );
    assert!(RawConfig::from_toml("[[grants]]\nactions = [\"write\"]\nuris = \"x://**\"").is_err());
    assert!(RawConfig::from_toml("page_size = \"ten\"").is_err());
    assert!(RawConfig::from_toml("unknown_key = 1").is_err());
}

#[test]
fn flags_override_the_file_key_by_key() {
    let file = RawConfig::from_toml("page_size = 5\nserver_name = \"file\"\nwatch = false")
        .expect("valid");
    let flags = RawConfig {
        page_size: Some(9),
        ..RawConfig::default()
    };
    let config = Config::from_raw(file.merged_with(flags)).expect("valid");
    assert_eq!(config.page_size.get(), 9);
    assert_eq!(config.server_name, "file");
    assert!(!config.watch);
}

#[test]
fn relative_paths_in_a_file_are_relative_to_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("conf.toml");
    std::fs::write(&file, "paths = [\"docs\", \"/abs\"]\n").expect("write");
    let raw = RawConfig::from_file(&file).expect("valid");
    assert_eq!(
        raw.paths,
        Some(vec![dir.path().join("docs"), PathBuf::from("/abs")])
    );
    let missing = RawConfig::from_file(&dir.path().join("nope.toml"));
    assert!(matches!(missing, Err(ConfigError::Read { .. })));
}

#[test]
fn the_authorization_table_reads_its_keys() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // An HMAC key as a key set (`k`: 32 bytes, base64url).
    let jwks = r#"{"keys":[{"kty":"oct","kid":"k1","alg":"HS256","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"}]}"#;
    std::fs::write(dir.path().join("jwks.json"), jwks).expect("write");
    let file = dir.path().join("conf.toml");
    std::fs::write(
        &file,
        "[authorization]\nresource = \"https://files.example.com/mcp\"\n\
         authorization_servers = [\"https://auth.example.com\"]\njwks_file = \"jwks.json\"\n\
         required_scopes = [\"files:read\"]\n\
         implied_scopes = { \"files:admin\" = [\"files:read\"] }\n",
    )
    .expect("write");
    let raw = RawConfig::from_file(&file).expect("valid");
    let table = Config::from_raw(raw)
        .expect("valid")
        .authorization
        .expect("the table");
    assert_eq!(table.jwks_file, Some(dir.path().join("jwks.json")));
    assert_eq!(
        table
            .implied_scopes
            .as_ref()
            .map(|implied| implied["files:admin"].clone()),
        Some(vec!["files:read".to_owned()])
    );
    let no_env = |_: &str| None;
    let authorization = table.authorization(no_env).expect("keys read");
    assert_eq!(
        authorization.metadata_url(),
        "https://files.example.com/.well-known/oauth-protected-resource/mcp"
    );

    let fails = |table: &mcp_server_bin::config::RawAuthorization,
                 env: &dyn Fn(&str) -> Option<String>,
                 needle: &str| {
        let error = table.authorization(env).expect_err(needle).to_string();
        assert!(error.contains(needle), "{error:?} should say {needle:?}");
    };
    let secret_only = mcp_server_bin::config::RawAuthorization {
        jwks_file: None,
        hmac_secret_env: Some("MCP_TEST_SECRET".to_owned()),
        ..table.clone()
    };
    fails(&secret_only, &|_| None, "MCP_TEST_SECRET is not set");
    fails(
        &secret_only,
        &|_| Some("short".to_owned()),
        "at least 32 bytes",
    );
    let long = |_: &str| Some("a secret of thirty-two bytes or more".to_owned());
    assert!(secret_only.authorization(long).is_ok());
    let keyless = mcp_server_bin::config::RawAuthorization {
        jwks_file: None,
        ..table.clone()
    };
    fails(&keyless, &long, "jwks_file, hmac_secret_env");
    let missing_file = mcp_server_bin::config::RawAuthorization {
        jwks_file: Some(dir.path().join("nope.json")),
        ..table.clone()
    };
    fails(&missing_file, &long, "nope.json");
    let relative_resource = mcp_server_bin::config::RawAuthorization {
        resource: "/mcp".to_owned(),
        ..table.clone()
    };
    fails(&relative_resource, &long, "\"/mcp\"");
}

/// `mcp-resources serve --config FILE DIR`, with `MCP_RESOURCES_TEST_SECRET` set to `secret`;
/// with `None`, unset and stderr piped, for a start that is to fail (a running server's
/// stderr is not read, so it goes nowhere).
fn serve(
    file: &std::path::Path,
    dir: &std::path::Path,
    secret: Option<&str>,
) -> std::process::Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-resources"));
    command
        .args(["serve", "--config"])
        .arg(file)
        .arg(dir)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null());
    match secret {
        Some(secret) => command
            .env("MCP_RESOURCES_TEST_SECRET", secret)
            .stderr(std::process::Stdio::null()),
        None => command
            .env_remove("MCP_RESOURCES_TEST_SECRET")
            .stderr(std::process::Stdio::piped()),
    };
    command.spawn().expect("the binary runs")
}

#[test]
fn a_bad_authorization_table_stops_the_start() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("conf.toml");
    std::fs::write(
        &file,
        "http = \"127.0.0.1:0\"\n[authorization]\nresource = \"https://files.example.com/mcp\"\n\
         authorization_servers = [\"https://auth.example.com\"]\n\
         hmac_secret_env = \"MCP_RESOURCES_TEST_SECRET\"\n",
    )
    .expect("write");
    let mut child = serve(&file, dir.path(), None);
    // Bounded: a server that did start is killed and the test fails.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server started without its secret");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("MCP_RESOURCES_TEST_SECRET is not set"),
        "{stderr}"
    );
}

/// The status line and body of one HTTP/1.1 request on a fresh connection.
fn http(port: u16, request: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[test]
fn the_binary_asks_every_http_request_for_a_token() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("a.txt"), "served").expect("write");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let file = dir.path().join("conf.toml");
    std::fs::write(
        &file,
        format!(
            "http = \"127.0.0.1:{port}\"\nwatch = false\n[authorization]\n\
             resource = \"https://files.example.com/mcp\"\n\
             authorization_servers = [\"https://auth.example.com\"]\n\
             hmac_secret_env = \"MCP_RESOURCES_TEST_SECRET\"\n\
             [[grants]]\nsubject = \"alice\"\nuris = \"file:///**\"\n"
        ),
    )
    .expect("write");
    let mut child = serve(
        &file,
        dir.path(),
        Some("a secret of thirty-two bytes or more"),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if std::time::Instant::now() > deadline || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            panic!("the server did not listen on {port}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let refused = http(
        port,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    let metadata = http(
        port,
        &format!(
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
             Connection: close\r\n\r\n"
        ),
    );
    // A modern read of the file, as alice (granted) and as bob (not).
    let uri = format!(
        "file://{}",
        dir.path().canonicalize().unwrap().join("a.txt").display()
    );
    let read_as = |subject: &str| {
        let claims = serde_json::json!({
            "sub": subject, "aud": "https://files.example.com/mcp",
            "iss": "https://auth.example.com",
            "exp": jsonwebtoken::get_current_timestamp() + 600,
        });
        let key = jsonwebtoken::EncodingKey::from_secret(b"a secret of thirty-two bytes or more")
            .unwrap();
        // An access token's header (RFC 9068): `typ` is `at+jwt`.
        let header = jsonwebtoken::Header {
            typ: Some("at+jwt".to_owned()),
            ..jsonwebtoken::Header::default()
        };
        let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
            "params": {"uri": uri, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string();
        http(
            port,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
                 MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: resources/read\r\n\
                 Mcp-Name: {uri}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let alice = read_as("alice");
    let bob = read_as("bob");
    let _ = child.kill();
    let _ = child.wait();
    assert!(alice.contains(r#""text":"served""#), "{alice}");
    assert!(
        bob.contains(r#""error""#) && !bob.contains("served"),
        "{bob}"
    );
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    assert!(
        refused.to_ascii_lowercase().contains(
            "www-authenticate: bearer resource_metadata=\"https://files.example.com/.well-known/oauth-protected-resource/mcp\""
        ),
        "{refused}"
    );
    assert!(metadata.starts_with("HTTP/1.1 200"), "{metadata}");
    assert!(
        metadata.contains(r#""authorization_servers":["https://auth.example.com"]"#),
        "{metadata}"
    );
}

#[test]
fn the_http_limits_table_sets_each_limit_it_names() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("conf.toml");
    std::fs::write(
        &file,
        "[http_limits]\nmax_connections_per_peer = 7\nidle_timeout_ms = 1500\n\
         max_response_bytes_per_client = 1024\n",
    )
    .expect("write");
    let config = Config::from_raw(RawConfig::from_file(&file).expect("valid")).expect("valid");
    let options = config
        .http_limits
        .apply(mcp_server_bin::HttpOptions::default());
    let defaults = mcp_server_bin::HttpOptions::default();
    assert_eq!(options.max_connections_per_peer, 7);
    assert_eq!(options.idle_timeout, std::time::Duration::from_millis(1500));
    assert_eq!(options.max_response_bytes_per_client, 1024);
    assert_eq!(options.max_connections, defaults.max_connections);
    assert_eq!(options.header_read_timeout, defaults.header_read_timeout);
    std::fs::write(&file, "[http_limits]\nmax_conections = 7\n").expect("write");
    assert!(
        RawConfig::from_file(&file).is_err(),
        "a misspelt key is an error"
    );
}
