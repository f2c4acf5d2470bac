//! A [`Change`] as the feed's messages carry it: a small JSON object of the feed's own,
//! `{"updated": URI}` or `{"created": [URI…], "removed": [URI…]}`, a list change of many
//! resources split over several messages of at most [`MAX_URIS`] URIs (the hub takes them as
//! one: it coalesces); and the notice that a session's record changed, `{"session": KEY}`
//! ([`encode_session`]).
//!
//! **Layer:** the Redis feed's format. Anyone who can publish on the channel can send
//! anything, so [`decode`] trusts nothing: a message over [`MAX_MESSAGE_BYTES`] or
//! [`MAX_URIS`] URIs, of another shape, or with a URI that does not parse is no change at all,
//! and a list change read back is put in URI order without repeats. It never knows a protocol
//! frame: what a change becomes on the wire is the adapters' business.

use mcp_resources_core::change::Change;
use mcp_resources_core::uri::ResourceUri;
use serde_json::{Value, json};

/// The largest message read as a change.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// The most URIs one list-change message names.
pub const MAX_URIS: usize = 256;

/// `change` as one message, or several for a list change naming more than [`MAX_URIS`]
/// resources.
pub fn encode(change: &Change) -> Vec<Vec<u8>> {
    match change {
        Change::Updated(uri) => vec![json!({ "updated": uri.as_str() }).to_string().into_bytes()],
        Change::ListChanged { created, removed } => {
            let named: Vec<(bool, &ResourceUri)> = created
                .iter()
                .map(|uri| (true, uri))
                .chain(removed.iter().map(|uri| (false, uri)))
                .collect();
            let chunks: Vec<&[(bool, &ResourceUri)]> = if named.is_empty() {
                vec![&[]]
            } else {
                named.chunks(MAX_URIS).collect()
            };
            chunks.into_iter().map(list_message).collect()
        }
    }
}

/// One list-change message naming `chunk`'s URIs (`true`: created).
fn list_message(chunk: &[(bool, &ResourceUri)]) -> Vec<u8> {
    let of = |created: bool| -> Vec<&str> {
        chunk
            .iter()
            .filter(|(is_created, _)| *is_created == created)
            .map(|(_, uri)| uri.as_str())
            .collect()
    };
    json!({ "created": of(true), "removed": of(false) })
        .to_string()
        .into_bytes()
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
    let listed = |key: &str| object.get(key).and_then(Value::as_array);
    let (created, removed) = (listed("created")?, listed("removed")?);
    if object.len() != 2 || created.len() + removed.len() > MAX_URIS {
        return None;
    }
    Some(Change::ListChanged {
        created: uris(created)?,
        removed: uris(removed)?,
    })
}

/// The longest key of a session's record a notice names.
pub const MAX_KEY_BYTES: usize = 128;

/// Whether `key` may name a session's record: 1 to [`MAX_KEY_BYTES`] ASCII letters, digits,
/// `-` and `_` (it becomes part of a Redis key, and is logged).
pub fn is_session_key(key: &str) -> bool {
    (1..=MAX_KEY_BYTES).contains(&key.len())
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

/// The notice that the record under `key` changed.
pub fn encode_session(key: &str) -> Vec<u8> {
    json!({ "session": key }).to_string().into_bytes()
}

/// The key a session notice names; `None` for anything else (a change included).
pub fn decode_session(message: &[u8]) -> Option<String> {
    if message.len() > MAX_MESSAGE_BYTES {
        return None;
    }
    let value: Value = serde_json::from_slice(message).ok()?;
    let object = value.as_object()?;
    let key = object.get("session")?.as_str()?;
    (object.len() == 1 && is_session_key(key)).then(|| key.to_owned())
}

/// The URIs of a list, in URI order without repeats; `None` if one is not a URI.
fn uris(list: &[Value]) -> Option<Vec<ResourceUri>> {
    let mut uris: Vec<ResourceUri> = list
        .iter()
        .map(|uri| ResourceUri::parse(uri.as_str()?).ok())
        .collect::<Option<_>>()?;
    uris.sort_unstable_by(|one, other| one.as_str().cmp(other.as_str()));
    uris.dedup_by(|one, other| one.as_str() == other.as_str());
    Some(uris)
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
            let messages = encode(&change);
            assert_eq!(messages.len(), 1);
            assert_eq!(decode(&messages[0]), Some(change));
        }
    }

    #[test]
    fn a_large_list_change_goes_in_parts_and_comes_back_whole() {
        let created: Vec<ResourceUri> = (0..MAX_URIS + 10)
            .map(|n| uri(&format!("file:///srv/{n:05}.txt")))
            .collect();
        let removed = vec![uri("file:///srv/gone.txt")];
        let messages = encode(&Change::ListChanged {
            created: created.clone(),
            removed: removed.clone(),
        });
        assert_eq!(messages.len(), 2);
        let (mut back_created, mut back_removed) = (Vec::new(), Vec::new());
        for message in &messages {
            assert!(message.len() <= MAX_MESSAGE_BYTES);
            let Some(Change::ListChanged { created, removed }) = decode(message) else {
                panic!("a list change");
            };
            back_created.extend(created);
            back_removed.extend(removed);
        }
        assert_eq!((back_created, back_removed), (created, removed));
    }

    #[test]
    fn a_list_change_read_back_is_in_order_without_repeats() {
        let message = br#"{"created": ["file:///b", "file:///a", "file:///b"], "removed": []}"#;
        assert_eq!(
            decode(message),
            Some(Change::ListChanged {
                created: vec![uri("file:///a"), uri("file:///b")],
                removed: vec![],
            })
        );
    }

    #[test]
    fn session_notices_name_a_key_and_nothing_else() {
        assert_eq!(
            decode_session(&encode_session("ab12_-")),
            Some("ab12_-".to_owned())
        );
        assert_eq!(
            decode(&encode_session("ab12")),
            None,
            "a notice is no change"
        );
        for message in [
            &br#"{"session": ""}"#[..],
            br#"{"session": "a b"}"#,
            br#"{"session": "a:b"}"#,
            br#"{"session": 7}"#,
            br#"{"session": "a", "extra": 1}"#,
            br#"{"updated": "file:///a"}"#,
        ] {
            assert_eq!(
                decode_session(message),
                None,
                "{}",
                String::from_utf8_lossy(message)
            );
        }
        let long = format!(r#"{{"session": "{}"}}"#, "a".repeat(MAX_KEY_BYTES + 1));
        assert_eq!(decode_session(long.as_bytes()), None);
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
        let many: Vec<String> = (0..=MAX_URIS).map(|n| format!("\"file:///{n}\"")).collect();
        let too_many = format!(r#"{{"created": [{}], "removed": []}}"#, many.join(","));
        assert_eq!(decode(too_many.as_bytes()), None);
    }
}
