//! Every message kind a resources server produces, built through our types for each of the five
//! versions, validates against that version's `schema.json`: the concrete type (for example
//! `ListResourcesResult`) and the JSON-RPC envelope (`JSONRPCResponse`, `JSONRPCNotification`,
//! the error response, and in 2026-07-28 the `*ResultResponse` type).

use mcp_types::capabilities::ClientCapabilities;
use mcp_types::completion::{self, Completion};
use mcp_types::jsonrpc::{ErrorObject, Notification, Response};
use mcp_types::lifecycle::{self, EmptyResult, MetaParams};
use mcp_types::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcp_types::meta::{self, Meta};
use mcp_types::method;
use mcp_types::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use mcp_types::resources::{self, ResourceUpdatedNotificationParams};
use mcp_types::subscriptions::{
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenResult,
};
use mcp_types::testing;
use mcp_types::v2026_07_28::{self as v2026, CacheHints, CacheScope, ResultType};
use mcp_types::{ProtocolVersion, RequestId};
use serde_json::{Value, json};

use crate::common::*;

/// Validates values for one version and counts the validations.
struct Checker {
    version: ProtocolVersion,
    count: usize,
}

impl Checker {
    fn new(version: ProtocolVersion) -> Self {
        Checker { version, count: 0 }
    }

    fn has_type(&self, type_name: &str) -> bool {
        testing::has_type(&self.version, type_name).expect("schema loads")
    }

    fn valid(&mut self, type_name: &str, value: &Value) {
        if let Err(error) = testing::validate(&self.version, type_name, value) {
            panic!("{error}");
        }
        self.count += 1;
    }

    /// A result: the concrete type, the response envelope, and the `*Response` type if any.
    fn result(&mut self, type_name: &str, result: Value) {
        self.valid(type_name, &result);
        let response = to_json(&Response::success(RequestId::from("req-1"), result));
        self.valid("JSONRPCResponse", &response);
        let concrete = format!("{type_name}Response");
        if self.has_type(&concrete) {
            self.valid(&concrete, &response);
        }
    }

    /// A notification: the concrete type and the envelope.
    fn notification(&mut self, type_name: &str, method: &str, params: Value) {
        let notification = to_json(&Notification::new(method, Some(params)));
        self.valid(type_name, &notification);
        self.valid("JSONRPCNotification", &notification);
    }

    /// An error response: the envelope, then `concrete` (an error-object or a response type).
    fn error(&mut self, id: Option<RequestId>, error: ErrorObject, concrete: Option<&str>) {
        let response = to_json(&Response::<Value>::error(id, error.clone()));
        let envelope = if self.has_type("JSONRPCErrorResponse") {
            "JSONRPCErrorResponse"
        } else {
            "JSONRPCError"
        };
        self.valid(envelope, &response);
        if let Some(concrete) = concrete {
            let whole_response = testing::schema(&self.version).expect("schema")["$defs"][concrete]
                ["required"]
                .as_array()
                .is_some_and(|required| required.contains(&json!("jsonrpc")));
            if whole_response {
                self.valid(concrete, &response);
            } else {
                self.valid(concrete, &to_json(&error));
            }
        }
    }

    fn report(&self) {
        eprintln!("schema validations for {}: {}", self.version, self.count);
    }
}

fn listen_id() -> RequestId {
    RequestId::from("listen-1")
}

fn progress(version: &ProtocolVersion) -> Value {
    let params = ProgressNotificationParams {
        progress_token: RequestId::Number(7),
        progress: 50.into(),
        total: Some(100.into()),
        message: Some("halfway".into()),
        meta: None,
    };
    to_json(&params.for_version(version))
}

fn log_message() -> Value {
    to_json(&LoggingMessageNotificationParams {
        level: LoggingLevel::Warning,
        logger: Some("files".into()),
        data: json!({"error": "permission denied", "path": "/secret"}),
        meta: None,
    })
}

fn cancelled() -> Value {
    to_json(&CancelledNotificationParams {
        request_id: RequestId::Number(3),
        reason: Some("shutting down".into()),
        meta: None,
    })
}

fn completion() -> Completion {
    Completion::from_values((0..150).map(|n| format!("src/file{n}.rs")).collect())
}

fn check_legacy(version: ProtocolVersion) {
    let Some(_) = testing::spec_dir() else { return };
    let mut check = Checker::new(version.clone());
    let v = &version;

    let initialize = lifecycle::InitializeResult {
        protocol_version: version.clone(),
        capabilities: resources_server_capabilities().for_version(v),
        server_info: full_implementation(),
        instructions: Some("Files of the project, as resources.".into()),
        meta: None,
    };
    check.result("InitializeResult", shaped_initialize(v, initialize));
    // ping, resources/subscribe, resources/unsubscribe and logging/setLevel answer `{}`.
    for _method in [
        method::PING,
        method::RESOURCES_SUBSCRIBE,
        method::RESOURCES_UNSUBSCRIBE,
    ] {
        check.result("EmptyResult", to_json(&EmptyResult::default()));
    }
    let page = resources::ListResourcesResult {
        resources: vec![
            full_resource(),
            resources::Resource::new("file:///a.txt", "a.txt"),
        ],
        next_cursor: Some("opaque".into()),
        meta: None,
    };
    check.result("ListResourcesResult", shaped_list(v, page));
    let last_page = resources::ListResourcesResult {
        resources: vec![],
        next_cursor: None,
        meta: None,
    };
    check.result("ListResourcesResult", shaped_list(v, last_page));
    let templates = resources::ListResourceTemplatesResult {
        resource_templates: vec![full_template()],
        next_cursor: None,
        meta: None,
    };
    check.result(
        "ListResourceTemplatesResult",
        shaped_templates(v, templates),
    );
    for contents in [text_contents(), blob_contents()] {
        let read = resources::ReadResourceResult {
            contents: vec![contents],
            meta: None,
        };
        check.result("ReadResourceResult", shaped_read(v, read));
    }
    let both = resources::ReadResourceResult {
        contents: vec![text_contents(), blob_contents()],
        meta: None,
    };
    check.result("ReadResourceResult", shaped_read(v, both));
    check.result(
        "CompleteResult",
        to_json(&completion::CompleteResult {
            completion: completion(),
            meta: None,
        }),
    );

    check.notification(
        "ResourceUpdatedNotification",
        method::NOTIFICATION_RESOURCES_UPDATED,
        to_json(&ResourceUpdatedNotificationParams {
            uri: "file:///a.txt".into(),
            meta: None,
        }),
    );
    check.notification(
        "ResourceListChangedNotification",
        method::NOTIFICATION_RESOURCES_LIST_CHANGED,
        to_json(&MetaParams::default()),
    );
    check.notification(
        "ProgressNotification",
        method::NOTIFICATION_PROGRESS,
        progress(v),
    );
    check.notification(
        "LoggingMessageNotification",
        method::NOTIFICATION_MESSAGE,
        log_message(),
    );
    check.notification(
        "CancelledNotification",
        method::NOTIFICATION_CANCELLED,
        cancelled(),
    );

    let id = Some(RequestId::Number(9));
    check.error(
        id.clone(),
        ErrorObject::resource_not_found_legacy("file:///nope"),
        None,
    );
    check.error(
        id.clone(),
        ErrorObject::invalid_params("Invalid cursor"),
        None,
    );
    check.error(
        id.clone(),
        ErrorObject::method_not_found("tools/list"),
        None,
    );
    check.error(
        id.clone(),
        ErrorObject::internal_error("provider failed"),
        None,
    );
    check.error(
        id.clone(),
        ErrorObject::invalid_request("batch not allowed"),
        None,
    );
    check.error(id, ErrorObject::parse_error("unexpected end"), None);
    if check.has_type("JSONRPCErrorResponse") {
        // From 2025-11-25 on, an error whose request id could not be read leaves `id` out.
        check.error(None, ErrorObject::parse_error("unexpected end"), None);
    }
    check.report();
}

#[test]
fn produced_messages_validate_for_2024_11_05() {
    check_legacy(ProtocolVersion::V2024_11_05);
}

#[test]
fn produced_messages_validate_for_2025_03_26() {
    check_legacy(ProtocolVersion::V2025_03_26);
}

#[test]
fn produced_messages_validate_for_2025_06_18() {
    check_legacy(ProtocolVersion::V2025_06_18);
}

#[test]
fn produced_messages_validate_for_2025_11_25() {
    check_legacy(ProtocolVersion::V2025_11_25);
}

#[test]
fn produced_messages_validate_for_2026_07_28() {
    let Some(_) = testing::spec_dir() else { return };
    let version = ProtocolVersion::V2026_07_28;
    let mut check = Checker::new(version.clone());
    let server_meta = lifecycle::server_info_meta(&full_implementation());
    let public = CacheHints {
        ttl_ms: 300_000,
        cache_scope: CacheScope::Public,
    };
    let private = CacheHints {
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
    };

    let mut capabilities = resources_server_capabilities();
    capabilities.extensions = Some(Meta::new());
    let discover = v2026::DiscoverResult {
        result_type: ResultType::COMPLETE,
        supported_versions: ProtocolVersion::KNOWN.to_vec(),
        capabilities: capabilities.for_version(&version),
        instructions: Some("Files of the project, as resources.".into()),
        ttl_ms: 3_600_000,
        cache_scope: CacheScope::Public,
        meta: Some(server_meta.clone()),
    };
    check.result("DiscoverResult", to_json(&discover));

    let mut page = v2026::ListResourcesResult::new(
        vec![
            full_resource(),
            resources::Resource::new("file:///a.txt", "a.txt"),
        ],
        Some("opaque".into()),
        public,
    );
    page.meta = Some(server_meta.clone());
    check.result("ListResourcesResult", to_json(&page));
    check.result(
        "ListResourcesResult",
        to_json(&v2026::ListResourcesResult::<v2026::Resource>::new(
            vec![],
            None,
            private,
        )),
    );
    check.result(
        "ListResourceTemplatesResult",
        to_json(&v2026::ListResourceTemplatesResult::new(
            vec![full_template()],
            None,
            public,
        )),
    );
    for contents in [
        vec![text_contents()],
        vec![blob_contents()],
        vec![text_contents(), blob_contents()],
    ] {
        check.result(
            "ReadResourceResult",
            to_json(&v2026::ReadResourceResult::new(contents, private)),
        );
    }
    check.result(
        "CompleteResult",
        to_json(&v2026::CompleteResult {
            result_type: ResultType::COMPLETE,
            completion: completion(),
            meta: Some(server_meta),
        }),
    );
    check.result(
        "SubscriptionsListenResult",
        to_json(&SubscriptionsListenResult {
            result_type: ResultType::COMPLETE,
            meta: meta::subscription_meta(&listen_id()),
        }),
    );

    let acknowledged = SubscriptionsAcknowledgedNotificationParams {
        meta: meta::subscription_meta(&listen_id()),
        notifications: SubscriptionFilter {
            resources_list_changed: Some(true),
            resource_subscriptions: Some(vec!["file:///a.txt".into()]),
            ..Default::default()
        },
    };
    check.notification(
        "SubscriptionsAcknowledgedNotification",
        method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
        to_json(&acknowledged),
    );
    check.notification(
        "ResourceUpdatedNotification",
        method::NOTIFICATION_RESOURCES_UPDATED,
        to_json(&ResourceUpdatedNotificationParams {
            uri: "file:///a.txt".into(),
            meta: Some(meta::subscription_meta(&listen_id())),
        }),
    );
    check.notification(
        "ResourceListChangedNotification",
        method::NOTIFICATION_RESOURCES_LIST_CHANGED,
        to_json(&MetaParams {
            meta: Some(meta::subscription_meta(&RequestId::Number(4))),
        }),
    );
    check.notification(
        "ProgressNotification",
        method::NOTIFICATION_PROGRESS,
        progress(&version),
    );
    check.notification(
        "LoggingMessageNotification",
        method::NOTIFICATION_MESSAGE,
        log_message(),
    );
    let mut close = CancelledNotificationParams {
        request_id: listen_id(),
        reason: Some("server shutting down".into()),
        meta: None,
    };
    check.notification(
        "CancelledNotification",
        method::NOTIFICATION_CANCELLED,
        to_json(&close),
    );
    close.reason = None;
    check.notification(
        "CancelledNotification",
        method::NOTIFICATION_CANCELLED,
        to_json(&close),
    );

    let id = Some(RequestId::Number(9));
    let required = ClientCapabilities {
        elicitation: Some(Default::default()),
        ..Default::default()
    };
    let errors = [
        (
            ErrorObject::resource_not_found("file:///nope"),
            "InvalidParamsError",
        ),
        (
            ErrorObject::invalid_params("Invalid cursor"),
            "InvalidParamsError",
        ),
        (
            ErrorObject::method_not_found("resources/subscribe"),
            "MethodNotFoundError",
        ),
        (
            ErrorObject::internal_error("provider failed"),
            "InternalError",
        ),
        (
            ErrorObject::invalid_request("batches are not allowed"),
            "InvalidRequestError",
        ),
        (
            ErrorObject::header_mismatch("Mcp-Method header is missing"),
            "HeaderMismatchError",
        ),
        (
            ErrorObject::missing_required_client_capability(required),
            "MissingRequiredClientCapabilityError",
        ),
        (
            ErrorObject::unsupported_protocol_version(&ProtocolVersion::KNOWN, "1900-01-01"),
            "UnsupportedProtocolVersionError",
        ),
    ];
    for (error, concrete) in errors {
        check.error(id.clone(), error, Some(concrete));
    }
    check.error(
        None,
        ErrorObject::parse_error("unexpected end"),
        Some("ParseError"),
    );
    check.report();
}

#[test]
fn modern_result_types_are_not_legacy_results() {
    // A modern result converted for a legacy session loses exactly the modern fields.
    let modern = v2026::ReadResourceResult::new(
        vec![text_contents()],
        CacheHints {
            ttl_ms: 5,
            cache_scope: CacheScope::Private,
        },
    );
    let legacy: resources::ReadResourceResult = modern.into();
    let value = to_json(&legacy);
    assert_eq!(value.get("resultType"), None);
    assert_eq!(value.get("ttlMs"), None);
    assert_eq!(value.get("cacheScope"), None);
    assert_eq!(value["contents"][0]["text"], json!("# Project\n"));
    let completion = completion();
    assert_eq!(completion.values.len(), completion::MAX_COMPLETION_VALUES);
    assert_eq!(completion.total, Some(150));
    assert_eq!(completion.has_more, Some(true));
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let Some(_) = testing::spec_dir() else { return };
    for version in ProtocolVersion::KNOWN {
        let no_uri = json!({"name": "a.txt"});
        let error = testing::validate(&version, "Resource", &no_uri).unwrap_err();
        assert!(error.contains("uri"), "{version}: {error}");
        let bad_priority = json!({"uri": "file:///a", "name": "a", "annotations": {"priority": 2}});
        assert!(
            testing::validate(&version, "Resource", &bad_priority).is_err(),
            "{version}"
        );
        let string_id = json!({"jsonrpc": "2.0", "id": 1.5, "result": {}});
        assert!(
            testing::validate(&version, "JSONRPCResponse", &string_id).is_err(),
            "{version}"
        );
    }
    let modern = ProtocolVersion::V2026_07_28;
    let no_ttl = json!({"resultType": "complete", "resources": [], "cacheScope": "public"});
    assert!(testing::validate(&modern, "ListResourcesResult", &no_ttl).is_err());
    let unknown = testing::validate(&modern, "InitializeResult", &json!({})).unwrap_err();
    assert_eq!(unknown, "schema of 2026-07-28 has no type InitializeResult");
}
