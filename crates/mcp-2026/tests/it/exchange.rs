//! The exchange's life cycle where transcripts cannot reach: logging on demand, answers that
//! arrive late or for the wrong ticket, cancelling and closing with a query still out, and the
//! stdio teardown notification.

use mcp_2026::{Exchange, Output, Ticket, cancelled_notification};
use mcp_resources_core::service::{Answer, Offer, Query};
use mcp_resources_core::subscription::Change;
use mcp_types::RequestId;
use mcp_types::logging::LoggingLevel;
use serde_json::{Value, json};

use crate::support::{self, Access};

fn start(json: &str) -> Exchange {
    let (_, handler) = support::setup(Access::Open, Offer::default());
    handler.start(support::request(json))
}

fn query_ticket(exchange: &mut Exchange) -> (Ticket, Query) {
    match exchange.poll_output() {
        Some(Output::Query { ticket, query }) => (ticket, query),
        other => panic!("expected a query, got {other:?}"),
    }
}

fn drain(exchange: &mut Exchange) -> Vec<Value> {
    let mut messages = Vec::new();
    while let Some(output) = exchange.poll_output() {
        match output {
            Output::Send(outgoing) => {
                messages.push(serde_json::from_slice(&outgoing.bytes).expect("json"));
            }
            other => messages.push(json!({ "output": format!("{other:?}") })),
        }
    }
    messages
}

fn read_with(meta_extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}{meta_extra}}},"uri":"test://static-text"}}}}"#
    )
}

const LISTEN: &str = r#"{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"},"notifications":{"resourcesListChanged":true}}}"#;

#[test]
fn log_messages_only_at_or_above_the_requested_level() {
    let mut exchange = start(&read_with(
        r#","io.modelcontextprotocol/logLevel":"warning""#,
    ));
    let _ = query_ticket(&mut exchange);
    exchange.log(LoggingLevel::Info, Some("engine"), json!("too quiet"));
    exchange.log(LoggingLevel::Error, Some("engine"), json!("loud enough"));
    let messages = drain(&mut exchange);
    assert_eq!(
        messages,
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"engine","data":"loud enough"}})
        ]
    );
    support::validate_value("LoggingMessageNotification", &messages[0]);
}

#[test]
fn no_log_messages_without_a_level_after_the_response_or_on_a_listen_stream() {
    let mut exchange = start(&read_with(""));
    let _ = query_ticket(&mut exchange);
    exchange.log(LoggingLevel::Emergency, None, json!("unasked"));
    assert_eq!(drain(&mut exchange), Vec::<Value>::new());

    let mut listen = start(LISTEN);
    let _ = query_ticket(&mut listen);
    listen.log(LoggingLevel::Emergency, None, json!("not here"));
    assert_eq!(drain(&mut listen), Vec::<Value>::new());
    assert!(listen.is_listen());
}

#[test]
fn answers_for_other_tickets_are_ignored_and_wrong_answers_are_internal_errors() {
    let (_, handler) = support::setup(Access::Open, Offer::default());
    let mut exchange = handler.start(support::request(&read_with("")));
    let (ticket, _) = query_ticket(&mut exchange);
    let mut second = handler.start(support::request(&read_with("")));
    let (second_ticket, _) = query_ticket(&mut second);
    assert_ne!(second_ticket, ticket, "tickets differ across exchanges");
    exchange.handle_answer(second_ticket, Answer::Unsubscribed);
    assert!(
        !exchange.is_finished(),
        "an answer for another ticket changes nothing"
    );
    exchange.handle_answer(ticket, Answer::Unsubscribed);
    let messages = drain(&mut exchange);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["error"]["code"], -32603);
    assert!(exchange.is_finished());
}

#[test]
fn cancel_before_the_query_is_drained_drops_it_silently() {
    let mut exchange = start(&read_with(""));
    exchange.cancel();
    assert_eq!(exchange.poll_output(), None);
    assert!(exchange.is_finished());
}

#[test]
fn cancel_with_a_query_out_cancels_it_and_ignores_its_answer() {
    let mut exchange = start(&read_with(""));
    let (ticket, _) = query_ticket(&mut exchange);
    exchange.cancel();
    assert_eq!(exchange.poll_output(), Some(Output::Cancel { ticket }));
    exchange.handle_answer(ticket, Answer::Unsubscribed);
    assert_eq!(exchange.poll_output(), None);
}

#[test]
fn close_before_the_acknowledgment_cancels_the_query_and_answers_gracefully() {
    let mut listen = start(LISTEN);
    let (ticket, query) = query_ticket(&mut listen);
    assert_eq!(
        query,
        Query::Listen {
            uris: Vec::new(),
            list_changes: true
        }
    );
    listen.close();
    assert_eq!(listen.poll_output(), Some(Output::Cancel { ticket }));
    let messages = drain(&mut listen);
    assert_eq!(messages.len(), 1);
    assert_eq!(
        messages[0]["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "s"
    );
    assert!(listen.is_finished());
    listen.close();
    assert_eq!(listen.poll_output(), None, "a second close sends nothing");
}

#[test]
fn close_does_nothing_to_other_requests() {
    let mut exchange = start(&read_with(""));
    let _ = query_ticket(&mut exchange);
    exchange.close();
    assert!(!exchange.is_finished());
    assert_eq!(exchange.poll_output(), None);
}

#[test]
fn stdio_teardown_notification_names_the_listen_id_with_its_type() {
    for (id, expected) in [
        (RequestId::from("listen-1"), json!("listen-1")),
        (RequestId::from(1), json!(1)),
    ] {
        let outgoing = cancelled_notification(&id);
        let message: Value = serde_json::from_slice(&outgoing.bytes).expect("json");
        assert_eq!(
            message,
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": expected}})
        );
        assert_eq!(outgoing.related, Some(id));
        assert!(!outgoing.is_response);
        support::validate_value("CancelledNotification", &message);
    }
}

#[test]
fn handler_and_exchange_can_cross_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<mcp_2026::Handler>();
    shareable::<Exchange>();
    shareable::<Output>();
}

#[test]
fn changes_fed_before_the_acknowledgment_follow_it() {
    let mut listen = start(LISTEN);
    let (ticket, _) = query_ticket(&mut listen);
    let early = vec![
        Change::ListChanged,
        Change::ResourceUpdated("test://a".into()),
    ];
    listen.handle_changes(early.clone());
    listen.handle_changes(early);
    assert_eq!(
        listen.poll_output(),
        None,
        "nothing before the acknowledgment"
    );
    let answer = Answer::Listening {
        uris: Vec::new(),
        list_changes: true,
    };
    listen.handle_answer(ticket, answer);
    let methods: Vec<Value> = drain(&mut listen)
        .into_iter()
        .map(|message| message["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [
            json!("notifications/subscriptions/acknowledged"),
            json!("notifications/resources/list_changed")
        ],
        "acknowledged first, then the held change of an acknowledged kind, once"
    );
}

/// The error a `resources/read` with these params (besides a valid `_meta`) is answered with,
/// or `query` when it goes to the service.
fn read_params_check(params: &str, expect: &str) {
    let json = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}{params}}}}}"#
    );
    let mut exchange = start(&json);
    let outcome = match exchange.poll_output() {
        Some(Output::Query { .. }) => "query".to_owned(),
        Some(Output::Send(outgoing)) => {
            let message: Value = serde_json::from_slice(&outgoing.bytes).expect("json");
            let error = &message["error"];
            format!("{} {}", error["code"], error["data"].as_str().unwrap_or(""))
        }
        other => panic!("unexpected {other:?}"),
    };
    assert!(outcome.starts_with(expect), "{params}: {outcome}");
}

#[test]
fn read_params_are_checked_field_by_field() {
    read_params_check(r#","uri":"test://static-text""#, "query");
    read_params_check(
        r#","uri":"test://static-text","requestState":"s","inputResponses":{}"#,
        "query",
    );
    read_params_check("", "-32602");
    read_params_check(r#","uri":5"#, "-32602");
    read_params_check(r#","uri":"test://static-text","requestState":5"#, "-32602");
    read_params_check(
        r#","uri":"test://static-text","inputResponses":[]"#,
        "-32602",
    );
    read_params_check(r#","uri":"not a uri""#, "-32602");
}
