//! The command line of `mcp-resources`, declared with clap's derive API.
//!
//! **Layer:** server binary, first stage of the configuration: flags are parsed here and turned
//! into a [`RawConfig`] of the same shape as the TOML file, which `main` merges with the file
//! and validates. This module never starts anything and never reads a file.

use std::path::PathBuf;

use crate::config::{RawConfig, RawGit, RawSql};
use clap::{Args, Parser, Subcommand};

const AFTER_LONG_HELP: &str = "\
EXAMPLES:
    Serve the current directory on stdio (what an MCP client starts):
        mcp-resources serve

    Serve two directories on stdio:
        mcp-resources serve ./docs ./notes

    Serve Streamable HTTP at http://127.0.0.1:8080/mcp:
        mcp-resources serve --http 127.0.0.1:8080 ./docs

    Read the settings from a file (flags win over the file):
        mcp-resources serve --config mcp-resources.toml

    Print the JSON schema of the configuration file:
        mcp-resources config-schema > mcp-resources.schema.json

CONFIGURATION FILE (TOML):
    Every flag of `serve` has a key of the same name with `_` for `-`:
        paths = [\"./docs\"]            # relative to the file's directory
        skills = \"./skills\"           # relative to the file's directory
        http = \"127.0.0.1:8080\"
        log_level = \"info\"
        page_size = 100
        max_read_bytes = 8388608
        read_cache_bytes = 8388608      # 0 turns the read cache off
        allowed_hosts = [\"example.internal\"]
        allowed_origins = [\"https://app.example\"]
        secret_patterns = [\"*.secret\"]
        secret_exceptions = [\"public.secret\"]
        respect_ignore_files = true     # --no-ignore-files sets false
        refuse_hard_links = false       # --refuse-hard-links sets true
        watch = true                    # --no-watch sets false
        redact_content = true           # --no-redact sets false: credentials served as they are
        audit_log = \"audit.jsonl\"        # --audit-log; \"-\" or unset: stderr
        tools = false                   # --tools: resources as tools too, for tool-only hosts
        server_name = \"mcp-resources\"
        instructions = \"Project documentation.\"
        http_threads = 1                # threads serving HTTP connections
    Git repositories, after the keys above (the flag --git [NAME=]REPO, repeatable):
        [[git]]
        path = \"./repo\"               # a work tree or a bare repository
        name = \"repo\"                 # git://repo/...; default: the directory's name
        refs = [\"HEAD\", \"refs/heads/*\", \"refs/tags/*\"]   # the refs served (default)
    Content rules of your own, after the keys above (masked in every text answer):
        [[redact]]
        name = \"emails\"
        kind = \"email\"                 # or regex = \"ticket=(?P<secret>[0-9]+)\"
        mask = \"first:1\"               # full, first:N, last:N, ends:N
        uris = [\"file:///**/*.csv\"]    # globs as grants use; default all
    Sensitive resources, after the keys above (audited: one JSON line per list, read,
    subscription or completion of them):
        [[sensitive]]
        name = \"hr\"
        uris = [\"file:///**/hr/**\"]    # globs as grants use
        confirm = true                  # each read waits for the user's yes (elicitation)
        reason = \"Salaries and reviews.\" # shown when asking
        grant = true                    # served only to principals a [[grants]] entry covers
    Many instances behind one load balancer (flags --cursor-key-env VAR, --feed-redis URL,
    --feed-channel NAME); over HTTP, /healthz and /readyz answer the balancer's checks:
        [cluster]
        cursor_key_env = \"MCP_CURSOR_KEY\"   # 64 hex digits, the same on every instance:
                                           # any instance serves a list's next page (and,
                                           # with [feed], a confirmed read's answer)
        [feed]
        redis = \"redis://127.0.0.1:6379/\"   # every instance's changes reach every instance,
                                           # and any instance serves any legacy session
        channel = \"mcp-resources\"          # one per deployment sharing a Redis
        settle_ms = 20                     # the same change from several instances: told once
        password_env = \"REDIS_PASSWORD\"    # Redis' password, kept out of the URL
    Databases (the flag --sql [NAME=]URL, repeatable):
        [[sql]]
        url = \"sqlite:./app.db\"       # relative to the file's directory
        # url = \"postgres://reader@127.0.0.1:5432/shop\"   # PostgreSQL: never a password here
        # password_file = \"pg.pass\"   # or password_env = \"SHOP_PASSWORD\" (default PGPASSWORD)
        # schemas = [\"public\"]        # served schemas; the first one's tables named bare
        name = \"app\"                  # db://app/...; default: the file's name
        tables = [\"*\"]                # globs of the tables served
        deny_tables = [\"audit_*\"]     # never served
        hide = [\"users.internal_note\"]   # columns never selected (beside the built-in list)
        mask = [{ column = \"*nickname*\", style = \"last:2\" }]   # full, email, phone, last:N, ends:N
        [[sql.query]]                   # a named query of the [[sql]] above it
        name = \"order\"
        uri = \"orders://tenant/{tenant}/order/{id}\"
        sql = \"SELECT id, status, total FROM orders WHERE tenant = ?1 AND id = ?2\"   # $1, $2 on PostgreSQL
        params = [\"$claim:tenant\", \"id:integer\"]   # a variable, $subject or $claim:NAME
        one_row = true
        complete = { id = \"SELECT id FROM orders WHERE CAST(id AS TEXT) LIKE ?1 || '%'\" }

    Tables without a flag: [[resources]] (see the README) and, for HTTP, bearer tokens:
        [authorization]
        resource = \"https://files.example.com/mcp\"      # the URI clients reach: tokens' aud
        authorization_servers = [\"https://auth.example.com\"]   # tokens' iss
        jwks_file = \"jwks.json\"                # the issuer's signing keys (its jwks_uri, saved)
        hmac_secret_env = \"MCP_JWT_SECRET\"     # and/or a shared HMAC secret (32+ bytes)
        required_scopes = [\"files:read\"]       # every token must carry these
        implied_scopes = { \"files:admin\" = [\"files:read\"] }   # scope hierarchy
    Every request then needs `Authorization: Bearer <JWT>` (401 names the metadata document,
    served at /.well-known/oauth-protected-resource); a legacy session serves only the token
    subject that opened it. Who may do what, on every transport (none: everyone, everything):
        [[grants]]
        scope = \"files:read\"                   # or subject = \"alice\"; neither: everyone
        actions = [\"list\", \"read\"]             # default: list, read, subscribe, complete
        uris = \"file:///srv/docs/**\"           # * within a segment, ** across them
    What HTTP clients may hold and how long they may take (a client is a token's subject,
    else the peer address; past a limit: closed, 408 or 503). The defaults:
        [http_limits]
        max_connections = 1024          # lowered below the open-files limit
        max_connections_per_peer = 256
        header_read_timeout_ms = 10000  # also an idle HTTP/1.1 connection's wait
        idle_timeout_ms = 60000         # no request in progress (live streams count)
        body_read_timeout_ms = 30000
        http2_keep_alive_ms = 20000
        max_header_bytes = 65536
        max_response_bytes = 536870912  # held at once, sent or waiting for their client
        max_response_bytes_per_client = 67108864
        max_request_bytes = 268435456   # request bodies being received or served
        max_request_bytes_per_client = 33554432
        max_sessions = 10000
        max_sessions_per_client = 1000
        max_listen_streams = 10000
        max_listen_streams_per_client = 1000

LOGGING:
    Logs go to stderr only (stdout carries the protocol). The filter is, first found:
    --log-level, then RUST_LOG, then log_level in the file, then `info`.

CLIENT CONFIGURATION (stdio):
    {\"mcpServers\": {\"files\": {\"command\": \"mcp-resources\", \"args\": [\"serve\", \"/path/to/dir\"]}}}
";

/// Serve directories as live, safe MCP resources to clients of every protocol version
/// (2024-11-05 to 2026-07-28), on stdio or Streamable HTTP.
#[derive(Debug, Parser)]
#[command(name = "mcp-resources", version, after_long_help = AFTER_LONG_HELP)]
pub(crate) struct Cli {
    /// The log filter for stderr: a level (error, warn, info, debug, trace) or tracing
    /// directives such as `mcp_resources_server=debug`. Overrides RUST_LOG and the file's
    /// `log_level`.
    #[arg(long, global = true, value_name = "FILTER")]
    pub(crate) log_level: Option<String>,

    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve directories as `file://` resources (stdio unless --http is given).
    ///
    /// Every regular file under the directories is a resource, except files ignored by
    /// .gitignore, the .git directory, secret-looking files (.env*, private keys, *.pem,
    /// id_rsa*, credential files) and anything whose real path leaves the directory.
    /// Subscribers are told when files change, appear or disappear.
    #[command(after_long_help = AFTER_LONG_HELP)]
    Serve(Box<ServeArgs>),
    /// Print the JSON schema of the configuration file to stdout.
    ConfigSchema,
    /// Print the SQL that makes changes to the served PostgreSQL tables heard row by row.
    ///
    /// Takes the flags of `serve` (--sql, --config), connects, and prints a trigger function
    /// and, for each served table with a one-column primary key and no such trigger yet, its
    /// triggers. Run the SQL as the tables' owner; the server never does (its connections
    /// are read-only). Tables without it are polled from PostgreSQL's statistics.
    SqlTrigger(Box<ServeArgs>),
}

/// The flags of `serve`; each has a configuration-file twin.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Directories to serve [default: the current directory].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,

    /// Serve Streamable HTTP at /mcp on this address (for example 127.0.0.1:8080) instead of
    /// stdio: HTTP/1.1, and HTTP/2 to clients that open with its preface (h2c, no TLS).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,

    /// Serve every skill under this directory (a directory holding a SKILL.md whose
    /// frontmatter `name` is the directory's name) as skill://PATH/FILE, with skills/list
    /// and skills/get; a directory that breaks the rules is skipped with a warning.
    #[arg(long, value_name = "DIR")]
    pub(crate) skills: Option<PathBuf>,

    /// Serve a git repository (a work tree or a bare one) as git://NAME/... resources,
    /// read-only: refs, files and trees at any branch, tag or commit, commits, the log and
    /// diffs; secret-looking files are withheld at every revision. NAME defaults to the
    /// directory's name (repeatable). With --git and no PATH, no directory is served.
    #[arg(long = "git", value_name = "[NAME=]REPO")]
    pub(crate) git: Vec<String>,

    /// Serve a database as db://NAME/... resources, read-only: its schema, each table as a
    /// directory, pages of rows in key order and rows by key, with password, token and key
    /// columns hidden and email and phone columns masked. A SQLite file (sqlite:PATH) or a
    /// PostgreSQL database (postgres://USER@HOST:PORT/DB, its password in PGPASSWORD, never
    /// in the URL; the tables of its public schema). NAME defaults to the file's or the
    /// database's name (repeatable). With --sql and no PATH, no directory is served.
    #[arg(long = "sql", value_name = "[NAME=]URL")]
    pub(crate) sql: Vec<String>,

    /// Read settings from this TOML file; flags override it. See `config-schema`.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// The most items one list page holds [default: 100].
    #[arg(long, value_name = "N")]
    pub(crate) page_size: Option<usize>,

    /// The largest read in bytes, counted as sent (base64 for binary files), so every answer
    /// fits a 10 MiB message; larger files are read in ranges [default: 8388608].
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_read_bytes: Option<u64>,

    /// Bytes of small files' contents kept after a read and served again while the file's
    /// metadata is unchanged; 0 turns it off [default: 8388608].
    #[arg(long, value_name = "BYTES")]
    pub(crate) read_cache_bytes: Option<u64>,

    /// HTTP: a Host value to allow besides loopback ones (repeatable; `*` for any).
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub(crate) allowed_hosts: Vec<String>,

    /// HTTP: an Origin value to allow besides loopback ones (repeatable; `*` for any).
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub(crate) allowed_origins: Vec<String>,

    /// A glob of secret file names never exposed, added to the built-in list (repeatable).
    #[arg(long = "secret-pattern", value_name = "GLOB")]
    pub(crate) secret_patterns: Vec<String>,

    /// A glob of file names exposed even though a secret pattern matches (repeatable).
    #[arg(long = "secret-exception", value_name = "GLOB")]
    pub(crate) secret_exceptions: Vec<String>,

    /// Serve files that .gitignore, .ignore or .git/info/exclude would hide.
    #[arg(long)]
    pub(crate) no_ignore_files: bool,

    /// Refuse files with more than one hard link: a hard link to a file outside the served
    /// directories (or outside a grant) cannot be told from that file.
    #[arg(long)]
    pub(crate) refuse_hard_links: bool,

    /// Watch nothing (directories, repositories, databases): no change notifications, and
    /// none offered to clients (no `subscribe` or `listChanged` capability).
    #[arg(long)]
    pub(crate) no_watch: bool,

    /// Serve text as it is: no masking of credentials found by content (private keys, cloud
    /// and forge tokens, JWTs, URL passwords, random-looking assigned secrets) nor of the
    /// `[[redact]]` rules. On by default; the server warns when it is off.
    #[arg(long)]
    pub(crate) no_redact: bool,

    /// Where audit lines of `[[sensitive]]` resources go: a file, appended to, or `-` for
    /// stderr [default: stderr]. One JSON object per line: time, subject and issuer, action,
    /// URI, rule, bytes, outcome, spans masked; never contents or tokens.
    #[arg(long, value_name = "FILE")]
    pub(crate) audit_log: Option<std::path::PathBuf>,

    /// The environment variable holding the key that signs list cursors (64 hexadecimal
    /// digits): instances behind one load balancer given the same key accept each other's
    /// cursors, and with --feed-redis each other's confirmations of sensitive reads (each
    /// served once deployment-wide). Without it each process makes a key of its own.
    #[arg(long, value_name = "VAR")]
    pub(crate) cursor_key_env: Option<String>,

    /// The Redis server that carries changes between the instances of a deployment
    /// (`redis://host:6379/`; a password in the URL is never logged): each instance publishes
    /// what its watchers see and tells its subscribers what any instance saw; legacy HTTP
    /// sessions are kept there too, so that any instance serves any session's requests (no
    /// affinity needed). While Redis is away, reads go on, live streams end (clients listen
    /// again), /readyz says 503, and new legacy sessions wait for it (503).
    #[arg(long, value_name = "URL")]
    pub(crate) feed_redis: Option<String>,

    /// The Redis channel of this deployment [default: mcp-resources].
    #[arg(long, value_name = "NAME")]
    pub(crate) feed_channel: Option<String>,

    /// Serve the resources as tools too (list_resources, read_resource,
    /// list_resource_templates, read_directory, complete_template_variable), over the same
    /// policy and content rules, for hosts that call tools but never read resources (Copilot
    /// CLI, Codex and other tool-only hosts). Off by default: a host that reads resources sees
    /// the same data twice, which confuses a model choosing between them.
    #[arg(long)]
    pub(crate) tools: bool,

    /// The server name given to clients [default: mcp-resources].
    #[arg(long, value_name = "NAME")]
    pub(crate) server_name: Option<String>,

    /// Guidance for the client's model, given in initialize and server/discover.
    #[arg(long, value_name = "TEXT")]
    pub(crate) instructions: Option<String>,

    /// Threads serving HTTP connections [default: 1, one thread for all of them].
    #[arg(long, value_name = "N")]
    pub(crate) http_threads: Option<usize>,
}

impl ServeArgs {
    /// The flags as a configuration layer: only what was given is set.
    pub(crate) fn to_raw(&self, log_level: Option<String>) -> RawConfig {
        let list = |values: &Vec<String>| (!values.is_empty()).then(|| values.clone());
        RawConfig {
            paths: (!self.paths.is_empty()).then(|| self.paths.clone()),
            http: self.http.clone(),
            skills: self.skills.clone(),
            git: (!self.git.is_empty()).then(|| {
                self.git
                    .iter()
                    .map(|value| RawGit::from_flag(value))
                    .collect()
            }),
            sql: (!self.sql.is_empty()).then(|| {
                self.sql
                    .iter()
                    .map(|value| RawSql::from_flag(value))
                    .collect()
            }),
            log_level,
            page_size: self.page_size,
            max_read_bytes: self.max_read_bytes,
            read_cache_bytes: self.read_cache_bytes,
            allowed_hosts: list(&self.allowed_hosts),
            allowed_origins: list(&self.allowed_origins),
            secret_patterns: list(&self.secret_patterns),
            secret_exceptions: list(&self.secret_exceptions),
            respect_ignore_files: self.no_ignore_files.then_some(false),
            refuse_hard_links: self.refuse_hard_links.then_some(true),
            watch: self.no_watch.then_some(false),
            redact_content: self.no_redact.then_some(false),
            redact: None,
            sensitive: None,
            audit_log: self.audit_log.clone(),
            tools: self.tools.then_some(true),
            server_name: self.server_name.clone(),
            instructions: self.instructions.clone(),
            http_threads: self.http_threads,
            resources: None,
            authorization: None,
            http_limits: None,
            cluster: self
                .cursor_key_env
                .clone()
                .map(|name| crate::config::RawCluster {
                    cursor_key_env: Some(name),
                }),
            feed: (self.feed_redis.is_some() || self.feed_channel.is_some()).then(|| {
                crate::config::RawFeed {
                    redis: self.feed_redis.clone(),
                    channel: self.feed_channel.clone(),
                    settle_ms: None,
                    password_env: None,
                }
            }),
            grants: None,
        }
    }
}
