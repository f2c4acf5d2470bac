//! [`echo`]: the one way an error quotes what a client sent, bounded to [`ECHO_LIMIT`] bytes.
//!
//! **Layer:** wire types, the bottom of the crate: the JSON-RPC envelope, the MCP errors and the
//! `_meta` parser all quote client values through it, and it uses none of them. Its items are
//! public as [`crate::error::echo`] and [`crate::error::ECHO_LIMIT`]. It must never know which
//! error quotes the value or what the value means.

use std::borrow::Cow;

/// The most bytes of one value from the client that an error quotes: 1 KiB, so that the URIs
/// people and tools write come back whole (clients match `data.uri` against what they asked
/// for), while an error never grows with what a peer sends.
pub const ECHO_LIMIT: usize = 1024;

/// `value`, sent by a client, as an error message or `data` may quote it: whole when it is at
/// most [`ECHO_LIMIT`] bytes; else its start, cut on a character boundary, then `…` and how long
/// it was, for example `test://aaaa… (cut from 1048576 bytes)`, all of it within
/// [`ECHO_LIMIT`] bytes. So an echo of an echo is the echo itself.
///
/// ```
/// use mcp_types::error::{ECHO_LIMIT, echo};
///
/// assert_eq!(echo("file:///notes.txt"), "file:///notes.txt");
/// let long = "x".repeat(1 << 20);
/// let echoed = echo(&long);
/// assert!(echoed.len() <= ECHO_LIMIT);
/// assert!(echoed.ends_with("… (cut from 1048576 bytes)"));
/// assert_eq!(echo(&echoed), echoed);
/// ```
pub fn echo(value: &str) -> Cow<'_, str> {
    if value.len() <= ECHO_LIMIT {
        return Cow::Borrowed(value);
    }
    let marker = format!("… (cut from {} bytes)", value.len());
    let mut end = ECHO_LIMIT - marker.len();
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}{marker}", &value[..end]))
}

#[cfg(test)]
mod tests {
    use super::{ECHO_LIMIT, echo};

    /// The echo of `value`: whole, or cut to `kept` bytes of it and marked.
    fn check(value: &str, kept: Option<usize>) {
        let echoed = echo(value);
        assert!(echoed.len() <= ECHO_LIMIT, "{} bytes", echoed.len());
        assert_eq!(echo(&echoed), echoed, "an echo is echoed unchanged");
        match kept {
            None => assert_eq!(echoed, value),
            Some(kept) => {
                assert_eq!(&echoed[..kept], &value[..kept]);
                assert_eq!(
                    &echoed[kept..],
                    format!("… (cut from {} bytes)", value.len())
                );
            }
        }
    }

    #[test]
    fn echoes_are_bounded_on_a_character_boundary() {
        check("", None);
        check("test://static-text", None);
        check(&"a".repeat(ECHO_LIMIT), None);
        let marker = "… (cut from 1025 bytes)".len();
        check(&"a".repeat(ECHO_LIMIT + 1), Some(ECHO_LIMIT - marker));
        // Three-byte characters: the cut falls before the one the limit would split.
        let wide = "€".repeat(400);
        let room = ECHO_LIMIT - "… (cut from 1200 bytes)".len();
        check(&wide, Some(room - room % 3));
        check(
            &"x".repeat(1 << 20),
            Some(ECHO_LIMIT - "… (cut from 1048576 bytes)".len()),
        );
    }
}
