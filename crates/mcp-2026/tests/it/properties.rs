//! Property: arbitrary requests (random methods, random `_meta`, random params) and arbitrary
//! follow-ups (changes, cancel, close) never panic the handler; every exchange sends at most
//! one response, always the last message, with a status the spec allows.

use mcp_2026::Output;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::service::{Offer, QueryContext};
use mcp_resources_core::subscription::Change;
use mcp_types::jsonrpc::{self, Incoming, Message};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::{self, Access};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z:/{}0-9.-]{0,12}".prop_map(Value::from),
        Just(json!("2026-07-28")),
        Just(json!("test://static-text")),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-zA-Z_]{1,8}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "server/discover",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "completion/complete",
            "subscriptions/listen",
            "initialize",
            "ping",
            "resources/subscribe",
            "tools/list",
        ])
        .prop_map(str::to_owned),
        1 => "[a-z/]{0,16}",
    ]
}

fn meta() -> impl Strategy<Value = Value> {
    // Mostly valid, so that most cases reach the methods and the service.
    let version = prop_oneof![
        6 => Just(json!("2026-07-28")),
        1 => Just(json!("2025-11-25")),
        1 => json_value()
    ];
    let capabilities = prop_oneof![6 => Just(json!({})), 1 => json_value()];
    let optional = prop_oneof![
        4 => Just(None),
        2 => Just(Some(("progressToken", json!("p")))),
        2 => Just(Some(("io.modelcontextprotocol/logLevel", json!("debug")))),
        1 => json_value().prop_map(|value| Some(("io.modelcontextprotocol/logLevel", value))),
        1 => json_value().prop_map(|value| Some(("io.modelcontextprotocol/clientInfo", value))),
    ];
    (
        prop::option::weighted(0.9, version),
        prop::option::weighted(0.9, capabilities),
        optional,
    )
        .prop_map(|(version, capabilities, optional)| {
            let mut meta = serde_json::Map::new();
            if let Some(version) = version {
                meta.insert("io.modelcontextprotocol/protocolVersion".into(), version);
            }
            if let Some(capabilities) = capabilities {
                meta.insert(
                    "io.modelcontextprotocol/clientCapabilities".into(),
                    capabilities,
                );
            }
            if let Some((key, value)) = optional {
                meta.insert(key.into(), value);
            }
            Value::Object(meta)
        })
}

/// A valid `_meta`, sometimes asking for progress or logs.
fn valid_meta() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!({}),
        json!({"progressToken": 3}),
        json!({"io.modelcontextprotocol/logLevel": "info"}),
    ])
    .prop_map(|mut meta| {
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        meta
    })
}

/// Params that fit their method, so that most cases reach the service.
fn fitting_params(method: &str) -> Value {
    match method {
        "resources/read" => json!({"uri": "test://static-text"}),
        "resources/list" | "resources/templates/list" => json!({"cursor": "x"}),
        "subscriptions/listen" => json!({"notifications": {
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://watched-resource"]
        }}),
        "completion/complete" => json!({
            "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
            "argument": {"name": "id", "value": "1"}
        }),
        _ => json!({}),
    }
}

/// A method and its params: mostly fitting ones, sometimes anything.
fn method_and_params() -> impl Strategy<Value = (String, Option<Value>)> {
    let body = (method(), prop::bool::weighted(0.8), json_value()).prop_map(
        |(method, fitting, random)| {
            let params = if fitting {
                fitting_params(&method)
            } else {
                random
            };
            (method, params)
        },
    );
    (
        body,
        prop::option::weighted(0.9, prop_oneof![3 => valid_meta(), 1 => meta()]),
    )
        .prop_map(|((method, params), meta)| {
            let params = match (params, meta) {
                (Value::Object(mut object), Some(meta)) => {
                    object.insert("_meta".into(), meta);
                    Some(Value::Object(object))
                }
                (Value::Null, _) => None,
                (other, _) => Some(other),
            };
            (method, params)
        })
}

#[derive(Clone, Debug)]
enum FollowUp {
    Changes(Vec<Change>),
    Cancel,
    Close,
}

fn follow_up() -> impl Strategy<Value = FollowUp> {
    let change = prop_oneof![
        Just(Change::ListChanged),
        "[a-z:/]{1,12}".prop_map(|uri| Change::ResourceUpdated(uri.as_str().into())),
    ];
    prop_oneof![
        prop::collection::vec(change, 0..3).prop_map(FollowUp::Changes),
        Just(FollowUp::Cancel),
        Just(FollowUp::Close),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_requests_never_panic(
        id in prop_oneof![any::<i64>().prop_map(Value::from), "[a-z0-9]{0,6}".prop_map(Value::from)],
        (method, params) in method_and_params(),
        follow_ups in prop::collection::vec(follow_up(), 0..4),
    ) {
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            body["params"] = params;
        }
        let Ok(Incoming::Single(Message::Request(request))) =
            jsonrpc::decode(body.to_string().as_bytes())
        else {
            // Not a request the binary would hand to the adapter (for example array params
            // are fine, but a scalar is rejected by the decoder).
            return Ok(());
        };
        let (service, handler) = support::setup(Access::Open, Offer::default());
        let principal = Principal::anonymous();
        let subscriber = service.add_subscriber();
        let mut exchange = handler.start(request);
        let mut responses = 0;
        let mut after_response = 0;
        let mut steps = follow_ups.into_iter();
        loop {
            while let Some(output) = exchange.poll_output() {
                match output {
                    Output::Send(outgoing) => {
                        let _: Value = serde_json::from_slice(&outgoing.bytes).expect("json");
                        if responses > 0 {
                            after_response += 1;
                        }
                        if outgoing.is_response {
                            responses += 1;
                        }
                    }
                    Output::Query { ticket, query } => {
                        let context = QueryContext { principal: &principal, subscriber: Some(subscriber) };
                        let answer = pollster::block_on(service.answer(context, query));
                        exchange.handle_answer(ticket, answer);
                    }
                    Output::Cancel { .. } => {}
                }
            }
            match steps.next() {
                Some(FollowUp::Changes(changes)) => exchange.handle_changes(changes),
                Some(FollowUp::Cancel) => exchange.cancel(),
                Some(FollowUp::Close) => exchange.close(),
                None => break,
            }
        }
        prop_assert!(responses <= 1);
        prop_assert_eq!(after_response, 0);
        prop_assert!([200, 400, 404].contains(&exchange.http_status()));
        if !exchange.is_listen() {
            prop_assert!(exchange.is_finished());
        }
    }
}
