//! Hand-written legacy fixtures (`tests/fixtures/<version>/`, client requests and server
//! messages) deserialize into that version's types, round-trip unchanged (so they hold no field
//! the version's types lack), and validate against the version's schema.

use std::path::Path;

use mcp_types::jsonrpc::{self, Incoming, Message, Notification, Request, Response};
use mcp_types::{ProtocolVersion, method, testing};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixture_files(version: &ProtocolVersion) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(version.as_str());
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| {
            let path = entry.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read_to_string(&path).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

fn validate(version: &ProtocolVersion, type_name: &str, value: &Value) {
    if testing::spec_dir().is_some() {
        testing::validate(version, type_name, value).unwrap_or_else(|error| panic!("{error}"));
    }
}

fn round_trip<T: DeserializeOwned + Serialize>(file: &str, text: &str) -> Value {
    let original: Value = serde_json::from_str(text).expect("fixture is json");
    let typed: T = serde_json::from_str(text).unwrap_or_else(|error| {
        panic!(
            "{file} does not parse as {}: {error}",
            std::any::type_name::<T>()
        )
    });
    assert_eq!(
        serde_json::to_value(&typed).expect("json"),
        original,
        "{file} changed"
    );
    original
}

fn request<P: DeserializeOwned + Serialize>(
    version: &ProtocolVersion,
    file: &str,
    text: &str,
    type_name: &str,
    method: &str,
) {
    let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode_str(text) else {
        panic!("{file} is not a single request");
    };
    assert_eq!(request.method, method, "{file}");
    request
        .params::<P>()
        .unwrap_or_else(|error| panic!("{file}: {error}"));
    let original = round_trip::<Request<P>>(file, text);
    validate(version, type_name, &original);
    validate(version, "JSONRPCRequest", &original);
}

fn response<R: DeserializeOwned + Serialize>(
    version: &ProtocolVersion,
    file: &str,
    text: &str,
    type_name: &str,
) {
    let Ok(Incoming::Single(Message::Response(_))) = jsonrpc::decode_str(text) else {
        panic!("{file} is not a single response");
    };
    let original = round_trip::<Response<R>>(file, text);
    validate(version, type_name, &original["result"]);
    validate(version, "JSONRPCResponse", &original);
}

fn notification<P: DeserializeOwned + Serialize>(
    version: &ProtocolVersion,
    file: &str,
    text: &str,
    type_name: &str,
) {
    let original = round_trip::<Notification<P>>(file, text);
    validate(version, type_name, &original);
    validate(version, "JSONRPCNotification", &original);
}

fn batch(version: &ProtocolVersion, file: &str, text: &str) {
    assert!(
        version.allows_batches(),
        "{file}: batches are illegal in {version}"
    );
    let Ok(Incoming::Batch(messages)) = jsonrpc::decode_str(text) else {
        panic!("{file} is not a batch");
    };
    assert_eq!(messages.len(), 3);
    assert!(messages.iter().all(Result::is_ok), "{file}: {messages:?}");
    validate(
        version,
        "JSONRPCBatchRequest",
        &serde_json::from_str(text).expect("json"),
    );
}

macro_rules! fixtures {
    ($test:ident, $version:expr, $wire:ident) => {
        #[test]
        fn $test() {
            use mcp_types::$wire as wire;
            let version = $version;
            let files = fixture_files(&version);
            for (file, text) in &files {
                let (file, text) = (file.as_str(), text.as_str());
                let v = &version;
                match file {
                    "initialize-request.json" => request::<wire::InitializeParams>(
                        v,
                        file,
                        text,
                        "InitializeRequest",
                        method::INITIALIZE,
                    ),
                    "initialize-result.json" => {
                        response::<wire::InitializeResult>(v, file, text, "InitializeResult")
                    }
                    "list-request.json" => request::<wire::PaginatedParams>(
                        v,
                        file,
                        text,
                        "ListResourcesRequest",
                        method::RESOURCES_LIST,
                    ),
                    "list-result.json" => {
                        response::<wire::ListResourcesResult>(v, file, text, "ListResourcesResult")
                    }
                    "read-request.json" => request::<wire::ReadResourceParams>(
                        v,
                        file,
                        text,
                        "ReadResourceRequest",
                        method::RESOURCES_READ,
                    ),
                    "read-result.json" => {
                        response::<wire::ReadResourceResult>(v, file, text, "ReadResourceResult")
                    }
                    "subscribe-request.json" => request::<wire::SubscribeParams>(
                        v,
                        file,
                        text,
                        "SubscribeRequest",
                        method::RESOURCES_SUBSCRIBE,
                    ),
                    "templates-result.json" => response::<wire::ListResourceTemplatesResult>(
                        v,
                        file,
                        text,
                        "ListResourceTemplatesResult",
                    ),
                    "updated-notification.json" => notification::<
                        wire::ResourceUpdatedNotificationParams,
                    >(
                        v, file, text, "ResourceUpdatedNotification"
                    ),
                    "complete-request.json" => request::<wire::CompleteParams>(
                        v,
                        file,
                        text,
                        "CompleteRequest",
                        method::COMPLETION_COMPLETE,
                    ),
                    "batch-request.json" => batch(v, file, text),
                    other => panic!("fixture {other} has no check"),
                }
            }
            assert!(
                files.len() >= 10,
                "{version}: only {} fixtures",
                files.len()
            );
        }
    };
}

fixtures!(
    fixtures_2024_11_05,
    ProtocolVersion::V2024_11_05,
    v2024_11_05
);
fixtures!(
    fixtures_2025_03_26,
    ProtocolVersion::V2025_03_26,
    v2025_03_26
);
fixtures!(
    fixtures_2025_06_18,
    ProtocolVersion::V2025_06_18,
    v2025_06_18
);
fixtures!(
    fixtures_2025_11_25,
    ProtocolVersion::V2025_11_25,
    v2025_11_25
);

#[test]
fn a_2025_06_18_resource_does_not_fit_the_2024_11_05_types() {
    // The 2024-11-05 types drop `title`, so this round trip must fail.
    let text = r#"{"uri": "file:///a", "name": "a", "title": "A"}"#;
    let old: mcp_types::v2024_11_05::Resource = serde_json::from_str(text).expect("tolerated");
    assert_eq!(
        serde_json::to_value(old).expect("json"),
        serde_json::json!({"uri": "file:///a", "name": "a"})
    );
}
