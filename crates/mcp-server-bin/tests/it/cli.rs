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
