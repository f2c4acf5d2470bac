//! A read that needs the user's confirmation on the stateless wire: an `InputRequiredResult`
//! with an elicitation and a state, the retry served on a yes, `-32021` (HTTP 400) for a request
//! that did not declare elicitation, and a replayed or altered state refused.

use std::sync::Arc;

use mcp_2026::{Handler, ModernConfig, Output};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::{Principal, UriPattern};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::sensitive::{SensitiveRule, Sensitivity};
use mcp_resources_core::service::{QueryContext, Service};
use mcp_types::v2026_07_28::Implementation;
use serde_json::{Value, json};

use crate::support::{self, uri};

fn service() -> (Service, Handler) {
    let sensitivity = Sensitivity::new([5; 32], Arc::new(|| 2_000_000)).rule(SensitiveRule {
        name: "hr".to_owned(),
        uris: vec![UriPattern::parse("hr://**").unwrap()],
        confirm: true,
        reason: Some("It holds salaries.".to_owned()),
    });
    let salaries = uri("hr://salaries");
    let engine = Engine::builder(CursorKey::new([2; 32]))
        .sensitivity(sensitivity)
        .static_resource(
            Resource::new(salaries.clone(), "salaries"),
            vec![Contents::text(salaries, "alice 100")],
        )
        .build()
        .unwrap();
    let service = Service::new(engine);
    let mut config = ModernConfig::new(Implementation::new("s", "1"));
    config.offer = service.offer();
    (service, Handler::new(Arc::new(config)))
}

/// Serves one read whose params add `extra` (and whose capabilities are `capabilities`):
/// the response and the exchange's HTTP status.
fn read(service: &Service, handler: &Handler, capabilities: Value, extra: Value) -> (Value, u16) {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities},
        "uri": "hr://salaries",
    });
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    let text = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params})
        .to_string();
    let mut exchange = handler.start(support::request(&text));
    let principal = Principal::anonymous();
    loop {
        match exchange.poll_output() {
            Some(Output::Send(outgoing)) if outgoing.is_response => {
                let response = serde_json::from_slice(&outgoing.bytes).unwrap();
                return (response, exchange.http_status());
            }
            Some(Output::Send(_) | Output::Cancel { .. }) => {}
            Some(Output::Query { ticket, query }) => {
                let context = QueryContext {
                    principal: &principal,
                    subscriber: None,
                };
                let answer = pollster::block_on(service.answer(context, query));
                exchange.handle_answer(ticket, answer);
            }
            None => panic!("no response"),
        }
    }
}

#[test]
fn a_confirmed_read_round_trips_through_an_input_required_result() {
    let (service, handler) = service();
    let elicits = json!({"elicitation": {}});

    let (first, status) = read(&service, &handler, elicits.clone(), json!({}));
    assert_eq!(status, 200);
    let result = &first["result"];
    support::validate_value("InputRequiredResult", result);
    assert_eq!(result["resultType"], "input_required");
    assert!(result.get("ttlMs").is_none(), "no cache hints: {result}");
    let form = &result["inputRequests"]["confirm"];
    assert_eq!(form["method"], "elicitation/create");
    assert!(
        form["params"]["message"]
            .as_str()
            .unwrap()
            .contains("It holds salaries.")
    );
    let state = result["requestState"].as_str().unwrap().to_owned();

    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let (served, status) = read(
        &service,
        &handler,
        elicits.clone(),
        json!({"inputResponses": yes, "requestState": state}),
    );
    assert_eq!(status, 200);
    support::validate_value("ReadResourceResult", &served["result"]);
    assert_eq!(served["result"]["resultType"], "complete");
    assert_eq!(served["result"]["contents"][0]["text"], "alice 100");

    // Replayed, or altered: refused, never served.
    let mut altered = state.clone();
    altered.replace_range(0..1, if altered.starts_with('A') { "B" } else { "A" });
    for bad in [state, altered, "x".repeat(5000)] {
        let (refused, status) = read(
            &service,
            &handler,
            elicits.clone(),
            json!({"inputResponses": yes, "requestState": bad}),
        );
        assert_eq!(status, 200);
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(!refused.to_string().contains("alice 100"));
    }

    // Declined: refused.
    let (first, _) = read(&service, &handler, elicits.clone(), json!({}));
    let state = first["result"]["requestState"].clone();
    let (declined, _) = read(
        &service,
        &handler,
        elicits,
        json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": state}),
    );
    assert_eq!(declined["error"]["code"], -32602, "{declined}");
    assert!(
        declined["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not confirm")
    );
}

#[test]
fn a_request_without_elicitation_gets_missing_capability() {
    let (service, handler) = service();
    let (refused, status) = read(&service, &handler, json!({"sampling": {}}), json!({}));
    assert_eq!(status, 400);
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}
