//! The shape nearly every client writes a `resources/read` of this era in, read by hand with
//! [`compact_request`]: compact JSON, the read's two params (`uri` and `_meta`, in either
//! order), no escape in any string, and a `_meta` of the two required keys, with `{}` for the
//! client's capabilities, and at most a `progressToken` besides.
//!
//! **Layer:** adapter, the `from_wire` side: the first try of
//! [`ReadLine::parse`](crate::ReadLine::parse). A read's line is about 230 bytes, which serde
//! takes about 5,000 instructions to read and this reader about 1,500. Anything outside the
//! shape is `None`, and the line is read with serde as before, so this reader only takes lines
//! that serde reads into the same request (the tests compare the two). This module must never
//! know a transport or what a request means.

use mcp_types::jsonrpc::{Cursor, RequestId, compact_request};
use mcp_types::meta::{CLIENT_CAPABILITIES, PROGRESS_TOKEN, PROTOCOL_VERSION, ProgressToken};
use mcp_types::method;

/// What a compact read line says: its id, the version its `_meta` names, the progress token
/// it holds, if any, and its URI.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CompactRead<'a> {
    pub(crate) id: RequestId,
    pub(crate) version: &'a str,
    pub(crate) progress: Option<ProgressToken>,
    pub(crate) uri: &'a str,
}

/// What a compact `_meta` says: the version it names and its progress token.
struct CompactMeta<'a> {
    version: &'a str,
    progress: Option<ProgressToken>,
}

/// Reads `line` when it is a `resources/read` request in the compact shape; `None` otherwise.
pub(crate) fn read(line: &[u8]) -> Option<CompactRead<'_>> {
    let (id, (meta, uri)) = compact_request(line, method::RESOURCES_READ, params)?;
    Some(CompactRead {
        id,
        version: meta.version,
        progress: meta.progress,
        uri,
    })
}

/// The members of the params after their opening brace, up to and with the closing one:
/// `uri` and `_meta` once each, in either order, and nothing else. Returns the `_meta` and the
/// URI.
fn params<'a>(cursor: &mut Cursor<'a>) -> Option<(CompactMeta<'a>, &'a str)> {
    let (mut uri, mut found) = (None, None);
    loop {
        if uri.is_none() && cursor.key("uri").is_some() {
            uri = Some(cursor.string()?);
        } else if found.is_none() && cursor.key("_meta").is_some() {
            cursor.eat("{")?;
            found = Some(meta(cursor)?);
        } else {
            return None;
        }
        if cursor.eat(",").is_none() {
            break;
        }
    }
    cursor.eat("}")?;
    Some((found?, uri?))
}

/// The members of `_meta` after its opening brace, up to and with its closing one: the version
/// and `{}` capabilities once each, a progress token at most once ([`Cursor::id`]: an integer
/// or a string), in any order, and nothing else.
fn meta<'a>(cursor: &mut Cursor<'a>) -> Option<CompactMeta<'a>> {
    let (mut version, mut capabilities, mut progress) = (None, false, None);
    loop {
        if version.is_none() && cursor.key(PROTOCOL_VERSION).is_some() {
            version = Some(cursor.string()?);
        } else if !capabilities && cursor.key(CLIENT_CAPABILITIES).is_some() {
            cursor.eat("{}")?;
            capabilities = true;
        } else if progress.is_none() && cursor.key(PROGRESS_TOKEN).is_some() {
            progress = Some(cursor.id()?);
        } else {
            return None;
        }
        if cursor.eat(",").is_none() {
            break;
        }
    }
    cursor.eat("}")?;
    let version = version.filter(|_| capabilities)?;
    Some(CompactMeta { version, progress })
}

#[cfg(test)]
mod tests {
    use mcp_types::jsonrpc::RequestId;
    use proptest::prelude::*;

    use super::{CompactRead, read};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn line(id: &str, params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{{params}}}}}"#)
    }

    #[test]
    fn takes_the_compact_shape() {
        let expected = |id| CompactRead {
            id,
            version: "2026-07-28",
            progress: None,
            uri: "mem:///r/0001",
        };
        let uri = r#""uri":"mem:///r/0001""#;
        let cases = [
            (line("7", &format!("{uri},{META}")), RequestId::Number(7)),
            (
                line(r#""r-1 é""#, &format!("{uri},{META}")),
                RequestId::String("r-1 é".to_owned()),
            ),
        ];
        for (line, id) in cases {
            assert_eq!(read(line.as_bytes()), Some(expected(id)), "{line}");
        }
        // The order the TypeScript SDK writes.
        let reordered = format!(
            r#"{{"method":"resources/read","params":{{{uri},{META}}},"jsonrpc":"2.0","id":3}}"#
        );
        assert_eq!(
            read(reordered.as_bytes()),
            Some(expected(RequestId::Number(3)))
        );
        let swapped = r#""_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        let swapped = line("1", &format!("{uri},{swapped}"));
        assert_eq!(
            read(swapped.as_bytes()),
            Some(expected(RequestId::Number(1)))
        );
        // A progress token, first (as the bench's driver writes it), between or last.
        let tokens = [
            (r#""progressToken":12,"#, "", "", RequestId::Number(12)),
            (
                "",
                r#""progressToken":"p-1","#,
                "",
                RequestId::String("p-1".to_owned()),
            ),
            ("", "", r#","progressToken":-3"#, RequestId::Number(-3)),
        ];
        for (first, between, last, token) in tokens {
            let meta = format!(
                r#""_meta":{{{first}"io.modelcontextprotocol/protocolVersion":"2026-07-28",{between}"io.modelcontextprotocol/clientCapabilities":{{}}{last}}}"#
            );
            let line = line("2", &format!("{uri},{meta}"));
            let taken = CompactRead {
                progress: Some(token),
                ..expected(RequestId::Number(2))
            };
            assert_eq!(read(line.as_bytes()), Some(taken), "{line}");
        }
    }

    #[test]
    fn leaves_anything_else() {
        let uri = r#""uri":"mem:///r/0001""#;
        let good = format!("{uri},{META}");
        let lines = [
            line("1", uri),
            line("1", META),
            line("1", &format!("{uri},{uri},{META}")),
            line("1", &format!("{uri},{META},{META}")),
            line("1", &format!(r#""uri":"a\/b",{META}"#)),
            line("1", &format!("{uri},{META},\"cursor\":null")),
            line("1", &format!("{uri}, {META}")),
            line(
                "1",
                &format!(
                    r#"{uri},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#
                ),
            ),
            line(
                "1",
                &format!(
                    r#"{uri},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"x":1}}}}"#
                ),
            ),
            line("1", &format!(r#""uri":"a{}b",{META}"#, '\t')),
            format!("{} ", line("1", &good)),
            format!("{}}}", line("1", &good)),
            line("1", &good).replace("resources/read", "resources/list"),
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read"}"#.to_owned(),
        ];
        // A progress token twice, or not an integer or plain string.
        let tokens = [
            "1,\"progressToken\":2",
            "1.5",
            "null",
            "01",
            r#""a\"b""#,
            "{}",
            "true",
        ];
        let with_token = |token: &str| {
            let meta = META.strip_suffix('}').expect("an object");
            line("1", &format!(r#"{uri},{meta},"progressToken":{token}}}"#))
        };
        assert!(read(with_token("7").as_bytes()).is_some());
        for line in lines.into_iter().chain(tokens.map(with_token)) {
            assert_eq!(read(line.as_bytes()), None, "{line}");
        }
    }

    proptest! {
        /// Whatever it takes, serde reads the same way: a read with that version and URI (the
        /// envelope's own test is in `mcp_types::jsonrpc`).
        #[test]
        fn what_it_takes_serde_reads_the_same(
            uri in "[a-z:/\"\\\\é\t ]{0,8}",
            version in "[0-9a-z\"\\\\-]{0,10}",
            meta_first: bool,
            token in proptest::option::of("-?[0-9]{1,20}(\\.5)?|\"[a-z\"\\\\]{0,4}\""),
        ) {
            let progress = token.as_ref().map(|token| format!(r#","progressToken":{token}"#));
            let progress = progress.unwrap_or_default();
            let meta = format!(
                r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}{progress}}}"#
            );
            let uri = format!(r#""uri":"{uri}""#);
            let params = if meta_first { format!("{meta},{uri}") } else { format!("{uri},{meta}") };
            let text = line("5", &params);
            if let Some(taken) = read(text.as_bytes()) {
                let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
                prop_assert_eq!(taken.id, RequestId::Number(5));
                prop_assert_eq!(
                    Some(taken.version),
                    value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()
                );
                prop_assert_eq!(Some(taken.uri), value["params"]["uri"].as_str());
                let token = &value["params"]["_meta"]["progressToken"];
                let expected = (!token.is_null())
                    .then(|| RequestId::from_value(token).expect("a valid token"));
                prop_assert_eq!(taken.progress, expected);
            }
        }
    }
}
