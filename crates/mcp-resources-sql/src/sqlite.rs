//! SQLite, read-only: the schema of the served tables, pages of rows in key order, one row by
//! key, key completion, and the change counter the watcher polls.
//!
//! **Layer:** provider (`mcp-resources-sql`). Blocking `rusqlite` calls, made on tokio's
//! blocking pool by the provider; this module never knows URIs, JSON rendering or the engine.
//!
//! The database is opened with `SQLITE_OPEN_READ_ONLY` and `PRAGMA query_only`, so no
//! statement can write whatever its text; `trusted_schema` is off (a view or trigger cannot
//! call functions with side effects); and an authorizer lets SQLite prepare only reads (no
//! ATTACH, no pragma that sets a value, no transaction, no `load_extension`). Identifiers come from the database's own schema, quoted;
//! values are bound, never spliced. Every statement runs under a deadline
//! ([`STATEMENT_DEADLINE`]), enforced by SQLite's progress handler.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, params};

use crate::config::{ColumnAction, Rules};
use crate::model::{Bind, Column, ForeignKey, Index, Key, QueryRows, Row, Schema, Table, Value};

/// A value as SQLite gives it, a text or blob copied at most a few bytes past `limit`: enough
/// for the rendering to know it is longer, and to cut it on a character boundary.
fn value_of(value: ValueRef<'_>, limit: usize) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(value) => Value::Integer(value),
        ValueRef::Real(value) => Value::Real(value),
        ValueRef::Text(text) => {
            let text = &text[..text.len().min(limit.saturating_add(4))];
            Value::Text(String::from_utf8_lossy(text).into_owned())
        }
        ValueRef::Blob(bytes) => {
            Value::Blob(bytes[..bytes.len().min(limit.saturating_add(1))].to_vec())
        }
    }
}

/// A key value with its storage class (`i:7`, `r:2.5`, `t:abc`), a row's cursor: SQLite
/// orders integers and reals before texts, so a page resumes after a typed value.
pub(crate) fn cursor_of(value: &Value) -> Option<String> {
    match value {
        Value::Integer(value) => Some(format!("i:{value}")),
        Value::Real(value) => Some(format!("r:{value}")),
        Value::Text(text) => Some(format!("t:{text}")),
        Value::Null | Value::Bool(_) | Value::Blob(_) => None,
    }
}

/// The value a typed cursor names.
fn from_cursor(cursor: &str) -> Option<rusqlite::types::Value> {
    let (kind, text) = cursor.split_once(':')?;
    Some(match kind {
        "i" => text.parse::<i64>().ok()?.into(),
        "r" => text
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite())?
            .into(),
        "t" => text.to_owned().into(),
        _ => return None,
    })
}

/// A bound value as SQLite takes it.
fn bound(value: &Bind) -> rusqlite::types::Value {
    match value {
        Bind::Text(text) => text.clone().into(),
        Bind::Integer(value) => (*value).into(),
        Bind::Real(value) => (*value).into(),
        Bind::TextArray(items) => items.join(",").into(),
    }
}

/// The longest one statement may run before it is interrupted.
pub const STATEMENT_DEADLINE: Duration = Duration::from_secs(5);

/// The pragmas that only read, allowed with an argument (the schema's introspection).
const READ_PRAGMAS: &[&str] = &[
    "table_list",
    "table_info",
    "table_xinfo",
    "foreign_key_list",
    "index_list",
    "index_info",
    "index_xinfo",
];

/// How many read-only connections one database keeps: requests take the first free one.
const CONNECTIONS: usize = 4;

/// The most tables of one database that are served (the first by name).
pub(crate) const MAX_TABLES: usize = 10_000;

/// How many rows key completion looks at, at most.
const COMPLETION_SCAN: i64 = 100_000;

/// An open SQLite database.
pub(crate) struct Sqlite {
    connections: Vec<Mutex<Connection>>,
    next: std::sync::atomic::AtomicUsize,
    rules: Rules,
    /// Texts and blobs longer than this (bytes; characters for text) are read cut, one
    /// character or byte past it, so that their rendering knows they were.
    value_limit: usize,
    /// The schema read at `schema_version`, kept until it changes.
    schema: Mutex<Option<(i64, Arc<Schema>)>>,
}

/// Why SQLite failed.
pub(crate) type Error = rusqlite::Error;

/// `name` quoted as an SQL identifier.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl Sqlite {
    /// Opens `path` read-only, its values read at most `value_limit` long.
    pub(crate) fn open(path: &Path, rules: Rules, value_limit: usize) -> Result<Sqlite, Error> {
        let connections = (0..CONNECTIONS)
            .map(|_| Self::open_one(path).map(Mutex::new))
            .collect::<Result<_, _>>()?;
        Ok(Sqlite {
            connections,
            next: std::sync::atomic::AtomicUsize::new(0),
            rules,
            value_limit,
            schema: Mutex::new(None),
        })
    }

    fn open_one(path: &Path) -> Result<Connection, Error> {
        let mut connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.pragma_update(None, "query_only", true)?;
        connection.pragma_update(None, "trusted_schema", false)?;
        connection.busy_timeout(Duration::from_secs(1))?;
        // From here on SQLite asks before every statement it prepares: reading is allowed,
        // nothing else — no write of any kind, no ATTACH (which `query_only` lets through), no
        // pragma that sets a value (`query_only = OFF`), no extension loading.
        connection.authorizer(Some(|context: rusqlite::hooks::AuthContext<'_>| {
            use rusqlite::hooks::{AuthAction, Authorization};
            match context.action {
                AuthAction::Function { function_name }
                    if function_name.eq_ignore_ascii_case("load_extension") =>
                {
                    Authorization::Deny
                }
                AuthAction::Select
                | AuthAction::Read { .. }
                | AuthAction::Function { .. }
                | AuthAction::Recursive
                | AuthAction::Pragma {
                    pragma_value: None, ..
                } => Authorization::Allow,
                // The schema's table-valued pragmas name their table as a "value".
                AuthAction::Pragma { pragma_name, .. } if READ_PRAGMAS.contains(&pragma_name) => {
                    Authorization::Allow
                }
                _ => Authorization::Deny,
            }
        }))?;
        // Touch the file: a path that is no database fails here, not at the first request.
        connection.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
        Ok(connection)
    }

    /// Runs `work` on a free connection (or, when all are busy, waits for one) under the
    /// statement deadline.
    fn with<T>(&self, work: impl FnOnce(&Connection) -> Result<T, Error>) -> Result<T, Error> {
        let first = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let count = self.connections.len();
        let free = (0..count)
            .find_map(|offset| self.connections[(first + offset) % count].try_lock().ok());
        let mut connection = match free {
            Some(connection) => connection,
            None => self.connections[first % count]
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        };
        let deadline = Instant::now() + STATEMENT_DEADLINE;
        connection.progress_handler(10_000, Some(move || Instant::now() > deadline))?;
        let result = work(&connection);
        let reset = connection.progress_handler(10_000, None::<fn() -> bool>);
        let value = result?;
        reset?;
        Ok(value)
    }

    /// The column rules.
    pub(crate) fn rules(&self) -> &Rules {
        &self.rules
    }

    /// SQLite's change counter for other connections' commits (`PRAGMA data_version`).
    pub(crate) fn data_version(&self) -> Result<i64, Error> {
        self.with(|connection| connection.query_row("PRAGMA data_version", [], |row| row.get(0)))
    }

    /// The served schema, read again when the database's schema changed.
    pub(crate) fn schema(&self) -> Result<Arc<Schema>, Error> {
        let version: i64 = self.with(|connection| {
            connection.query_row("PRAGMA schema_version", [], |row| row.get(0))
        })?;
        let cached = self
            .schema
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((_, schema)) = cached.filter(|(seen, _)| *seen == version) {
            return Ok(schema);
        }
        let schema = Arc::new(self.with(|connection| self.read_schema(connection))?);
        *self.schema.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((version, Arc::clone(&schema)));
        Ok(schema)
    }

    fn read_schema(&self, connection: &Connection) -> Result<Schema, Error> {
        // Ordinary tables of the main database only: not views, not virtual tables, not the
        // shadow tables that hold a virtual table's data (an FTS index's `_content`).
        let mut names: Vec<(String, bool)> = connection
            .prepare(
                "SELECT name, wr FROM pragma_table_list \
                 WHERE schema = 'main' AND type = 'table' \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            )?
            .query_map([], |row| Ok((row.get(0)?, !row.get::<_, bool>(1)?)))?
            .collect::<Result<_, _>>()?;
        // Names that cannot be one path segment of a URI are not served.
        names.retain(|(name, _)| {
            !matches!(name.as_str(), "" | "." | "..") && self.rules.serves_table(name)
        });
        if names.len() > MAX_TABLES {
            tracing::warn!(
                tables = names.len(),
                served = MAX_TABLES,
                "too many tables: the first by name are served"
            );
            names.truncate(MAX_TABLES);
        }
        let has_stats: bool = connection.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'",
            [],
            |row| row.get::<_, i64>(0).map(|count| count > 0),
        )?;
        // The progress handler counts steps of statements, not the work of preparing them:
        // a schema of very many tables is checked against the deadline between tables.
        let deadline = Instant::now() + STATEMENT_DEADLINE;
        let mut tables = Vec::with_capacity(names.len());
        for (name, rowid) in names {
            if Instant::now() > deadline {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT),
                    Some("the schema took too long to read".to_owned()),
                ));
            }
            tables.push(self.read_table(connection, &name, rowid, has_stats)?);
        }
        Ok(Schema { tables })
    }

    fn read_table(
        &self,
        connection: &Connection,
        name: &str,
        rowid: bool,
        has_stats: bool,
    ) -> Result<Table, Error> {
        let mut columns = Vec::new();
        // (name, pk position, hidden or masked)
        let mut key_parts: Vec<(String, i64, bool)> = Vec::new();
        // `table_xinfo` lists generated columns too (hidden 2 and 3); 1 is a virtual table's.
        let mut statement = connection.prepare(
            "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1) \
             WHERE hidden IN (0, 2, 3) ORDER BY cid",
        )?;
        let mut rows = statement.query(params![name])?;
        let mut generated = Vec::new();
        let mut any_hidden = false;
        while let Some(row) = rows.next()? {
            let column: String = row.get(0)?;
            let decl_type: String = row.get::<_, Option<String>>(1)?.unwrap_or_default();
            let pk: i64 = row.get(4)?;
            let action = self.rules.column(name, &column);
            if pk > 0 {
                key_parts.push((
                    column.clone(),
                    pk,
                    matches!(action, Some(ColumnAction::Hide | ColumnAction::Mask(_))),
                ));
            }
            any_hidden |= matches!(action, Some(ColumnAction::Hide | ColumnAction::Mask(_)));
            if action == Some(ColumnAction::Hide) {
                continue;
            }
            let is_generated = row.get::<_, i64>(5)? != 0;
            if is_generated {
                generated.push(column.clone());
            }
            columns.push(Column {
                name: column,
                decl_type,
                base_type: String::new(),
                not_null: row.get(2)?,
                default: if is_generated { None } else { row.get(3)? },
                mask: match action {
                    Some(ColumnAction::Mask(style)) => Some(style),
                    _ => None,
                },
            });
        }
        // A generated column of a table with hidden or masked columns may be computed from
        // them (`upper(password)`): it is hidden too.
        if any_hidden {
            columns.retain(|column| !generated.contains(&column.name));
        }
        key_parts.sort_by_key(|part| part.1);
        // A hidden or masked key column is never the key, nor is `rowid` then: an `INTEGER
        // PRIMARY KEY` is the rowid under another name.
        let key = match key_parts.as_slice() {
            _ if key_parts.iter().any(|part| part.2) => Key::None,
            [(column, _, _)] => Key::Column {
                name: column.clone(),
            },
            _ if rowid => Key::RowId,
            _ => Key::None,
        };
        let served = |column: &String| columns.iter().any(|served| &served.name == column);
        let primary_key = key_parts
            .iter()
            .map(|part| part.0.clone())
            .filter(served)
            .collect();
        let foreign_keys = self.read_foreign_keys(connection, name, &served)?;
        let indexes = self.read_indexes(connection, name, &served)?;
        let row_estimate = if has_stats {
            connection
                .query_row(
                    "SELECT stat FROM sqlite_stat1 WHERE tbl = ?1 LIMIT 1",
                    params![name],
                    |row| row.get::<_, String>(0),
                )
                .ok()
                .and_then(|stat| stat.split(' ').next()?.parse().ok())
        } else {
            None
        };
        Ok(Table {
            name: name.to_owned(),
            relation: quote(name),
            from: quote(name),
            notified: false,
            columns,
            primary_key,
            foreign_keys,
            indexes,
            key,
            row_estimate,
        })
    }

    fn read_foreign_keys(
        &self,
        connection: &Connection,
        table: &str,
        served: &dyn Fn(&String) -> bool,
    ) -> Result<Vec<ForeignKey>, Error> {
        let mut statement = connection.prepare(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
        )?;
        let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
        let mut rows = statement.query(params![table])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let target: String = row.get(1)?;
            let from: String = row.get(2)?;
            let to: Option<String> = row.get(3)?;
            if !self.rules.serves_table(&target) {
                continue;
            }
            match keys.last_mut() {
                Some((last, key)) if *last == id => {
                    key.columns.push(from);
                    key.to.extend(to);
                }
                _ => keys.push((
                    id,
                    ForeignKey {
                        columns: vec![from],
                        table: target,
                        to: to.into_iter().collect(),
                    },
                )),
            }
        }
        let hidden_in_target = |key: &ForeignKey| {
            key.to
                .iter()
                .any(|column| self.rules.column(&key.table, column) == Some(ColumnAction::Hide))
        };
        Ok(keys
            .into_iter()
            .map(|(_, key)| key)
            .filter(|key| key.columns.iter().all(served) && !hidden_in_target(key))
            .collect())
    }

    fn read_indexes(
        &self,
        connection: &Connection,
        table: &str,
        served: &dyn Fn(&String) -> bool,
    ) -> Result<Vec<Index>, Error> {
        let list: Vec<(String, bool)> = connection
            .prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) ORDER BY name")?
            .query_map(params![table], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut indexes = Vec::new();
        for (name, unique) in list {
            let columns: Vec<String> = connection
                .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?
                .query_map(params![name], |row| row.get::<_, Option<String>>(0))?
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .map(|column| column.unwrap_or_else(|| "(expression)".to_owned()))
                .collect();
            // An index over a hidden column would tell of it, and one over an expression
            // might (its expression is not shown, only that it exists).
            if columns
                .iter()
                .all(|column| column != "(expression)" && served(column))
            {
                indexes.push(Index {
                    name,
                    columns,
                    unique,
                });
            }
        }
        Ok(indexes)
    }

    /// The key expression of `table`, `None` for a schema-only table.
    fn key_expr(table: &Table) -> Option<String> {
        match &table.key {
            Key::Column { name } => Some(quote(name)),
            Key::RowId => Some("rowid".to_owned()),
            Key::None => None,
        }
    }

    /// The served columns.
    fn select_list(table: &Table) -> String {
        table
            .columns
            .iter()
            .map(|column| format!(", {}", quote(&column.name)))
            .collect()
    }

    /// Reads the rows of a result: the key, then the served columns.
    fn collect_rows(
        rows: &mut rusqlite::Rows<'_>,
        width: usize,
        limit: usize,
    ) -> Result<Vec<Row>, Error> {
        let mut found = Vec::new();
        while let Some(row) = rows.next()? {
            let key = value_of(row.get_ref(0)?, usize::MAX);
            if matches!(key, Value::Null | Value::Blob(_)) {
                continue;
            }
            let mut values = Vec::with_capacity(width);
            for index in 1..=width {
                values.push(value_of(row.get_ref(index)?, limit));
            }
            found.push(Row { key, values });
        }
        Ok(found)
    }

    /// Up to `limit` rows of `table` after the typed cursor `after` ([`cursor_of`]), in key
    /// order; rows whose key is NULL or a blob have no place in that order and are left out.
    /// `None` when `after` is no cursor, or the table has no key.
    pub(crate) fn rows(
        &self,
        table: &Table,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Option<Vec<Row>>, Error> {
        let Some(key) = Self::key_expr(table) else {
            return Ok(None);
        };
        let after = match after {
            Some(cursor) => match from_cursor(cursor) {
                Some(value) => Some(value),
                None => return Ok(None),
            },
            None => None,
        };
        // Two statements, not `?1 IS NULL OR key > ?1`: that form makes SQLite scan the table
        // instead of seeking the key (a page deep in a million rows: 46 ms against 0.08 ms).
        let resume = if after.is_some() {
            format!("AND {key} > ?1 ")
        } else {
            String::new()
        };
        let sql = format!(
            "SELECT {key}{} FROM {} WHERE {key} IS NOT NULL AND typeof({key}) <> 'blob' \
             {resume}ORDER BY {key} LIMIT {limit}",
            Self::select_list(table),
            table.relation
        );
        let width = table.columns.len();
        self.with(|connection| {
            let mut statement = connection.prepare_cached(&sql)?;
            let mut rows = match &after {
                Some(after) => statement.query(params![after])?,
                None => statement.query([])?,
            };
            Ok(Some(Self::collect_rows(
                &mut rows,
                width,
                self.value_limit,
            )?))
        })
    }

    /// The row of `table` whose key reads as `key`, `None` when there is none. SQLite keys are
    /// dynamically typed: `key` is tried as an integer (or a real), then as a text, the first
    /// row found answering.
    pub(crate) fn row(&self, table: &Table, key: &str) -> Result<Option<Row>, Error> {
        let Some(key_expr) = Self::key_expr(table) else {
            return Ok(None);
        };
        let mut candidates: Vec<rusqlite::types::Value> = Vec::new();
        if let Ok(integer) = key.parse::<i64>() {
            candidates.push(integer.into());
        } else if let Ok(real) = key.parse::<f64>()
            && real.is_finite()
        {
            candidates.push(real.into());
        }
        if !matches!(table.key, Key::RowId) {
            candidates.push(key.to_owned().into());
        }
        let sql = format!(
            "SELECT {key_expr}{} FROM {} WHERE {key_expr} = ?1 AND typeof({key_expr}) = typeof(?1)",
            Self::select_list(table),
            table.relation
        );
        let width = table.columns.len();
        self.with(|connection| {
            let mut statement = connection.prepare_cached(&sql)?;
            for candidate in candidates {
                let mut rows = statement.query(params![candidate])?;
                if let Some(row) = Self::collect_rows(&mut rows, width, self.value_limit)?
                    .into_iter()
                    .next()
                {
                    return Ok(Some(row));
                }
            }
            Ok(None)
        })
    }

    /// Up to `limit` keys of `table` whose text starts with `prefix`, in key order, among its
    /// first [`COMPLETION_SCAN`] keys: a bounded scan, whatever the table's size.
    pub(crate) fn keys_with_prefix(
        &self,
        table: &Table,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let Some(key) = Self::key_expr(table) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT k FROM (SELECT {key} AS k FROM {} WHERE {key} IS NOT NULL \
             AND typeof({key}) <> 'blob' ORDER BY {key} LIMIT {COMPLETION_SCAN}) \
             WHERE substr(CAST(k AS TEXT), 1, length(?1)) = ?1 LIMIT ?2",
            table.relation
        );
        self.with(|connection| {
            let mut statement = connection.prepare_cached(&sql)?;
            let keys = statement
                .query_map(params![prefix, limit as i64], |row| {
                    Ok(value_of(row.get_ref(0)?, usize::MAX).key_text())
                })?
                .filter_map(Result::transpose)
                .collect::<Result<_, _>>()?;
            Ok(keys)
        })
    }
}

impl Sqlite {
    /// Checks a named query's (or completion query's) SQL: one statement, read-only by
    /// SQLite's judgement, taking `params` parameters.
    pub(crate) fn check_query(&self, sql: &str, params: &[usize]) -> Result<usize, String> {
        self.with(|connection| {
            let statement = connection.prepare(sql)?;
            Ok((statement.readonly(), statement.parameter_count()))
        })
        .map_err(|error| format!("does not prepare: {error}"))
        .and_then(|(readonly, count)| {
            if !readonly {
                Err("is not read-only".to_owned())
            } else if !params.contains(&count) {
                Err(format!("takes {count} parameters, not {params:?}"))
            } else {
                Ok(count)
            }
        })
    }

    /// Runs the named query `sql` of `name` with `params`: at most `limit` rows, its hidden
    /// columns left out and its masked ones marked, by the column rules under `name`.
    pub(crate) fn run_query(
        &self,
        name: &str,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<QueryRows, Error> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(sql)?;
            let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
            let mut served = Vec::new();
            let mut columns = Vec::new();
            for (index, column) in names.iter().enumerate() {
                let action = self.rules.column(name, column);
                if action == Some(ColumnAction::Hide) {
                    continue;
                }
                served.push(index);
                columns.push(Column {
                    name: column.clone(),
                    decl_type: String::new(),
                    base_type: String::new(),
                    not_null: false,
                    default: None,
                    mask: match action {
                        Some(ColumnAction::Mask(style)) => Some(style),
                        _ => None,
                    },
                });
            }
            let mut rows = statement.query(rusqlite::params_from_iter(params.iter().map(bound)))?;
            let mut found = Vec::new();
            let mut more = false;
            while let Some(row) = rows.next()? {
                if found.len() == limit {
                    more = true;
                    break;
                }
                let values = served
                    .iter()
                    .map(|index| {
                        row.get_ref(*index)
                            .map(|value| value_of(value, self.value_limit))
                    })
                    .collect::<Result<_, _>>()?;
                found.push(values);
            }
            let mut answer = QueryRows::new(name, columns);
            answer.rows = found;
            answer.more = more;
            Ok(answer)
        })
    }

    /// The first column of a completion query's rows, as text, at most `limit`, and its name.
    pub(crate) fn complete_query(
        &self,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<(String, Vec<String>), Error> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(sql)?;
            let column = statement.column_name(0)?.to_owned();
            let mut rows = statement.query(rusqlite::params_from_iter(params.iter().map(bound)))?;
            let mut values = Vec::new();
            while let Some(row) = rows.next()? {
                if values.len() == limit {
                    break;
                }
                if let Some(text) = value_of(row.get_ref(0)?, usize::MAX).key_text() {
                    values.push(text);
                }
            }
            Ok((column, values))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DbConfig;

    #[test]
    fn the_connection_cannot_write_whatever_the_statement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .unwrap();
        let rules = Rules::new(&DbConfig::sqlite("w", &path)).unwrap();
        let sqlite = Sqlite::open(&path, rules, 4096).unwrap();
        for statement in [
            "INSERT INTO t VALUES (2)",
            "UPDATE t SET x = 3",
            "DELETE FROM t",
            "DROP TABLE t",
            "CREATE TABLE u (y)",
            "PRAGMA query_only = OFF; INSERT INTO t VALUES (4)",
            "ATTACH DATABASE ':memory:' AS other; CREATE TABLE other.v (z)",
            "ATTACH DATABASE ':memory:' AS other",
            "PRAGMA query_only = OFF",
            "PRAGMA trusted_schema = ON",
            "SELECT load_extension('x')",
            "BEGIN IMMEDIATE",
        ] {
            let result = sqlite.with(|connection| connection.execute_batch(statement));
            assert!(result.is_err(), "{statement} was allowed");
        }
        let count: i64 = sqlite
            .with(|connection| {
                connection.query_row("SELECT count(*), max(x) FROM t", [], |row| row.get(0))
            })
            .unwrap();
        assert_eq!(count, 1);
    }

    #[test]
    fn a_statement_past_its_deadline_is_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let sqlite = Sqlite::open(
            &path,
            Rules::new(&DbConfig::sqlite("d", &path)).unwrap(),
            4096,
        )
        .unwrap();
        let started = Instant::now();
        let endless = sqlite.with(|connection| {
            connection.query_row(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                [],
                |row| row.get::<_, i64>(0),
            )
        });
        let error = endless.unwrap_err();
        assert!(
            matches!(&error, rusqlite::Error::SqliteFailure(failure, _) if failure.code == rusqlite::ErrorCode::OperationInterrupted),
            "{error}"
        );
        assert!(started.elapsed() < STATEMENT_DEADLINE * 3);
    }
}
