//! Shared test support: the fixture service, a driver that runs exchanges against it, and the
//! checks every server message must pass (schema validation plus the rules the schema cannot
//! express).

use std::num::NonZeroUsize;
use std::sync::Arc;

use mcp_2026::{Exchange, Handler, ModernConfig, Output};
use mcp_resources_core::engine::{Engine, FunctionTemplate, Limits};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::{ActionSet, Grantee, PatternPolicy, Principal, UriPattern};
use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::service::{Offer, QueryContext, Service};
use mcp_resources_core::subscription::{SubscriberId, SubscriptionLimits};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use mcp_types::jsonrpc::{self, Incoming, Message, Request, RequestId};
use mcp_types::v2026_07_28::Implementation;
use mcp_types::{ProtocolVersion, testing};
use serde_json::Value;

/// Parses a URI the test knows to be valid.
pub(crate) fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap_or_else(|error| panic!("test uri {text:?}: {error}"))
}

/// Who may see what in the fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Everyone sees everything (public caching).
    Open,
    /// Everyone sees `test://**`; only the subject `ada` sees `secret://hidden`, so answers depend
    /// on the principal (private caching). The tests run as an anonymous principal.
    Restricted,
}

/// The fixture engine: three static resources (text, a PNG blob, a watched text) and a hidden
/// one, a template with a completer, a template whose reads fail, pages of two.
pub(crate) fn engine(access: Access) -> Engine {
    let text = uri("test://static-text");
    let binary = uri("test://static-binary");
    let watched = uri("test://watched-resource");
    let hidden = uri("secret://hidden");
    let png: &[u8] = &[
        0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d,
    ];
    let template = ResourceTemplate::new(
        UriTemplate::parse("test://template/{id}/data").expect("fixture template"),
        "template-data",
    )
    .with_mime_type("application/json");
    let function = FunctionTemplate::new(template, |uri, variables| {
        let id = variables.get_str("id").unwrap_or_default().to_owned();
        let contents = Contents::text(uri.clone(), format!("{{\"id\":\"{id}\"}}"))
            .with_mime_type("application/json");
        async move { Ok(vec![contents]) }
    })
    .with_completer(|request| {
        let values: Vec<String> = ["123", "124", "200"]
            .into_iter()
            .filter(|value| value.starts_with(request.prefix))
            .map(str::to_owned)
            .collect();
        async move { Ok(values) }
    });
    let failing = ResourceTemplate::new(
        UriTemplate::parse("test://failing/{how}").expect("fixture template"),
        "failing",
    );
    let failing = FunctionTemplate::new(failing, |_, variables| {
        let error = if variables.get_str("how") == Some("public") {
            ProviderError::public("the backing store is offline")
        } else {
            ProviderError::new("secret detail: /srv/data is unreadable")
        };
        async move { Err(error) }
    });
    let mut builder = Engine::builder(CursorKey::new([7; 32]))
        .limits(Limits {
            page_size: NonZeroUsize::new(2).expect("two"),
            default_ttl_ms: 60_000,
            ..Limits::default()
        })
        .static_resource(
            Resource::new(text.clone(), "static-text")
                .with_title("Static text")
                .with_mime_type("text/plain"),
            vec![
                Contents::text(text, "Hello from a static resource.").with_mime_type("text/plain"),
            ],
        )
        .static_resource(
            Resource::new(binary.clone(), "static-binary").with_mime_type("image/png"),
            vec![Contents::bytes(binary, png).with_mime_type("image/png")],
        )
        .static_resource(
            Resource::new(watched.clone(), "watched-resource").with_mime_type("text/plain"),
            vec![Contents::text(watched, "watch me").with_mime_type("text/plain")],
        )
        .static_resource(
            Resource::new(hidden.clone(), "hidden"),
            vec![Contents::text(hidden, "not for everyone")],
        )
        .template(function)
        .template(failing);
    if access == Access::Restricted {
        let policy = PatternPolicy::new()
            .grant(
                Grantee::Anyone,
                ActionSet::ALL,
                UriPattern::parse("test://**").expect("fixture pattern"),
            )
            .grant(
                Grantee::Subject("ada".into()),
                ActionSet::ALL,
                UriPattern::parse("secret://**").expect("fixture pattern"),
            );
        builder = builder.policy(Arc::new(policy));
    }
    builder.build().expect("fixture engine")
}

/// The fixture service and a handler configured from its offer.
pub(crate) fn setup(access: Access, offer: Offer) -> (Service, Handler) {
    let service = Service::with_offer(engine(access), offer, SubscriptionLimits::default());
    let mut server_info = Implementation::new("mcp-resources-test", "0.1.0");
    server_info.title = Some("Test server".into());
    let mut config = ModernConfig::new(server_info);
    config.instructions = Some("Read test://static-text first.".into());
    config.offer = service.offer();
    config.legacy_versions = vec![ProtocolVersion::V2025_11_25, ProtocolVersion::V2025_06_18];
    (service, Handler::new(Arc::new(config)))
}

/// Decodes one request the test wrote.
pub(crate) fn request(json: &str) -> Request {
    match jsonrpc::decode(json.as_bytes()) {
        Ok(Incoming::Single(Message::Request(request))) => request,
        other => panic!("test input is not a single request: {json}: {other:?}"),
    }
}

/// One exchange being driven, with what the driver knows about it.
pub(crate) struct Driven {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) exchange: Exchange,
    pub(crate) subscriber: Option<SubscriberId>,
    /// Messages of this exchange seen so far (for the ack-first rule).
    pub(crate) sent: usize,
}

/// What driving an exchange produced, rendered one line per event.
pub(crate) fn pump(service: &Service, driven: &mut Driven, lines: &mut Vec<String>) {
    let principal = Principal::anonymous();
    while let Some(output) = driven.exchange.poll_output() {
        match output {
            Output::Send(outgoing) => {
                let text = String::from_utf8(outgoing.bytes.clone()).expect("utf-8 message");
                assert_eq!(
                    outgoing.related.as_ref(),
                    Some(&driven.id),
                    "related of {text}"
                );
                check_message(driven, &text, outgoing.is_response);
                driven.sent += 1;
                lines.push(format!("< {text}"));
                if outgoing.is_response && driven.exchange.http_status() != 200 {
                    lines.push(format!("= http {}", driven.exchange.http_status()));
                }
            }
            Output::Query { ticket, query } => {
                if matches!(query, mcp_resources_core::service::Query::Listen { .. })
                    && driven.subscriber.is_none()
                {
                    driven.subscriber = Some(service.add_subscriber());
                }
                let context = QueryContext {
                    principal: &principal,
                    subscriber: driven.subscriber,
                };
                let answer = pollster::block_on(service.answer(context, query));
                driven.exchange.handle_answer(ticket, answer);
            }
            Output::Cancel { .. } => lines.push("= query cancelled".to_owned()),
        }
    }
    if driven.exchange.is_finished() {
        if let Some(subscriber) = driven.subscriber.take() {
            service.remove_subscriber(subscriber);
        }
    }
}

/// The schema type of a result, by the method of its request.
fn result_type(method: &str) -> &'static str {
    match method {
        "server/discover" => "DiscoverResult",
        // The Skills extension reuses the list's result for directories; its own results are
        // in no schema of the base protocol: checked as results, with `resultType` (and their
        // own shape by the transcripts' exact lines).
        "resources/list" | "resources/directory/read" => "ListResourcesResult",
        "skills/list" | "skills/get" => "CacheableResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        other => panic!("a result for a method we do not serve: {other}"),
    }
}

pub(crate) fn validate_value(type_name: &str, value: &Value) {
    if testing::spec_dir().is_none() {
        return;
    }
    if let Err(error) = testing::validate(&ProtocolVersion::V2026_07_28, type_name, value) {
        panic!("schema violation: {error}");
    }
}

/// Whether the schema type describes the whole response (it has an `error` member) rather than
/// the error object.
fn describes_response(type_name: &str) -> bool {
    let Ok(schema) = testing::schema(&ProtocolVersion::V2026_07_28) else {
        return false;
    };
    schema["$defs"][type_name]["properties"]
        .get("error")
        .is_some()
}

/// Every check a server message must pass: its JSON-RPC envelope, its concrete schema type, and
/// what the schema cannot express.
pub(crate) fn check_message(driven: &Driven, text: &str, is_response: bool) {
    let message: Value = serde_json::from_str(text).expect("server message is json");
    assert!(!text.contains('\n'), "compact json: {text}");
    let id = driven.id.to_value();
    if let Some(result) = message.get("result") {
        assert!(is_response, "a result is the response: {text}");
        assert_eq!(message["id"], id, "response id keeps its json type: {text}");
        validate_value("JSONRPCResultResponse", &message);
        validate_value(result_type(&driven.method), result);
        assert_eq!(result["resultType"], "complete", "resultType: {text}");
        assert!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string(),
            "serverInfo in result _meta: {text}"
        );
        if matches!(
            driven.method.as_str(),
            "server/discover" | "resources/list" | "resources/templates/list" | "resources/read"
        ) {
            assert!(result["ttlMs"].is_u64(), "integer ttlMs: {text}");
            let scope = result["cacheScope"].as_str().unwrap_or_default();
            assert!(
                scope == "public" || scope == "private",
                "cacheScope: {text}"
            );
        }
        if driven.method == "subscriptions/listen" {
            assert_eq!(
                result["_meta"]["io.modelcontextprotocol/subscriptionId"], id,
                "listen result carries the subscription id with its json type: {text}"
            );
        }
        if driven.method == "resources/read" {
            assert!(
                !result["contents"].as_array().is_none_or(Vec::is_empty),
                "a read never answers with empty contents: {text}"
            );
        }
    } else if let Some(error) = message.get("error") {
        assert!(is_response, "an error is the response: {text}");
        assert_eq!(message["id"], id, "error id keeps its json type: {text}");
        validate_value("JSONRPCErrorResponse", &message);
        let type_name = match error["code"].as_i64() {
            Some(-32602) => "InvalidParamsError",
            Some(-32601) => "MethodNotFoundError",
            Some(-32603) => "InternalError",
            Some(-32022) => "UnsupportedProtocolVersionError",
            Some(-32021) => "MissingRequiredClientCapabilityError",
            Some(-32020) => "HeaderMismatchError",
            other => panic!("an error code this era never sends: {other:?}: {text}"),
        };
        if describes_response(type_name) {
            validate_value(type_name, &message);
        } else {
            validate_value(type_name, error);
        }
    } else {
        assert!(!is_response, "a notification is not the response: {text}");
        let method = message["method"].as_str().expect("notification method");
        let type_name = match method {
            "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
            "notifications/resources/updated" => "ResourceUpdatedNotification",
            "notifications/resources/list_changed" => "ResourceListChangedNotification",
            "notifications/progress" => "ProgressNotification",
            "notifications/message" => "LoggingMessageNotification",
            other => panic!("a notification this era never sends: {other}"),
        };
        validate_value("JSONRPCNotification", &message);
        validate_value(type_name, &message);
        let tag = &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
        if driven.exchange.is_listen() {
            assert_eq!(*tag, id, "listen notifications carry the typed id: {text}");
            if driven.sent == 0 {
                assert_eq!(
                    method, "notifications/subscriptions/acknowledged",
                    "the acknowledgment comes first"
                );
            }
            assert!(
                !matches!(method, "notifications/progress" | "notifications/message"),
                "no request-scoped notification on a listen stream: {text}"
            );
        } else {
            assert!(
                tag.is_null(),
                "request-scoped notifications carry no subscription id"
            );
        }
    }
}
