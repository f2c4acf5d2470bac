//! The JSON a client reads: schemas, pages of rows and rows, masked and within their budgets.
//!
//! **Layer:** provider (`mcp-resources-sql`). Values to JSON only; this module never runs a
//! query and never builds a URI.
//!
//! Every value of a masked column leaves through [`value`], which masks it; a text or blob
//! longer than the value budget is cut on a character boundary, before a word of ASCII token
//! characters the cut would split (a credential cut in two would escape the server's content
//! rules), blobs are base64 of their first bytes, and its column is named in the row's `cut`.

use base64::Engine as _;
use serde_json::{Value as Json, json};

use crate::config::SqlConfig;
use crate::mask::mask;
use crate::model::{Column, Key, QueryRows, Row, Table, Value};

/// One table's schema.
pub(crate) fn table(table: &Table) -> Json {
    let columns: Vec<Json> = table
        .columns
        .iter()
        .map(|column| {
            let mut value = json!({"name": column.name, "type": column.decl_type});
            if column.not_null {
                value["notNull"] = json!(true);
            }
            if let Some(default) = &column.default {
                value["default"] = json!(default);
            }
            if column.mask.is_some() {
                value["masked"] = json!(true);
            }
            value
        })
        .collect();
    let mut value = json!({
        "name": table.name,
        "columns": columns,
        "primaryKey": table.primary_key,
        "rowsKeyedBy": match &table.key {
            Key::Column { name, .. } => json!(name),
            Key::RowId => json!("rowid"),
            Key::None => Json::Null,
        },
    });
    if !table.foreign_keys.is_empty() {
        value["foreignKeys"] = table
            .foreign_keys
            .iter()
            .map(|key| json!({"columns": key.columns, "table": key.table, "to": key.to}))
            .collect();
    }
    if !table.indexes.is_empty() {
        value["indexes"] = table
            .indexes
            .iter()
            .map(|index| json!({"name": index.name, "columns": index.columns, "unique": index.unique}))
            .collect();
    }
    if let Some(estimate) = table.row_estimate {
        value["rowEstimate"] = json!(estimate);
    }
    value
}

/// Every table's schema within `budget` bytes; tables past it are named in `cut`.
pub(crate) fn schema(tables: &[Table], budget: usize) -> Json {
    let mut rendered = Vec::new();
    let mut left_out = Vec::new();
    let mut used = 0;
    for each in tables {
        let value = table(each);
        let size = value.to_string().len() + 1;
        if left_out.is_empty() && used + size <= budget {
            used += size;
            rendered.push(value);
        } else {
            left_out.push(json!(each.name));
        }
    }
    let mut value = json!({"tables": rendered});
    if !left_out.is_empty() {
        value["cut"] = json!(true);
        value["tablesLeftOut"] = json!(left_out);
    }
    value
}

/// One value as it leaves: masked, cut, ready to serialize.
enum Shown<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Bool(bool),
    Text(std::borrow::Cow<'a, str>),
    /// The base64 of a blob's first bytes, and its size.
    Blob(String, usize),
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self {
            Shown::Null => serializer.serialize_unit(),
            Shown::Integer(number) => serializer.serialize_i64(*number),
            Shown::Real(number) if number.is_finite() => serializer.serialize_f64(*number),
            Shown::Real(number) => serializer.serialize_str(&number.to_string()),
            Shown::Bool(value) => serializer.serialize_bool(*value),
            Shown::Text(text) => serializer.serialize_str(text),
            Shown::Blob(base64, size) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("base64", base64)?;
                map.serialize_entry("size", size)?;
                map.end()
            }
        }
    }
}

impl Shown<'_> {
    fn into_json(self) -> Json {
        match self {
            Shown::Null => Json::Null,
            Shown::Integer(number) => json!(number),
            Shown::Real(number) if number.is_finite() => json!(number),
            Shown::Real(number) => json!(number.to_string()),
            Shown::Bool(value) => json!(value),
            Shown::Text(text) => Json::String(text.into_owned()),
            Shown::Blob(base64, size) => json!({"base64": base64, "size": size}),
        }
    }
}

/// One value as it leaves: masked when its column is, cut past `max_bytes`; whether cut.
fn value<'a>(column: &Column, value: &'a Value, max_bytes: usize) -> (Shown<'a>, bool) {
    let cut_at = |text: &str| -> Option<usize> {
        if text.len() <= max_bytes {
            return None;
        }
        let mut end = max_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some(before_a_cut_word(text, end))
    };
    if let Some(style) = column.mask {
        let number;
        let text = match value {
            Value::Null => return (Shown::Null, false),
            Value::Integer(value) => {
                number = value.to_string();
                &number
            }
            Value::Real(value) => {
                number = value.to_string();
                &number
            }
            Value::Bool(value) => {
                number = value.to_string();
                &number
            }
            Value::Text(text) => text,
            Value::Blob(_) => return (Shown::Text("****".into()), false),
        };
        // A text read cut (longer than the budget) is masked as read, and said to be cut.
        let read_cut = text.len() > max_bytes;
        let mut masked = mask(text, style);
        let cut = match cut_at(&masked) {
            Some(end) => {
                masked.truncate(end);
                true
            }
            None => false,
        };
        return (Shown::Text(masked.into()), cut || read_cut);
    }
    match value {
        Value::Null => (Shown::Null, false),
        Value::Integer(number) => (Shown::Integer(*number), false),
        Value::Real(number) => (Shown::Real(*number), false),
        Value::Bool(value) => (Shown::Bool(*value), false),
        Value::Text(text) => match cut_at(text) {
            Some(end) => (Shown::Text(text[..end].into()), true),
            None => (Shown::Text(text.as_str().into()), false),
        },
        Value::Blob(bytes) => {
            let shown = bytes.len().min(max_bytes / 4 * 3);
            (
                Shown::Blob(
                    base64::engine::general_purpose::STANDARD.encode(&bytes[..shown]),
                    bytes.len(),
                ),
                shown < bytes.len(),
            )
        }
    }
}

/// How far back a cut value drops a run of token characters it would cut.
const WORD_BACKOFF: usize = 1024;

/// Where to cut `text` at or before `end` so that no run of ASCII token characters (letters,
/// digits and the punctuation of keys and tokens) is cut in two: the server's content rules
/// mask a credential they see whole, and a cut one (`ghp_wWPw5k4a…`) would leave with its
/// first characters shown. The run is dropped whole, up to [`WORD_BACKOFF`] bytes of it.
fn before_a_cut_word(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    let is_token = |byte: u8| {
        byte.is_ascii_graphic()
            && !matches!(
                byte,
                b'"' | b'\''
                    | b'`'
                    | b','
                    | b';'
                    | b'<'
                    | b'>'
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
            )
    };
    if end == bytes.len() || !is_token(bytes[end]) {
        return end;
    }
    let floor = end.saturating_sub(WORD_BACKOFF);
    let mut start = end;
    while start > floor && is_token(bytes[start - 1]) {
        start -= 1;
    }
    start
}

/// A row's values, shown, in column order, and the names of the columns cut.
fn shown<'a>(table: &'a Table, row: &'a Row, max_bytes: usize) -> (Vec<Shown<'a>>, Vec<&'a str>) {
    let mut cut = Vec::new();
    let values = table
        .columns
        .iter()
        .zip(&row.values)
        .map(|(column, raw)| {
            let (shown, was_cut) = value(column, raw, max_bytes);
            if was_cut {
                cut.push(column.name.as_str());
            }
            shown
        })
        .collect();
    (values, cut)
}

/// A row's values as an array in column order, and the names of the columns cut.
fn values(table: &Table, row: &Row, max_bytes: usize) -> (Vec<Json>, Vec<String>) {
    let (values, cut) = shown(table, row, max_bytes);
    (
        values.into_iter().map(Shown::into_json).collect(),
        cut.into_iter().map(str::to_owned).collect(),
    )
}

/// One row: `{table, key, values: {column: value}}`, and `cut` when a value was.
pub(crate) fn row(table: &Table, row: &Row, max_value_bytes: usize) -> Json {
    let (values, cut) = values(table, row, max_value_bytes);
    let object: serde_json::Map<String, Json> = table
        .columns
        .iter()
        .map(|column| column.name.clone())
        .zip(values)
        .collect();
    let key = row.key.key_text().unwrap_or_default();
    let mut value = json!({"table": table.name, "key": key, "values": object});
    if !cut.is_empty() {
        value["cut"] = json!(cut);
    }
    value
}

/// A key as the text it is addressed by, written without a copy.
struct KeyText<'a>(&'a Value);

impl serde::Serialize for KeyText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Integer(number) => serializer.collect_str(number),
            Value::Real(number) => serializer.collect_str(number),
            Value::Bool(value) => serializer.collect_str(value),
            Value::Text(text) => serializer.serialize_str(text),
            Value::Null | Value::Blob(_) => serializer.serialize_unit(),
        }
    }
}

/// One row of a page as it is written: `{"key", "values", "cut"?}`.
#[derive(serde::Serialize)]
struct PageRow<'a, 'b> {
    key: KeyText<'a>,
    values: &'b [Shown<'a>],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cut: &'b [&'a str],
}

/// A page of at most `limit` of `rows` (which may hold one more, telling that more follow),
/// within the answer budget, as JSON text: `{"table", "columns", "rows", "cut"?, "next"}`,
/// `next` being `next_uri` of the last row's key when more follow, else null.
///
/// Each row is serialized once, straight into the answer, and the budget read off its
/// length; a row that would pass it is taken back out. (Building a `serde_json::Value` of the
/// page and serializing each row again to weigh it cost 41% of a page's instructions, under
/// callgrind, beside SQLite's 14%.)
pub(crate) fn rows(
    table: &Table,
    rows: &[Row],
    limit: usize,
    config: &SqlConfig,
    next_uri: impl FnOnce(&Value) -> Option<String>,
) -> String {
    let columns: Vec<&str> = table
        .columns
        .iter()
        .map(|column| column.name.as_str())
        .collect();
    let mut out = Vec::with_capacity(1024);
    let write = |out: &mut Vec<u8>, value: &dyn erased::Json| value.write(out);
    out.extend_from_slice(b"{\"table\":");
    write(&mut out, &table.name);
    out.extend_from_slice(b",\"columns\":");
    write(&mut out, &columns);
    out.extend_from_slice(b",\"rows\":[");
    // Room for the closing and `next`, as the budget always allowed.
    let reserve = 256;
    let mut shown = 0;
    let mut cut_by_budget = false;
    // One buffer of values and one of cut columns, for every row.
    let mut values: Vec<Shown<'_>> = Vec::with_capacity(table.columns.len());
    let mut cut: Vec<&str> = Vec::new();
    for each in rows.iter().take(limit) {
        let mark = out.len();
        if shown > 0 {
            out.push(b',');
        }
        values.clear();
        cut.clear();
        for (column, raw) in table.columns.iter().zip(&each.values) {
            let (shown, was_cut) = value(column, raw, config.max_value_bytes);
            if was_cut {
                cut.push(column.name.as_str());
            }
            values.push(shown);
        }
        write(
            &mut out,
            &PageRow {
                key: KeyText(&each.key),
                values: &values,
                cut: &cut,
            },
        );
        if shown > 0 && out.len() + reserve > config.max_answer_bytes {
            out.truncate(mark);
            cut_by_budget = true;
            break;
        }
        shown += 1;
    }
    out.push(b']');
    if cut_by_budget {
        out.extend_from_slice(b",\"cut\":true");
    }
    let more = cut_by_budget || rows.len() > limit;
    let next = if more && shown > 0 {
        next_uri(&rows[shown - 1].key)
    } else {
        None
    };
    out.extend_from_slice(b",\"next\":");
    write(&mut out, &next);
    out.push(b'}');
    String::from_utf8(out).expect("invariant: serde_json writes UTF-8")
}

/// Serialization into a byte buffer, behind one object-safe call.
mod erased {
    /// A value serde_json writes.
    pub(super) trait Json {
        fn write(&self, out: &mut Vec<u8>);
    }

    impl<T: serde::Serialize + ?Sized> Json for T {
        fn write(&self, out: &mut Vec<u8>) {
            serde_json::to_writer(out, self)
                .expect("invariant: these values serialize (string keys, no I/O)");
        }
    }
}

/// A named query's answer: one row as `{query, values}` (`None`, not found, when there is
/// none), or a list as `{query, columns, rows}`, within the answer budget (`cut` when rows or
/// the budget ran out).
pub(crate) fn query(
    named: &crate::query::NamedQuery,
    answer: &QueryRows,
    config: &SqlConfig,
) -> Option<Json> {
    let table = &answer.table;
    if named.one_row {
        let first = answer.rows.first()?;
        let row_values = Row {
            key: Value::Null,
            values: first.clone(),
        };
        let mut value = row(table, &row_values, config.max_value_bytes);
        let object = value.as_object_mut()?;
        object.remove("table");
        object.remove("key");
        object.insert("query".to_owned(), json!(named.name));
        return Some(value);
    }
    let columns: Vec<&str> = table
        .columns
        .iter()
        .map(|column| column.name.as_str())
        .collect();
    let mut used = 256 + columns.iter().map(|name| name.len() + 3).sum::<usize>();
    let mut rows = Vec::new();
    let mut cut = answer.more;
    for each in &answer.rows {
        let row_values = Row {
            key: Value::Null,
            values: each.clone(),
        };
        let (values, _) = values(table, &row_values, config.max_value_bytes);
        let entry = json!(values);
        let size = entry.to_string().len() + 1;
        if !rows.is_empty() && used + size > config.max_answer_bytes {
            cut = true;
            break;
        }
        used += size;
        rows.push(entry);
    }
    let mut value = json!({"query": named.name, "columns": columns, "rows": rows});
    if cut {
        value["cut"] = json!(true);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::{WORD_BACKOFF, before_a_cut_word};

    #[test]
    fn a_cut_value_drops_the_word_it_would_split() {
        let text = "key 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 end";
        let end = text.find("4a").unwrap();
        assert_eq!(&text[..before_a_cut_word(text, end)], "key ");
        // At a word's end, or before a delimiter or a non-ASCII character: as it is.
        assert_eq!(before_a_cut_word(text, 3), 3);
        assert_eq!(before_a_cut_word("aaa\"bbb", 3), 3);
        assert_eq!(before_a_cut_word("üüü", 2), 2);
        // A run longer than the back-off: at most that much is dropped.
        let long = "x".repeat(3000);
        assert_eq!(before_a_cut_word(&long, 2000), 2000 - WORD_BACKOFF);
    }
}
