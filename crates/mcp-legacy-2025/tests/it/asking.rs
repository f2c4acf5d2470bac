//! A read that needs the user's confirmation in a legacy session: the server's own
//! `elicitation/create`, the read served on a yes, refused on a no, an error reply, a client or
//! version without elicitation, a timeout, and a cancellation.

use std::sync::Arc;

use mcp_legacy_2025::{ASK_TICKS, LegacyConfig, Session};
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::{Principal, UriPattern};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::sensitive::{SensitiveRule, Sensitivity};
use mcp_resources_core::service::{Offer, Service};
use mcp_resources_core::uri::ResourceUri;
use mcp_types::jsonrpc::decode_str;
use mcp_types::lifecycle::Implementation;
use serde_json::{Value, json};

use crate::fixture::Driver;

/// A session of `version` whose client declared `capabilities`, over one resource the user
/// must confirm.
fn driver(version: &str, capabilities: Value) -> Driver {
    let salaries = ResourceUri::parse("hr://salaries").unwrap();
    let sensitivity = Sensitivity::new([3; 32], Arc::new(|| 1_000_000)).rule(SensitiveRule {
        name: "hr".to_owned(),
        uris: vec![UriPattern::parse("hr://**").unwrap()],
        confirm: true,
        reason: None,
    });
    let engine = Engine::builder(CursorKey::new([1; 32]))
        .sensitivity(sensitivity)
        .static_resource(
            Resource::new(salaries.clone(), "salaries"),
            vec![Contents::text(salaries, "alice 100")],
        )
        .build()
        .unwrap();
    let service = Service::new(engine);
    let subscriber = service.add_subscriber();
    let config = LegacyConfig::new(Implementation::new("s", "1"), Offer::default());
    let mut driver = Driver {
        session: Session::new(Arc::new(config)),
        service,
        subscriber,
        principal: Principal::anonymous(),
    };
    feed(
        &mut driver,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "c", "version": "1"}}})
        .to_string(),
    );
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    driver.run();
    driver
}

fn feed(driver: &mut Driver, message: &str) {
    driver.session.handle_incoming(decode_str(message));
}

fn read(driver: &mut Driver, id: u64) -> Vec<Value> {
    feed(
        driver,
        &json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
            "params": {"uri": "hr://salaries"}})
        .to_string(),
    );
    sent(driver)
}

fn sent(driver: &mut Driver) -> Vec<Value> {
    driver
        .run()
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect()
}

fn reply(driver: &mut Driver, id: &Value, result: Value) -> Vec<Value> {
    feed(
        driver,
        &json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
    );
    sent(driver)
}

#[test]
fn a_yes_serves_the_read_and_a_no_refuses_it() {
    let mut driver = driver("2025-11-25", json!({"elicitation": {}}));
    let asked = read(&mut driver, 7);
    assert_eq!(asked.len(), 1, "{asked:?}");
    let ask = &asked[0];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["mode"], "form");
    assert!(
        ask["params"]["message"]
            .as_str()
            .unwrap()
            .contains("hr://salaries")
    );
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    // An answer to something never asked changes nothing.
    assert!(reply(&mut driver, &json!("other"), json!({"action": "accept"})).is_empty());
    let served = reply(
        &mut driver,
        &ask["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    assert_eq!(served.len(), 1, "{served:?}");
    assert_eq!(served[0]["id"], 7);
    assert_eq!(served[0]["result"]["contents"][0]["text"], "alice 100");
    // The same answer again: nothing waits for it.
    assert!(
        reply(
            &mut driver,
            &ask["id"],
            json!({"action": "accept", "content": {"confirm": true}})
        )
        .is_empty()
    );

    for answer in [
        json!({"action": "decline"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        let asked = read(&mut driver, 8);
        let refused = reply(&mut driver, &asked[0]["id"], answer);
        assert_eq!(refused[0]["id"], 8);
        assert_eq!(refused[0]["error"]["code"], -32602, "{refused:?}");
        assert!(
            refused
                .iter()
                .all(|message| !message.to_string().contains("alice 100"))
        );
    }
    // The client answers with an error: refused too.
    let asked = read(&mut driver, 9);
    feed(
        &mut driver,
        &json!({"jsonrpc": "2.0", "id": asked[0]["id"],
            "error": {"code": -1, "message": "user closed the dialog"}})
        .to_string(),
    );
    let refused = sent(&mut driver);
    assert_eq!(refused[0]["error"]["code"], -32602, "{refused:?}");
}

#[test]
fn a_client_or_version_without_elicitation_gets_a_clear_error() {
    for (version, capabilities) in [
        ("2025-11-25", json!({})),
        ("2025-06-18", json!({"sampling": {}})),
        ("2025-03-26", json!({"elicitation": {}})),
    ] {
        let mut driver = driver(version, capabilities);
        let answered = read(&mut driver, 1);
        assert_eq!(answered.len(), 1, "{version}: {answered:?}");
        let error = &answered[0]["error"];
        assert_eq!(error["code"], -32600, "{version}: {error}");
        assert!(error["message"].as_str().unwrap().contains("elicitation"));
        assert_eq!(
            error["data"]["requiredCapabilities"],
            json!({"elicitation": {}})
        );
    }
}

#[test]
fn an_unanswered_read_times_out_and_a_cancelled_one_ends_quietly() {
    let mut driver = driver("2025-06-18", json!({"elicitation": {}}));
    let asked = read(&mut driver, 1);
    assert!(
        asked[0]["params"].get("mode").is_none(),
        "no modes in 2025-06-18"
    );
    assert!(driver.session.is_asking());
    // The same id again while it waits: refused.
    let duplicate = read(&mut driver, 1);
    assert_eq!(duplicate[0]["error"]["code"], -32600, "{duplicate:?}");
    for _ in 1..ASK_TICKS {
        driver.session.tick();
    }
    assert!(sent(&mut driver).is_empty());
    driver.session.tick();
    let timed_out = sent(&mut driver);
    assert_eq!(timed_out[0]["id"], 1);
    assert_eq!(timed_out[0]["error"]["code"], -32603);
    assert!(!driver.session.is_asking());
    let late = reply(
        &mut driver,
        &asked[0]["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    assert!(late.is_empty(), "{late:?}");

    let asked = read(&mut driver, 2);
    feed(
        &mut driver,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    );
    assert!(sent(&mut driver).is_empty());
    assert!(!driver.session.is_asking());
    let late = reply(
        &mut driver,
        &asked[0]["id"],
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    assert!(late.is_empty(), "{late:?}");

    // Reads waiting for the client are bounded.
    let mut waiting = 0;
    for id in 10..40 {
        let answered = read(&mut driver, id);
        if answered[0].get("method").is_some() {
            waiting += 1;
        } else {
            assert_eq!(answered[0]["error"]["code"], -32603, "{answered:?}");
        }
    }
    assert_eq!(waiting, 16);
    driver.session.give_up_asking();
    let failed = sent(&mut driver);
    assert_eq!(failed.len(), 16);
    assert!(
        failed
            .iter()
            .all(|message| message["error"]["code"] == -32603)
    );
}
