//! `db://` URIs and back.
//!
//! **Layer:** provider (`mcp-resources-sql`). Text to values and values to text only; this
//! module never opens a database and never decides what is served.
//!
//! # Shapes
//!
//! - `db://NAME`: the database, a directory holding `schema` and `table`;
//! - `db://NAME/schema`: every served table's schema (JSON);
//! - `db://NAME/table`: a directory holding each served table;
//! - `db://NAME/table/TABLE`: a table, a directory holding `rows` and `schema`;
//! - `db://NAME/table/TABLE/schema`: its columns, keys and indexes (JSON);
//! - `db://NAME/table/TABLE/rows?after=KEY&limit=N`: a page of rows in key order (JSON);
//! - `db://NAME/table/TABLE/row/KEY`: one row (JSON).
//!
//! `TABLE` and `KEY` are one path segment each, percent-encoded by the core's
//! [`encode_segment`] (so a `/` in a key is `%2F`), decoded once, UTF-8.

use mcp_resources_core::uri::{ResourceUri, encode_query_value, encode_segment};
use percent_encoding::percent_decode_str;

/// The scheme of every URI this provider serves.
pub const SCHEME: &str = "db";

/// What a `db://` URI names below its database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Database,
    Schema,
    Tables,
    Table(String),
    TableSchema(String),
    Rows {
        table: String,
        after: Option<String>,
        limit: Option<u64>,
    },
    Row {
        table: String,
        key: String,
    },
}

/// A request URI taken apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub(crate) database: String,
    pub(crate) target: Target,
}

/// Whether `name` can be a database's name: `[a-z0-9._-]`, 1 to 64 bytes.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

/// What `uri` names, or `None` when it is no URI of these shapes.
pub(crate) fn parse(uri: &ResourceUri) -> Option<Parsed> {
    if uri.scheme() != SCHEME {
        return None;
    }
    let database = uri
        .authority()
        .filter(|name| is_valid_name(name))?
        .to_owned();
    let path = uri.path();
    let segments: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.strip_prefix('/')?.split('/').collect()
    };
    let query = uri.query();
    let no_query = || query.is_none().then_some(());
    let target = match segments.as_slice() {
        [] => {
            no_query()?;
            Target::Database
        }
        ["schema"] => {
            no_query()?;
            Target::Schema
        }
        ["table"] => {
            no_query()?;
            Target::Tables
        }
        ["table", table] => {
            no_query()?;
            Target::Table(decode(table)?)
        }
        ["table", table, "schema"] => {
            no_query()?;
            Target::TableSchema(decode(table)?)
        }
        ["table", table, "rows"] => {
            let (after, limit) = rows_query(query)?;
            Target::Rows {
                table: decode(table)?,
                after,
                limit,
            }
        }
        ["table", table, "row", key] => {
            no_query()?;
            Target::Row {
                table: decode(table)?,
                key: decode(key)?,
            }
        }
        _ => return None,
    };
    Some(Parsed { database, target })
}

/// One segment decoded: a value, spelled as [`encode_segment`] writes it (one spelling per
/// table and row: rules match the text of the URI).
fn decode(segment: &str) -> Option<String> {
    decode_value(segment).filter(|text| encode_segment(text.as_bytes()) == segment)
}

/// One segment or query value decoded: UTF-8, not empty, no NUL.
fn decode_value(segment: &str) -> Option<String> {
    let text = percent_decode_str(segment).decode_utf8().ok()?;
    (!text.is_empty() && !text.contains('\0')).then(|| text.into_owned())
}

/// `after` and `limit` of a rows page, each at most once, nothing else.
#[allow(clippy::type_complexity)]
fn rows_query(query: Option<&str>) -> Option<(Option<String>, Option<u64>)> {
    let (mut after, mut limit) = (None, None);
    for pair in query.into_iter().flat_map(|query| query.split('&')) {
        let (name, value) = pair.split_once('=')?;
        match name {
            "after" if after.is_none() => after = Some(decode_value(value)?),
            "limit" if limit.is_none() => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                // Too large is the largest, for the limit's check to refuse by name.
                limit = Some(value.parse().unwrap_or(u64::MAX));
            }
            _ => return None,
        }
    }
    Some((after, limit))
}

/// `db://NAME` followed by `/rest` when `rest` is not empty.
pub(crate) fn uri_of(database: &str, rest: &str) -> String {
    if rest.is_empty() {
        format!("{SCHEME}://{database}")
    } else {
        format!("{SCHEME}://{database}/{rest}")
    }
}

/// `db://NAME/table/TABLE` followed by `/rest` when `rest` is not empty.
pub(crate) fn table_uri(database: &str, table: &str, rest: &str) -> String {
    let base = uri_of(
        database,
        &format!("table/{}", encode_segment(table.as_bytes())),
    );
    if rest.is_empty() {
        base
    } else {
        format!("{base}/{rest}")
    }
}

/// `db://NAME/table/TABLE/row/KEY`.
pub(crate) fn row_uri(database: &str, table: &str, key: &str) -> String {
    table_uri(
        database,
        table,
        &format!("row/{}", encode_segment(key.as_bytes())),
    )
}

/// `db://NAME/table/TABLE/rows?after=KEY&limit=N`.
pub(crate) fn rows_uri(database: &str, table: &str, after: &str, limit: u64) -> String {
    table_uri(
        database,
        table,
        &format!(
            "rows?after={}&limit={limit}",
            encode_query_value(after.as_bytes())
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Option<Target> {
        parse(&ResourceUri::parse(text).unwrap()).map(|parsed| parsed.target)
    }

    #[test]
    fn shapes_parse_and_built_uris_parse_back() {
        assert_eq!(parsed("db://app"), Some(Target::Database));
        assert_eq!(parsed("db://app/schema"), Some(Target::Schema));
        assert_eq!(
            parsed("db://app/table/order%20items"),
            Some(Target::Table("order items".into()))
        );
        assert_eq!(
            parsed("db://app/table/users/rows?limit=5&after=a%2Fb"),
            Some(Target::Rows {
                table: "users".into(),
                after: Some("a/b".into()),
                limit: Some(5)
            })
        );
        let row = table_uri("app", "users", &format!("row/{}", encode_segment(b"a/b c")));
        assert_eq!(row, "db://app/table/users/row/a%2Fb%20c");
        assert_eq!(ResourceUri::parse(&row).unwrap().as_str(), row);
        assert_eq!(
            parsed(&row),
            Some(Target::Row {
                table: "users".into(),
                key: "a/b c".into()
            })
        );
        let next = rows_uri("app", "users", "t:a&limit=1+b=c", 50);
        assert_eq!(ResourceUri::parse(&next).unwrap().as_str(), next);
        assert_eq!(
            parsed(&next),
            Some(Target::Rows {
                table: "users".into(),
                after: Some("t:a&limit=1+b=c".into()),
                limit: Some(50)
            })
        );
        for bad in [
            "db://app/schema?x=1",
            "db://app/table/users/rows?limit=x",
            "db://app/table/users/rows?limit=1&limit=2",
            "db://app/table/users/rows?other=1",
            "db://app/table/users/row",
            "db://app/table/users/row/a/b",
            "db://app/tables",
            "db://app/table//schema",
            "git://app/schema",
        ] {
            assert_eq!(parsed(bad), None, "{bad}");
        }
    }
}
