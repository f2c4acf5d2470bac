//! Validation of every server message against the JSON schema of the version it was produced
//! for: the JSON-RPC envelope, the concrete result or notification type, and (stricter than the
//! open legacy schemas) no property that the version's type does not define.

use std::collections::HashMap;

use mcp_types::ProtocolVersion;
use mcp_types::testing;
use serde_json::Value;

/// What the validator needs to know about the requests of a transcript: the method of each id
/// (by the id's JSON text).
pub(crate) type Methods = HashMap<String, String>;

/// Whether the spec folder is there (after the loud warning `spec_dir` prints when it is not;
/// under `CI=true` a missing folder panics there).
pub(crate) fn available() -> bool {
    testing::spec_dir().is_some()
}

fn result_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "resources/subscribe" | "resources/unsubscribe" | "logging/setLevel" => {
            "EmptyResult"
        }
        // The Skills extension: a directory read answers as the list does; its own results are
        // in no legacy schema, so they are checked as (open) results.
        "resources/list" | "resources/directory/read" => "ListResourcesResult",
        "skills/list" | "skills/get" => OPEN_RESULT,
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => return None,
    })
}

/// The schema's base result: open to any member, so never checked strictly.
const OPEN_RESULT: &str = "Result";

/// Members the strict check allows beyond a version's schema: `capabilities.extensions` of the
/// `initialize` result, where SEP-2133 (Extensions) declares extensions in every era (no legacy
/// schema closes `ServerCapabilities`).
const BEYOND_SCHEMA: &[&str] = &["/capabilities/extensions"];

fn notification_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/progress" => "ProgressNotification",
        _ => return None,
    })
}

/// The first of `names` that the version's schema defines.
fn defined(version: &ProtocolVersion, names: &[&'static str]) -> Result<&'static str, String> {
    for name in names {
        if testing::has_type(version, name)? {
            return Ok(name);
        }
    }
    Err(format!("schema of {version} defines none of {names:?}"))
}

/// Validates one server message (object or batch array); returns how many validations ran.
pub(crate) fn validate(
    version: &ProtocolVersion,
    message: &Value,
    methods: &Methods,
) -> Result<usize, String> {
    if let Value::Array(elements) = message {
        let batch = defined(version, &["JSONRPCBatchResponse"])?;
        // Errors without an id have no valid shape in 2025-03-26's schema; the array is checked
        // without them, and they are checked on their own like any id-less error.
        let with_ids: Vec<Value> = elements
            .iter()
            .filter(|element| element.get("id").is_some())
            .cloned()
            .collect();
        testing::validate(version, batch, &Value::Array(with_ids))?;
        let mut count = 1;
        for element in elements {
            count += validate(version, element, methods)?;
        }
        return Ok(count);
    }
    let mut count = 0;
    let mut check = |type_name: &str, value: &Value| -> Result<(), String> {
        testing::validate(version, type_name, value)?;
        // The concrete notification types of the older schemas do not list `jsonrpc` (their
        // envelope does); it is not an unknown property.
        let mut without_envelope = value.clone();
        if let Some(object) = without_envelope.as_object_mut() {
            if object.contains_key("method") {
                object.remove("jsonrpc");
            }
        }
        strict(version, type_name, &without_envelope)?;
        count += 1;
        Ok(())
    };
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        check("JSONRPCNotification", message)?;
        let concrete = notification_type(method)
            .ok_or_else(|| format!("the server sent an unexpected notification {method}"))?;
        check(concrete, message)?;
    } else if let Some(result) = message.get("result") {
        check(
            defined(version, &["JSONRPCResultResponse", "JSONRPCResponse"])?,
            message,
        )?;
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        let method = methods
            .get(&id)
            .ok_or_else(|| format!("no request with id {id}"))?;
        let concrete = result_type(method).ok_or_else(|| format!("no result type for {method}"))?;
        check(concrete, result)?;
    } else if message.get("error").is_some() {
        if message.get("id").is_some() {
            check(
                defined(version, &["JSONRPCErrorResponse", "JSONRPCError"])?,
                message,
            )?;
        } else {
            // Only 2025-11-25 has a valid shape for an error without an id (the older schemas
            // require an id that cannot be null); such an error is checked against it.
            check_newest_id_less_error(message)?;
            count += 1;
        }
    } else {
        return Err(format!("not a server message: {message}"));
    }
    Ok(count)
}

fn check_newest_id_less_error(message: &Value) -> Result<(), String> {
    testing::validate(
        &ProtocolVersion::V2025_11_25,
        "JSONRPCErrorResponse",
        message,
    )
}

/// No property outside what the schema's type defines, wherever the type lists its properties
/// and does not allow others.
fn strict(version: &ProtocolVersion, type_name: &str, value: &Value) -> Result<(), String> {
    let schema = testing::schema(version)?;
    let definitions = schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .ok_or("schema without definitions")?;
    if type_name == OPEN_RESULT {
        return Ok(());
    }
    let root = definitions.get(type_name).ok_or("unknown type")?;
    let mut unknown = Vec::new();
    unknown_properties(definitions, root, value, "", &mut unknown);
    unknown.retain(|path| !BEYOND_SCHEMA.iter().any(|allowed| path.ends_with(allowed)));
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{version} {type_name}: properties the version does not define: {unknown:?}"
        ))
    }
}

fn resolve<'a>(definitions: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or_default();
            definitions
                .get(name)
                .map_or(schema, |target| resolve(definitions, target))
        }
        None => schema,
    }
}

fn unknown_properties(
    definitions: &Value,
    schema: &Value,
    value: &Value,
    path: &str,
    unknown: &mut Vec<String>,
) {
    let schema = resolve(definitions, schema);
    if let Some(alternatives) = schema.get("anyOf").and_then(Value::as_array) {
        // The value must fit at least one alternative without unknown properties.
        let mut best: Option<Vec<String>> = None;
        for alternative in alternatives {
            let mut found = Vec::new();
            unknown_properties(definitions, alternative, value, path, &mut found);
            if best.as_ref().is_none_or(|best| found.len() < best.len()) {
                best = Some(found);
            }
        }
        unknown.extend(best.unwrap_or_default());
        return;
    }
    match value {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let closed = schema.get("additionalProperties").is_none() && !properties.is_empty();
            for (key, item) in object {
                match properties.get(key) {
                    Some(property) => {
                        unknown_properties(
                            definitions,
                            property,
                            item,
                            &format!("{path}/{key}"),
                            unknown,
                        );
                    }
                    None if closed => unknown.push(format!("{path}/{key}")),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    unknown_properties(
                        definitions,
                        item_schema,
                        item,
                        &format!("{path}/{index}"),
                        unknown,
                    );
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_a_version_does_not_know_are_violations() {
        if !available() {
            return;
        }
        let with_title = json!({"resources": [{"uri": "mem:///a", "name": "a", "title": "A"}]});
        let v2024 = ProtocolVersion::V2024_11_05;
        assert!(
            testing::validate(&v2024, "ListResourcesResult", &with_title).is_ok(),
            "the schema is open"
        );
        let error = strict(&v2024, "ListResourcesResult", &with_title).unwrap_err();
        assert!(error.contains("/resources/0/title"), "{error}");
        assert!(
            strict(
                &ProtocolVersion::V2025_06_18,
                "ListResourcesResult",
                &with_title
            )
            .is_ok()
        );
        let with_icons = json!({"contents": [{"uri": "mem:///a", "blob": "AA==", "_meta": {}}]});
        assert!(
            strict(&v2024, "ReadResourceResult", &with_icons)
                .unwrap_err()
                .contains("_meta")
        );
    }
}
