//! Server-side pagination: page sizes, pages and opaque, tamper-evident cursors.
//!
//! **Layer:** core. This module never knows a wire name (`nextCursor` is the adapters'
//! business), a clock or a random source: the MAC key is passed in by the caller.
//!
//! A cursor encodes a [`Position`]: which list (resources, a directory's children, skills or templates), which source of the
//! list, and the last key returned. The engine resumes *strictly after* that key, so resources
//! added or removed between two pages are neither repeated nor skipped (apart from the added or
//! removed ones themselves). The position is authenticated with HMAC-SHA256 (truncated to 128
//! bits) under a [`CursorKey`], then base64url-encoded without padding; any change to a cursor
//! is detected and reported as a [`CursorError`], which the adapters map to invalid params
//! (`-32602`). A cursor holds no secret: its content is authenticated, not hidden.
//!
//! Layout before base64: `version (1) | list (1) | source (4, big-endian) | key | tag (16)`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::cache::CacheHint;

const VERSION: u8 = 1;
const TAG_LEN: usize = 16;
const HEADER_LEN: usize = 6;
/// Cursors longer than this (in base64 characters) are rejected before decoding.
const MAX_CURSOR_LEN: usize = 24 * 1024;

/// One page of a list.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    /// The items of the page, at most the page size, all visible to the principal.
    pub items: Vec<T>,
    /// The cursor of the next page; `None` on the last page (an empty list is one empty page).
    pub next_cursor: Option<String>,
    /// The caching hint; the same on every page of one list.
    pub cache: CacheHint,
}

/// The secret key of cursor MACs. Keep it for as long as cursors should stay valid (a server
/// restart with a new key invalidates all outstanding cursors, which clients must tolerate).
#[derive(Clone)]
pub struct CursorKey([u8; 32]);

impl CursorKey {
    /// A key from 32 secret bytes (for example from the operating system's random source).
    pub fn new(bytes: [u8; 32]) -> CursorKey {
        CursorKey(bytes)
    }

    /// A key for another purpose (`purpose` names it), derived from this one: an HMAC of the
    /// purpose by this key, so that instances sharing this key share the derived one, and
    /// neither key tells anything of the other.
    pub fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(b"mcp-resources derived key\0");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// A name of this key that tells nothing of it: instances compare fingerprints to learn
    /// whether they share a key. 32 hexadecimal digits of the SHA-256 of a MAC, by the key, of
    /// a fixed text: hashed again, it is no cursor tag of any text (a cursor's tag is such a
    /// MAC, cut short), so whoever reads a fingerprint cannot forge a cursor with it.
    pub fn fingerprint(&self) -> String {
        use sha2::Digest as _;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(b"mcp-resources cursor key fingerprint");
        let digest = Sha256::digest(mac.finalize().into_bytes());
        digest[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

impl fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

/// Where a list resumes: strictly after the last item returned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// In the resource list: after the resource with canonical URI `after` in source `source`
    /// (source 0 holds the static resources, source `i + 1` the `i`-th provider).
    Resources {
        /// The source the last item came from.
        source: u32,
        /// The canonical URI of the last item returned.
        after: String,
    },
    /// In a directory's children: after the child with canonical URI `after`, which names the
    /// directory too (the child's URI is the directory's, a slash, and its name), of the
    /// directory served by source `source` (provider `source - 1`, as in the resource list).
    Directory {
        /// The source serving the directory.
        source: u32,
        /// The canonical URI of the last child returned.
        after: String,
    },
    /// In the skill list: after the skill whose `SKILL.md` has canonical URI `after`, of
    /// source `source` (provider `source - 1`).
    Skills {
        /// The source the last skill came from.
        source: u32,
        /// The canonical URI of the last skill's `SKILL.md`.
        after: String,
    },
    /// In the template list: after the template at index `after`.
    Templates {
        /// The index of the last template returned.
        after: u32,
    },
}

impl Position {
    /// The list a position belongs to, as errors name it.
    pub fn list_name(&self) -> &'static str {
        match self {
            Position::Resources { .. } => "resources",
            Position::Directory { .. } => "directory",
            Position::Skills { .. } => "skills",
            Position::Templates { .. } => "templates",
        }
    }
}

/// An invalid cursor: not one this server made with its current key, or changed since.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not base64url, too short, too long or of an unknown layout.
    #[error("invalid cursor: {reason}")]
    Malformed {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Well formed, but its MAC does not verify: changed, or made under another key.
    #[error("invalid cursor: it was not issued by this server or has been modified")]
    Tampered,
    /// A valid cursor of another list (for example a template cursor given to the resource list).
    #[error("invalid cursor: it belongs to the {found} list, not the {expected} list")]
    WrongList {
        /// The list it was given to.
        expected: &'static str,
        /// The list it belongs to.
        found: &'static str,
    },
}

/// Encodes and verifies cursors under one key. Cheap to clone.
#[derive(Clone)]
pub struct CursorCodec {
    mac: Hmac<Sha256>,
}

impl fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorCodec(..)")
    }
}

impl CursorCodec {
    /// A codec that signs and verifies with `key`.
    pub fn new(key: &CursorKey) -> CursorCodec {
        let mac = Hmac::<Sha256>::new_from_slice(&key.0)
            .expect("invariant: HMAC accepts keys of any length");
        CursorCodec { mac }
    }

    /// The opaque cursor of `position`.
    pub fn encode(&self, position: &Position) -> String {
        let (list, source, key): (u8, u32, &[u8]) = match position {
            Position::Resources { source, after } => (0, *source, after.as_bytes()),
            Position::Templates { after } => (1, *after, &[]),
            Position::Directory { source, after } => (2, *source, after.as_bytes()),
            Position::Skills { source, after } => (3, *source, after.as_bytes()),
        };
        let mut bytes = Vec::with_capacity(HEADER_LEN + key.len() + TAG_LEN);
        bytes.push(VERSION);
        bytes.push(list);
        bytes.extend_from_slice(&source.to_be_bytes());
        bytes.extend_from_slice(key);
        let mut mac = self.mac.clone();
        mac.update(&bytes);
        bytes.extend_from_slice(&mac.finalize().into_bytes()[..TAG_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The position of `cursor`, if this codec made it and it is unchanged.
    pub fn decode(&self, cursor: &str) -> Result<Position, CursorError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(CursorError::Malformed { reason: "too long" });
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| CursorError::Malformed {
                reason: "not base64url",
            })?;
        if bytes.len() < HEADER_LEN + TAG_LEN {
            return Err(CursorError::Malformed {
                reason: "too short",
            });
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let mut mac = self.mac.clone();
        mac.update(body);
        mac.verify_truncated_left(tag)
            .map_err(|_| CursorError::Tampered)?;
        if body[0] != VERSION {
            return Err(CursorError::Malformed {
                reason: "unknown version",
            });
        }
        let source = u32::from_be_bytes([body[2], body[3], body[4], body[5]]);
        let key = &body[HEADER_LEN..];
        let after = || {
            std::str::from_utf8(key)
                .map(str::to_owned)
                .map_err(|_| CursorError::Malformed {
                    reason: "key is not utf-8",
                })
        };
        match body[1] {
            0 => Ok(Position::Resources {
                source,
                after: after()?,
            }),
            1 if key.is_empty() => Ok(Position::Templates { after: source }),
            2 => Ok(Position::Directory {
                source,
                after: after()?,
            }),
            3 => Ok(Position::Skills {
                source,
                after: after()?,
            }),
            _ => Err(CursorError::Malformed {
                reason: "unknown list",
            }),
        }
    }
}
