//! What the engines read, before it is rendered: tables with their columns and keys, rows of
//! values, a named query's answer, and the values bound to a query.
//!
//! **Layer:** provider (`mcp-resources-sql`). Plain data shared by the `sqlite` and `postgres`
//! modules and the rendering; it never knows an engine's API, a URI or JSON.

/// One served column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Column {
    pub(crate) name: String,
    /// Its declared type, as its engine writes it (`INTEGER`, `TEXT`, `VARCHAR(20)`,
    /// `character varying(20)`, or empty).
    pub(crate) decl_type: String,
    /// The name of its base type as the engine reads it (PostgreSQL's `typname`: `int4`,
    /// `text`; empty on SQLite).
    pub(crate) base_type: String,
    pub(crate) not_null: bool,
    pub(crate) default: Option<String>,
    /// Masked on the way out, when set.
    pub(crate) mask: Option<crate::mask::MaskStyle>,
}

/// How a table's rows are addressed and ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// Its one-column primary key, served as it is.
    Column { name: String },
    /// SQLite's `rowid` (a table whose primary key is composite; never on PostgreSQL).
    RowId,
    /// No stable order that may be shown: schema only.
    None,
}

/// A foreign key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ForeignKey {
    pub(crate) columns: Vec<String>,
    pub(crate) table: String,
    pub(crate) to: Vec<String>,
}

/// An index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Index {
    pub(crate) name: String,
    pub(crate) columns: Vec<String>,
    pub(crate) unique: bool,
}

/// One served table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table {
    /// Its served name (`orders`; on PostgreSQL `schema.orders` outside the first schema).
    pub(crate) name: String,
    /// The relation, quoted (`"orders"`, `"public"."orders"`).
    pub(crate) relation: String,
    /// What its rows are selected from: the relation, or on PostgreSQL `ONLY` it (not the
    /// tables that inherit from it).
    pub(crate) from: String,
    /// Whether changes to it are notified row by row (a PostgreSQL table with the documented
    /// trigger already: `sql-trigger` leaves it out).
    pub(crate) notified: bool,
    /// Its served columns (hidden ones left out), in declaration order.
    pub(crate) columns: Vec<Column>,
    /// Its primary key's served columns.
    pub(crate) primary_key: Vec<String>,
    pub(crate) foreign_keys: Vec<ForeignKey>,
    pub(crate) indexes: Vec<Index>,
    pub(crate) key: Key,
    /// From the engine's statistics (`sqlite_stat1`, `pg_class.reltuples`), when there are.
    pub(crate) row_estimate: Option<u64>,
}

/// The served tables, by name.
#[derive(Debug, Default)]
pub(crate) struct Schema {
    pub(crate) tables: Vec<Table>,
}

impl Schema {
    pub(crate) fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|table| table.name == name)
    }
}

/// A value as read, before it is rendered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Bool(bool),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    /// The text a key value is addressed by.
    pub(crate) fn key_text(&self) -> Option<String> {
        match self {
            Value::Integer(value) => Some(value.to_string()),
            Value::Text(text) => Some(text.clone()),
            Value::Real(value) => Some(value.to_string()),
            Value::Bool(value) => Some(value.to_string()),
            Value::Null | Value::Blob(_) => None,
        }
    }
}

/// One row: its key's value and its served columns' values, in the table's column order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// The key: where the row is addressed (its text) and where the page after it starts
    /// (the engine's cursor of it).
    pub(crate) key: Value,
    pub(crate) values: Vec<Value>,
}

/// The answer of a named query: its served columns and up to the asked number of rows.
pub(crate) struct QueryRows {
    pub(crate) table: Table,
    pub(crate) rows: Vec<Vec<Value>>,
    /// Whether more rows followed.
    pub(crate) more: bool,
}

impl QueryRows {
    /// The answer of the query `name`, whose served columns are `columns`.
    pub(crate) fn new(name: &str, columns: Vec<Column>) -> QueryRows {
        QueryRows {
            table: Table {
                name: name.to_owned(),
                relation: String::new(),
                from: String::new(),
                notified: false,
                columns,
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                indexes: Vec::new(),
                key: Key::None,
                row_estimate: None,
            },
            rows: Vec::new(),
            more: false,
        }
    }
}

/// A value bound to a query's parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Bind {
    Text(String),
    Integer(i64),
    Real(f64),
    /// A list of texts (PostgreSQL's catalogue queries: names never spliced).
    TextArray(Vec<String>),
}
