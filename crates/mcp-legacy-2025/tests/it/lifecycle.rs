//! The lifecycle and the driving contract, checked on the outputs themselves: which query comes
//! out when, what `related` and `is_response` say, and version negotiation.

use std::sync::Arc;

use mcp_legacy_2025::{LegacyConfig, LifecycleState, Output, Session};
use mcp_resources_core::service::{Answer, Offer, Query};
use mcp_resources_core::subscription::Change;
use mcp_types::jsonrpc::decode_str;
use mcp_types::{ProtocolVersion, RequestId};
use serde_json::{Value, json};

use crate::fixture::{self, Driver};

fn initialize(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}
    }})
    .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn feed(driver: &mut Driver, message: &str) {
    driver.session.handle_incoming(decode_str(message));
}

fn ready(version: &str, offer: Offer) -> Driver {
    let mut driver = Driver::new(offer);
    feed(&mut driver, &initialize(version));
    feed(&mut driver, INITIALIZED);
    driver.run();
    driver
}

fn check_negotiation(requested: &str, supported: &[&str], expect: &str) {
    let mut config = fixture::config(Offer::default());
    config.supported = supported
        .iter()
        .map(|version| ProtocolVersion::new(*version))
        .collect();
    assert_eq!(
        config.negotiate(&ProtocolVersion::new(requested)).as_str(),
        expect,
        "{requested} against {supported:?}"
    );
}

#[test]
fn negotiation_echoes_a_supported_version_else_the_newest_supported() {
    let all = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    for version in all {
        check_negotiation(version, &all, version);
    }
    check_negotiation("2026-07-28", &all, "2025-11-25");
    check_negotiation("1999-01-01", &all, "2025-11-25");
    check_negotiation("2025-11-25", &["2024-11-05", "2025-03-26"], "2025-03-26");
    // A modern version in the list is never negotiated by the legacy handshake.
    check_negotiation("2026-07-28", &["2025-06-18", "2026-07-28"], "2025-06-18");
    check_negotiation("2025-06-18", &[], "2025-11-25");
}

#[test]
fn the_lifecycle_moves_only_on_initialize_then_initialized() {
    let mut driver = Driver::new(Offer::default());
    assert_eq!(driver.session.state(), LifecycleState::Uninitialized);
    feed(&mut driver, INITIALIZED);
    assert_eq!(driver.session.state(), LifecycleState::Uninitialized);
    feed(&mut driver, &initialize("2025-06-18"));
    assert_eq!(driver.session.state(), LifecycleState::Initializing);
    assert_eq!(
        driver.session.negotiated_version(),
        Some(&ProtocolVersion::V2025_06_18)
    );
    driver.run();
    feed(&mut driver, INITIALIZED);
    assert_eq!(driver.session.state(), LifecycleState::Ready);
    // Exactly one WatchListChanges, and its answer produces no message.
    let Some(Output::Query { ticket, query }) = driver.session.poll_output() else {
        panic!("ready with listChanged offered asks the core for list changes");
    };
    assert_eq!(query, Query::WatchListChanges { enabled: true });
    assert!(driver.session.poll_output().is_none());
    driver.answer(ticket, query);
    assert!(driver.run().is_empty());
    feed(&mut driver, INITIALIZED);
    assert!(
        driver.run().is_empty(),
        "a second initialized changes nothing"
    );
}

#[test]
fn no_list_change_watch_when_not_offered() {
    let offer = Offer {
        list_changed: false,
        ..Offer::default()
    };
    let mut driver = Driver::new(offer);
    feed(&mut driver, &initialize("2025-11-25"));
    driver.run();
    feed(&mut driver, INITIALIZED);
    assert!(driver.session.poll_output().is_none());
}

#[test]
fn changes_before_initialize_are_dropped() {
    let mut driver = Driver::new(Offer::default());
    driver.session.handle_changes(vec![Change::ListChanged]);
    assert!(driver.run().is_empty());
    feed(&mut driver, &initialize("2025-11-25"));
    driver.run();
    feed(&mut driver, INITIALIZED);
    let sent = driver.run();
    assert!(
        !sent.iter().any(|message| message.contains("list_changed")),
        "{sent:?}"
    );
}

#[test]
fn changes_while_initializing_wait_for_initialized() {
    let mut driver = Driver::new(Offer::default());
    feed(&mut driver, &initialize("2025-11-25"));
    driver.run();
    let updated = Change::ResourceUpdated("mem:///docs/readme.md".into());
    driver
        .session
        .handle_changes(vec![Change::ListChanged, updated.clone()]);
    driver
        .session
        .handle_changes(vec![Change::ListChanged, updated]);
    assert!(driver.run().is_empty(), "nothing before initialized");

    feed(&mut driver, INITIALIZED);
    let sent = driver.run();
    assert_eq!(
        sent,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"mem:///docs/readme.md"}}"#,
        ],
        "held changes are delivered once, without duplicates"
    );
}

#[test]
fn subscription_queries_are_emitted_one_at_a_time_in_arrival_order() {
    let mut driver = ready("2025-11-25", Offer::default());
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"mem:///docs/readme.md"}}"#,
    );
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"mem:///docs/readme.md"}}"#,
    );
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"mem:///docs/readme.md"}}"#,
    );
    let mut queries = Vec::new();
    while let Some(output) = driver.session.poll_output() {
        let Output::Query { ticket, query } = output else {
            panic!("only queries: {output:?}")
        };
        queries.push((ticket, query));
    }
    // The subscribe and the read; the unsubscribe waits for the subscribe's answer.
    assert!(
        matches!(queries[0].1, Query::Subscribe { .. }),
        "{queries:?}"
    );
    assert!(matches!(queries[1].1, Query::Read { .. }), "{queries:?}");
    assert_eq!(queries.len(), 2);
    let (ticket, query) = queries.remove(0);
    driver.answer(ticket, query);
    // Its answer releases the unsubscribe, and answers request 2.
    let mut released = Vec::new();
    let mut related = Vec::new();
    while let Some(output) = driver.session.poll_output() {
        match output {
            Output::Query { query, .. } => released.push(query),
            Output::Send(outgoing) => related.push(outgoing.related),
            Output::Cancel { .. } => panic!("nothing was cancelled"),
        }
    }
    assert!(
        matches!(released[..], [Query::Unsubscribe { .. }]),
        "{released:?}"
    );
    assert_eq!(related, vec![Some(RequestId::Number(2))]);
}

#[test]
fn outgoing_messages_say_what_they_relate_to() {
    let mut driver = ready("2025-03-26", Offer::default());
    let mut sends = Vec::new();
    let mut collect = |driver: &mut Driver| {
        while let Some(output) = driver.session.poll_output() {
            match output {
                Output::Send(outgoing) => sends.push(outgoing),
                Output::Query { ticket, query } => driver.answer(ticket, query),
                Output::Cancel { .. } => {}
            }
        }
    };
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"mem:///docs/notes.txt","_meta":{"progressToken":5}}}"#,
    );
    collect(&mut driver);
    feed(
        &mut driver,
        r#"[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]"#,
    );
    collect(&mut driver);
    feed(&mut driver, "{");
    collect(&mut driver);
    driver.session.handle_changes(vec![Change::ListChanged]);
    collect(&mut driver);
    let summary: Vec<(Option<RequestId>, bool)> = sends
        .iter()
        .map(|outgoing| (outgoing.related.clone(), outgoing.is_response))
        .collect();
    assert_eq!(
        summary,
        vec![
            (Some(RequestId::from("r")), false), // progress
            (Some(RequestId::from("r")), true),  // response
            (Some(RequestId::Number(7)), true),  // the batch's array
            (None, true),                        // -32700 for an unreadable message
            (None, false),                       // list_changed
        ]
    );
}

#[test]
fn a_reused_id_in_flight_is_refused_and_the_first_request_still_answered() {
    let mut driver = ready("2025-06-18", Offer::default());
    let read = r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"mem:///docs/notes.txt"}}"#;
    feed(&mut driver, read);
    let Some(Output::Query { ticket, query }) = driver.session.poll_output() else {
        panic!()
    };
    feed(&mut driver, read);
    let Some(Output::Send(refused)) = driver.session.poll_output() else {
        panic!()
    };
    let refused: Value = serde_json::from_slice(&refused.bytes).unwrap();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    driver.answer(ticket, query);
    let sent = driver.run();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].contains("some notes"), "{sent:?}");
}

#[test]
fn unknown_tickets_are_ignored_and_mismatched_answers_are_internal_errors() {
    let mut driver = ready("2025-06-18", Offer::default());
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
    );
    let Some(Output::Query { ticket, .. }) = driver.session.poll_output() else {
        panic!()
    };
    driver.session.handle_answer(ticket, Answer::Unsubscribed);
    let sent = driver.run();
    assert_eq!(sent.len(), 1);
    let response: Value = serde_json::from_str(&sent[0]).unwrap();
    assert_eq!(response["error"]["code"], -32603, "{response}");
    // The same ticket again: already answered, ignored.
    driver.session.handle_answer(ticket, Answer::Unsubscribed);
    assert!(driver.run().is_empty());
}

#[test]
fn a_new_session_from_a_config_is_uninitialized_and_logs_nothing() {
    let config = LegacyConfig::new(
        mcp_types::lifecycle::Implementation::new("s", "1"),
        Offer::default(),
    );
    assert_eq!(config.supported.len(), 4);
    let mut session = Session::new(Arc::new(config));
    assert_eq!(session.negotiated_version(), None);
    assert!(!session.log(
        mcp_types::logging::LoggingLevel::Emergency,
        None,
        json!("x")
    ));
    assert!(session.poll_output().is_none());
}

#[test]
fn a_cancelled_request_is_never_answered_even_if_its_answer_arrives() {
    let mut driver = ready("2025-11-25", Offer::default());
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem:///docs/notes.txt","_meta":{"progressToken":"p"}}}"#,
    );
    let Some(Output::Query { ticket, query }) = driver.session.poll_output() else {
        panic!()
    };
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    );
    assert!(
        matches!(driver.session.poll_output(), Some(Output::Cancel { ticket: cancelled }) if cancelled == ticket)
    );
    // The driver had already run it: the late answer is dropped, progress included.
    driver.answer(ticket, query);
    assert!(driver.run().is_empty());
}

#[test]
fn a_cancelled_subscribe_still_applies_and_its_id_can_be_reused() {
    let mut driver = ready("2025-11-25", Offer::default());
    let subscribe = r#"{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"mem:///docs/notes.txt"}}"#;
    feed(&mut driver, subscribe);
    let Some(Output::Query { ticket, query }) = driver.session.poll_output() else {
        panic!()
    };
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#,
    );
    assert!(
        driver.session.poll_output().is_none(),
        "an instant, ordered query is not dropped"
    );
    // The id is free again once cancelled; the new request queues behind the first.
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/unsubscribe","params":{"uri":"mem:///docs/notes.txt"}}"#,
    );
    assert!(driver.session.poll_output().is_none());
    driver.answer(ticket, query);
    let sent = driver.run();
    assert_eq!(
        sent,
        vec![r#"{"jsonrpc":"2.0","id":4,"result":{}}"#.to_owned()]
    );
    // The subscribe applied before the unsubscribe: no update reaches the client.
    driver.resource_updated("mem:///docs/notes.txt");
    assert!(driver.run().is_empty());
}

/// Responses (well-formed or not) and notifications (however malformed) the client may send.
const NEVER_ANSWERED: &[&str] = &[
    // Responses to requests this server never made.
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
    r#"{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}"#,
    r#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#,
    r#"{"jsonrpc":"2.0","result":{}}"#,
    r#"{"id":5,"result":{}}"#,
    // Notifications with bad params or a bad shape.
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}"#,
    r#"{"jsonrpc":"2.0","method":7}"#,
    r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
    r#"{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"mem:///docs/notes.txt"}}"#,
];

#[test]
fn responses_and_notifications_are_never_answered_however_malformed() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut fresh = Driver::new(Offer::default());
        let mut ready = ready(version, Offer::default());
        for message in NEVER_ANSWERED {
            for driver in [&mut fresh, &mut ready] {
                feed(driver, message);
                assert_eq!(driver.run(), Vec::<String>::new(), "{version}: {message}");
            }
        }
        assert_eq!(fresh.session.state(), LifecycleState::Uninitialized);
        assert_eq!(ready.session.state(), LifecycleState::Ready);
    }
}

#[test]
fn a_batch_answers_its_requests_only() {
    let mut driver = ready("2025-03-26", Offer::default());
    let batch = format!(
        "[{},{},{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}}]",
        NEVER_ANSWERED[2], NEVER_ANSWERED[6]
    );
    feed(&mut driver, &batch);
    assert_eq!(
        driver.run(),
        vec![r#"[{"jsonrpc":"2.0","id":9,"result":{}}]"#]
    );
    // Nothing at all for a batch of notifications and responses only.
    let batch = format!("[{}]", NEVER_ANSWERED.join(","));
    feed(&mut driver, &batch);
    assert_eq!(driver.run(), Vec::<String>::new());
}

#[test]
fn a_restored_session_goes_on_where_its_record_left_it() {
    let mut first = Driver::new(Offer::default());
    assert!(
        first.session.record().is_none(),
        "no record before initialize"
    );
    feed(&mut first, &initialize("2025-03-26"));
    first.run();
    let record = first.session.record().expect("initialized");
    assert_eq!(record.version, ProtocolVersion::V2025_03_26);
    assert!(!record.ready);

    // A copy made before `initialized` serves requests, and becomes ready when told.
    let mut second = Driver::new(Offer::default());
    second.session = Session::restore(Arc::new(fixture::config(Offer::default())), &record);
    assert_eq!(second.session.state(), LifecycleState::Initializing);
    assert!(second.session.poll_output().is_none());
    feed(
        &mut second,
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#,
    );
    let sent = second.run();
    assert!(
        sent[0].contains(r#""id":7"#) && sent[0].contains("resources"),
        "{sent:?}"
    );

    feed(&mut first, INITIALIZED);
    feed(
        &mut first,
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}"#,
    );
    first.run();
    let record = first.session.record().expect("initialized");
    assert!(record.ready);
    second.session.follow(&record);
    assert_eq!(second.session.state(), LifecycleState::Ready);
    assert_eq!(
        second.session.log_level(),
        mcp_types::logging::LoggingLevel::Error
    );
    let Some(Output::Query { query, .. }) = second.session.poll_output() else {
        panic!("a copy that becomes ready watches list changes");
    };
    assert_eq!(query, Query::WatchListChanges { enabled: true });
    assert_eq!(second.session.record(), Some(record.clone()));

    // A copy restored ready watches list changes at once; a record never takes it back.
    let mut third = Session::restore(Arc::new(fixture::config(Offer::default())), &record);
    assert_eq!(third.state(), LifecycleState::Ready);
    assert!(matches!(
        third.poll_output(),
        Some(Output::Query {
            query: Query::WatchListChanges { enabled: true },
            ..
        })
    ));
    third.follow(&mcp_legacy_2025::SessionRecord {
        ready: false,
        ..record
    });
    assert_eq!(third.state(), LifecycleState::Ready);
}
