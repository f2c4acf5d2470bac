//! The `mcp-resources` binary: the library's server with the filesystem provider, the
//! configuration file and the command line.
//!
//! **Layer:** server binary. It parses the command line ([`cli`]), merges it over the
//! configuration file and validates the result (`mcp_server_bin::config`), installs logging on
//! stderr, starts the filesystem provider and its watcher, and serves stdio or Streamable HTTP
//! until the input ends or SIGINT/SIGTERM arrives. Stdout belongs to the protocol: everything
//! else, errors included, goes to stderr.

mod cli;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use mcp_server_bin::config::{Config, RawConfig};
use mcp_server_bin::filesystem::{FilesystemProvider, FsConfig};
use mcp_server_bin::{HttpOptions, Server};
use tracing_subscriber::EnvFilter;

use crate::cli::{Cli, Command, ServeArgs};

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
    }
}

fn serve(log_flag: Option<String>, args: &ServeArgs) -> ExitCode {
    let config = match load_config(log_flag.clone(), args) {
        Ok(config) => config,
        Err(error) => return fail(&*error),
    };
    if let Err(error) = install_logging(log_flag, &config.log_level) {
        return fail(&*error);
    }
    // stdio is served by one task: a single-threaded runtime spares it every cross-thread
    // wake-up (file reads still run on the blocking pool). HTTP serves many connections.
    let mut builder = match config.http {
        Some(_) => tokio::runtime::Builder::new_multi_thread(),
        None => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&error),
    };
    let outcome = runtime.block_on(run(config));
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

/// Logs to stderr: `--log-level`, else `RUST_LOG`, else the configured filter.
fn install_logging(
    log_flag: Option<String>,
    configured: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let filter = match log_flag {
        Some(flag) => EnvFilter::try_new(flag)?,
        None => match std::env::var(EnvFilter::DEFAULT_ENV) {
            Ok(value) if !value.trim().is_empty() => EnvFilter::try_new(value)?,
            _ => EnvFilter::try_new(configured)?,
        },
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init()
        .map_err(|error| -> Box<dyn std::error::Error> { error })?;
    Ok(())
}

async fn run(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let fs_config = FsConfig {
        roots: config.paths.clone(),
        secret_patterns: config.secret_patterns.clone(),
        secret_exceptions: config.secret_exceptions.clone(),
        respect_ignore_files: config.respect_ignore_files,
        max_read_bytes: config.max_read_bytes,
        watch: config.watch,
        ..FsConfig::new(config.paths.clone())
    };
    let provider =
        tokio::task::spawn_blocking(move || FilesystemProvider::new(fs_config)).await??;
    tracing::info!(
        roots = ?provider.roots().collect::<Vec<_>>(),
        files = provider.len(),
        "serving"
    );

    let mut builder = Server::builder()
        .server_info(config.server_name.clone(), env!("CARGO_PKG_VERSION"))
        .page_size(config.page_size)
        .max_read_bytes(config.max_read_bytes)
        .provider(Arc::new(provider.clone()));
    builder = mcp_server_bin::resources_config::ConfiguredResources::load(
        &config.resources,
        std::path::Path::new(""),
    )?
    .add_to(builder);
    if let Some(instructions) = &config.instructions {
        builder = builder.instructions(instructions.clone());
    }
    let server = builder.build()?;

    if config.watch {
        server.follow_filesystem(provider.watch()?);
    }
    spawn_signal_handler(server.clone());

    match config.http {
        Some(addr) => {
            let options = HttpOptions {
                allowed_hosts: config.allowed_hosts.clone(),
                allowed_origins: config.allowed_origins.clone(),
                ..HttpOptions::default()
            };
            tracing::info!(%addr, "serving Streamable HTTP at /mcp");
            server.serve_http(addr, options).await?;
        }
        None => server.serve_stdio().await?,
    }
    Ok(())
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
