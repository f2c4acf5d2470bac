//! `resultType`: how a client should read a modern (2026-07-28) result.
//!
//! **Layer:** wire types, below the modern modules that carry it ([`crate::subscriptions`] and
//! [`crate::v2026_07_28`], which re-exports it as [`crate::v2026_07_28::ResultType`]). It must
//! never know which results carry it or what an interim result asks the client for.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a client should read a result. Open: extensions may add values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ResultType(Cow<'static, str>);

impl ResultType {
    /// A final result.
    pub const COMPLETE: ResultType = ResultType(Cow::Borrowed("complete"));
    /// An interim multi-round-trip result asking the client for input.
    pub const INPUT_REQUIRED: ResultType = ResultType(Cow::Borrowed("input_required"));

    /// Any result type string.
    pub fn new(text: impl Into<String>) -> Self {
        ResultType(Cow::Owned(text.into()))
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ResultType {
    fn default() -> Self {
        ResultType::COMPLETE
    }
}

impl fmt::Display for ResultType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
