//! The JSON a client reads: schemas, pages of rows and rows, masked and within their budgets.
//!
//! **Layer:** provider (`mcp-resources-sql`). Values to JSON only; this module never runs a
//! query and never builds a URI.
//!
//! Every value of a masked column leaves through [`value`], which masks it; a text or blob
//! longer than the value budget is cut on a character boundary (blobs are base64 of their
//! first bytes) and its column named in the row's `cut`.

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

/// One value as it leaves: masked when its column is, cut past `max_bytes`; whether cut.
fn value(column: &Column, value: &Value, max_bytes: usize) -> (Json, bool) {
    let cut_text = |text: &str| -> (String, bool) {
        if text.len() <= max_bytes {
            return (text.to_owned(), false);
        }
        let mut end = max_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (text[..end].to_owned(), true)
    };
    if let Some(style) = column.mask {
        let text = match value {
            Value::Null => return (Json::Null, false),
            Value::Integer(number) => number.to_string(),
            Value::Real(number) => number.to_string(),
            Value::Bool(value) => value.to_string(),
            Value::Text(text) => text.clone(),
            Value::Blob(_) => return (json!("****"), false),
        };
        // A text read cut (longer than the budget) is masked as read, and said to be cut.
        let read_cut = text.len() > max_bytes;
        let (text, cut) = cut_text(&mask(&text, style));
        return (json!(text), cut || read_cut);
    }
    match value {
        Value::Null => (Json::Null, false),
        Value::Integer(number) => (json!(number), false),
        Value::Real(number) if number.is_finite() => (json!(number), false),
        Value::Real(number) => (json!(number.to_string()), false),
        Value::Bool(value) => (json!(value), false),
        Value::Text(text) => {
            let (text, cut) = cut_text(text);
            (json!(text), cut)
        }
        Value::Blob(bytes) => {
            let cut = bytes.len() > max_bytes / 4 * 3;
            let shown = &bytes[..bytes.len().min(max_bytes / 4 * 3)];
            (
                json!({
                    "base64": base64::engine::general_purpose::STANDARD.encode(shown),
                    "size": bytes.len(),
                }),
                cut,
            )
        }
    }
}

/// A row's values as an array in column order, and the names of the columns cut.
fn values(table: &Table, row: &Row, max_bytes: usize) -> (Vec<Json>, Vec<String>) {
    let mut cut = Vec::new();
    let values = table
        .columns
        .iter()
        .zip(&row.values)
        .map(|(column, raw)| {
            let (json, was_cut) = value(column, raw, max_bytes);
            if was_cut {
                cut.push(column.name.clone());
            }
            json
        })
        .collect();
    (values, cut)
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
    let mut value = json!({"table": table.name, "key": row.key, "values": object});
    if !cut.is_empty() {
        value["cut"] = json!(cut);
    }
    value
}

/// A page of rows and where the next one starts.
pub(crate) struct RowsPage {
    pub(crate) value: Json,
    /// The typed key of the last row shown, when more follow.
    pub(crate) last_key: Option<String>,
}

/// A page of at most `limit` of `rows` (which may hold one more, telling that more follow),
/// within the answer budget.
pub(crate) fn rows(table: &Table, rows: &[Row], limit: usize, config: &SqlConfig) -> RowsPage {
    let columns: Vec<&str> = table
        .columns
        .iter()
        .map(|column| column.name.as_str())
        .collect();
    let mut shown = Vec::new();
    let mut used = 256 + columns.iter().map(|name| name.len() + 3).sum::<usize>();
    let mut cut_by_budget = false;
    for each in rows.iter().take(limit) {
        let (values, cut) = values(table, each, config.max_value_bytes);
        // Built in place: `json!` would copy every value once more.
        let mut object = serde_json::Map::new();
        object.insert("key".to_owned(), Json::String(each.key.clone()));
        object.insert("values".to_owned(), Json::Array(values));
        if !cut.is_empty() {
            object.insert("cut".to_owned(), json!(cut));
        }
        let entry = Json::Object(object);
        let size = entry.to_string().len() + 1;
        if !shown.is_empty() && used + size > config.max_answer_bytes {
            cut_by_budget = true;
            break;
        }
        used += size;
        shown.push((each.cursor.clone(), entry));
    }
    let more = cut_by_budget || rows.len() > limit;
    let last_key = more
        .then(|| shown.last().map(|(key, _)| key.clone()))
        .flatten();
    let mut value = json!({
        "table": table.name,
        "columns": columns,
        "rows": shown.into_iter().map(|(_, entry)| entry).collect::<Vec<_>>(),
    });
    if cut_by_budget {
        value["cut"] = json!(true);
    }
    RowsPage { value, last_key }
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
            key: String::new(),
            cursor: String::new(),
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
            key: String::new(),
            cursor: String::new(),
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
