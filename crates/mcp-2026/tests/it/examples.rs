//! Every official 2026-07-28 example of a request this server serves is fed through the handler
//! and answered without a `_meta`, version or header error (no HTTP 400), every message passing
//! the schema and our own checks.

use mcp_resources_core::service::Offer;
use mcp_types::testing;

use crate::support::{self, Access, Driven};

/// The example folders of the requests we serve.
const SERVED: [&str; 6] = [
    "DiscoverRequest",
    "ListResourcesRequest",
    "ListResourceTemplatesRequest",
    "ReadResourceRequest",
    "CompleteRequest",
    "SubscriptionsListenRequest",
];

#[test]
fn official_request_examples_are_answered() {
    let Some(spec) = testing::spec_dir() else {
        return;
    };
    let (service, handler) = support::setup(Access::Open, Offer::default());
    let mut answered = 0;
    for folder in SERVED {
        let dir = spec.join("2026-07-28/examples").join(folder);
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
            .map(|entry| entry.expect("dir entry").path())
            .collect();
        paths.sort();
        assert!(!paths.is_empty(), "{folder} has examples");
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("readable example");
            let compact: serde_json::Value = serde_json::from_str(&text).expect("json example");
            let request = support::request(&compact.to_string());
            let exchange = handler.start(request.clone());
            let mut driven = Driven {
                id: request.id,
                method: request.method,
                exchange,
                subscriber: None,
                sent: 0,
            };
            let mut lines = Vec::new();
            support::pump(&service, &mut driven, &mut lines);
            let name = path.display();
            assert!(!lines.is_empty(), "{name}: the server said something");
            assert_ne!(driven.exchange.http_status(), 400, "{name}: {lines:?}");
            for line in &lines {
                assert!(!line.contains("-32022"), "{name}: no version error: {line}");
                assert!(
                    !line.contains("_meta key"),
                    "{name}: no _meta error: {line}"
                );
            }
            if folder == "SubscriptionsListenRequest" {
                assert!(
                    lines[0].contains("notifications/subscriptions/acknowledged"),
                    "{name}: acknowledged first: {lines:?}"
                );
                assert!(
                    !driven.exchange.is_finished(),
                    "{name}: the stream stays open"
                );
            } else {
                assert!(driven.exchange.is_finished(), "{name}: answered: {lines:?}");
            }
            answered += 1;
        }
    }
    assert!(answered >= SERVED.len(), "every served example ran");
}
