//! The shape nearly every client writes a `resources/read` of this era in, read by hand with
//! [`compact_request`]: compact JSON, the read's two params (`uri` and `_meta`, in either
//! order), no escape in any string, and a `_meta` of the two required keys only, with `{}` for
//! the client's capabilities.
//!
//! **Layer:** adapter, the `from_wire` side: the first try of
//! [`ReadLine::parse`](crate::ReadLine::parse). A read's line is about 230 bytes, which serde
//! takes about 5,000 instructions to read and this reader about 1,500. Anything outside the
//! shape is `None`, and the line is read with serde as before, so this reader only takes lines
//! that serde reads into the same request (the tests compare the two). This module must never
//! know a transport or what a request means.

use mcp_types::jsonrpc::{Cursor, RequestId, compact_request};
use mcp_types::meta::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use mcp_types::method;

/// What a compact read line says: its id, the version its `_meta` names and its URI.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CompactRead<'a> {
    pub(crate) id: RequestId,
    pub(crate) version: &'a str,
    pub(crate) uri: &'a str,
}

/// Reads `line` when it is a `resources/read` request in the compact shape; `None` otherwise.
pub(crate) fn read(line: &[u8]) -> Option<CompactRead<'_>> {
    let (id, (version, uri)) = compact_request(line, method::RESOURCES_READ, params)?;
    Some(CompactRead { id, version, uri })
}

/// The members of the params after their opening brace, up to and with the closing one:
/// `uri` and `_meta` once each, in either order, and nothing else. Returns the version and the
/// URI.
fn params<'a>(cursor: &mut Cursor<'a>) -> Option<(&'a str, &'a str)> {
    let (mut uri, mut version) = (None, None);
    loop {
        if uri.is_none() && cursor.key("uri").is_some() {
            uri = Some(cursor.string()?);
        } else if version.is_none() && cursor.key("_meta").is_some() {
            cursor.eat("{")?;
            version = Some(meta(cursor)?);
        } else {
            return None;
        }
        if cursor.eat(",").is_none() {
            break;
        }
    }
    cursor.eat("}")?;
    Some((version?, uri?))
}

/// The members of `_meta` after its opening brace, up to and with its closing one: the version
/// and `{}` capabilities once each, in either order, and nothing else. Returns the version.
fn meta<'a>(cursor: &mut Cursor<'a>) -> Option<&'a str> {
    let (mut version, mut capabilities) = (None, false);
    loop {
        if version.is_none() && cursor.key(PROTOCOL_VERSION).is_some() {
            version = Some(cursor.string()?);
        } else if !capabilities && cursor.key(CLIENT_CAPABILITIES).is_some() {
            cursor.eat("{}")?;
            capabilities = true;
        } else {
            return None;
        }
        if cursor.eat(",").is_none() {
            break;
        }
    }
    cursor.eat("}")?;
    version.filter(|_| capabilities)
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
            line(
                "1",
                &format!(
                    r#"{uri},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"progressToken":1}}"#
                ),
            ),
            line("1", &format!(r#""uri":"a{}b",{META}"#, '\t')),
            format!("{} ", line("1", &good)),
            format!("{}}}", line("1", &good)),
            line("1", &good).replace("resources/read", "resources/list"),
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read"}"#.to_owned(),
        ];
        for line in lines {
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
        ) {
            let meta = format!(
                r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#
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
            }
        }
    }
}
