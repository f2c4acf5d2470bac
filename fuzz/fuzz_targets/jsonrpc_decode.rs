//! Fuzz target `jsonrpc_decode`: any bytes, as one stdio line or one POST body.
//!
//! Checks that nothing panics and that the readers agree with each other:
//! - `mcp_types::jsonrpc::decode` gives a message or a typed error; an error's response
//!   serializes; a message re-encoded decodes again to the same bytes (a fixed point);
//! - `jsonrpc::decode_request`, when it takes the line, gives the request `decode` gives (id,
//!   method and params);
//! - `jsonrpc::write_string` writes any text byte for byte as serde_json does.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_types::jsonrpc::{self, Incoming, Message, Request};
use mcp_types::method::RESOURCES_READ;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let decoded = jsonrpc::decode(data);
    match &decoded {
        Ok(Incoming::Single(message)) => check_fixed_point(message),
        Ok(Incoming::Batch(elements)) => {
            assert!(!elements.is_empty(), "an empty batch is an error");
            for element in elements {
                match element {
                    Ok(message) => check_fixed_point(message),
                    Err(error) => check_error(error),
                }
            }
        }
        Err(error) => check_error(error),
    }
    let request = match &decoded {
        Ok(Incoming::Single(Message::Request(request))) => Some(request),
        _ => None,
    };

    if let Some((id, params)) = jsonrpc::decode_request::<Map<String, Value>>(data, RESOURCES_READ)
    {
        let request =
            request.expect("decode_request took a line decode does not read as a request");
        assert_eq!(request.id, id);
        assert_eq!(request.method, RESOURCES_READ);
        assert_eq!(params_of(request), Some(params));
    }

    if let Ok(text) = std::str::from_utf8(data) {
        let mut written = Vec::new();
        jsonrpc::write_string(&mut written, text);
        let serde = serde_json::to_vec(text).expect("a string serializes");
        assert_eq!(written, serde);
    }
});

/// A decoded message, encoded again, decodes to a message that encodes to the same bytes.
fn check_fixed_point(message: &Message) {
    let bytes = jsonrpc::to_vec(message).expect("a decoded message serializes");
    let again = match jsonrpc::decode(&bytes) {
        Ok(Incoming::Single(again)) => again,
        other => panic!(
            "{} does not decode as one message: {other:?}",
            String::from_utf8_lossy(&bytes)
        ),
    };
    assert_eq!(
        std::mem::discriminant(message),
        std::mem::discriminant(&again)
    );
    let twice = jsonrpc::to_vec(&again).expect("a decoded message serializes");
    assert_eq!(bytes, twice);
}

/// An error says what to answer, and its response serializes.
fn check_error(error: &jsonrpc::DecodeError) {
    let _ = error.is_answered();
    let response = error.to_response();
    assert_eq!(response.id.as_ref(), error.id());
    jsonrpc::to_vec(&response).expect("an error response serializes");
}

/// The params of a request as a JSON object, when they are one.
fn params_of(request: &Request) -> Option<Map<String, Value>> {
    let raw = request.params.as_deref()?;
    serde_json::from_str(raw.get()).ok()
}
