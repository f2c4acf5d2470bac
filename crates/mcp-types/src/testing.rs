//! Test support (cargo feature `testing`): find the official spec folder and validate JSON
//! against one type of a version's `schema.json`.
//!
//! **Layer:** test tooling on top of the wire types, for this crate's tests and the adapters'.
//! It reads files but is never part of a server: it is compiled only with the `testing` feature.
//! The spec folder is `$MCP_SPEC_DIR` when set, else `shared/spec` beside the workspace. When it
//! is missing, [`spec_dir`] writes a loud warning to stderr and returns `None`, except under
//! `CI=true`, where it panics: a CI run must never skip the spec checks silently.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::version::ProtocolVersion;

/// The folder holding `<version>/schema.json` and `2026-07-28/examples/`, or `None` (after a
/// loud warning) when it is missing outside CI.
///
/// # Panics
///
/// When the folder is missing and the environment variable `CI` is `true`.
pub fn spec_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MCP_SPEC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec")),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let message = format!(
        "spec folder {} is missing: set MCP_SPEC_DIR to the folder holding <version>/schema.json",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|ci| ci == "true") {
        panic!("{message}");
    }
    // This is test tooling: the warning must reach the developer running `cargo test`, once per
    // test process rather than once per check.
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!! WARNING: {message}; spec checks SKIPPED !!!!!\n"
        );
    });
    None
}

type SchemaCache = Mutex<HashMap<String, Arc<Value>>>;
type ValidatorCache = Mutex<HashMap<(String, String), Arc<jsonschema::Validator>>>;

fn schemas() -> &'static SchemaCache {
    static CACHE: OnceLock<SchemaCache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn validators() -> &'static ValidatorCache {
    static CACHE: OnceLock<ValidatorCache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The parsed `schema.json` of a version, loaded once and cached.
pub fn schema(version: &ProtocolVersion) -> Result<Arc<Value>, String> {
    let mut cache = schemas()
        .lock()
        .map_err(|_| "schema cache poisoned".to_owned())?;
    if let Some(schema) = cache.get(version.as_str()) {
        return Ok(schema.clone());
    }
    let dir = spec_dir().ok_or_else(|| "spec folder missing".to_owned())?;
    let path = dir.join(version.as_str()).join("schema.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|error| format!("invalid json in {}: {error}", path.display()))?;
    let schema = Arc::new(schema);
    cache.insert(version.as_str().to_owned(), schema.clone());
    Ok(schema)
}

/// Whether `type_name` is defined in the version's schema.
pub fn has_type(version: &ProtocolVersion, type_name: &str) -> Result<bool, String> {
    let schema = schema(version)?;
    Ok(definitions(&schema).is_some_and(|(_, defs)| defs.contains_key(type_name)))
}

fn definitions(schema: &Value) -> Option<(&'static str, &serde_json::Map<String, Value>)> {
    ["definitions", "$defs"].into_iter().find_map(|key| {
        schema
            .get(key)
            .and_then(Value::as_object)
            .map(|defs| (key, defs))
    })
}

fn validator(
    version: &ProtocolVersion,
    type_name: &str,
) -> Result<Arc<jsonschema::Validator>, String> {
    let key = (version.as_str().to_owned(), type_name.to_owned());
    if let Some(validator) = validators()
        .lock()
        .map_err(|_| "validator cache poisoned".to_owned())?
        .get(&key)
    {
        return Ok(validator.clone());
    }
    let schema = schema(version)?;
    let (defs_key, defs) = definitions(&schema)
        .ok_or_else(|| format!("schema of {version} has no definitions or $defs"))?;
    if !defs.contains_key(type_name) {
        return Err(format!("schema of {version} has no type {type_name}"));
    }
    // Wrap the type as the root, with every definition embedded so that `$ref`s resolve.
    let mut root = serde_json::Map::new();
    if let Some(dialect) = schema.get("$schema") {
        root.insert("$schema".into(), dialect.clone());
    }
    root.insert(
        "$ref".into(),
        Value::from(format!("#/{defs_key}/{type_name}")),
    );
    root.insert(defs_key.into(), Value::Object(defs.clone()));
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&Value::Object(root))
        .map_err(|error| {
            format!("schema of {version} type {type_name} does not compile: {error}")
        })?;
    let validator = Arc::new(validator);
    validators()
        .lock()
        .map_err(|_| "validator cache poisoned".to_owned())?
        .insert(key, validator.clone());
    Ok(validator)
}

/// Validates `value` against `type_name` of the version's schema, listing every violation.
///
/// An unknown type name is an error, and so is a missing spec folder: call [`spec_dir`] first
/// and return early when it is `None`, so that a missing folder is reported, not failed.
pub fn validate(version: &ProtocolVersion, type_name: &str, value: &Value) -> Result<(), String> {
    let validator = validator(version, type_name)?;
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{version} {type_name}: {}\nvalue: {value}",
            errors.join("; ")
        ))
    }
}
