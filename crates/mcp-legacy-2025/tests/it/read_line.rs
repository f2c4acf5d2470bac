//! `Session::handle_read_line`, the one-pass reading of a `resources/read` line,
//! `Session::handle_read_line_with`, which also answers a static read on the spot, and
//! `Session::answer_read_with`, which gives such a read back as its response alone, against the
//! general way (decode the line, then `Session::handle_incoming`): whenever they take a line, the
//! session says byte for byte what the general way makes it say, and ends in the same state; they
//! take the usual shape of a read; and they leave every other line untouched.

use mcp_legacy_2025::{Output, ReadFed, ReadLine};
use mcp_resources_core::service::{Offer, QueryContext};
use mcp_types::jsonrpc::decode;
use proptest::prelude::*;
use serde_json::json;

use crate::fixture::Driver;

/// A driver whose session was initialized with 2025-11-25, or not at all.
fn session(initialized: bool) -> Driver {
    let mut driver = Driver::new(Offer::default());
    if initialized {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}
        }})
        .to_string();
        let now = driver.now;
        driver
            .session
            .handle_incoming(decode(initialize.as_bytes()), now);
        driver.session.handle_incoming(
            decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            now,
        );
        driver.run();
    }
    driver
}

/// How a line is fed.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    /// Decoded, then `handle_incoming`.
    General,
    /// `handle_read_line` first.
    OnePass,
    /// `handle_read_line_with`, answering with `Service::answer_now`.
    OnTheSpot,
    /// `answer_read_with`, answering with `Service::answer_now`; the messages given back alone
    /// (a response, after its progress notification if any) are added to `alone`.
    Alone,
}

/// Feeds `line` the `way` given; returns whether a one-pass reading took it.
fn feed(driver: &mut Driver, way: Way, line: &str, alone: &mut Vec<String>) -> bool {
    let now = driver.now;
    let taken = match way {
        Way::General => false,
        Way::OnePass => driver.session.handle_read_line(line.as_bytes(), now),
        Way::OnTheSpot | Way::Alone => {
            let Driver {
                session,
                service,
                subscriber,
                principal,
                ..
            } = driver;
            let context = || QueryContext {
                principal,
                subscriber: Some(*subscriber),
            };
            let answer_now = |query| service.answer_now(context(), query);
            if way == Way::OnTheSpot {
                session.handle_read_line_with(line.as_bytes(), now, answer_now)
            } else {
                let fed = ReadLine::parse(line.as_bytes())
                    .map(|read| session.answer_read_with(read, now, answer_now));
                if let Some(ReadFed::Answered {
                    id,
                    progress,
                    response,
                }) = &fed
                {
                    let text = |bytes: &Vec<u8>| String::from_utf8(bytes.clone()).expect("utf-8");
                    let response = text(response);
                    assert!(response.contains(&serde_json::to_string(id).unwrap()));
                    alone.extend(progress.as_ref().map(text));
                    alone.push(response);
                }
                fed.is_some()
            }
        }
    };
    if !taken {
        driver.session.handle_incoming(decode(line.as_bytes()), now);
    }
    taken
}

/// What a session says after `before` then `line`, and its state, fed `way`; and whether the
/// one-pass reading took `line`.
fn said(way: Way, initialized: bool, before: &[&str], line: &str) -> (bool, Vec<String>) {
    said_alone(way, initialized, before, line).0
}

/// [`said`], and how many messages were given back alone. They come first: they are given back
/// only while nothing waits in the session, and nothing is drained until the end.
fn said_alone(
    way: Way,
    initialized: bool,
    before: &[&str],
    line: &str,
) -> ((bool, Vec<String>), usize) {
    let mut driver = session(initialized);
    let mut alone = Vec::new();
    for earlier in before {
        // Fed without draining, so that requests stay in flight (duplicate ids).
        feed(&mut driver, way, earlier, &mut alone);
    }
    let taken = feed(&mut driver, way, line, &mut alone);
    let answered_alone = alone.len();
    let mut said = alone;
    said.extend(driver.run());
    said.push(format!("{:?}", driver.session.state()));
    ((taken, said), answered_alone)
}

/// Whether the one-pass readings take `line`; what the session says is checked to be the same
/// all three ways.
fn check(initialized: bool, before: &[&str], line: &str) -> bool {
    let (_, general) = said(Way::General, initialized, before, line);
    let (taken, one_pass) = said(Way::OnePass, initialized, before, line);
    let (taken_on_the_spot, on_the_spot) = said(Way::OnTheSpot, initialized, before, line);
    let ((taken_alone, alone), _) = said_alone(Way::Alone, initialized, before, line);
    assert_eq!(one_pass, general, "{line}");
    assert_eq!(on_the_spot, general, "{line}");
    assert_eq!(alone, general, "{line}");
    assert_eq!(taken, taken_on_the_spot, "{line}");
    assert_eq!(taken, taken_alone, "{line}");
    taken
}

#[test]
fn takes_the_usual_shapes_of_a_read() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mem:///docs/readme.md"}}"#,
        r#"{"params":{"_meta":{"progressToken":"p"},"uri":"mem:///img/logo.png"},"id":"a \"b\"","method":"resources/read","jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"mem:///missing"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"not a uri"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"mem:///private/secret.txt"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"mem:///docs/todo.md","_meta":null,"x":1}}"#,
        r#"{"jsonrpc":"2.0","id":6,"x":{"y":[]},"method":"resources/read","params":{"uri":"mem:///docs/notes.txt"}}"#,
        // Progress in the compact shape, after or before the URI; of a missing resource.
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"mem:///docs/readme.md","_meta":{"progressToken":7}}}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"_meta":{"progressToken":"t"},"uri":"mem:///docs/readme.md"}}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"mem:///missing","_meta":{"progressToken":9}}}"#,
    ];
    for line in lines {
        assert!(check(true, &[], line), "not taken: {line}");
    }
    // Before `initialize`: the same error both ways.
    assert!(check(false, &[], lines[0]));
    // A request id already in flight (a read waiting for its template): the same refusal.
    let first =
        r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"users://acme/ada"}}"#;
    let again = r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"mem:///docs/readme.md"}}"#;
    assert!(check(true, &[first], again));
    // Static reads come back alone, after their progress notification when they carry a
    // progress token (two messages); a missing or private resource, an invalid URI, are queued.
    let alone: Vec<usize> = lines
        .iter()
        .map(|line| said_alone(Way::Alone, true, &[], line).1)
        .collect();
    assert_eq!(alone, [1, 2, 0, 0, 0, 1, 1, 2, 2, 0]);
    // Nor before `initialize`, nor behind a message still waiting in the session.
    assert_eq!(said_alone(Way::Alone, false, &[], lines[0]).1, 0);
    assert_eq!(said_alone(Way::Alone, true, &[lines[3]], lines[0]).1, 0);
    // A read answered on the spot is no longer in flight once fed: its id is free at once.
    let (_, said) = said(Way::OnTheSpot, true, &[again], again);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said[..2]
            .iter()
            .all(|message| message.contains(r#""result""#)),
        "{said:?}"
    );
}

/// A static read is answered on the spot, with no query; a read the service cannot answer at
/// once (a template's) is a query as usual, the one `answer_now` gave back.
#[test]
fn answers_a_static_read_on_the_spot_and_gives_any_other_query_out() {
    let mut driver = session(true);
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mem:///docs/readme.md"}}"#;
    assert!(feed(&mut driver, Way::OnTheSpot, line, &mut Vec::new()));
    match driver.session.poll_output() {
        Some(Output::Send(outgoing)) => {
            assert!(outgoing.is_response);
            let text = String::from_utf8(outgoing.bytes).unwrap();
            assert!(
                text.contains(r#""contents":[{"uri":"mem:///docs/readme.md""#),
                "{text}"
            );
        }
        other => panic!("the response at once: {other:?}"),
    }
    assert!(driver.session.poll_output().is_none());

    let mut asked = 0;
    let line =
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"users://acme/ada"}}"#;
    let now = driver.now;
    assert!(
        driver
            .session
            .handle_read_line_with(line.as_bytes(), now, |query| {
                asked += 1;
                Err(query)
            })
    );
    assert_eq!(asked, 1);
    assert!(matches!(
        driver.session.poll_output(),
        Some(Output::Query { .. })
    ));
}

#[test]
fn leaves_everything_else_untouched() {
    let params = r#"{"uri":"mem:///docs/readme.md"}"#;
    let read = |envelope: &str, params: &str| {
        format!(r#"{{{envelope}"method":"resources/read","params":{params}}}"#)
    };
    let lines = [
        // A read of the other era.
        read(
            r#""jsonrpc":"2.0","id":1,"#,
            r#"{"uri":"mem:///docs/readme.md","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        ),
        read(
            r#""jsonrpc":"2.0","id":1,"#,
            r#"{"uri":"mem:///docs/readme.md","_meta":{"io.modelcontextprotocol\/protocolVersion":7}}"#,
        ),
        // Not a read, not a request.
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"mem:///docs/readme.md"}}"#
            .to_owned(),
        read(r#""jsonrpc":"2.0","id":1,"result":null,"#, params),
        format!(r#"[{}]"#, read(r#""jsonrpc":"2.0","id":1,"#, params)),
        // Off in some way.
        read(r#""jsonrpc":"2.0","id":null,"#, params),
        read(r#""jsonrpc":"2.0","id":1,"id":2,"#, params),
        read(r#""jsonrpc":"2.00","id":1,"#, params),
        read(r#""jsonrpc":"2.0","id":1,"#, r#"["mem:///docs/readme.md"]"#),
        read(r#""jsonrpc":"2.0","id":1,"#, r#"{"uri":7}"#),
        read(r#""jsonrpc":"2.0","id":1,"#, r#"{}"#),
        read(r#""jsonrpc":"2.0","id":1,"#, r#"{"uri":"a","uri":"b"}"#),
        format!(" {}", read(r#""jsonrpc":"2.0","id":1,"#, params)),
    ];
    for line in &lines {
        assert!(!check(true, &[], line), "taken: {line}");
    }
    // A line it leaves changes nothing.
    let mut driver = session(true);
    let now = driver.now;
    assert!(
        !driver
            .session
            .handle_read_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, now)
    );
    assert!(driver.session.poll_output().is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any line made of read-like members: when taken, the session says what it says the
    /// general way.
    #[test]
    fn agrees_with_the_general_way(
        members in (
            prop_oneof![
                any::<i64>().prop_map(|id| format!(r#""id":{id}"#)),
                "[a-z0-9 \"\\\\]{0,6}".prop_map(|id| format!(r#""id":{}"#, json!(id))),
            ],
            prop::sample::select(vec![
                r#""uri":"mem:///docs/readme.md""#,
                r#""uri":"mem:///private/secret.txt""#,
                r#""uri":"mem:///docs/x.md""#,
                r#""uri":"::""#,
                r#""uri":"mem:\/\/\/docs\/notes.txt""#,
            ]),
            prop::sample::select(vec![
                "",
                r#","_meta":{"progressToken":1}"#,
                r#","_meta":{"progressToken":"t"}"#,
                r#","_meta":{"progressToken":1,"progressToken":2}"#,
                r#","_meta":{"progressToken":1.5}"#,
                r#","_meta":[]"#,
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
                r#","cursor":"c""#,
            ]),
            prop::collection::vec(
                prop::sample::select(vec![
                    r#""jsonrpc":"1.0""#,
                    r#""method":"resources/subscribe""#,
                    r#""id":null"#,
                    r#""error":null"#,
                    r#""extra":[{"a":"\u0041"}]"#,
                ]),
                0..2,
            ),
        )
            .prop_map(|(id, uri, meta, more)| {
                let mut members = vec![
                    r#""jsonrpc":"2.0""#.to_owned(),
                    r#""method":"resources/read""#.to_owned(),
                    id,
                    format!(r#""params":{{{uri}{meta}}}"#),
                ];
                members.extend(more.into_iter().map(str::to_owned));
                members
            })
            .prop_shuffle(),
        initialized in prop::bool::weighted(0.9),
    ) {
        let line = format!("{{{}}}", members.join(","));
        check(initialized, &[], &line);
    }
}
