//! Writing JSON by hand where serde would be slow: a string literal escaped with SIMD.
//!
//! **Layer:** wire types. Byte for byte what `serde_json` writes for the same string (tests
//! compare both), for the large strings a server sends again and again (the text of a
//! resource). This module must never know what the strings mean.

/// The longest piece of a string escaped in one call. The escaper stores whole vector registers
/// ahead of what it has written, so it asks for six times the input's length of spare capacity
/// (every byte could become a six-byte `\u00XX`): escaping a text in pieces keeps that spare
/// room at about 3 KB, instead of six times the text (a response buffer lives until it is
/// written). Pieces of 512 bytes cost about 30 ns more per KiB than one call for the whole text.
const PIECE: usize = 512;

/// The spare capacity [`write_string`] may need beyond what it writes, for a string of `len`
/// bytes: a buffer with this much room past the string's own length is never grown while the
/// string has nothing to escape.
pub fn string_room(len: usize) -> usize {
    len.min(PIECE) * 6 + 35
}

/// Appends `text` as a JSON string literal (quotes included), exactly as
/// `serde_json::to_writer` writes it: `"` and `\` escaped, control characters as `\b`, `\t`,
/// `\n`, `\f`, `\r` or `\u00XX` (lowercase), everything else verbatim.
pub fn write_string(out: &mut Vec<u8>, text: &str) {
    if text.len() <= PIECE {
        json_escape_simd::escape_into(text, out);
        return;
    }
    out.push(b'"');
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = PIECE.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, tail) = rest.split_at(end);
        // Each piece is written as a whole literal, quotes included: its opening quote takes
        // the place of the last byte written so far (put back afterwards), and its closing
        // quote is dropped, so the pieces join into one literal without moving any byte.
        let last = out
            .pop()
            .expect("invariant: the opening quote at least was written");
        let at = out.len();
        json_escape_simd::escape_into(piece, out);
        out[at] = last;
        out.pop();
        rest = tail;
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{PIECE, write_string};

    fn written(text: &str) -> Vec<u8> {
        let mut out = b"[".to_vec();
        write_string(&mut out, text);
        out
    }

    fn serde(text: &str) -> Vec<u8> {
        let mut out = b"[".to_vec();
        serde_json::to_writer(&mut out, text).unwrap();
        out
    }

    #[test]
    fn every_byte_that_needs_an_escape_is_escaped_as_serde_escapes_it() {
        let every: String = (0..=0x7f_u8).map(char::from).collect();
        assert_eq!(written(&every), serde(&every));
        for text in [
            "",
            "\"",
            "\\",
            "\u{7f}",
            "é",
            "\u{2028}",
            "a\"b\\c\nd\u{1}e\u{1f}",
        ] {
            assert_eq!(written(text), serde(text), "{text:?}");
        }
    }

    #[test]
    fn long_texts_are_written_in_pieces_that_join_into_one_literal() {
        // Pieces end on a character boundary: three-byte characters straddle the cuts here, and
        // escapes fall on both sides of them.
        let line = "ab\"c\\d\ne\u{1}€ ";
        let long = line.repeat(3 * PIECE / line.len() + 7);
        assert!(long.len() > 3 * PIECE);
        assert_eq!(written(&long), serde(&long));
        let plain = "x".repeat(2 * PIECE);
        assert_eq!(written(&plain), serde(&plain));
        let cut = format!("{}€", "y".repeat(PIECE - 1));
        assert_eq!(written(&cut), serde(&cut));
    }

    proptest! {
        // Long texts are slow to generate in a debug build: fewer cases than the default.
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_text_is_written_as_serde_writes_it(
            text in proptest::collection::vec(
                prop_oneof![
                    4 => any::<char>(),
                    4 => (0u8..0x20).prop_map(char::from),
                    2 => prop_oneof![Just('"'), Just('\\'), Just('\u{7f}'), Just('€')],
                    8 => Just('x'),
                ],
                // Up to three pieces' worth, so that most texts are cut.
                0..3 * PIECE,
            ).prop_map(|chars| chars.into_iter().collect::<String>()),
        ) {
            prop_assert_eq!(written(&text), serde(&text));
        }
    }
}
