//! The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): its capability settings,
//! the params of `resources/directory/read`, `skills/list` and `skills/get`, and the skill
//! entries their results carry.
//!
//! **Layer:** wire types. The same shapes serve both eras: a server declares the extension in
//! `capabilities.extensions` of its legacy `initialize` result and of its 2026-07-28
//! `server/discover` result alike (SEP-2133 shows extensions declared in `initialize`; no legacy
//! schema closes `ServerCapabilities`). A directory read's result is the era's
//! `ListResourcesResult`, whose shape the extension reuses. This module must never decide what a
//! skill is or where its files come from.
//!
//! Specification: the Skills extension, "Capability Declaration", "Enumeration via
//! `skills/list`", "Retrieval via `skills/get`" and "Directory Listing"
//! (<https://github.com/modelcontextprotocol/ext-skills>).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::v2026_07_28::{CacheHints, CacheScope, ResultType};

/// The extension's identifier, its key in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The extension's settings, the value under [`EXTENSION`]: `{}`, or
/// `{"directoryRead": true}` for a server that answers `resources/directory/read`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillsSettings {
    /// The server answers `resources/directory/read`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directory_read: bool,
}

impl SkillsSettings {
    /// The entry of `capabilities.extensions` declaring the extension with these settings.
    pub fn declaration(self) -> Map<String, Value> {
        let mut extensions = Map::new();
        // Two booleans at most: serializing them cannot fail.
        let settings = serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()));
        extensions.insert(EXTENSION.to_owned(), settings);
        extensions
    }
}

/// Params of `resources/directory/read` (in 2026-07-28, `_meta` carries the required keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DirectoryReadParams {
    /// The directory resource (its MIME type is `inode/directory`; no trailing slash).
    pub uri: String,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `skills/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListSkillsParams {
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// What a 2026-07-28 result carries and a legacy one does not (`resultType`, `ttlMs`,
/// `cacheScope`): all absent in the legacy era, whose schemas do not know them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EraFields {
    /// Always `complete` (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Freshness in milliseconds (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl EraFields {
    /// None of them: a legacy result.
    pub fn legacy() -> EraFields {
        EraFields::default()
    }

    /// A complete 2026-07-28 result with these caching hints.
    pub fn modern(hints: CacheHints) -> EraFields {
        EraFields {
            result_type: Some(ResultType::COMPLETE),
            ttl_ms: Some(hints.ttl_ms),
            cache_scope: Some(hints.cache_scope),
        }
    }
}

/// Result of `skills/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The fields of the era.
    #[serde(flatten)]
    pub era: EraFields,
    /// This page of skills (an entry is never split across pages).
    pub skills: Vec<Skill>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetSkillResult {
    /// The fields of the era.
    #[serde(flatten)]
    pub era: EraFields,
    /// The skill.
    pub skill: Skill,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// One skill, as `skills/list` lists it and `skills/get` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Skill {
    /// The URI of its `SKILL.md`; the segment before `SKILL.md` is its name.
    pub uri: String,
    /// The whole YAML frontmatter of its `SKILL.md`, as JSON (`name` and `description` at
    /// least).
    pub frontmatter: Map<String, Value>,
    /// Its files, or the marker that they are generated.
    pub resources: SkillResources,
}

/// A skill's files: the complete manifest, or `"dynamic"` when stable digests cannot be given.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillResources {
    /// Every file of the skill exactly once, its `SKILL.md` included.
    Manifest(Vec<SkillResource>),
    /// The string `"dynamic"`: no manifest, no integrity.
    Dynamic,
}

/// The marker of [`SkillResources::Dynamic`].
const DYNAMIC: &str = "dynamic";

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Manifest(files) => files.serialize(serializer),
            SkillResources::Dynamic => serializer.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Manifest(Vec<SkillResource>),
            Marker(String),
        }
        match Either::deserialize(deserializer)? {
            Either::Manifest(files) => Ok(SkillResources::Manifest(files)),
            Either::Marker(marker) if marker == DYNAMIC => Ok(SkillResources::Dynamic),
            Either::Marker(other) => Err(serde::de::Error::custom(format!(
                "expected a file list or \"dynamic\", got {other:?}"
            ))),
        }
    }
}

impl JsonSchema for SkillResources {
    fn schema_name() -> Cow<'static, str> {
        "SkillResources".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let file = generator.subschema_for::<SkillResource>();
        json_schema!({
            "description": "Every file of the skill, or \"dynamic\" when they are generated.",
            "anyOf": [
                { "type": "array", "items": file },
                { "const": DYNAMIC }
            ]
        })
    }
}

/// One file of a skill's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillResource {
    /// Its URI, readable with `resources/read`.
    pub uri: String,
    /// `sha256:` and the 64 lowercase hex digits of the SHA-256 of its raw bytes.
    pub digest: String,
    /// The length of those bytes.
    pub size: u64,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn settings_declare_directory_read_only_when_offered() {
        assert_eq!(
            Value::Object(SkillsSettings::default().declaration()),
            json!({ "io.modelcontextprotocol/skills": {} })
        );
        let with_directories = SkillsSettings {
            directory_read: true,
        };
        assert_eq!(
            Value::Object(with_directories.declaration()),
            json!({ "io.modelcontextprotocol/skills": { "directoryRead": true } })
        );
    }

    #[test]
    fn a_manifest_is_a_list_or_the_dynamic_marker() {
        let manifest = SkillResources::Manifest(vec![SkillResource {
            uri: "skill://a/SKILL.md".into(),
            digest: format!("sha256:{}", "0".repeat(64)),
            size: 3,
        }]);
        for resources in [manifest, SkillResources::Dynamic] {
            let text = serde_json::to_string(&resources).unwrap();
            assert_eq!(
                serde_json::from_str::<SkillResources>(&text).unwrap(),
                resources
            );
        }
        assert_eq!(
            serde_json::to_value(SkillResources::Dynamic).unwrap(),
            json!("dynamic")
        );
        assert!(serde_json::from_str::<SkillResources>("\"static\"").is_err());
        assert!(serde_json::from_str::<SkillResources>("{}").is_err());
    }
}
