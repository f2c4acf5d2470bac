//! Property test: arbitrary sequences of messages (valid and invalid, batches, cancellations,
//! held and reordered answers, changes and log messages) never panic the session, every message
//! it sends is JSON, and every request gets exactly one response unless it was cancelled (then
//! at most one). At the end the session still answers a `ping`.

use std::collections::HashMap;

use mcp_legacy_2025::{Output, Ticket};
use mcp_resources_core::service::{Offer, Query};
use mcp_types::ProtocolVersion;
use mcp_types::jsonrpc::decode_str;
use mcp_types::logging::LoggingLevel;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::fixture::Driver;

#[derive(Clone, Debug)]
enum Call {
    Request {
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
}

#[derive(Clone, Debug)]
enum Step {
    Single(Call),
    Batch(Vec<Call>),
    Garbage(String),
    /// Cancel the request fed this many requests ago.
    Cancel(usize),
    Hold,
    AnswerOne(usize),
    Release,
    Updated(&'static str),
    ListChanged,
    Log(LoggingLevel),
}

const URIS: &[&str] = &[
    "mem:///docs/readme.md",
    "mem:///img/logo.png",
    "mem:///big.txt",
    "mem:///private/secret.txt",
    "mem:///nope",
    "users://acme/ada",
    "fail://db",
    "not a uri",
    "",
];

fn any_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        any::<i64>().prop_map(Value::from),
        "[a-z/{}:]{0,12}".prop_map(Value::from),
        Just(json!({})),
        Just(json!([1, 2])),
        Just(json!({"uri": 5, "cursor": true})),
    ]
}

fn request() -> impl Strategy<Value = Call> {
    let version = prop_oneof![
        Just("2024-11-05"),
        Just("2025-03-26"),
        Just("2025-06-18"),
        Just("2025-11-25"),
        Just("2026-07-28"),
        Just("1.0"),
    ];
    let uri = prop::sample::select(URIS);
    prop_oneof![
        version.prop_map(|version| ("initialize", Some(json!({
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}
        })))),
        Just(("ping", None)),
        prop::option::of("[A-Za-z0-9_-]{0,40}").prop_map(|cursor| ("resources/list", Some(json!({"cursor": cursor})))),
        Just(("resources/list", None)),
        Just(("resources/templates/list", None)),
        uri.clone().prop_map(|uri| ("resources/read", Some(json!({"uri": uri, "_meta": {"progressToken": 1}})))),
        uri.clone().prop_map(|uri| ("resources/subscribe", Some(json!({"uri": uri})))),
        uri.prop_map(|uri| ("resources/unsubscribe", Some(json!({"uri": uri})))),
        ("[a-z]{0,3}", prop::bool::ANY).prop_map(|(value, prompt)| ("completion/complete", Some(if prompt {
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "name", "value": value}})
        } else {
            json!({"ref": {"type": "ref/resource", "uri": "users://{org}/{name}"}, "argument": {"name": "name", "value": value}, "context": {"arguments": {"org": "acme"}}})
        }))),
        prop_oneof![Just("debug"), Just("error"), Just("loud")].prop_map(|level| ("logging/setLevel", Some(json!({"level": level})))),
        Just(("tools/list", None)),
    ]
    .prop_map(|(method, params)| Call::Request { method: method.to_owned(), params })
    .boxed()
    .prop_union(
        ("[a-z/]{1,20}", prop::option::of(any_json()))
            .prop_map(|(method, params)| Call::Request { method, params })
            .boxed(),
    )
}

fn notification() -> impl Strategy<Value = Call> {
    prop_oneof![
        Just(("notifications/initialized".to_owned(), None)),
        Just(("notifications/roots/list_changed".to_owned(), None)),
        ("[a-z/]{1,20}", prop::option::of(any_json()))
            .prop_map(|(method, params)| (method, params)),
    ]
    .prop_map(|(method, params)| Call::Notification { method, params })
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![3 => request(), 1 => notification()]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => call().prop_map(Step::Single),
        2 => prop::collection::vec(call(), 1..5).prop_map(Step::Batch),
        1 => "[^\n]{0,30}".prop_map(Step::Garbage),
        2 => (0usize..4).prop_map(Step::Cancel),
        1 => Just(Step::Hold),
        2 => any::<usize>().prop_map(Step::AnswerOne),
        1 => Just(Step::Release),
        1 => prop::sample::select(URIS).prop_map(Step::Updated),
        1 => Just(Step::ListChanged),
        1 => prop_oneof![Just(LoggingLevel::Debug), Just(LoggingLevel::Error)].prop_map(Step::Log),
    ]
}

/// How many responses a request id may get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    ExactlyOne,
    AtMostOne,
    None,
}

struct Harness {
    driver: Driver,
    hold: bool,
    held: Vec<(Ticket, Query)>,
    next_id: usize,
    requests: Vec<String>,
    expect: HashMap<String, Expect>,
    responses: HashMap<String, usize>,
}

impl Harness {
    fn new(offer: Offer) -> Harness {
        Harness {
            driver: Driver::new(offer),
            hold: false,
            held: Vec::new(),
            next_id: 0,
            requests: Vec::new(),
            expect: HashMap::new(),
            responses: HashMap::new(),
        }
    }

    /// The JSON of a call, registering the id of a request.
    fn message(&mut self, call: &Call, expect: Expect) -> Value {
        let (method, params, id) = match call {
            Call::Request { method, params } => {
                let id = format!("q{}", self.next_id);
                self.next_id += 1;
                self.requests.push(id.clone());
                self.expect.insert(id.clone(), expect);
                (method, params, Some(id))
            }
            Call::Notification { method, params } => (method, params, None),
        };
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(id) = id {
            message["id"] = Value::from(id);
        }
        if let Some(params) = params {
            message["params"] = params.clone();
        }
        message
    }

    fn feed(&mut self, text: &str) {
        self.driver.session.handle_incoming(decode_str(text));
    }

    fn step(&mut self, step: Step) {
        match step {
            Step::Single(call) => {
                let message = self.message(&call, Expect::ExactlyOne);
                self.feed(&message.to_string());
            }
            Step::Batch(calls) => {
                let accepted = self
                    .driver
                    .session
                    .negotiated_version()
                    .is_some_and(ProtocolVersion::allows_batches);
                let expect = if accepted {
                    Expect::ExactlyOne
                } else {
                    Expect::None
                };
                let batch: Vec<Value> = calls
                    .iter()
                    .map(|call| self.message(call, expect))
                    .collect();
                self.feed(&Value::Array(batch).to_string());
            }
            Step::Garbage(text) => self.feed(&text),
            Step::Cancel(back) => {
                if let Some(id) = self.requests.iter().rev().nth(back).cloned() {
                    if let Some(expect) = self.expect.get_mut(&id) {
                        if *expect == Expect::ExactlyOne && !self.responses.contains_key(&id) {
                            *expect = Expect::AtMostOne;
                        }
                    }
                    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
                    self.feed(&cancel.to_string());
                }
            }
            Step::Hold => self.hold = true,
            Step::AnswerOne(index) => {
                if !self.held.is_empty() {
                    let (ticket, query) = self.held.remove(index % self.held.len());
                    self.driver.answer(ticket, query);
                }
            }
            Step::Release => {
                self.hold = false;
                while let Some((ticket, query)) = self.held.pop() {
                    self.driver.answer(ticket, query);
                }
            }
            Step::Updated(uri) => self.driver.resource_updated(uri),
            Step::ListChanged => self.driver.list_changed(),
            Step::Log(level) => {
                self.driver
                    .session
                    .log(level, Some("prop"), json!("message"));
            }
        }
        self.drain();
    }

    fn drain(&mut self) {
        while let Some(output) = self.driver.session.poll_output() {
            match output {
                Output::Send(outgoing) => {
                    let value: Value = serde_json::from_slice(&outgoing.bytes)
                        .unwrap_or_else(|error| panic!("the session sent invalid json: {error}"));
                    let responses = match value {
                        Value::Array(elements) => elements,
                        single => vec![single],
                    };
                    for response in responses {
                        if response.get("method").is_some() {
                            continue;
                        }
                        if let Some(id) = response.get("id").and_then(Value::as_str) {
                            *self.responses.entry(id.to_owned()).or_default() += 1;
                        }
                    }
                }
                Output::Query { ticket, query } => {
                    if self.hold {
                        self.held.push((ticket, query));
                    } else {
                        self.driver.answer(ticket, query);
                    }
                }
                Output::Cancel { ticket } => self.held.retain(|(held, _)| *held != ticket),
            }
        }
    }
}

fn offer() -> impl Strategy<Value = Offer> {
    (
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
    )
        .prop_map(
            |(subscribe, list_changed, completions, directories)| Offer {
                subscribe,
                list_changed,
                completions,
                directories,
                tools: false,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn the_session_never_panics_and_answers_every_request_once(
        offer in offer(),
        steps in prop::collection::vec(step(), 0..40),
    ) {
        let mut harness = Harness::new(offer);
        for step in steps {
            harness.step(step);
        }
        harness.step(Step::Release);
        harness.step(Step::Single(Call::Request { method: "ping".into(), params: None }));
        let ping = harness.requests.last().cloned().unwrap_or_default();
        prop_assert_eq!(harness.responses.get(&ping).copied(), Some(1), "the final ping is answered");
        for (id, expect) in &harness.expect {
            let count = harness.responses.get(id).copied().unwrap_or(0);
            match expect {
                Expect::ExactlyOne => prop_assert_eq!(count, 1, "request {} answered {} times", id, count),
                Expect::AtMostOne => prop_assert!(count <= 1, "cancelled request {} answered {} times", id, count),
                Expect::None => prop_assert_eq!(count, 0, "request {} of a refused batch answered", id),
            }
        }
        for id in harness.responses.keys() {
            prop_assert!(harness.expect.contains_key(id), "a response to {} that was never sent", id);
        }
    }
}
