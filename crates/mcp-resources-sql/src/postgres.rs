//! PostgreSQL, read-only: the schema of the served tables, pages of rows in key order, one row
//! by key, key completion, named queries, the statistics the watcher polls and the
//! notifications of the documented trigger.
//!
//! **Layer:** provider (`mcp-resources-sql`). Async `tokio-postgres` calls on the runtime; this
//! module never knows URIs, JSON rendering or the engine.
//!
//! Read-only is the server's doing, not a parser's: every session starts with
//! `default_transaction_read_only = on` and a `statement_timeout` ([`STATEMENT_DEADLINE`]),
//! and every statement runs in a transaction begun `READ ONLY` and rolled back, so a function
//! that changes a setting cannot outlive it. Statements go through the extended protocol,
//! which takes one statement only (a stacked `…; COMMIT; DROP …` does not prepare). The
//! connecting role should still be one that may only `SELECT` (the README says how).
//! Identifiers come from the catalogue, quoted; values are bound, never spliced (a key is bound
//! as text and cast to its column's type by the server). No TLS: connect over a Unix socket or
//! loopback.
//!
//! Only ordinary and partitioned tables of the configured schemas that the role may `SELECT`
//! are served (not partitions, views or foreign tables), and only the columns it may read.
//! A table's rows are keyed by its primary key when that is one column; other tables are
//! schema-only (PostgreSQL has no stable row id: a `ctid` moves on update). Tables of the first
//! configured schema are named bare (`orders`), others `schema.table`.
//!
//! Each database keeps four connections, opened when first needed and again after one breaks
//! (a database that went away answers errors until it is back). Every call is bounded by a
//! client-side deadline too, so that a server that stopped answering costs a request an error,
//! never a hang.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, NoTls, Statement};

use crate::config::{ColumnAction, Rules};
use crate::model::{Bind, Column, ForeignKey, Index, Key, QueryRows, Row, Schema, Table, Value};
use crate::sqlite::STATEMENT_DEADLINE;

/// How many connections one database keeps.
const CONNECTIONS: usize = 4;

/// The most tables of one database that are served (the first by name).
const MAX_TABLES: usize = crate::sqlite::MAX_TABLES;

/// How many keys completion looks at, at most.
const COMPLETION_SCAN: i64 = 100_000;

/// How long a read schema is trusted before the catalogue is asked whether it changed.
const SCHEMA_RECHECK: Duration = Duration::from_secs(1);

/// The channel the documented trigger notifies.
pub(crate) const CHANNEL: &str = "mcp_resources";

/// The documented trigger function, for PostgreSQL tables whose changes should be heard row
/// by row: the server never installs it (its connections are read-only); a database owner
/// runs this once, then [`notify_trigger`] for each table. Each notification names the row
/// that changed (the key's text, as the server reads it; a partition's change under its
/// partitioned table), or, after a `TRUNCATE` or for a key longer than 7,000 bytes, the table.
/// Such tables are polled too, so that a change made while nobody listened is still seen.
pub const NOTIFY_TRIGGER_SQL: &str = r#"CREATE OR REPLACE FUNCTION mcp_resources_notify() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  old_key text;
  new_key text;
  note jsonb;
BEGIN
  -- A partition's change is its partitioned table's: the root names the table.
  SELECT jsonb_build_object('schema', n.nspname, 'table', c.relname, 'column', TG_ARGV[0])
    INTO note FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = coalesce(pg_catalog.pg_partition_root(TG_RELID), TG_RELID);
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_catalog.pg_notify('mcp_resources', note::text);
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    EXECUTE pg_catalog.format('SELECT ($1).%I::text', TG_ARGV[0]) INTO old_key USING OLD;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE pg_catalog.format('SELECT ($1).%I::text', TG_ARGV[0]) INTO new_key USING NEW;
  END IF;
  IF old_key IS NOT NULL THEN
    PERFORM pg_catalog.pg_notify('mcp_resources', (CASE WHEN octet_length(old_key) <= 7000
      THEN note || jsonb_build_object('key', old_key) ELSE note END)::text);
  END IF;
  IF new_key IS NOT NULL AND new_key IS DISTINCT FROM old_key THEN
    PERFORM pg_catalog.pg_notify('mcp_resources', (CASE WHEN octet_length(new_key) <= 7000
      THEN note || jsonb_build_object('key', new_key) ELSE note END)::text);
  END IF;
  RETURN NULL;
END
$$;
"#;

/// The triggers that call [`NOTIFY_TRIGGER_SQL`]'s function for the table `relation`
/// (`public.orders`, quoted as needed) whose one-column key is `key`: one per row change, one
/// for `TRUNCATE`. The key's name is written as an escape string (`E'…'`), which reads the
/// same whatever `standard_conforming_strings` says.
pub fn notify_trigger(relation: &str, key: &str) -> String {
    let key = key.replace('\\', "\\\\").replace('\'', "\\'");
    format!(
        "CREATE TRIGGER mcp_resources_notify AFTER INSERT OR UPDATE OR DELETE ON {relation}\n  \
         FOR EACH ROW EXECUTE FUNCTION mcp_resources_notify(E'{key}');\n\
         CREATE TRIGGER mcp_resources_notify_truncate AFTER TRUNCATE ON {relation}\n  \
         FOR EACH STATEMENT EXECUTE FUNCTION mcp_resources_notify();\n"
    )
}

/// Why PostgreSQL failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The server answered an error, or the connection failed.
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
    /// No answer within the client's deadline.
    #[error("no answer within {} s", CLIENT_DEADLINE.as_secs())]
    Deadline,
}

/// The client's own bound on one call: the server's timeout, plus time to say so.
const CLIENT_DEADLINE: Duration = Duration::from_secs(STATEMENT_DEADLINE.as_secs() * 2);

impl Error {
    /// Whether the statement ran past its deadline.
    pub(crate) fn is_timeout(&self) -> bool {
        match self {
            Error::Deadline => true,
            Error::Postgres(error) => {
                error.code() == Some(&tokio_postgres::error::SqlState::QUERY_CANCELED)
            }
        }
    }

    /// Whether the server refused a value (a key that is no number, out of range): class 22,
    /// "data exception". Such a key names no row.
    fn is_bad_value(&self) -> bool {
        matches!(self, Error::Postgres(error) if error.code().is_some_and(|code| code.code().starts_with("22")))
    }
}

/// A connection and its prepared statements.
struct Session {
    client: Client,
    statements: HashMap<String, Statement>,
    /// The schema generation its statements were prepared under.
    generation: u64,
}

/// The most prepared statements one connection keeps; past it, the cache starts again (each
/// statement dropped is closed on the server).
const MAX_STATEMENTS: usize = 512;

impl Session {
    /// `sql` prepared on this connection, once (until the cache is cleared).
    async fn prepare(&mut self, sql: &str) -> Result<Statement, Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        if self.statements.len() >= MAX_STATEMENTS {
            self.statements.clear();
        }
        let statement = self.client.prepare(sql).await?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// At most `max_rows` rows of `statement` with `values` (all of them when `None`), in a
    /// read-only transaction rolled back after. With a maximum, the rows are fetched through a
    /// portal: the server stops there.
    async fn read_only(
        &mut self,
        statement: &Statement,
        values: &[&(dyn ToSql + Sync)],
        max_rows: Option<usize>,
    ) -> Result<Vec<tokio_postgres::Row>, Error> {
        let transaction = self
            .client
            .build_transaction()
            .read_only(true)
            .start()
            .await?;
        let rows = match max_rows {
            None => transaction.query(statement, values).await,
            Some(max) => match transaction.bind(statement, values).await {
                Ok(portal) => {
                    let max = i32::try_from(max).unwrap_or(i32::MAX);
                    transaction.query_portal(&portal, max).await
                }
                Err(error) => Err(error),
            },
        };
        transaction.rollback().await?;
        Ok(rows?)
    }

    /// [`Session::prepare`] then [`Session::read_only`]; `Ok(None)` when a value is no value
    /// of its parameter's type. A statement whose result changed under it (a column added:
    /// "cached plan must not change result type") is prepared again, once.
    async fn run(
        &mut self,
        sql: &str,
        params: &[Bind],
        max_rows: Option<usize>,
    ) -> Result<Option<Vec<tokio_postgres::Row>>, Error> {
        for attempt in 0..2 {
            let statement = self.prepare(sql).await?;
            let mut values = Vec::with_capacity(params.len());
            for (param, ty) in params.iter().zip(statement.params()) {
                match bound(param, ty) {
                    Some(value) => values.push(value),
                    None => return Ok(None),
                }
            }
            match self.read_only(&statement, &refs(&values), max_rows).await {
                Err(Error::Postgres(error))
                    if attempt == 0
                        && error.code()
                            == Some(&tokio_postgres::error::SqlState::FEATURE_NOT_SUPPORTED) =>
                {
                    self.statements.remove(sql);
                }
                result => return result.map(Some),
            }
        }
        unreachable!("the second attempt returns")
    }
}

/// A served PostgreSQL database.
pub(crate) struct Postgres {
    config: tokio_postgres::Config,
    sessions: Vec<tokio::sync::Mutex<Option<Session>>>,
    next: std::sync::atomic::AtomicUsize,
    rules: Rules,
    schemas: Vec<String>,
    value_limit: usize,
    /// The schema, when it was last checked, and the catalogue's fingerprint it was read at.
    schema: Mutex<Option<(Instant, String, Arc<Schema>)>>,
    /// How many times the schema was read: a connection's statements prepared under an older
    /// one are dropped (a table's columns may have changed under them).
    generation: std::sync::atomic::AtomicU64,
}

/// `name` quoted as an SQL identifier.
pub(crate) fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Bounds `work` by the client's deadline.
async fn bounded<T>(work: impl std::future::Future<Output = Result<T, Error>>) -> Result<T, Error> {
    tokio::time::timeout(CLIENT_DEADLINE, work)
        .await
        .unwrap_or(Err(Error::Deadline))
}

/// A row of a table, as a query selects it: the key's text, then each served column read in
/// the Rust type its [`Reader`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reader {
    Integer,
    Real,
    Bool,
    Bytes,
    Text,
}

impl Reader {
    /// How a column of the type PostgreSQL names `type_name` (`pg_type.typname`) is read.
    fn of_type_name(type_name: &str) -> Reader {
        match type_name {
            "int2" | "int4" | "int8" | "oid" => Reader::Integer,
            "float4" | "float8" => Reader::Real,
            "bool" => Reader::Bool,
            "bytea" => Reader::Bytes,
            _ => Reader::Text,
        }
    }

    /// How a result column of type `ty` is read, `None` when it cannot be (a named query must
    /// cast such a column to text).
    fn of_type(ty: &Type) -> Option<Reader> {
        Some(match *ty {
            Type::INT2 | Type::INT4 | Type::INT8 => Reader::Integer,
            Type::FLOAT4 | Type::FLOAT8 => Reader::Real,
            Type::BOOL => Reader::Bool,
            Type::BYTEA => Reader::Bytes,
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => Reader::Text,
            _ => return None,
        })
    }

    /// The select expression of column `name` for this reader, texts and byte strings cut one
    /// past `limit`.
    fn select(self, name: &str, limit: usize) -> String {
        let name = quote(name);
        let limit = limit + 1;
        match self {
            Reader::Integer => format!("{name}::int8"),
            Reader::Real => format!("{name}::float8"),
            Reader::Bool => name,
            Reader::Bytes => format!("pg_catalog.substring({name}, 1, {limit})"),
            Reader::Text => format!("pg_catalog.left({name}::text, {limit})"),
        }
    }

    /// The value of column `index` of `row`, read as this reader says (its type as selected,
    /// or the column's own in a named query).
    fn read(self, row: &tokio_postgres::Row, index: usize) -> Result<Value, Error> {
        let value = match self {
            Reader::Integer => match *row.columns()[index].type_() {
                Type::INT2 => row.try_get::<_, Option<i16>>(index)?.map(i64::from),
                Type::INT4 => row.try_get::<_, Option<i32>>(index)?.map(i64::from),
                _ => row.try_get::<_, Option<i64>>(index)?,
            }
            .map(Value::Integer),
            Reader::Real => match *row.columns()[index].type_() {
                Type::FLOAT4 => row.try_get::<_, Option<f32>>(index)?.map(f64::from),
                _ => row.try_get::<_, Option<f64>>(index)?,
            }
            .map(Value::Real),
            Reader::Bool => row.try_get::<_, Option<bool>>(index)?.map(Value::Bool),
            Reader::Bytes => row.try_get::<_, Option<Vec<u8>>>(index)?.map(Value::Blob),
            Reader::Text => row.try_get::<_, Option<String>>(index)?.map(Value::Text),
        };
        Ok(value.unwrap_or(Value::Null))
    }
}

/// A bound value as a parameter of type `ty` takes it; `None` when it is no such value (a
/// text that is no number for an integer parameter).
fn bound(value: &Bind, ty: &Type) -> Option<Box<dyn ToSql + Sync + Send>> {
    let text = match value {
        Bind::Text(text) => text.clone(),
        Bind::Integer(value) => value.to_string(),
        Bind::Real(value) => value.to_string(),
        Bind::TextArray(_) => String::new(),
    };
    if let Bind::TextArray(items) = value {
        return (*ty == Type::TEXT_ARRAY).then(|| Box::new(items.clone()) as _);
    }
    Some(match *ty {
        Type::INT2 => Box::new(text.parse::<i16>().ok()?),
        Type::INT4 => Box::new(text.parse::<i32>().ok()?),
        Type::INT8 => Box::new(text.parse::<i64>().ok()?),
        Type::FLOAT4 => Box::new(text.parse::<f32>().ok().filter(|value| value.is_finite())?),
        Type::FLOAT8 => Box::new(text.parse::<f64>().ok().filter(|value| value.is_finite())?),
        Type::BOOL => Box::new(text.parse::<bool>().ok()?),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => Box::new(text),
        _ => return None,
    })
}

/// Whether a parameter of type `ty` can be bound (see [`bound`]).
fn bindable(ty: &Type) -> bool {
    bound(&Bind::Text("0".to_owned()), ty).is_some()
}

/// `params` as the driver takes them.
fn refs(params: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|param| param.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

impl Postgres {
    /// The database `config` names, connected once to check that it answers; read-only
    /// sessions, values read at most `value_limit` long.
    pub(crate) async fn open(
        mut config: tokio_postgres::Config,
        schemas: Vec<String>,
        rules: Rules,
        value_limit: usize,
    ) -> Result<Postgres, Error> {
        let mut options = config.get_options().unwrap_or_default().to_owned();
        options.push_str(&format!(
            " -c default_transaction_read_only=on -c statement_timeout={} \
             -c idle_in_transaction_session_timeout={}",
            STATEMENT_DEADLINE.as_millis(),
            CLIENT_DEADLINE.as_millis()
        ));
        config.options(options.trim());
        config.application_name("mcp-resources");
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(STATEMENT_DEADLINE);
        }
        let postgres = Postgres {
            config,
            sessions: (0..CONNECTIONS)
                .map(|_| tokio::sync::Mutex::new(None))
                .collect(),
            next: std::sync::atomic::AtomicUsize::new(0),
            rules,
            schemas,
            value_limit,
            schema: Mutex::new(None),
            generation: std::sync::atomic::AtomicU64::new(0),
        };
        // Connect now: a wrong address or password fails the start, not the first request.
        let first = postgres.connect().await?;
        *postgres.sessions[0].lock().await = Some(first);
        // Read-only transactions stop writes to tables, not every side effect a function may
        // have (dblink, advisory locks, ending other sessions): a role that may only read is
        // the other half of the guarantee. Say so when the role may do much more.
        let powerful = postgres
            .rows_of(
                "SELECT rolsuper OR pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') \
                 FROM pg_roles WHERE rolname = current_user",
                &[],
            )
            .await?;
        if powerful
            .first()
            .and_then(|row| row.try_get::<_, bool>(0).ok())
            .unwrap_or(false)
        {
            tracing::warn!(
                "connected to PostgreSQL as a superuser (or a role that writes server files): \
                 statements run read-only, but a named query could still call functions with \
                 side effects; connect as a role that may only SELECT (see the README)"
            );
        }
        Ok(postgres)
    }

    async fn connect(&self) -> Result<Session, Error> {
        let (client, connection) = bounded(async { Ok(self.config.connect(NoTls).await?) }).await?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::warn!(%error, "a PostgreSQL connection ended");
            }
        });
        Ok(Session {
            client,
            statements: HashMap::new(),
            generation: self.generation.load(std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// A new connection of its own, for LISTEN: its messages are the caller's to poll.
    pub(crate) async fn listen_connection(
        &self,
    ) -> Result<
        (
            Client,
            tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
        ),
        Error,
    > {
        bounded(async { Ok(self.config.connect(NoTls).await?) }).await
    }

    /// A free connection (or, when all are busy, the next to be free), connected anew when
    /// it broke; its statements forgotten when the schema was read again since.
    async fn session(&self) -> Result<tokio::sync::MutexGuard<'_, Option<Session>>, Error> {
        let first = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let count = self.sessions.len();
        let free =
            (0..count).find_map(|offset| self.sessions[(first + offset) % count].try_lock().ok());
        let mut slot = match free {
            Some(slot) => slot,
            // Waiting for a busy connection is bounded too.
            None => bounded(async { Ok(self.sessions[first % count].lock().await) }).await?,
        };
        if slot
            .as_ref()
            .is_none_or(|session| session.client.is_closed())
        {
            *slot = None;
            *slot = Some(self.connect().await?);
        }
        let generation = self.generation.load(std::sync::atomic::Ordering::Relaxed);
        if let Some(session) = slot.as_mut()
            && session.generation != generation
        {
            session.statements.clear();
            session.generation = generation;
        }
        Ok(slot)
    }

    /// Runs `sql` with `params` in a read-only transaction, rolled back, under the deadlines
    /// (at most `max_rows` rows, when given); `Ok(None)` when a value is no value of its
    /// parameter's type. A connection that broke or did not answer in time is dropped (the
    /// next call connects anew).
    async fn query(
        &self,
        sql: &str,
        params: &[Bind],
        max_rows: Option<usize>,
    ) -> Result<Option<Vec<tokio_postgres::Row>>, Error> {
        let mut slot = self.session().await?;
        let session = slot.as_mut().expect("invariant: connected");
        let result = bounded(session.run(sql, params, max_rows)).await;
        if matches!(result, Err(Error::Deadline)) || session.client.is_closed() {
            *slot = None;
        }
        result
    }

    /// The rows of `sql` run with `params`; a value the statement cannot take gives none.
    async fn rows_of(&self, sql: &str, params: &[Bind]) -> Result<Vec<tokio_postgres::Row>, Error> {
        Ok(self.query(sql, params, None).await?.unwrap_or_default())
    }

    /// The catalogue's fingerprint of the served schemas: it moves when a table, column,
    /// index, constraint or trigger comes, goes or changes.
    async fn fingerprint(&self) -> Result<String, Error> {
        // Each catalogue row's `xmin` moves when the row changes: a table's (columns added,
        // an index made), a column's (dropped, renamed, granted), a default's, a trigger's.
        let rows = self
            .rows_of(
                "WITH s AS (SELECT oid FROM pg_namespace WHERE nspname = ANY($1::text[])), \
                 r AS (SELECT c.oid, c.xmin FROM pg_class c \
                   WHERE c.relnamespace IN (SELECT oid FROM s)) \
                 SELECT md5(concat_ws('/', \
                 (SELECT string_agg(oid::text || ':' || xmin::text, ',' ORDER BY oid) FROM r), \
                 (SELECT string_agg(a.attrelid::text || '.' || a.attnum || ':' || a.xmin::text, \
                   ',' ORDER BY a.attrelid, a.attnum) FROM pg_attribute a \
                   WHERE a.attnum > 0 AND a.attrelid IN (SELECT oid FROM r)), \
                 (SELECT string_agg(d.oid::text || ':' || d.xmin::text, ',' ORDER BY d.oid) \
                   FROM pg_attrdef d WHERE d.adrelid IN (SELECT oid FROM r)), \
                 (SELECT string_agg(t.oid::text || ':' || t.xmin::text, ',' ORDER BY t.oid) \
                   FROM pg_trigger t WHERE t.tgrelid IN (SELECT oid FROM r))))",
                &[Bind::TextArray(self.schemas.clone())],
            )
            .await?;
        Ok(rows
            .first()
            .and_then(|row| row.try_get::<_, String>(0).ok())
            .unwrap_or_default())
    }

    /// The served schema, read again when the catalogue changed (checked at most once a
    /// second).
    pub(crate) async fn schema(&self) -> Result<Arc<Schema>, Error> {
        let cached = self
            .schema
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((checked, _, schema)) = &cached
            && checked.elapsed() < SCHEMA_RECHECK
        {
            return Ok(Arc::clone(schema));
        }
        let fingerprint = self.fingerprint().await?;
        let schema = match cached {
            Some((_, seen, schema)) if seen == fingerprint => schema,
            _ => {
                let schema = Arc::new(self.read_schema().await?);
                self.generation
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                schema
            }
        };
        *self.schema.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((Instant::now(), fingerprint, Arc::clone(&schema)));
        Ok(schema)
    }

    /// The column rules.
    pub(crate) fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The served name of `schema.table`.
    pub(crate) fn served_name(&self, schema: &str, table: &str) -> String {
        if self.schemas.first().is_some_and(|first| first == schema) {
            table.to_owned()
        } else {
            format!("{schema}.{table}")
        }
    }

    async fn read_schema(&self) -> Result<Schema, Error> {
        let schemas = Bind::TextArray(self.schemas.clone());
        // (oid, schema, name, estimate, notified, partitioned, the partitions' schemas and
        // names, whether all are readable). A partitioned table's rows are its partitions':
        // it is served only when each of them is in a served schema, readable and not denied.
        // An ordinary table is read `ONLY`: the tables that inherit from it are not.
        let listed = self
            .rows_of(
                "SELECT c.oid::int8, n.nspname::text, c.relname::text, c.reltuples::float8, \
                 EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid \
                   WHERE t.tgrelid = c.oid AND p.proname = 'mcp_resources_notify' \
                   AND t.tgenabled IN ('O', 'A') AND (t.tgtype & 1) = 1), \
                 c.relkind = 'p', \
                 array(SELECT pn.nspname::text FROM pg_partition_tree(c.oid) pt \
                   JOIN pg_class pc ON pc.oid = pt.relid \
                   JOIN pg_namespace pn ON pn.oid = pc.relnamespace \
                   WHERE pt.relid <> c.oid ORDER BY pt.relid), \
                 array(SELECT pc.relname::text FROM pg_partition_tree(c.oid) pt \
                   JOIN pg_class pc ON pc.oid = pt.relid \
                   WHERE pt.relid <> c.oid ORDER BY pt.relid), \
                 NOT EXISTS (SELECT 1 FROM pg_partition_tree(c.oid) pt WHERE pt.relid <> c.oid \
                   AND NOT has_table_privilege(pt.relid, 'SELECT')) \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition \
                 AND n.nspname = ANY($1::text[]) \
                 AND has_table_privilege(c.oid, 'SELECT') ORDER BY n.nspname, c.relname",
                std::slice::from_ref(&schemas),
            )
            .await?;
        let mut tables: BTreeMap<i64, (String, String, Table, bool)> = BTreeMap::new();
        let mut names = std::collections::BTreeSet::new();
        for row in &listed {
            let (oid, schema, relname): (i64, String, String) =
                (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
            let name = self.served_name(&schema, &relname);
            if matches!(name.as_str(), "" | "." | "..")
                || !self.rules.serves_table(&name)
                || !names.insert(name.clone())
            {
                continue;
            }
            let partitioned: bool = row.try_get(5)?;
            let (part_schemas, part_names): (Vec<String>, Vec<String>) =
                (row.try_get(6)?, row.try_get(7)?);
            let partitions_served = row.try_get::<_, bool>(8)?
                && part_schemas.iter().zip(&part_names).all(|(schema, table)| {
                    self.schemas.contains(schema)
                        && self.rules.serves_table(&self.served_name(schema, table))
                });
            if !partitions_served {
                tracing::info!(
                    table = %name,
                    "not served: one of its partitions is not (another schema, denied or unreadable)"
                );
                continue;
            }
            let estimate: f64 = row.try_get(3)?;
            let relation = format!("{}.{}", quote(&schema), quote(&relname));
            let from = if partitioned {
                relation.clone()
            } else {
                format!("ONLY {relation}")
            };
            tables.insert(
                oid,
                (
                    schema,
                    relname,
                    Table {
                        relation,
                        from,
                        notified: row.try_get(4)?,
                        name,
                        columns: Vec::new(),
                        primary_key: Vec::new(),
                        foreign_keys: Vec::new(),
                        indexes: Vec::new(),
                        key: Key::None,
                        row_estimate: (estimate >= 0.0).then_some(estimate as u64),
                    },
                    false,
                ),
            );
        }
        if tables.len() > MAX_TABLES {
            tracing::warn!(
                tables = tables.len(),
                served = MAX_TABLES,
                "too many tables: the first by name are served"
            );
            let mut by_name: Vec<(i64, String)> = tables
                .iter()
                .map(|(oid, (_, _, table, _))| (*oid, table.name.clone()))
                .collect();
            by_name.sort_by(|a, b| a.1.cmp(&b.1));
            for (oid, _) in by_name.into_iter().skip(MAX_TABLES) {
                tables.remove(&oid);
            }
        }
        let oids = Bind::TextArray(tables.keys().map(i64::to_string).collect());
        let oid_list = "$1::text[]::oid[]";
        // Columns, with their base types (a domain's) to read them by.
        let mut hidden_keys: Vec<(i64, String)> = Vec::new();
        let columns = self
            .rows_of(
                &format!(
                    "SELECT a.attrelid::int8, a.attname::text, format_type(a.atttypid, a.atttypmod), \
                     coalesce(b.typname, t.typname)::text, a.attnotnull, \
                     pg_get_expr(d.adbin, d.adrelid), a.attgenerated <> '' \
                     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
                     LEFT JOIN pg_type b ON t.typtype = 'd' AND b.oid = t.typbasetype \
                     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                     WHERE a.attrelid = ANY({oid_list}) AND a.attnum > 0 AND NOT a.attisdropped \
                     AND has_column_privilege(a.attrelid, a.attnum, 'SELECT') \
                     ORDER BY a.attrelid, a.attnum"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        let mut generated: Vec<(i64, String)> = Vec::new();
        for row in &columns {
            let oid: i64 = row.try_get(0)?;
            let Some((_, _, table, _)) = tables.get_mut(&oid) else {
                continue;
            };
            let name: String = row.try_get(1)?;
            let action = self.rules.column(&table.name, &name);
            if matches!(action, Some(ColumnAction::Hide | ColumnAction::Mask(_))) {
                hidden_keys.push((oid, name.clone()));
            }
            if action == Some(ColumnAction::Hide) {
                continue;
            }
            let is_generated: bool = row.try_get(6)?;
            if is_generated {
                generated.push((oid, name.clone()));
            }
            table.columns.push(Column {
                name,
                decl_type: row.try_get(2)?,
                base_type: row.try_get(3)?,
                not_null: row.try_get(4)?,
                // A generated column's expression is not shown: it may name hidden columns.
                default: if is_generated { None } else { row.try_get(5)? },
                mask: match action {
                    Some(ColumnAction::Mask(style)) => Some(style),
                    _ => None,
                },
            });
        }
        // A generated column of a table with hidden or masked columns may be computed from
        // them (`upper(password)`): it is hidden too.
        for (oid, name) in &generated {
            if hidden_keys.iter().any(|(table, _)| table == oid)
                && let Some((_, _, table, _)) = tables.get_mut(oid)
            {
                table.columns.retain(|column| &column.name != name);
                hidden_keys.push((*oid, name.clone()));
            }
        }
        // Indexes (the primary key among them), columns in order; an index over an
        // expression has an attribute number 0.
        let indexes = self
            .rows_of(
                &format!(
                    "SELECT i.indrelid::int8, ic.relname::text, i.indisunique, i.indisprimary, \
                     0 = ANY(i.indkey::int2[]), \
                     array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) \
                     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid \
                     WHERE i.indrelid = ANY({oid_list}) ORDER BY ic.relname"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        for row in &indexes {
            let oid: i64 = row.try_get(0)?;
            let Some((_, _, table, _)) = tables.get_mut(&oid) else {
                continue;
            };
            let columns: Vec<String> = row.try_get(5)?;
            let expression: bool = row.try_get(4)?;
            let served = |column: &String| table.columns.iter().any(|each| &each.name == column);
            if row.try_get::<_, bool>(3)? {
                let masked_or_hidden = columns
                    .iter()
                    .any(|column| hidden_keys.iter().any(|(o, c)| *o == oid && c == column));
                table.primary_key = columns.iter().filter(|c| served(c)).cloned().collect();
                if columns.len() == 1 && !masked_or_hidden {
                    table.key = Key::Column {
                        name: columns[0].clone(),
                    };
                }
            }
            if !expression && columns.iter().all(served) {
                table.indexes.push(Index {
                    name: row.try_get(1)?,
                    columns,
                    unique: row.try_get(2)?,
                });
            }
        }
        // Foreign keys, to served tables only, naming served columns only.
        let foreign = self
            .rows_of(
                &format!(
                    "SELECT con.conrelid::int8, con.confrelid::int8, \
                     array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o), \
                     array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, o) \
                     JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o) \
                     FROM pg_constraint con WHERE con.contype = 'f' \
                     AND con.conrelid = ANY({oid_list}) ORDER BY con.conname"
                ),
                std::slice::from_ref(&oids),
            )
            .await?;
        for row in &foreign {
            let (from, to): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
            let Some(target) = tables.get(&to).map(|(_, _, table, _)| table.clone()) else {
                continue;
            };
            let Some((_, _, table, _)) = tables.get_mut(&from) else {
                continue;
            };
            let key = ForeignKey {
                columns: row.try_get(2)?,
                table: target.name.clone(),
                to: row.try_get(3)?,
            };
            let served_in = |table: &Table, column: &String| {
                table.columns.iter().any(|each| &each.name == column)
            };
            if key.columns.iter().all(|column| served_in(table, column))
                && key.to.iter().all(|column| served_in(&target, column))
            {
                table.foreign_keys.push(key);
            }
        }
        let mut tables: Vec<Table> = tables.into_values().map(|(_, _, table, _)| table).collect();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Schema { tables })
    }

    /// The key expression of `table`, `None` for a schema-only table.
    fn key_column(table: &Table) -> Option<String> {
        match &table.key {
            Key::Column { name } => Some(quote(name)),
            Key::RowId | Key::None => None,
        }
    }

    /// The served columns' select list and readers.
    fn select_list(&self, table: &Table) -> (String, Vec<Reader>) {
        let readers: Vec<Reader> = table
            .columns
            .iter()
            .map(|column| Reader::of_type_name(&column.base_type))
            .collect();
        let list = table
            .columns
            .iter()
            .zip(&readers)
            .enumerate()
            .map(|(index, (column, reader))| {
                // Named apart: an output column called as its input would make `ORDER BY`
                // ambiguous.
                format!(
                    ", {} AS c{index}",
                    reader.select(&column.name, self.value_limit)
                )
            })
            .collect();
        (list, readers)
    }

    fn collect_rows(rows: &[tokio_postgres::Row], readers: &[Reader]) -> Result<Vec<Row>, Error> {
        rows.iter()
            .map(|row| {
                let key: String = row.try_get(0)?;
                let values = readers
                    .iter()
                    .enumerate()
                    .map(|(index, reader)| reader.read(row, index + 1))
                    .collect::<Result<_, _>>()?;
                Ok(Row {
                    key: Value::Text(key),
                    values,
                })
            })
            .collect()
    }

    /// Up to `limit` rows of `table` after the key `after`, in key order. `None` when the
    /// table has no key.
    ///
    /// The SQL names the catalogue's operators and functions (`OPERATOR(pg_catalog.>)`), so
    /// that one of the same name that a user made in a schema on the search path is never
    /// called instead; the limit is bound, so one statement serves every page size.
    pub(crate) async fn rows(
        &self,
        table: &Table,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Option<Vec<Row>>, Error> {
        let Some(key) = Self::key_column(table) else {
            return Ok(None);
        };
        let Some(column) = table
            .columns
            .iter()
            .find(|column| Some(quote(&column.name)) == Some(key.clone()))
        else {
            return Ok(None);
        };
        let (list, readers) = self.select_list(table);
        let (resume, limit_param) = if after.is_some() {
            (
                format!(
                    "AND {key} OPERATOR(pg_catalog.>) $1::text::{} ",
                    column.decl_type
                ),
                "$2",
            )
        } else {
            (String::new(), "$1")
        };
        let sql = format!(
            "SELECT {key}::text AS k{list} FROM {} WHERE {key} IS NOT NULL {resume}\
             ORDER BY {key} LIMIT {limit_param}",
            table.from
        );
        let params: Vec<Bind> = after
            .map(|after| Bind::Text(after.to_owned()))
            .into_iter()
            .chain([Bind::Integer(limit as i64)])
            .collect();
        match self.rows_of(&sql, &params).await {
            Ok(rows) => Ok(Some(Self::collect_rows(&rows, &readers)?)),
            Err(error) if error.is_bad_value() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The row of `table` whose key reads as `key`, exactly: `None` when there is none, when
    /// `key` is no value of the key's type, or when it only casts to one (`01` is not the row
    /// `1`, `abcZZZ` not the `varchar(3)` row `abc`: one row, one URI).
    pub(crate) async fn row(&self, table: &Table, key: &str) -> Result<Option<Row>, Error> {
        let Some(key_column) = Self::key_column(table) else {
            return Ok(None);
        };
        let Some(column) = table
            .columns
            .iter()
            .find(|column| quote(&column.name) == key_column)
        else {
            return Ok(None);
        };
        let (list, readers) = self.select_list(table);
        let sql = format!(
            "SELECT {key_column}::text AS k{list} FROM {} \
             WHERE {key_column} OPERATOR(pg_catalog.=) $1::text::{} \
             AND {key_column}::text OPERATOR(pg_catalog.=) $1::text",
            table.from, column.decl_type
        );
        match self.rows_of(&sql, &[Bind::Text(key.to_owned())]).await {
            Ok(rows) => Ok(Self::collect_rows(&rows, &readers)?.into_iter().next()),
            Err(error) if error.is_bad_value() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Up to `limit` keys of `table` whose text starts with `prefix`, in key order, among its
    /// first [`COMPLETION_SCAN`] keys.
    pub(crate) async fn keys_with_prefix(
        &self,
        table: &Table,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, Error> {
        let Some(key) = Self::key_column(table) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT k FROM (SELECT {key}::text AS k FROM {} WHERE {key} IS NOT NULL \
             ORDER BY {key} LIMIT {COMPLETION_SCAN}) s WHERE pg_catalog.starts_with(k, $1) \
             LIMIT $2",
            table.from
        );
        let rows = self
            .rows_of(
                &sql,
                &[Bind::Text(prefix.to_owned()), Bind::Integer(limit as i64)],
            )
            .await?;
        rows.iter()
            .map(|row| Ok(row.try_get::<_, String>(0)?))
            .collect()
    }

    /// Checks a named query's (or completion query's) SQL: one statement that prepares,
    /// taking one of `counts` parameters of types that can be bound, its columns of types that
    /// can be read, and whose plan writes nothing (its `EXPLAIN`, run read-only with every
    /// parameter NULL, has no `ModifyTable` node). Returns how many parameters it takes.
    pub(crate) async fn check_query(&self, sql: &str, counts: &[usize]) -> Result<usize, String> {
        let mut slot = self
            .session()
            .await
            .map_err(|error| format!("cannot be checked: {error}"))?;
        let session = slot.as_mut().expect("invariant: connected");
        let statement = bounded(session.prepare(sql))
            .await
            .map_err(|error| format!("does not prepare: {}", detail(&error)))?;
        let count = statement.params().len();
        if !counts.contains(&count) {
            return Err(format!("takes {count} parameters, not {counts:?}"));
        }
        if let Some((index, ty)) = statement
            .params()
            .iter()
            .enumerate()
            .find(|(_, ty)| !bindable(ty))
        {
            return Err(format!(
                "has parameter ${} of type {ty}, which is bound from text, integers, reals or \
                 booleans only: cast it in the SQL (${}::text::{ty})",
                index + 1,
                index + 1
            ));
        }
        if let Some(column) = statement
            .columns()
            .iter()
            .find(|column| Reader::of_type(column.type_()).is_none())
        {
            return Err(format!(
                "answers the column {:?} of type {}: cast it to text in the SQL",
                column.name(),
                column.type_()
            ));
        }
        let explain = bounded(session.prepare(&format!("EXPLAIN (FORMAT JSON) {sql}")))
            .await
            .map_err(|error| format!("cannot be explained: {}", detail(&error)))?;
        let nulls: Vec<&(dyn ToSql + Sync)> = explain
            .params()
            .iter()
            .map(|_| &Null as &(dyn ToSql + Sync))
            .collect();
        let plan = bounded(session.read_only(&explain, &nulls, None))
            .await
            .map_err(|error| format!("cannot be explained: {}", detail(&error)))?;
        // The plan is `json`, whose binary form is its text. One that cannot be read is no
        // proof of a read: refused.
        let plan: serde_json::Value = plan
            .first()
            .and_then(|row| row.try_get::<_, Raw>(0).ok())
            .and_then(|raw| serde_json::from_slice(&raw.0).ok())
            .ok_or_else(|| "cannot be explained: no plan".to_owned())?;
        if writes(&plan) {
            return Err("is not read-only".to_owned());
        }
        Ok(count)
    }

    /// Runs the named query `sql` of `name` with `params`: at most `limit` rows, its hidden
    /// columns left out and its masked ones marked, by the column rules under `name`. `None`
    /// when a value is no value of its parameter's type.
    pub(crate) async fn run_query(
        &self,
        name: &str,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<Option<QueryRows>, Error> {
        // One row more than asked tells that there were more; the server stops there.
        let Some(rows) = self.query(sql, params, Some(limit + 1)).await? else {
            return Ok(None);
        };
        let Some(first) = rows.first() else {
            return Ok(Some(QueryRows::new(name, Vec::new())));
        };
        let mut served = Vec::new();
        let mut columns = Vec::new();
        for (index, column) in first.columns().iter().enumerate() {
            let action = self.rules.column(name, column.name());
            if action == Some(ColumnAction::Hide) {
                continue;
            }
            let Some(reader) = Reader::of_type(column.type_()) else {
                continue;
            };
            served.push((index, reader));
            columns.push(Column {
                name: column.name().to_owned(),
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
        let mut answer = QueryRows::new(name, columns);
        for row in &rows {
            if answer.rows.len() == limit {
                answer.more = true;
                break;
            }
            answer.rows.push(
                served
                    .iter()
                    .map(|(index, reader)| reader.read(row, *index))
                    .collect::<Result<_, _>>()?,
            );
        }
        Ok(Some(answer))
    }

    /// The first column of a completion query's rows, as text, at most `limit`, and its name.
    pub(crate) async fn complete_query(
        &self,
        sql: &str,
        params: &[Bind],
        limit: usize,
    ) -> Result<(String, Vec<String>), Error> {
        let rows = self
            .query(sql, params, Some(limit))
            .await?
            .unwrap_or_default();
        let column = rows
            .first()
            .map(|row| row.columns()[0].name().to_owned())
            .unwrap_or_default();
        let mut values = Vec::new();
        for row in &rows {
            let Some(reader) = Reader::of_type(row.columns()[0].type_()) else {
                break;
            };
            if let Some(text) = reader.read(row, 0)?.key_text() {
                values.push(text);
            }
        }
        Ok((column, values))
    }

    /// What the statistics say each served table has seen: inserted, updated and deleted
    /// rows, summed (a partitioned table's over its partitions), by served name. Tables with
    /// the notify trigger are polled too: their notifications are lost while the listening
    /// connection is down, their counts are not.
    pub(crate) async fn activity(&self) -> Result<BTreeMap<String, i64>, Error> {
        let schema = self.schema().await?;
        if schema.tables.is_empty() {
            return Ok(BTreeMap::new());
        }
        // `pg_stat_user_tables` counts a transaction's changes when it ends; each poll runs in
        // a transaction of its own, so it sees fresh figures.
        let rows = self
            .rows_of(
                "SELECT rn.nspname::text, rc.relname::text, \
                 sum(s.n_tup_ins + s.n_tup_upd + s.n_tup_del)::int8 FROM pg_stat_user_tables s \
                 JOIN pg_class rc ON rc.oid = coalesce(pg_partition_root(s.relid), s.relid) \
                 JOIN pg_namespace rn ON rn.oid = rc.relnamespace \
                 WHERE rn.nspname = ANY($1::text[]) GROUP BY rn.nspname, rc.relname",
                &[Bind::TextArray(self.schemas.clone())],
            )
            .await?;
        let mut activity = BTreeMap::new();
        for row in &rows {
            let (schema_name, table_name): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            let relation = format!("{}.{}", quote(&schema_name), quote(&table_name));
            if let Some(table) = schema
                .tables
                .iter()
                .find(|table| table.relation == relation)
            {
                activity.insert(table.name.clone(), row.try_get(2)?);
            }
        }
        Ok(activity)
    }
}

/// The server's message of `error`, with its detail when there is one.
fn detail(error: &Error) -> String {
    match error {
        Error::Postgres(error) => match error.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => error.to_string(),
        },
        Error::Deadline => error.to_string(),
    }
}

/// Whether an `EXPLAIN (FORMAT JSON)` plan has a node that writes.
fn writes(plan: &serde_json::Value) -> bool {
    match plan {
        serde_json::Value::Array(items) => items.iter().any(writes),
        serde_json::Value::Object(object) => {
            object.get("Node Type").and_then(serde_json::Value::as_str) == Some("ModifyTable")
                || object.values().any(writes)
        }
        _ => false,
    }
}

/// A value of any type, as the bytes the server sent.
struct Raw(Vec<u8>);

impl<'a> tokio_postgres::types::FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// NULL, for a parameter of any type.
#[derive(Debug)]
struct Null;

impl ToSql for Null {
    fn to_sql(
        &self,
        _: &Type,
        _: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        Ok(tokio_postgres::types::IsNull::Yes)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}
