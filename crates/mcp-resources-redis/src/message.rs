//! A [`Change`] as the feed's messages carry it: a small JSON object of the feed's own,
//! `{"updated": URI}` or `{"created": [URI…], "removed": [URI…]}`.
//!
//! **Layer:** the Redis feed's format. Anyone who can publish on the channel can send
//! anything, so [`decode`] trusts nothing: a message over [`MAX_MESSAGE_BYTES`], of another
//! shape, or with a URI that does not parse is no change at all. It never knows a protocol
//! frame: what a change becomes on the wire is the adapters' business.

use mcp_resources_core::change::Change;
use mcp_resources_core::uri::ResourceUri;
use serde_json::{Value, json};

/// The largest message read as a change (a list change naming many resources is the large
/// case).
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// `change` as a message.
pub fn encode(change: &Change) -> Vec<u8> {
    let value = match change {
        Change::Updated(uri) => json!({ "updated": uri.as_str() }),
        Change::ListChanged { created, removed } => json!({
            "created": created.iter().map(ResourceUri::as_str).collect::<Vec<_>>(),
            "removed": removed.iter().map(ResourceUri::as_str).collect::<Vec<_>>(),
        }),
    };
    value.to_string().into_bytes()
}

/// The change a message holds; `None` for anything else.
pub fn decode(message: &[u8]) -> Option<Change> {
    if message.len() > MAX_MESSAGE_BYTES {
        return None;
    }
    let value: Value = serde_json::from_slice(message).ok()?;
    let object = value.as_object()?;
    if let Some(updated) = object.get("updated") {
        return (object.len() == 1)
            .then(|| updated.as_str())
            .flatten()
            .and_then(|uri| ResourceUri::parse(uri).ok())
            .map(Change::Updated);
    }
    let uris = |key: &str| -> Option<Vec<ResourceUri>> {
        object
            .get(key)?
            .as_array()?
            .iter()
            .map(|uri| ResourceUri::parse(uri.as_str()?).ok())
            .collect()
    };
    if object.len() != 2 {
        return None;
    }
    Some(Change::ListChanged {
        created: uris("created")?,
        removed: uris("removed")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(text: &str) -> ResourceUri {
        ResourceUri::parse(text).unwrap()
    }

    #[test]
    fn changes_come_back_as_they_went() {
        for change in [
            Change::Updated(uri("file:///srv/a%20b.txt")),
            Change::ListChanged {
                created: vec![uri("file:///srv/new.txt"), uri("git://repo/HEAD/x")],
                removed: vec![],
            },
            Change::ListChanged {
                created: vec![],
                removed: vec![uri("db://main/t/1")],
            },
        ] {
            assert_eq!(decode(&encode(&change)), Some(change));
        }
    }

    #[test]
    fn anything_else_is_no_change() {
        for message in [
            &b"not json"[..],
            b"[]",
            b"{}",
            br#"{"updated": 7}"#,
            br#"{"updated": "not a uri"}"#,
            br#"{"updated": "file:///a", "extra": 1}"#,
            br#"{"created": ["file:///a"]}"#,
            br#"{"created": ["file:///a"], "removed": ["::"]}"#,
            br#"{"created": "file:///a", "removed": []}"#,
        ] {
            assert_eq!(
                decode(message),
                None,
                "{}",
                String::from_utf8_lossy(message)
            );
        }
        let huge = format!(
            r#"{{"updated": "file:///{}"}}"#,
            "a".repeat(MAX_MESSAGE_BYTES)
        );
        assert_eq!(decode(huge.as_bytes()), None);
    }
}
