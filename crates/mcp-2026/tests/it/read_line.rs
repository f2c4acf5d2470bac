//! `Handler::start_read_line`, the one-pass reading of a `resources/read` line,
//! `Handler::start_read_line_with`, which also answers a static read on the spot, and
//! `Handler::answer_read_with`, which gives such a read as its response alone, against the
//! general way (decode the line, then `Handler::start`): whenever they take a line, the exchange
//! they start (or the response alone) says byte for byte what the general one says (and one
//! answered on the spot gives out no query); they take the usual shape of a read; and they leave
//! every other line (not a read, not this era, not a request, anything unusual) to the general
//! way.

use mcp_2026::{Exchange, Handler, Output, ReadLine, ReadStart, RequestHeaders};
use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Offer, QueryContext, Service};
use mcp_types::jsonrpc::{self, Incoming, Message};
use proptest::prelude::*;

use crate::support::{self, Access};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Everything an exchange says, one entry per message, then its HTTP status.
fn served(service: &Service, exchange: Exchange) -> Vec<String> {
    served_asking(service, exchange).0
}

/// What [`served`] says, and how many queries the exchange gave out.
fn served_asking(service: &Service, mut exchange: Exchange) -> (Vec<String>, usize) {
    let principal = Principal::anonymous();
    let mut said = Vec::new();
    let mut queries = 0;
    while let Some(output) = exchange.poll_output() {
        match output {
            Output::Send(outgoing) => said.push(format!(
                "{} (response: {})",
                String::from_utf8(outgoing.bytes).expect("utf-8"),
                outgoing.is_response
            )),
            Output::Query { ticket, query } => {
                queries += 1;
                let context = QueryContext {
                    principal: &principal,
                    subscriber: None,
                };
                let answer = pollster::block_on(service.answer(context, query));
                exchange.handle_answer(ticket, answer, support::now());
            }
            Output::Cancel { .. } => said.push("cancel".to_owned()),
        }
    }
    said.push(format!(
        "status {}, finished {}",
        exchange.http_status(),
        exchange.is_finished()
    ));
    (said, queries)
}

/// What [`served`] says of a read as [`Handler::answer_read_with`] started it, and whether it
/// was answered without an exchange: a response (after its progress notification, if any),
/// with status 200.
fn started(service: &Service, start: ReadStart) -> (Vec<String>, bool) {
    match start {
        ReadStart::Answered {
            id,
            progress,
            response,
        } => {
            let response = String::from_utf8(response).expect("utf-8");
            let Ok(Incoming::Single(Message::Response(decoded))) =
                jsonrpc::decode(response.as_bytes())
            else {
                panic!("not a response: {response}");
            };
            assert_eq!(decoded.id, Some(id), "{response}");
            let progress = progress.map(|bytes| {
                let progress = String::from_utf8(bytes).expect("utf-8");
                format!("{progress} (response: false)")
            });
            let mut said: Vec<String> = progress.into_iter().collect();
            said.push(format!("{response} (response: true)"));
            said.push("status 200, finished true".to_owned());
            (said, true)
        }
        ReadStart::Exchange(exchange) => (served(service, exchange), false),
    }
}

/// The general way: `None` when the line is not a single request.
fn general(service: &Service, handler: &Handler, line: &str) -> Option<Vec<String>> {
    match jsonrpc::decode(line.as_bytes()) {
        Ok(Incoming::Single(Message::Request(request))) => {
            Some(served(service, handler.start(request, support::now())))
        }
        _ => None,
    }
}

/// How [`check`] found a line taken.
#[derive(Debug, PartialEq, Eq)]
enum Taken {
    /// Left to the general way.
    No,
    /// Taken, and served by an exchange.
    Exchange,
    /// Taken, and answered by its response alone ([`ReadStart::Answered`]).
    Answered,
}

/// Checks one line: when the one-pass reading takes it, it says what the general way says,
/// through an exchange and through [`Handler::answer_read_with`].
fn check(service: &Service, handler: &Handler, line: &str) -> Taken {
    let principal = Principal::anonymous();
    let context = QueryContext {
        principal: &principal,
        subscriber: None,
    };
    let mut answered_now = false;
    let answer_now = |query| {
        let answer = service.answer_now(context, query);
        answered_now = answer.is_ok();
        answer
    };
    let on_the_spot = handler.start_read_line_with(line.as_bytes(), support::now(), answer_now);
    let Some(exchange) = handler.start_read_line(line.as_bytes(), support::now()) else {
        assert!(on_the_spot.is_none(), "taken by one reading only: {line}");
        return Taken::No;
    };
    let quick = served(service, exchange);
    let general = general(service, handler, line)
        .unwrap_or_else(|| panic!("taken, but not a request: {line}"));
    assert_eq!(quick, general, "{line}");
    let on_the_spot = on_the_spot.unwrap_or_else(|| panic!("taken by one reading only: {line}"));
    let (said, queries) = served_asking(service, on_the_spot);
    assert_eq!(said, general, "{line}");
    if answered_now {
        assert_eq!(queries, 0, "answered on the spot, yet asked: {line}");
    }
    let read = ReadLine::parse(line.as_bytes()).expect("taken above");
    let answer_now = |query| service.answer_now(context, query);
    let (said, alone) = started(
        service,
        handler.answer_read_with(read, support::now(), answer_now),
    );
    assert_eq!(said, general, "{line}");
    if alone {
        Taken::Answered
    } else {
        Taken::Exchange
    }
}

#[test]
fn takes_the_usual_shapes_of_a_read() {
    let (service, handler) = support::setup(Access::Open, Offer::default());
    let lines = [
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://static-text",{META}}}}}"#
        ),
        format!(
            r#"{{"method":"resources/read","params":{{{META},"uri":"test://static-binary"}},"id":"a \"quoted\" id","jsonrpc":"2.0"}}"#
        ),
        // Not found, an invalid URI, a template, a failing template: the errors match too.
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"test://missing",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{{"uri":"not a uri",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"test://template/7/data",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{{"uri":"test://failing/public",{META}}}}}"#
        ),
        // Members nobody reads, a request state, progress, another version, white space.
        format!(
            r#" {{"jsonrpc":"2.0","id":6,"x":[1,{{}}],"method":"resources/read","params":{{"uri":"test://static-text","requestState":"s",{META}}}}} "#
        )
        .trim_start()
        .to_owned(),
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"progressToken":"p","io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"other/key":{"a":[null]}}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_owned(),
        // Progress in the compact shape: of a static read, of a missing one.
        r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"progressToken":9,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"test://missing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"t"}}}"#.to_owned(),
    ];
    let taken: Vec<Taken> = lines
        .iter()
        .map(|line| check(&service, &handler, line))
        .collect();
    // The static reads are answered alone (after their progress notification when progress
    // is asked), the compact shape or not, unless the version is another's (an error).
    use Taken::{Answered, Exchange};
    let expected = [
        Answered, Answered, Exchange, Exchange, Exchange, Exchange, Answered, Answered, Exchange,
        Answered, Exchange,
    ];
    assert_eq!(taken, expected);
}

#[test]
fn leaves_everything_else_to_the_general_way() {
    let (service, handler) = support::setup(Access::Open, Offer::default());
    let read = |envelope: &str, params: &str| {
        format!(r#"{{{envelope}"method":"resources/read","params":{params}}}"#)
    };
    let params = format!(r#"{{"uri":"test://static-text",{META}}}"#);
    let lines = [
        // Not this era, not a read, not a request.
        read(
            r#""jsonrpc":"2.0","id":1,"#,
            r#"{"uri":"test://static-text"}"#,
        ),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{{{META}}}}}"#),
        read(r#""jsonrpc":"2.0","#, &params),
        read(r#""jsonrpc":"2.0","id":null,"#, &params),
        read(r#""jsonrpc":"2.0","id":1.5,"#, &params),
        read(r#""jsonrpc":"2.0","id":1,"result":null,"#, &params),
        read(r#""jsonrpc":"2.0","id":1,"error":{},"#, &params),
        // Off in some way: the general way says what is wrong, or reads it the long way.
        read(r#""jsonrpc":"2.1","id":1,"#, &params),
        read(r#""jsonrpc":"2\u002e0","id":1,"#, &params),
        read(r#""id":1,"#, &params),
        read(r#""jsonrpc":"2.0","id":1,"id":2,"#, &params),
        read(r#""jsonrpc":"2.0","id":1,"#, r#"["test://static-text"]"#),
        read(
            r#""jsonrpc":"2.0","id":1,"#,
            &format!(r#"{{"uri":"test://static-text",{META},{META}}}"#),
        ),
        read(
            r#""jsonrpc":"2.0","id":1,"#,
            r#"{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        ),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources\/read","params":{params}}}"#),
        format!(r#"[{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{params}}}]"#),
        format!(r#"  {{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{params}}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{params}}} x"#),
    ];
    for line in &lines {
        assert_eq!(check(&service, &handler, line), Taken::No, "taken: {line}");
    }
}

/// Over HTTP: a read taken in one pass is checked against the headers as the general way
/// checks it, with the same error when they disagree.
#[test]
fn over_http_the_headers_are_checked_the_same_way() {
    let (service, handler) = support::setup(Access::Open, Offer::default());
    let lines = [
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://static-text",{META}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_owned(),
    ];
    let header_sets: [&[(&str, &[u8])]; 6] = [
        &[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", b"test://static-text"),
        ],
        &[
            ("MCP-Protocol-Version", b" 2026-07-28 "),
            ("Mcp-Method", b"resources/read"),
            ("Mcp-Name", b"=?base64?dGVzdDovL3N0YXRpYy10ZXh0?="),
        ],
        &[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
        ],
        &[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", b"test://other"),
        ],
        &[
            ("mcp-protocol-version", b"2099-01-01"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", b"test://static-text"),
        ],
        &[
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"resources/read"),
            ("mcp-method", b"resources/read"),
            ("mcp-name", b"test://static-text"),
        ],
    ];
    let mut answered_alone = 0;
    for line in &lines {
        for pairs in header_sets {
            let headers: RequestHeaders<'_> = pairs.iter().copied().collect();
            let read = ReadLine::parse(line.as_bytes()).expect(line);
            let quick = served(
                &service,
                handler.start_http_read(read, &headers, support::now()),
            );
            let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode(line.as_bytes())
            else {
                panic!("not a request: {line}");
            };
            let general = served(
                &service,
                handler.start_http(request, &headers, support::now()),
            );
            assert_eq!(quick, general, "{line} with {pairs:?}");
            let read = ReadLine::parse(line.as_bytes()).expect(line);
            let principal = Principal::anonymous();
            let answer_now = |query| {
                let context = QueryContext {
                    principal: &principal,
                    subscriber: None,
                };
                service.answer_now(context, query)
            };
            let start = handler.answer_http_read_with(read, &headers, support::now(), answer_now);
            let (said, alone) = started(&service, start);
            assert_eq!(said, general, "{line} with {pairs:?}");
            answered_alone += usize::from(alone);
        }
    }
    // The static read with the headers that agree (as they are, and spaced and encoded).
    assert_eq!(answered_alone, 2);
}

/// Members of the params that nobody reads are skipped, not read: one a `serde_json::Value`
/// cannot hold (a lone surrogate, a number out of range) changes neither the header check nor
/// the answer, whichever way the request is read.
#[test]
fn unread_members_change_neither_the_header_check_nor_the_answer() {
    let (service, handler) = support::setup(Access::Open, Offer::default());
    let pairs: [(&str, &[u8]); 3] = [
        ("mcp-protocol-version", b"2026-07-28"),
        ("mcp-method", b"resources/read"),
        ("mcp-name", b"test://static-text"),
    ];
    let headers: RequestHeaders<'_> = pairs.iter().copied().collect();
    for extra in [r#""x":"\ud800""#, r#""x":1e400"#] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://static-text",{extra},{META}}}}}"#
        );
        let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode(line.as_bytes())
        else {
            panic!("not a request: {line}");
        };
        assert_eq!(Handler::check_headers(&headers, &request), Ok(()), "{line}");
        let general = served(
            &service,
            handler.start_http(request, &headers, support::now()),
        );
        assert!(
            general.last().unwrap().starts_with("status 200"),
            "{general:?}"
        );
        let read = ReadLine::parse(line.as_bytes()).expect(&line);
        let quick = served(
            &service,
            handler.start_http_read(read, &headers, support::now()),
        );
        assert_eq!(quick, general, "{line}");
    }
}

/// The members of a generated line besides its params: a request's three, then some more,
/// each sometimes off (repeating one of the three, or beside them a member a request has not).
fn members() -> impl Strategy<Value = Vec<String>> {
    let id = prop_oneof![
        any::<i64>().prop_map(|id| format!(r#""id":{id}"#)),
        "[a-z0-9 \"\\\\]{0,6}".prop_map(|id| format!(r#""id":{}"#, serde_json::Value::from(id))),
    ];
    let more = prop::sample::select(vec![
        r#""jsonrpc":"1.0""#,
        r#""jsonrpc":null"#,
        r#""method":"resources/list""#,
        r#""method":7"#,
        r#""id":null"#,
        r#""id":[1]"#,
        r#""id":9223372036854775808"#,
        r#""result":{}"#,
        r#""error":null"#,
        r#""extra":{"_meta":[]}"#,
        r#""extra":"\u0041""#,
    ]);
    (id, prop::collection::vec(more, 0..3)).prop_map(|(id, more)| {
        let mut members = vec![
            r#""jsonrpc":"2.0""#.to_owned(),
            r#""method":"resources/read""#.to_owned(),
            id,
        ];
        members.extend(more.into_iter().map(str::to_owned));
        members
    })
}

fn params_member() -> impl Strategy<Value = String> {
    let uri = prop::sample::select(vec![
        r#""uri":"test://static-text""#,
        r#""uri":"test://watched-resource""#,
        r#""uri":"secret://hidden""#,
        r#""uri":"test://template/1/data""#,
        r#""uri":"test://failing/x""#,
        r#""uri":"::""#,
        r#""uri":7"#,
        r#""uri":"test:\/\/static-text""#,
    ]);
    let meta_entry = prop::sample::select(vec![
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#,
        r#""io.modelcontextprotocol/protocolVersion":"2025-06-18""#,
        r#""io.modelcontextprotocol/clientCapabilities":{}"#,
        r#""io.modelcontextprotocol/clientCapabilities":{"x":1}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}"#,
        r#""io.modelcontextprotocol/clientInfo":7"#,
        r#""io.modelcontextprotocol/logLevel":"warning""#,
        r#""io.modelcontextprotocol/logLevel":"loud""#,
        r#""progressToken":"p""#,
        r#""progressToken":3"#,
        r#""progressToken":1.5"#,
        r#""other":null"#,
    ]);
    let meta = prop::collection::vec(meta_entry, 0..5).prop_map(|entries| {
        let mut entries = entries;
        // Mostly a valid `_meta`, so that most lines are taken.
        entries.insert(0, r#""io.modelcontextprotocol/clientCapabilities":{}"#);
        entries.insert(
            0,
            r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#,
        );
        format!(r#""_meta":{{{}}}"#, entries.join(","))
    });
    let extra = prop::sample::select(vec![
        "",
        r#","requestState":"s""#,
        r#","requestState":7"#,
        r#","inputResponses":{}"#,
        r#","cursor":null"#,
    ]);
    (uri, prop::option::weighted(0.9, meta), extra, any::<bool>()).prop_map(
        |(uri, meta, extra, meta_first)| {
            let mut members = vec![uri.to_owned()];
            if let Some(meta) = meta {
                if meta_first {
                    members.insert(0, meta);
                } else {
                    members.push(meta);
                }
            }
            format!(r#""params":{{{}{extra}}}"#, members.join(","))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any line made of read-like parts: when the one-pass reading takes it, the exchange says
    /// what the general way's says.
    #[test]
    fn agrees_with_the_general_way(
        members in (members(), params_member())
            .prop_map(|(mut members, params)| {
                members.push(params);
                members
            })
            .prop_shuffle(),
    ) {
        let line = format!("{{{}}}", members.join(","));
        let (service, handler) = support::setup(Access::Open, Offer::default());
        check(&service, &handler, &line);
    }
}
