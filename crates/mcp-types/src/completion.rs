//! `completion/complete`: the reference being completed, the argument, the optional context, and
//! the legacy result.
//!
//! **Layer:** wire types. The request params are read the same way in every legacy version
//! (`context` simply is absent before 2025-06-18); the modern params and result, with required
//! `_meta` and `resultType`, live in [`crate::v2026_07_28`]. This module must never know where
//! completion values come from.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::Meta;

/// The most values one completion result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// `{"type": "ref/resource", "uri": ...}`: complete a variable of a resource template
/// (`ResourceReference` before 2025-06-18, `ResourceTemplateReference` after; same wire shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceTemplateReference {
    /// The URI or URI template.
    pub uri: String,
}

/// `{"type": "ref/prompt", "name": ...}`: complete a prompt argument (a resources server answers
/// these with an empty completion or an error, but must be able to read them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromptReference {
    /// The prompt name.
    pub name: String,
    /// Display name (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// A resource template variable.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
    /// A prompt argument.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CompletionArgument {
    /// The variable or argument name.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
}

/// Variables already resolved (2025-06-18 on).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CompletionContext {
    /// Resolved variables by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Params of legacy `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompleteParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Resolved variables (2025-06-18 on; always absent before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The `completion` object of a result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values.
    pub values: Vec<String>,
    /// How many values exist in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// A completion from all matching values: keeps the first [`MAX_COMPLETION_VALUES`], sets
    /// `total` to the full count and `hasMore` when values were cut.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        let has_more = total > MAX_COMPLETION_VALUES;
        values.truncate(MAX_COMPLETION_VALUES);
        Completion {
            values,
            total: Some(total as u64),
            has_more: Some(has_more),
        }
    }
}

/// Result of legacy `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompleteResult {
    /// The values.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
