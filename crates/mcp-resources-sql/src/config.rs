//! What the SQL provider serves and how: the databases, which tables, which columns are hidden
//! or masked, the budgets.
//!
//! **Layer:** provider (`mcp-resources-sql`). Plain values with their defaults and their
//! checks (globs compiled here, once); this module never opens a database.

use std::path::PathBuf;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::mask::MaskStyle;

/// Column names hidden by default: absent from schemas, rows and completion, never selected.
pub const DEFAULT_HIDDEN_COLUMNS: &[&str] = &[
    "*password*",
    "*passwd*",
    "*secret*",
    "*token*",
    "*api_key*",
    "*apikey*",
    "*private_key*",
    "*credential*",
    "ssn",
    "*_ssn",
    "*salt*",
];

/// Column names masked by default, and how.
pub const DEFAULT_MASKED_COLUMNS: &[(&str, MaskStyle)] = &[
    ("*email*", MaskStyle::Email),
    ("*phone*", MaskStyle::Phone),
    ("*mobile*", MaskStyle::Phone),
    ("*card_number*", MaskStyle::KeepLast(4)),
    ("*iban*", MaskStyle::KeepLast(4)),
    ("*national_id*", MaskStyle::KeepEnds(2)),
    ("*id_number*", MaskStyle::KeepEnds(2)),
];

/// Where a database is. `Debug` and `Display` show a connection string through
/// [`shown_url`].
#[derive(Clone, PartialEq, Eq)]
pub enum Source {
    /// A SQLite file, opened read-only.
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres {
        /// Its connection string, a URL (`postgres://user@host:port/db`, a socket directory
        /// as `host=/run/postgresql`) or `key=value` pairs, holding no password.
        url: String,
        /// The password, from the environment or a file.
        password: Option<Password>,
        /// The schemas whose tables are served; the first one's are named bare (`orders`),
        /// the others' `schema.table`. Default `["public"]`.
        schemas: Vec<String>,
    },
}

impl std::fmt::Debug for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Sqlite(path) => formatter.debug_tuple("Sqlite").field(path).finish(),
            Source::Postgres {
                url,
                password,
                schemas,
            } => formatter
                .debug_struct("Postgres")
                .field("url", &shown_url(url))
                .field("password", password)
                .field("schemas", schemas)
                .finish(),
        }
    }
}

impl std::fmt::Display for Source {
    /// The source as logs may show it: a password written into a connection string anyway
    /// is not.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Sqlite(path) => write!(formatter, "sqlite:{}", path.display()),
            Source::Postgres { url, .. } => formatter.write_str(&shown_url(url)),
        }
    }
}

/// A connection string as logs and errors may show it: a URL rebuilt from what the driver
/// parsed of it (user, hosts, ports, database), never its password nor its options; a string
/// that does not parse is shown as `postgres:***`. The driver's reading is the one that counts:
/// a hand-made redaction of the text would miss a password the driver still finds
/// (`postgres://u:p/w@host`, `?pass%77ord=`).
pub fn shown_url(url: &str) -> String {
    let Ok(config) = url.parse::<tokio_postgres::Config>() else {
        return "postgres:***".to_owned();
    };
    let mut shown = "postgres://".to_owned();
    if let Some(user) = config.get_user() {
        shown.push_str(
            &percent_encoding::utf8_percent_encode(user, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
        );
        if config.get_password().is_some() {
            shown.push_str(":***");
        }
        shown.push('@');
    }
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(index, host)| {
            let host = match host {
                tokio_postgres::config::Host::Tcp(name) => name.clone(),
                tokio_postgres::config::Host::Unix(path) => percent_encoding::utf8_percent_encode(
                    &path.to_string_lossy(),
                    percent_encoding::NON_ALPHANUMERIC,
                )
                .to_string(),
            };
            match ports.get(index).or(ports.first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    shown.push_str(&hosts.join(","));
    if let Some(database) = config.get_dbname() {
        shown.push('/');
        shown.push_str(
            &percent_encoding::utf8_percent_encode(database, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
        );
    }
    shown
}

/// Whether the driver finds a password in `url` (one that does not parse holds none it
/// could use).
pub fn holds_password(url: &str) -> bool {
    url.parse::<tokio_postgres::Config>()
        .is_ok_and(|config| config.get_password().is_some())
}

/// A password, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(pub String);

impl std::fmt::Debug for Password {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Password(***)")
    }
}

/// What happens to a column's values on the way out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnAction {
    /// The column does not exist for clients: not in schemas, not selected, not completed.
    Hide,
    /// Its values are masked wherever they leave.
    Mask(MaskStyle),
}

/// One rule on columns: a glob over `column` or `table.column` (case-insensitive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnRule {
    /// The glob.
    pub pattern: String,
    /// What it does.
    pub action: ColumnAction,
}

/// One database to serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbConfig {
    /// The authority of its URIs (`db://NAME/...`): lowercase ASCII letters, digits, `.`, `_`,
    /// `-`.
    pub name: String,
    /// Where it is.
    pub source: Source,
    /// Globs of the tables served (case-insensitive). Default: all (`*`).
    pub tables: Vec<String>,
    /// Globs of tables never served, even when `tables` matches.
    pub deny_tables: Vec<String>,
    /// Rules on columns, checked before the defaults (the first that matches decides).
    pub columns: Vec<ColumnRule>,
    /// Whether the default hidden and masked column lists apply after `columns`. Default
    /// `true`.
    pub default_column_rules: bool,
    /// Named queries answered from this database.
    pub queries: Vec<crate::query::NamedQuery>,
}

impl DbConfig {
    /// The SQLite database at `path`, named `name`, every table served, default rules.
    pub fn sqlite(name: impl Into<String>, path: impl Into<PathBuf>) -> DbConfig {
        DbConfig::of(name, Source::Sqlite(path.into()))
    }

    /// The PostgreSQL database at `url` (which holds no password), named `name`, the tables
    /// of its `public` schema served, default rules.
    pub fn postgres(
        name: impl Into<String>,
        url: impl Into<String>,
        password: Option<String>,
    ) -> DbConfig {
        DbConfig::of(
            name,
            Source::Postgres {
                url: url.into(),
                password: password.map(Password),
                schemas: vec!["public".to_owned()],
            },
        )
    }

    fn of(name: impl Into<String>, source: Source) -> DbConfig {
        DbConfig {
            name: name.into(),
            source,
            tables: vec!["*".to_owned()],
            deny_tables: Vec::new(),
            columns: Vec::new(),
            default_column_rules: true,
            queries: Vec::new(),
        }
    }
}

/// The SQL provider's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlConfig {
    /// The databases, each under its own name.
    pub databases: Vec<DbConfig>,
    /// Rows in a page when the URI gives no `limit`, and the most it may ask. Defaults 50
    /// and 500.
    pub page_rows: usize,
    /// See [`SqlConfig::page_rows`].
    pub max_page_rows: usize,
    /// The most bytes of one answer's JSON; a page stops before it (and says so), a schema is
    /// cut (and says so). Default 256 KiB.
    pub max_answer_bytes: usize,
    /// The most bytes of one value; a longer text or blob is cut (and the row says so).
    /// Default 4 KiB.
    pub max_value_bytes: usize,
    /// The ttl of answers. Default 2 s.
    pub ttl_ms: u64,
    /// How often a watched database is asked whether it changed. Default 1 s.
    pub poll: std::time::Duration,
}

impl SqlConfig {
    /// Serves `databases` with the defaults.
    pub fn new(databases: impl IntoIterator<Item = DbConfig>) -> SqlConfig {
        SqlConfig {
            databases: databases.into_iter().collect(),
            page_rows: 50,
            max_page_rows: 500,
            max_answer_bytes: 256 * 1024,
            max_value_bytes: 4 * 1024,
            ttl_ms: 2_000,
            poll: std::time::Duration::from_secs(1),
        }
    }
}

/// A glob that cannot be compiled, named.
#[derive(Debug, thiserror::Error)]
#[error("{what} pattern {pattern:?} is not a valid glob: {source}")]
pub struct PatternError {
    /// Which list it is in.
    pub what: &'static str,
    /// The pattern.
    pub pattern: String,
    /// Why.
    #[source]
    pub source: globset::Error,
}

/// Globs compiled, case-insensitive, `*` crossing nothing special.
pub(crate) fn globs(what: &'static str, patterns: &[String]) -> Result<GlobSet, PatternError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .case_insensitive(true)
            .build()
            .map_err(|source| PatternError {
                what,
                pattern: pattern.clone(),
                source,
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|source| PatternError {
        what,
        pattern: patterns.join(", "),
        source,
    })
}

/// A database's table and column rules, compiled.
#[derive(Debug)]
pub(crate) struct Rules {
    tables: GlobSet,
    deny: GlobSet,
    /// Each rule's glob with its action, and whether it is matched against `table.column`
    /// too, in order: configured ones (both), then the defaults (the bare column only, so
    /// that a table named `tokens` keeps its columns).
    columns: Vec<(GlobSet, ColumnAction, bool)>,
}

impl Rules {
    pub(crate) fn new(config: &DbConfig) -> Result<Rules, PatternError> {
        let mut columns = Vec::new();
        for rule in &config.columns {
            columns.push((
                globs("column", std::slice::from_ref(&rule.pattern))?,
                rule.action,
                true,
            ));
        }
        if config.default_column_rules {
            for pattern in DEFAULT_HIDDEN_COLUMNS {
                columns.push((
                    globs("column", &[(*pattern).to_owned()])?,
                    ColumnAction::Hide,
                    false,
                ));
            }
            for (pattern, style) in DEFAULT_MASKED_COLUMNS {
                columns.push((
                    globs("column", &[(*pattern).to_owned()])?,
                    ColumnAction::Mask(*style),
                    false,
                ));
            }
        }
        Ok(Rules {
            tables: globs("table", &config.tables)?,
            deny: globs("deny_tables", &config.deny_tables)?,
            columns,
        })
    }

    /// Whether `table` is served.
    pub(crate) fn serves_table(&self, table: &str) -> bool {
        self.tables.is_match(table) && !self.deny.is_match(table)
    }

    /// What happens to `table.column`: `None` when it is served as it is.
    pub(crate) fn column(&self, table: &str, column: &str) -> Option<ColumnAction> {
        let qualified = format!("{table}.{column}");
        self.columns
            .iter()
            .find(|(glob, _, qualified_too)| {
                glob.is_match(column) || (*qualified_too && glob.is_match(&qualified))
            })
            .map(|(_, action, _)| *action)
    }
}

#[cfg(test)]
mod tests {
    use super::{Password, Source, holds_password, shown_url};

    #[test]
    fn a_password_in_a_connection_string_is_never_shown() {
        for (url, shown) in [
            (
                "postgres://app:s3cret@db:5432/shop",
                "postgres://app:***@db:5432/shop",
            ),
            (
                "postgres://app@db/shop?password=s3cret&sslmode=disable",
                "postgres://app:***@db:5432/shop",
            ),
            (
                "postgres://app:mcp/s3cret@127.0.0.1:54329/shop",
                "postgres://app:***@127.0.0.1:54329/shop",
            ),
            (
                "postgres://app@db/shop?pass%77ord=s3cret",
                "postgres://app:***@db:5432/shop",
            ),
            (
                "host=db user=app password = s3cret dbname=shop",
                "postgres://app:***@db/shop",
            ),
            (
                "host=db user=app password='s3 cret' dbname=shop",
                "postgres://app:***@db/shop",
            ),
            (
                "postgres://app@%2Frun%2Fpostgresql/shop",
                "postgres://app@%2Frun%2Fpostgresql:5432/shop",
            ),
            ("postgres://app:s3cret@db/shop?bogus=1", "postgres:***"),
        ] {
            let shown_now = shown_url(url);
            assert_eq!(shown_now, shown, "{url}");
            assert!(!shown_now.contains("s3"), "{url}");
        }
        assert!(holds_password("postgres://app:mcp/s3cret@127.0.0.1/shop"));
        assert!(!holds_password("postgres://app@127.0.0.1/shop"));
        let source = Source::Postgres {
            url: "postgres://app:s3cret@db/shop".to_owned(),
            password: Some(Password("s3cret".to_owned())),
            schemas: vec!["public".to_owned()],
        };
        assert!(!format!("{source:?} {source}").contains("s3cret"));
    }
}
