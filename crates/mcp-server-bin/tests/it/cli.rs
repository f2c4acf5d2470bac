//! The command line and the configuration: help, the schema, file + flags, validation.

use std::process::{Command, Output};

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
        "--skills",
        "--git",
        "--sql",
        "[[git]]",
        "[[sql]]",
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
        "skills",
        "git",
        "sql",
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
