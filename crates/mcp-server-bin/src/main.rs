//! The `mcp-resources` binary: the library's server with the filesystem provider, the
//! skills provider, the git and SQL providers, the configuration file and the command line.
//!
//! **Layer:** server binary. It parses the command line ([`cli`]), merges it over the
//! configuration file and validates the result ([`config`], [`resources_config`]), installs
//! logging on stderr, starts the filesystem provider (and the skills, git and SQL providers)
//! and their watchers, joins the deployment's Redis change feed when one is configured, and
//! serves stdio or Streamable HTTP until the input ends or SIGINT/SIGTERM arrives. Stdout
//! belongs to the protocol: everything else, errors included, goes to stderr.

mod cli;
mod config;
mod resources_config;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use mcp_resources_core::policy::{AllowAllBut, UriPattern};
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::store::SessionStore;
use mcp_resources_fs::{FilesystemProvider, FsConfig, SkillsProvider};
use mcp_resources_git::{GitConfig, GitProvider};
use mcp_resources_redis::{RedisFeed, RedisFeedError};
use mcp_resources_server::audit::AuditLog;
use mcp_resources_server::{HttpOptions, Server};
use mcp_resources_sql::{SqlConfig, SqlProvider};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use crate::cli::{Cli, Command, ServeArgs};
use crate::config::{Config, RawConfig};
use crate::resources_config::ConfiguredResources;

/// The exit status of a configuration or start-up error.
const EXIT_CONFIG: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::ConfigSchema => {
            let mut stdout = std::io::stdout().lock();
            match writeln!(stdout, "{}", RawConfig::json_schema()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        Command::Serve(args) => serve(cli.log_level, &args),
        Command::SqlTrigger(args) => sql_trigger(cli.log_level, &args),
    }
}

/// Prints the notify trigger SQL for the served PostgreSQL tables (see `Command::SqlTrigger`).
fn sql_trigger(log_flag: Option<String>, args: &ServeArgs) -> ExitCode {
    let config = match load_config(log_flag.clone(), args) {
        Ok(config) => config,
        Err(error) => return fail(&*error),
    };
    if let Err(error) = install_logging(log_flag, &config.log_level) {
        return fail(&*error);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&error),
    };
    let sql = runtime.block_on(async {
        let provider = SqlProvider::open(SqlConfig::new(config.sql.clone())).await?;
        provider
            .notify_trigger_sql()
            .await
            .map_err(|error| Box::new(error) as Box<dyn std::error::Error>)
    });
    match sql {
        Ok(sql) if sql.is_empty() => {
            eprintln!("no served PostgreSQL table needs the trigger");
            ExitCode::SUCCESS
        }
        Ok(sql) => {
            print!("{sql}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(&*error),
    }
}

fn serve(log_flag: Option<String>, args: &ServeArgs) -> ExitCode {
    let mut config = match load_config(log_flag.clone(), args) {
        Ok(config) => config,
        Err(error) => return fail(&*error),
    };
    if let Err(error) = install_logging(log_flag, &config.log_level) {
        return fail(&*error);
    }
    let sources = match Sources::load(&mut config) {
        Ok(sources) => sources,
        Err(error) => return fail(&*error),
    };
    // A single-threaded runtime spares every request the hand-offs between worker threads
    // (a wake-up of the other worker, its futex and epoll calls), and each thread its stack
    // and malloc arena: stdio is one task, and HTTP by default runs all its connections on
    // one thread too. Reads of files over 64 KiB still run on the blocking pool.
    // `http_threads` above 1 is a multi-threaded runtime with that many workers, for many
    // busy clients.
    let mut builder = match config.http {
        Some(_) if config.http_threads.get() > 1 => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(config.http_threads.get());
            builder
        }
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    // Large file reads run on the blocking pool, each holding up to a read's worth of bytes
    // twice over (raw and encoded) until its answer is written: a pool of 64 bounds that to
    // about a GiB however many requests come at once, where tokio's default of 512 threads
    // would allow eight times more. Requests past it wait for a thread.
    builder.max_blocking_threads(BLOCKING_THREADS);
    builder.enable_all();
    let runtime = match builder.build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&error),
    };
    let outcome = runtime.block_on(run(config, sources));
    // The output is flushed already: blocking work still running (a file-system rescan) is
    // not waited for.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %error, "the server stopped");
            fail(&*error)
        }
    }
}

/// The file (if any) under the flags, validated.
fn load_config(
    log_flag: Option<String>,
    args: &ServeArgs,
) -> Result<Config, Box<dyn std::error::Error>> {
    let file = match &args.config {
        Some(path) => RawConfig::from_file(path)?,
        None => RawConfig::default(),
    };
    let raw = file.merged_with(args.to_raw(log_flag));
    Ok(Config::from_raw(raw)?)
}

/// Logs to stderr: `--log-level`, else `RUST_LOG`, else the configured filter. A bare level
/// (`warn`) is a plain level filter; anything else is parsed as `tracing` directives.
fn install_logging(
    log_flag: Option<String>,
    configured: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let directives = match log_flag {
        Some(flag) => flag,
        None => match std::env::var(EnvFilter::DEFAULT_ENV) {
            Ok(value) if !value.trim().is_empty() => value,
            _ => configured.to_owned(),
        },
    };
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let installed = match bare_level(&directives) {
        Some(level) => builder.with_max_level(level).try_init(),
        None => builder
            .with_env_filter(EnvFilter::try_new(&directives)?)
            .try_init(),
    };
    installed.map_err(|error| -> Box<dyn std::error::Error> { error })
}

/// `off`, `error`, `warn`, `info`, `debug` or `trace` (any case) as a level filter: the same
/// filter as those directives, without building a directive filter.
/// The shared cursor key from the variable `name`, whose value is `value`: 64 hexadecimal
/// digits. The error names the variable and never shows the value.
fn cursor_key(
    name: &str,
    value: Option<String>,
) -> Result<mcp_resources_core::pagination::CursorKey, String> {
    let value = value.ok_or_else(|| {
        format!("the cursor key variable {name} is not set (--cursor-key-env, [cluster])")
    })?;
    let digits = value.trim();
    let bytes: Option<Vec<u8>> = (digits.len() == 64
        && digits.bytes().all(|digit| digit.is_ascii_hexdigit()))
    .then(|| {
        (0..32)
            .map(|at| u8::from_str_radix(digits.get(at * 2..at * 2 + 2)?, 16).ok())
            .collect()
    })
    .flatten();
    match bytes.and_then(|bytes| <[u8; 32]>::try_from(bytes).ok()) {
        Some(key) => Ok(mcp_resources_core::pagination::CursorKey::new(key)),
        None => Err(format!(
            "the cursor key variable {name} must hold 64 hexadecimal digits (32 bytes; \
             `openssl rand -hex 32` makes one)"
        )),
    }
}

/// The threads of the blocking pool (large file reads, rescans of the watched tree).
const BLOCKING_THREADS: usize = 64;

fn bare_level(directives: &str) -> Option<LevelFilter> {
    let directives = directives.trim();
    [
        LevelFilter::OFF,
        LevelFilter::ERROR,
        LevelFilter::WARN,
        LevelFilter::INFO,
        LevelFilter::DEBUG,
        LevelFilter::TRACE,
    ]
    .into_iter()
    .find(|level| level.to_string().eq_ignore_ascii_case(directives))
}

/// What the server serves, made before its runtime starts.
struct Sources {
    /// The configured resources.
    resources: ConfiguredResources,
    /// The served directories, walked; `None` when only repositories are served.
    provider: Option<FilesystemProvider>,
    /// The served git repositories, when any.
    git: Option<GitProvider>,
    /// The skills, when a skills directory is configured.
    skills: Option<SkillsProvider>,
    /// The content rules every read passes (none with `--no-redact`).
    rules: Redactor,
}

impl Sources {
    /// Loads the configured resources, consuming their raw entries (with a large
    /// configuration their texts would otherwise be held twice, raw and loaded, for the
    /// server's lifetime), then walks the directories, before the runtime starts: nothing is
    /// served until the index is whole.
    fn load(config: &mut Config) -> Result<Sources, Box<dyn std::error::Error>> {
        let resources = ConfiguredResources::load(
            std::mem::take(&mut config.resources),
            std::path::Path::new(""),
        )?;
        let fs_config = |roots: Vec<std::path::PathBuf>| FsConfig {
            secret_patterns: config.secret_patterns.clone(),
            secret_exceptions: config.secret_exceptions.clone(),
            respect_ignore_files: config.respect_ignore_files,
            refuse_hard_links: config.refuse_hard_links,
            // Content rules read ranges a margin past each edge: providers allow it, the
            // engine holds every answer to the limit.
            max_read_bytes: provider_read_limit(config),
            read_cache_bytes: config.read_cache_bytes,
            watch: config.watch,
            ..FsConfig::new(roots)
        };
        let provider = if config.paths.is_empty() {
            None
        } else {
            let provider = FilesystemProvider::new(fs_config(config.paths.clone()))?;
            tracing::info!(
                roots = ?provider.roots().collect::<Vec<_>>(),
                files = provider.len(),
                "serving"
            );
            Some(provider)
        };
        let git = if config.git.is_empty() {
            None
        } else {
            let git_config = GitConfig {
                secret_patterns: config.secret_patterns.clone(),
                secret_exceptions: config.secret_exceptions.clone(),
                // Content rules read ranges a margin past each edge: providers allow it, the
                // engine holds every answer to the limit.
                max_read_bytes: provider_read_limit(config),
                watch: config.watch,
                ..GitConfig::new(config.git.clone())
            };
            Some(GitProvider::new(git_config)?)
        };
        // Content rules: on unless turned off; a rule that does not compile stops the start.
        let rules = if config.redact_content {
            let rules = Redactor::credentials().with_rules(&config.redact)?;
            tracing::info!(
                rules = config.redact.len(),
                "text answers are scanned: credentials and the configured rules are masked"
            );
            rules
        } else {
            tracing::warn!(
                "content rules are off (--no-redact): credentials inside served files, diffs \
                 and rows reach clients as they are"
            );
            Redactor::none()
        };
        let skills = match &config.skills {
            Some(directory) => {
                // Manifest digests are of what reads serve: the files as the rules mask them.
                let skills = SkillsProvider::with_content_rules(
                    fs_config(vec![directory.clone()]),
                    rules.clone(),
                )?;
                tracing::info!(directory = %directory.display(), skills = skills.len(), "serving skills");
                Some(skills)
            }
            None => None,
        };
        Ok(Sources {
            resources,
            provider,
            git,
            skills,
            rules,
        })
    }
}

/// The read limit given to providers: the configured one, plus the margins a ranged read
/// reads past its edges when content rules are on, counted as base64 (a window whose edge cuts
/// a character goes out as bytes); the engine holds every answer to the configured limit,
/// counted as sent.
fn provider_read_limit(config: &Config) -> u64 {
    if config.redact_content {
        config
            .max_read_bytes
            .saturating_add(2 * mcp_resources_core::engine::REDACT_MARGIN)
            .saturating_mul(4)
            / 3
            + 4
    } else {
        config.max_read_bytes
    }
}

/// Serves `config` and its `sources` on the current runtime.
async fn run(config: Config, sources: Sources) -> Result<(), Box<dyn std::error::Error>> {
    let Sources {
        resources,
        provider,
        git,
        skills,
        rules,
    } = sources;
    // Databases are opened on the runtime: PostgreSQL's connections are tasks of it.
    let sql = if config.sql.is_empty() {
        None
    } else {
        Some(SqlProvider::open(SqlConfig::new(config.sql.clone())).await?)
    };
    // Keys are read before anything is served, so that a bad key file stops the start.
    let authorization = match (&config.http, &config.authorization) {
        (Some(_), Some(table)) => Some(table.authorization(|name| std::env::var(name).ok())?),
        _ => None,
    };

    let mut builder = Server::builder()
        .redactor(rules)
        .server_info(config.server_name.clone(), env!("CARGO_PKG_VERSION"))
        .page_size(config.page_size)
        .max_read_bytes(config.max_read_bytes);
    let mut shared_key = None;
    if let Some(name) = &config.cursor_key_env {
        // A value that is not Unicode is set, and malformed.
        let value = std::env::var_os(name).map(|value| value.to_string_lossy().into_owned());
        let key = cursor_key(name, value)?;
        tracing::info!(
            variable = %name,
            "list cursors are signed with the shared key: every instance with it accepts them"
        );
        shared_key = Some((name.clone(), key.fingerprint()));
        builder = builder.cursor_key(key);
    }
    if let Some(feed) = &config.feed {
        let settle = feed.settle;
        let shared = shared_key.is_some();
        let feed = join_feed(feed, shared_key).await?;
        // The same Redis keeps the legacy sessions (any instance serves any session) and,
        // with the shared key, the confirmations' tickets (any instance serves a confirmed read).
        builder = builder
            .feed(Arc::clone(&feed) as Arc<dyn mcp_resources_core::change::ChangeFeed>)
            .feed_settle(settle)
            .session_store(Arc::clone(&feed) as Arc<dyn SessionStore>);
        if shared {
            builder = builder.shared_confirmations(feed);
        }
    }
    // Skills first: their SKILL.md entries lead the resource list, before the files (which
    // may hold the same SKILL.md again, when the skills directory is served as files too).
    if let Some(skills) = &skills {
        builder = builder.provider(Arc::new(skills.clone()));
    }
    if let Some(provider) = &provider {
        builder = builder.provider(Arc::new(provider.clone()));
    }
    if let Some(git) = &git {
        builder = builder.provider(Arc::new(git.clone()));
    }
    if let Some(sql) = &sql {
        builder = builder.provider(Arc::new(sql.clone()));
    }
    builder = resources.add_to(builder);
    if let Some(instructions) = &config.instructions {
        builder = builder.instructions(instructions.clone());
    }
    match &config.policy {
        Some(config::Policy::Grants(policy)) => {
            tracing::info!(
                grants = policy.grants.len(),
                "access is limited to the configured grants"
            );
            builder = builder.policy(Arc::new(policy.clone()));
        }
        Some(config::Policy::AllBut(denied)) => {
            tracing::info!(
                patterns = ?denied.iter().map(UriPattern::as_str).collect::<Vec<_>>(),
                "no grants: sensitive resources that need one are served to no one"
            );
            builder = builder.policy(Arc::new(AllowAllBut {
                denied: denied.clone(),
            }));
        }
        None => {}
    }
    if config.tools {
        tracing::info!(
            "the resources are served as tools too (--tools): for hosts that never read \
             resources; a host that does sees them twice"
        );
    }
    if !config.watch {
        tracing::info!(
            "nothing is watched (--no-watch): clients are offered no change notifications"
        );
    }
    // Without watchers no change is ever heard: subscriptions are not offered rather than
    // accepted and never kept.
    builder = builder.offer(mcp_resources_core::service::Offer {
        tools: config.tools,
        subscribe: config.watch,
        list_changed: config.watch,
        ..mcp_resources_core::service::Offer::default()
    });
    if !config.sensitive.is_empty() {
        let log = match &config.audit_log {
            Some(path) => AuditLog::file(path).map_err(|error| {
                format!("cannot open the audit log {}: {error}", path.display())
            })?,
            None => AuditLog::stderr(),
        };
        for rule in &config.sensitive {
            tracing::info!(
                rule = %rule.name,
                uris = ?rule.uris.iter().map(UriPattern::as_str).collect::<Vec<_>>(),
                confirm = rule.confirm,
                audit_log = %log.target().display(),
                "sensitive resources: audited{}",
                if rule.confirm { ", each read confirmed by the user" } else { "" }
            );
            builder = builder.sensitive(rule.clone());
        }
        builder = builder.audit(Arc::new(log));
    }
    let server = builder.build()?;

    if config.watch {
        if let Some(provider) = &provider {
            server.follow(provider.watch()?);
        }
        if let Some(git) = &git {
            server.follow(git.watch()?);
        }
        if let Some(sql) = &sql {
            server.follow(sql.watch().await);
        }
        if let Some(skills) = &skills {
            server.follow(skills.watch()?);
        }
    }
    spawn_signal_handler(server.clone());

    match config.http {
        Some(addr) => {
            if let Some(authorization) = &authorization {
                tracing::info!(
                    resource = authorization.resource(),
                    metadata = authorization.metadata_url(),
                    "every request needs a bearer token"
                );
            }
            let options = config.http_limits.apply(HttpOptions {
                allowed_hosts: config.allowed_hosts.clone(),
                allowed_origins: config.allowed_origins.clone(),
                authorization,
                health: true,
                ..HttpOptions::default()
            });
            tracing::info!(%addr, "serving Streamable HTTP at /mcp");
            server.serve_http(addr, options).await?;
        }
        None => {
            if config.authorization.is_some() {
                // Stdio's client started the server: it holds the credentials already (the
                // specification has stdio take them from the environment, not from tokens).
                tracing::warn!("[authorization] applies to HTTP only; stdio is served as is");
            }
            server.serve_stdio().await?;
        }
    }
    Ok(())
}

/// How long an instance's record of its cursor key's fingerprint lasts in Redis without being
/// renewed, and how often it is renewed.
const KEY_RECORD_LASTS: std::time::Duration = std::time::Duration::from_secs(30);
const KEY_RECORD_RENEWED: std::time::Duration = std::time::Duration::from_secs(10);

/// Connects to the deployment's Redis feed and, with a shared cursor key (its variable's name
/// and the key's fingerprint), checks that every instance on the channel has the same key, at
/// start (a different key stops the start, rather than every next page another instance serves
/// being refused) and every [`KEY_RECORD_RENEWED`] after (logged).
async fn join_feed(
    feed: &config::FeedConfig,
    shared_key: Option<(String, String)>,
) -> Result<Arc<RedisFeed>, Box<dyn std::error::Error>> {
    let password = match &feed.password_env {
        None => None,
        Some(name) => Some(std::env::var(name).map_err(|_| {
            format!("the Redis password variable {name} is not set ([feed] password_env)")
        })?),
    };
    let redis = Arc::new(
        RedisFeed::connect_with_password(&feed.redis, password.as_deref(), &feed.channel).await?,
    );
    let Some((variable, fingerprint)) = shared_key else {
        tracing::warn!(
            channel = %feed.channel,
            "a change feed without a shared cursor key (--cursor-key-env): this instance's \
             list cursors, and the confirmations it asks for, are refused by every other instance"
        );
        return Ok(redis);
    };
    redis
        .agree("cursor-key", &fingerprint, KEY_RECORD_LASTS)
        .await
        .map_err(|error| key_disagreement(&variable, error))?;
    let renewing = Arc::downgrade(&redis);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(KEY_RECORD_RENEWED).await;
            let Some(redis) = renewing.upgrade() else {
                return;
            };
            if let Err(error) = redis
                .agree("cursor-key", &fingerprint, KEY_RECORD_LASTS)
                .await
            {
                tracing::error!(error = %key_disagreement(&variable, error), "the shared cursor key");
            }
        }
    });
    Ok(redis)
}

/// What a failed agreement on the cursor key in `variable` means.
fn key_disagreement(variable: &str, error: RedisFeedError) -> String {
    match error {
        RedisFeedError::Disagreement { channel, .. } => format!(
            "the cursor key in {variable} differs from the one other instances on the Redis \
             channel {channel} use: give every instance the same key (or, to change it, stop \
             them all; their record expires {} s after the last one stops)",
            KEY_RECORD_LASTS.as_secs()
        ),
        other => other.to_string(),
    }
}

/// Shuts the server down gracefully on the first SIGINT or SIGTERM.
fn spawn_signal_handler(server: Server) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut interrupt), Ok(mut terminate)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                tracing::warn!("cannot listen for signals");
                return;
            };
            tokio::select! {
                _ = interrupt.recv() => tracing::info!("SIGINT: shutting down"),
                _ = terminate.recv() => tracing::info!("SIGTERM: shutting down"),
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            tracing::info!("interrupted: shutting down");
        }
        server.shutdown();
    });
}

/// Reports `error` and its causes on stderr.
fn fail(error: &dyn std::error::Error) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "mcp-resources: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        let _ = write!(stderr, ": {cause}");
        source = cause.source();
    }
    let _ = writeln!(stderr);
    ExitCode::from(EXIT_CONFIG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_key_is_64_hexadecimal_digits_and_never_shown() {
        let key = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        assert!(cursor_key("K", Some(key.to_owned())).is_ok());
        assert!(cursor_key("K", Some(format!(" {key}\n"))).is_ok());
        let unset = cursor_key("MCP_KEY", None).unwrap_err();
        assert!(unset.contains("MCP_KEY is not set"), "{unset}");
        let wrong = "+f".repeat(32);
        for value in [&key[..62], "zz".repeat(32).as_str(), wrong.as_str()] {
            let error = cursor_key("MCP_KEY", Some(value.to_owned())).unwrap_err();
            assert!(error.contains("64 hexadecimal digits"), "{error}");
            assert!(!error.contains(value), "the value is not shown: {error}");
        }
    }
}
