//! The configuration's two stages on their own: TOML (and flags) in, a validated [`Config`]
//! or a [`ConfigError`] out; what each table sets.
//!
//! **Layer:** server binary, tests of the configuration. They read temporary files and never
//! start a server.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use super::{Config, ConfigError, RawConfig};

#[test]
fn resources_tables_parse_as_written() {
    let raw = RawConfig::from_toml(
        "paths = ['a']\n[[resources]]\nuri = 'a://1'\ntext = \"\"\"\n[[resources]]\n\"\"\"\n\
         [[resources]]\nuri = 'a://2'\ntext = 'two'\n",
    )
    .unwrap();
    let resources = raw.resources.unwrap();
    assert_eq!(resources.len(), 2, "a header inside a string is text");
    assert!(RawConfig::from_toml("resources = []\n[[resources]]\nuri = 'a://1'\n").is_err());
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
            let Some(super::Policy::Grants(policy)) = &config.policy else {
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
    // Sensitive resources needing a grant, without grants: served to no one.
    check(
        "audit_log = \"-\"\n[[sensitive]]\nname = \"hr\"\nuris = [\"file:///srv/hr/**\"]\n\
         confirm = true\ngrant = true\n[[sensitive]]\nuris = [\"file:///srv/pay/**\"]",
        Ok(|config| {
            let Some(super::Policy::AllBut(denied)) = &config.policy else {
                return false;
            };
            config.audit_log.is_none()
                && denied.len() == 1
                && denied[0].as_str() == "file:///srv/hr/**"
                && config.sensitive.len() == 2
                && config.sensitive[0].confirm
                && config.sensitive[1].name == "sensitive[1]"
                && !config.sensitive[1].confirm
        }),
    );
    check(
        "[[sensitive]]\nuris = []",
        Err(
            "invalid [[sensitive]] entry \"sensitive[0]\": uris is empty: give the globs of the URIs it covers",
        ),
    );
    check(
        "[[sensitive]]\nname = \"x\"\nuris = [\"a://***\"]",
        Err(
            "invalid [[sensitive]] entry \"x\": uris \"a://***\": uri pattern \"a://***\" has \
             three or more `*` in a row at byte 4; use `*` or `**`",
        ),
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
fn the_feed_table_names_a_redis_and_a_channel_each_overridden_alone() {
    let file =
        RawConfig::from_toml("[feed]\nredis = \"redis://10.0.0.5:6379/\"\nchannel = \"docs\"")
            .expect("valid");
    let config = Config::from_raw(file.clone()).expect("valid");
    let feed = config.feed.expect("a feed");
    assert_eq!(
        (feed.redis.as_str(), feed.channel.as_str()),
        ("redis://10.0.0.5:6379/", "docs")
    );
    // A flag for the URL keeps the file's channel.
    let flags = RawConfig {
        feed: Some(super::RawFeed {
            redis: Some("redis://127.0.0.1:6379/".to_owned()),
            channel: None,
            settle_ms: None,
            password_env: None,
        }),
        ..RawConfig::default()
    };
    let feed = Config::from_raw(file.merged_with(flags))
        .expect("valid")
        .feed
        .expect("a feed");
    assert_eq!(
        (feed.redis.as_str(), feed.channel.as_str()),
        ("redis://127.0.0.1:6379/", "docs")
    );
    let default = RawConfig::from_toml("[feed]\nredis = \"redis://r/\"").expect("valid");
    let feed = Config::from_raw(default)
        .expect("valid")
        .feed
        .expect("a feed");
    assert_eq!(feed.channel, super::DEFAULT_FEED_CHANNEL);
    assert_eq!(feed.settle, mcp_resources_server::feed::DEFAULT_SETTLE);
    let slow =
        RawConfig::from_toml("[feed]\nredis = \"redis://r/\"\nsettle_ms = 250").expect("valid");
    let feed = Config::from_raw(slow).expect("valid").feed.expect("a feed");
    assert_eq!(feed.settle, std::time::Duration::from_millis(250));
    assert!(
        Config::from_raw(RawConfig::default())
            .expect("valid")
            .feed
            .is_none()
    );
    for (toml, message) in [
        (
            "[feed]\nchannel = \"docs\"",
            "[feed] needs redis = \"redis://host:6379/\" (or --feed-redis URL)",
        ),
        (
            "[feed]\nredis = \"redis://r/\"\nchannel = \"\"",
            "[feed] channel must not be empty",
        ),
        (
            "[feed]\nredis = \"redis://r/\"\nsettle_ms = 10001",
            "[feed] settle_ms must be at most 10000 (ten seconds)",
        ),
    ] {
        let error = Config::from_raw(RawConfig::from_toml(toml).expect("valid TOML")).unwrap_err();
        assert_eq!(error.to_string(), message);
    }
    assert!(RawConfig::from_toml("[feed]\nurl = \"redis://r/\"").is_err());
    // Never shown: a password in the URL.
    let secret =
        RawConfig::from_toml("[feed]\nredis = \"redis://:hunter2@r:6379/\"").expect("valid");
    let shown = format!("{:?}", Config::from_raw(secret).expect("valid"));
    assert!(!shown.contains("hunter2"), "{shown}");
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

    let fails =
        |table: &super::RawAuthorization, env: &dyn Fn(&str) -> Option<String>, needle: &str| {
            let error = table.authorization(env).expect_err(needle).to_string();
            assert!(error.contains(needle), "{error:?} should say {needle:?}");
        };
    let secret_only = super::RawAuthorization {
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
    let keyless = super::RawAuthorization {
        jwks_file: None,
        ..table.clone()
    };
    fails(&keyless, &long, "jwks_file, hmac_secret_env");
    let missing_file = super::RawAuthorization {
        jwks_file: Some(dir.path().join("nope.json")),
        ..table.clone()
    };
    fails(&missing_file, &long, "nope.json");
    let relative_resource = super::RawAuthorization {
        resource: "/mcp".to_owned(),
        ..table.clone()
    };
    fails(&relative_resource, &long, "\"/mcp\"");
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
        .apply(mcp_resources_server::HttpOptions::default());
    let defaults = mcp_resources_server::HttpOptions::default();
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

#[test]
fn repositories_and_databases_are_named_and_checked() {
    use super::{RawGit, RawSql};
    let raw = RawConfig {
        git: Some(vec![
            RawGit::from_flag("/srv/My Project.git"),
            RawGit::from_flag("docs=/srv/x"),
        ]),
        sql: Some(vec![RawSql::from_flag("sqlite:/data/Shop Data.db")]),
        ..RawConfig::default()
    };
    let config = Config::from_raw(raw).unwrap();
    assert!(
        config.paths.is_empty(),
        "repositories and databases alone serve no directory"
    );
    let names: Vec<&str> = config.git.iter().map(|repo| repo.name.as_str()).collect();
    assert_eq!(names, ["my-project", "docs"]);
    assert_eq!(config.sql[0].name, "shop-data");
    let secret = RawConfig {
        sql: Some(vec![RawSql::from_flag(
            "postgres://admin:hunter2@db.example/app",
        )]),
        ..RawConfig::default()
    };
    let error = Config::from_raw(secret).unwrap_err().to_string();
    assert!(error.contains("holds a password"), "{error}");
    assert!(
        !error.contains("hunter2") && error.contains("postgres://admin:***@db.example:5432/app"),
        "{error}"
    );
    let postgres = RawConfig::from_toml(
        "[[sql]]\nurl = 'postgres://reader@db.example/Shop'\nschemas = ['sales', 'public']\n\
         password_env = 'MCP_TEST_NO_SUCH_VARIABLE'\n",
    )
    .unwrap();
    let error = Config::from_raw(postgres.clone()).unwrap_err().to_string();
    assert!(
        error.contains("MCP_TEST_NO_SUCH_VARIABLE is not set"),
        "{error}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pw"), "s3cret\nignored\n").unwrap();
    let mut with_file = postgres;
    with_file.sql.as_mut().unwrap()[0].password_file = Some(dir.path().join("pw"));
    let config = Config::from_raw(with_file).unwrap();
    assert_eq!(config.sql[0].name, "shop");
    assert_eq!(
        config.sql[0].source,
        mcp_resources_sql::Source::Postgres {
            url: "postgres://reader@db.example/Shop".to_owned(),
            password: Some(mcp_resources_sql::Password("s3cret".to_owned())),
            schemas: vec!["sales".to_owned(), "public".to_owned()],
        }
    );
    assert!(!format!("{:?}", config.sql[0]).contains("s3cret"));
    let masked = RawConfig::from_toml(
        "[[sql]]\nurl = 'sqlite:a.db'\nmask = [{ column = 'x', style = 'last:z' }]\n",
    )
    .unwrap();
    let error = Config::from_raw(masked).unwrap_err().to_string();
    assert!(error.contains("N is not a number"), "{error}");
}
