//! Fuzz target `cursor`: pagination cursors under one fixed key.
//!
//! Checks that `CursorCodec::decode` never panics, whatever the text, and that:
//! - a cursor it takes has one spelling: encoding its position gives the same text back;
//! - any position round-trips (`decode(encode(p)) == p`), and changing one character of its
//!   cursor makes `decode` refuse it;
//! - bodies of any layout, signed here with the same key (HMAC-SHA256 cut to 16 bytes, the
//!   layout `pagination.rs` documents), reach the code past the MAC check without a panic.

#![no_main]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mcp_resources_core::pagination::{CursorCodec, CursorKey, Position};
use sha2::Sha256;

const KEY: [u8; 32] = [7; 32];

#[derive(Arbitrary, Debug)]
enum Input {
    /// Cursor text as a client may send it.
    Text(String),
    /// A body, signed here, then encoded.
    Signed(Vec<u8>),
    /// A position to round-trip, and where to change its cursor.
    Position {
        resources: bool,
        source: u32,
        after: String,
        change_at: usize,
        change_to: u8,
    },
}

fuzz_target!(|input: Input| {
    let codec = CursorCodec::new(&CursorKey::new(KEY));
    match input {
        Input::Text(text) => taken_once(&codec, &text),
        Input::Signed(body) => {
            let mut mac = Hmac::<Sha256>::new_from_slice(&KEY).expect("any key length");
            mac.update(&body);
            let mut bytes = body;
            bytes.extend_from_slice(&mac.finalize().into_bytes()[..16]);
            taken_once(&codec, &URL_SAFE_NO_PAD.encode(bytes));
        }
        Input::Position {
            resources,
            source,
            after,
            change_at,
            change_to,
        } => {
            let position = if resources {
                Position::Resources { source, after }
            } else {
                Position::Templates { after: source }
            };
            let cursor = codec.encode(&position);
            assert_eq!(codec.decode(&cursor), Ok(position.clone()), "{cursor}");
            let mut changed = cursor.clone().into_bytes();
            let at = change_at % changed.len();
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            changed[at] = alphabet[usize::from(change_to) % alphabet.len()];
            let changed = String::from_utf8(changed).expect("base64 is ascii");
            if changed != cursor {
                assert!(
                    codec.decode(&changed).is_err(),
                    "{changed} taken for {position:?} (made as {cursor})"
                );
            }
        }
    }
});

/// Decodes `text`; a position it gives encodes back to `text`.
fn taken_once(codec: &CursorCodec, text: &str) {
    if let Ok(position) = codec.decode(text) {
        assert_eq!(codec.encode(&position), text, "{position:?}");
    }
}
