//! Protocol versions: the open [`ProtocolVersion`] type, the five versions this crate knows,
//! their era, and the per-version facts an adapter needs to shape its output.
//!
//! **Layer:** wire types. A version is a date string on the wire. An unknown version still
//! parses (a client may send one, and the server must name it in its error); it simply has no
//! era and no features. This module must never know sessions, transports or the engine.

use std::borrow::Cow;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The two protocol eras a server can speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: an `initialize` handshake opens a session.
    Legacy,
    /// 2026-07-28 on: stateless, every request carries its version in `_meta`.
    Modern,
}

/// An MCP protocol version string such as `"2025-06-18"`.
///
/// Open: any string parses, so an unknown version can be reported back to the client. Versions
/// order by their text, which for the `YYYY-MM-DD` form is the order of their dates.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct ProtocolVersion(Cow<'static, str>);

impl ProtocolVersion {
    /// 2024-11-05, the first version (legacy era).
    pub const V2024_11_05: ProtocolVersion = ProtocolVersion(Cow::Borrowed("2024-11-05"));
    /// 2025-03-26 (legacy era): Streamable HTTP, JSON-RPC batches, `completions` capability.
    pub const V2025_03_26: ProtocolVersion = ProtocolVersion(Cow::Borrowed("2025-03-26"));
    /// 2025-06-18 (legacy era): `title`, `_meta`, `lastModified`, resource links, no batches.
    pub const V2025_06_18: ProtocolVersion = ProtocolVersion(Cow::Borrowed("2025-06-18"));
    /// 2025-11-25, the latest legacy version: `icons`.
    pub const V2025_11_25: ProtocolVersion = ProtocolVersion(Cow::Borrowed("2025-11-25"));
    /// 2026-07-28, the first modern version: stateless, `resultType`, `ttlMs`, `cacheScope`.
    pub const V2026_07_28: ProtocolVersion = ProtocolVersion(Cow::Borrowed("2026-07-28"));

    /// Every version this crate has types for, oldest first.
    pub const KNOWN: [ProtocolVersion; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];
    /// The newest legacy-era version.
    pub const LATEST_LEGACY: ProtocolVersion = Self::V2025_11_25;
    /// The newest version of all.
    pub const LATEST: ProtocolVersion = Self::V2026_07_28;

    /// A version from any string; unknown strings are kept as they are.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        // Newest first: the version nearly every request names is found at once.
        match Self::KNOWN
            .iter()
            .rev()
            .find(|known| known.as_str() == text)
        {
            Some(known) => known.clone(),
            None => ProtocolVersion(Cow::Owned(text)),
        }
    }

    /// The version string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is one of the five known versions.
    pub fn is_known(&self) -> bool {
        Self::KNOWN.contains(self)
    }

    /// The era of a known version; `None` for an unknown one.
    pub fn era(&self) -> Option<Era> {
        if !self.is_known() {
            None
        } else if *self >= Self::V2026_07_28 {
            Some(Era::Modern)
        } else {
            Some(Era::Legacy)
        }
    }

    fn known_since(&self, first: &ProtocolVersion) -> bool {
        self.is_known() && self >= first
    }

    /// `title` on resources, templates and `Implementation` (2025-06-18 on).
    pub fn has_titles(&self) -> bool {
        self.known_since(&Self::V2025_06_18)
    }

    /// `icons` on resources, templates and `Implementation` (2025-11-25 on).
    pub fn has_icons(&self) -> bool {
        self.known_since(&Self::V2025_11_25)
    }

    /// `_meta` on data types such as `Resource` and resource contents (2025-06-18 on).
    pub fn has_meta(&self) -> bool {
        self.known_since(&Self::V2025_06_18)
    }

    /// `annotations.lastModified` (2025-06-18 on).
    pub fn has_last_modified(&self) -> bool {
        self.known_since(&Self::V2025_06_18)
    }

    /// The `resource_link` content block (2025-06-18 on).
    pub fn has_resource_links(&self) -> bool {
        self.known_since(&Self::V2025_06_18)
    }

    /// JSON-RPC batches are legal (2025-03-26 only).
    pub fn allows_batches(&self) -> bool {
        *self == Self::V2025_03_26
    }

    /// The `completions` server capability exists (2025-03-26 on).
    pub fn has_completions_capability(&self) -> bool {
        self.known_since(&Self::V2025_03_26)
    }

    /// `context.arguments` in `completion/complete` params (2025-06-18 on).
    pub fn has_completion_context(&self) -> bool {
        self.known_since(&Self::V2025_06_18)
    }

    /// `message` in progress notifications (2025-03-26 on).
    pub fn has_progress_message(&self) -> bool {
        self.known_since(&Self::V2025_03_26)
    }

    /// Every result carries `resultType`, and cacheable results `ttlMs` and `cacheScope`
    /// (modern era).
    pub fn has_result_type(&self) -> bool {
        self.era() == Some(Era::Modern)
    }

    /// `initialize`, `ping`, `logging/setLevel` and `resources/subscribe` exist (legacy era).
    pub fn has_session_methods(&self) -> bool {
        self.era() == Some(Era::Legacy)
    }

    /// `server/discover` and `subscriptions/listen` exist (modern era).
    pub fn has_discover_and_listen(&self) -> bool {
        self.era() == Some(Era::Modern)
    }

    /// `extensions` in the schema's capability objects (modern era; a server declares its
    /// extensions in every era all the same, see [`crate::capabilities::ServerCapabilities`]).
    pub fn has_extensions_capability(&self) -> bool {
        self.era() == Some(Era::Modern)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ProtocolVersion {
    fn from(text: &str) -> Self {
        // A known version is a constant: no copy of the text.
        // Newest first: the version nearly every request names is found at once.
        match Self::KNOWN
            .iter()
            .rev()
            .find(|known| known.as_str() == text)
        {
            Some(known) => known.clone(),
            None => ProtocolVersion::new(text),
        }
    }
}

impl From<String> for ProtocolVersion {
    fn from(text: String) -> Self {
        ProtocolVersion::new(text)
    }
}
