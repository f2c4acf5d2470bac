//! The JSON-RPC envelope: decoding single messages and batches, every way a message can be
//! invalid with its code and echoed id, and property tests (decode never panics, ids round-trip
//! with their JSON type).

use mcp_types::RequestId;
use mcp_types::error;
use mcp_types::jsonrpc::{
    self, DecodeError, ErrorObject, Incoming, InvalidMessage, Meant, Message, RequestIdError,
    Response,
};
use proptest::prelude::*;
use serde_json::Value;

/// A one-line summary of what `decode` made of the input, compared as text.
fn summarize(result: &Result<Message, DecodeError>) -> String {
    match result {
        Ok(Message::Request(request)) => format!(
            "request id={} method={} params={}",
            request.id,
            request.method,
            request.params.as_ref().map_or("-", |params| params.get())
        ),
        Ok(Message::Notification(notification)) => format!(
            "notification method={} params={}",
            notification.method,
            notification
                .params
                .as_ref()
                .map_or("-", |params| params.get())
        ),
        Ok(Message::Response(response)) => format!(
            "response id={} {}",
            response
                .id
                .as_ref()
                .map_or("-".to_owned(), ToString::to_string),
            match response.result() {
                Some(result) => format!("result={}", result.get()),
                None => format!("error={}", response.error_object().expect("error").code),
            }
        ),
        Err(error) => format!(
            "{} id={} {}",
            error.code(),
            error.id().map_or("-".to_owned(), ToString::to_string),
            error
        ),
    }
}

fn check(input: &str, expect: &str) {
    let actual = match jsonrpc::decode_str(input) {
        Ok(Incoming::Single(message)) => summarize(&Ok(message)),
        Ok(Incoming::Batch(messages)) => {
            let parts: Vec<String> = messages.iter().map(summarize).collect();
            format!("batch[{}]", parts.join(" | "))
        }
        Err(error) => summarize(&Err(error)),
    };
    assert_eq!(actual, expect, "input: {input}");
}

#[test]
fn decodes_valid_messages() {
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
        "request id=1 method=resources/list params=-",
    );
    check(
        r#"{"jsonrpc":"2.0","id":"1","method":"resources/read","params":{"uri":"file:///a"}}"#,
        r#"request id="1" method=resources/read params={"uri":"file:///a"}"#,
    );
    check(
        r#" {"method":"notifications/initialized","jsonrpc":"2.0"} "#,
        "notification method=notifications/initialized params=-",
    );
    check(
        r#"{"jsonrpc":"2.0","id":-5,"result":{}}"#,
        "response id=-5 result={}",
    );
    check(
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        "response id=- error=-32700",
    );
    check(
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#,
        "response id=- error=-32600",
    );
    check(
        r#"{"jsonrpc":"2.0","id":2,"method":"ping","extra":true}"#,
        "request id=2 method=ping params=-",
    );
}

#[test]
fn rejects_invalid_json_with_parse_error() {
    check(
        r#"{"jsonrpc":"2.0","id":1"#,
        "-32700 id=- invalid json: EOF while parsing an object at line 1 column 23",
    );
    check(
        "",
        "-32700 id=- invalid json: EOF while parsing a value at line 1 column 0",
    );
    check(
        "nope",
        "-32700 id=- invalid json: expected ident at line 1 column 2",
    );
    check(
        r#"[{"jsonrpc":"2.0"},"#,
        "-32700 id=- invalid json: EOF while parsing a value at line 1 column 19",
    );
    check(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
        "-32700 id=- invalid json: trailing characters at line 1 column 42",
    );
}

#[test]
fn rejects_valid_json_that_is_not_a_message_with_invalid_request() {
    check(
        "42",
        "-32600 id=- invalid json-rpc message: message is not a json object",
    );
    check("[]", "-32600 id=- invalid json-rpc message: empty batch");
    check(
        r#"{"id":3,"method":"ping"}"#,
        "-32600 id=3 invalid json-rpc message: missing jsonrpc member",
    );
    check(
        r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
        r#"-32600 id="a" invalid json-rpc message: jsonrpc member must be "2.0", got "1.0""#,
    );
    check(
        r#"{"jsonrpc":2,"id":4,"method":"ping"}"#,
        r#"-32600 id=4 invalid json-rpc message: jsonrpc member must be "2.0", got 2"#,
    );
    check(
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: invalid id: request id must not be null",
    );
    check(
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: invalid id: request id must be an integer or a string, got the number 1.5",
    );
    check(
        r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: invalid id: request id must be an integer or a string, got a boolean",
    );
    check(
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: invalid id: request id must be an integer or a string, got an object",
    );
    check(
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: invalid id: request id 18446744073709551615 is out of range",
    );
    check(
        r#"{"jsonrpc":"2.0","id":5,"method":7}"#,
        "-32600 id=5 invalid json-rpc message: method must be a string, got 7",
    );
    check(
        r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#,
        r#"-32600 id=6 invalid json-rpc message: params must be an object or an array, got "x""#,
    );
    check(
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}"#,
        "-32600 id=7 invalid json-rpc message: message has both method and a result or error",
    );
    check(
        r#"{"jsonrpc":"2.0","id":8,"result":{},"error":{"code":1,"message":"m"}}"#,
        "-32600 id=8 invalid json-rpc message: response has both result and error",
    );
    check(
        r#"{"jsonrpc":"2.0","id":9}"#,
        "-32600 id=9 invalid json-rpc message: message has no method, result or error",
    );
    check(
        r#"{"jsonrpc":"2.0","result":{}}"#,
        "-32600 id=- invalid json-rpc message: result response has no id",
    );
    check(
        r#"{"jsonrpc":"2.0","id":10,"error":{"code":"x"}}"#,
        "-32600 id=10 invalid json-rpc message: invalid error object: invalid type: string \"x\", expected i64 at line 1 column 11",
    );
    check(
        r#"{"jsonrpc":"2.0","id":11,"id":12,"method":"ping"}"#,
        "-32600 id=- invalid json-rpc message: malformed message: duplicate field `id` at line 1 column 29",
    );
}

/// Whether the error decoding `input` is to be answered, and what the message was meant to be.
fn check_answered(input: &str, meant: Meant, answered: bool) {
    let error = match jsonrpc::decode_str(input) {
        Err(error) => error,
        Ok(message) => panic!("{input} must not decode, got {message:?}"),
    };
    assert!(
        matches!(&error, DecodeError::InvalidMessage { meant: found, .. } if *found == meant),
        "{input}: {error:?}"
    );
    assert_eq!(error.is_answered(), answered, "{input}: {error:?}");
}

#[test]
fn invalid_notifications_and_responses_are_never_answered() {
    // Would-be responses: a `result` or `error`, no `method`, whatever else is wrong.
    check_answered(r#"{"jsonrpc":"2.0","result":{}}"#, Meant::Response, false);
    check_answered(
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}"#,
        Meant::Response,
        false,
    );
    check_answered(
        r#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#,
        Meant::Response,
        false,
    );
    check_answered(r#"{"id":5,"result":{}}"#, Meant::Response, false);
    check_answered(
        r#"{"jsonrpc":"2.0","id":{},"result":{}}"#,
        Meant::Response,
        false,
    );
    // Would-be notifications: a `method`, no `id` member.
    check_answered(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
        Meant::Notification,
        false,
    );
    check_answered(
        r#"{"jsonrpc":"2.0","method":7}"#,
        Meant::Notification,
        false,
    );
    check_answered(
        r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        Meant::Notification,
        false,
    );
    // Requests, even invalid ones, and messages nothing tells are answered.
    check_answered(
        r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#,
        Meant::Request,
        true,
    );
    check_answered(
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        Meant::Request,
        true,
    );
    check_answered(
        r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
        Meant::Request,
        true,
    );
    check_answered(r#"{"jsonrpc":"2.0","id":9}"#, Meant::Unknown, true);
    check_answered(
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}"#,
        Meant::Unknown,
        true,
    );
    check_answered("42", Meant::Unknown, true);
    assert!(jsonrpc::decode_str("{").unwrap_err().is_answered());
    // Inside a batch, each element is told apart on its own.
    let Ok(Incoming::Batch(elements)) = jsonrpc::decode_str(
        r#"[{"jsonrpc":"2.0","result":{}},{"jsonrpc":"2.0","method":7},{"jsonrpc":"2.0","id":1,"method":7}]"#,
    ) else {
        panic!("a batch");
    };
    let answered: Vec<bool> = elements
        .iter()
        .map(|element| element.as_ref().unwrap_err().is_answered())
        .collect();
    assert_eq!(answered, [false, false, true]);
}

#[test]
fn decodes_batches_element_by_element() {
    check(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},3,{"id":"x","method":"ping"}]"#,
        r#"batch[request id=1 method=ping params=- | notification method=notifications/initialized params=- | -32600 id=- invalid json-rpc message: message is not a json object | -32600 id="x" invalid json-rpc message: missing jsonrpc member]"#,
    );
}

#[test]
fn decode_errors_become_responses_echoing_the_id() {
    let error = match jsonrpc::decode_str(r#"{"id":"abc","method":"ping"}"#) {
        Err(error) => error,
        Ok(_) => panic!("must not decode"),
    };
    assert!(matches!(
        error,
        DecodeError::InvalidMessage {
            reason: InvalidMessage::MissingVersion,
            ..
        }
    ));
    let json = jsonrpc::to_vec(&error.to_response()).expect("serializes");
    let value: Value = serde_json::from_slice(&json).expect("json");
    assert_eq!(value["id"], Value::from("abc"));
    assert_eq!(value["error"]["code"], Value::from(-32600));

    let parse = jsonrpc::decode_str("{").unwrap_err();
    let value = serde_json::to_value(parse.to_response()).expect("json");
    assert_eq!(value.get("id"), None, "an unreadable id is left out");
    assert_eq!(value["error"]["code"], Value::from(-32700));
}

#[test]
fn typed_params_come_straight_from_the_raw_params() {
    let Ok(Incoming::Single(Message::Request(request))) = jsonrpc::decode_str(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///x","extra":1}}"#,
    ) else {
        panic!("a request");
    };
    let params: mcp_types::resources::ReadResourceParams = request.params().expect("params");
    assert_eq!(params.uri, "file:///x");
    let missing: Result<mcp_types::resources::ReadResourceParams, _> =
        jsonrpc::Request::<Box<jsonrpc::RawValue>>::new(2, "resources/read", None).params();
    let error = missing.unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid params: missing field `uri` at line 1 column 2"
    );
    assert_eq!(error.to_error_object().code, error::INVALID_PARAMS);
}

#[test]
fn errors_quote_at_most_an_excerpt_of_a_hostile_member() {
    // A peer must not make the error response (and every log line quoting it) as large as its
    // own message: only the start of an offending member is quoted.
    let huge = "x".repeat(1 << 20);
    for message in [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":"{huge}"}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":["{huge}"]}}"#),
        format!(r#"{{"jsonrpc":"{huge}","id":1,"method":"ping"}}"#),
    ] {
        let error = jsonrpc::decode_str(&message).unwrap_err();
        assert_eq!(error.id(), Some(&RequestId::Number(1)));
        let response = jsonrpc::to_vec(&error.to_response()).expect("serializes");
        assert!(response.len() < 400, "{} bytes", response.len());
    }
    // A short member is still quoted whole.
    check(
        r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"é"}"#,
        r#"-32600 id=6 invalid json-rpc message: params must be an object or an array, got "é""#,
    );
}

#[test]
fn typed_params_are_never_read_by_position() {
    // MCP defines every method's params as an object; a JSON-RPC by-position array must not be
    // mapped onto the fields in declaration order (`["x"]` is not `{"cursor": "x"}`).
    let Ok(Incoming::Single(Message::Request(request))) =
        jsonrpc::decode_str(r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":["x"]}"#)
    else {
        panic!("a request");
    };
    let error = request
        .params::<mcp_types::resources::PaginatedParams>()
        .unwrap_err();
    assert_eq!(error.to_error_object().code, error::INVALID_PARAMS);
    assert!(error.to_string().contains("object"), "{error}");
    let Ok(Incoming::Single(Message::Notification(notification))) =
        jsonrpc::decode_str(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[7]}"#)
    else {
        panic!("a notification");
    };
    assert!(
        notification
            .params::<mcp_types::notifications::CancelledNotificationParams>()
            .is_err()
    );
}

#[test]
fn responses_serialize_compactly() {
    let ok = Response::success(RequestId::from("r"), serde_json::json!({"a": 1}));
    assert_eq!(
        String::from_utf8(jsonrpc::to_vec(&ok).expect("json")).expect("utf-8"),
        r#"{"jsonrpc":"2.0","id":"r","result":{"a":1}}"#
    );
    let failed: Response<Value> = Response::error(
        Some(RequestId::Number(3)),
        ErrorObject::method_not_found("tools/list"),
    );
    assert_eq!(
        String::from_utf8(jsonrpc::to_vec(&failed).expect("json")).expect("utf-8"),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: tools/list"}}"#
    );
}

#[test]
fn request_id_errors_are_typed() {
    let cases: [(&str, Result<RequestId, RequestIdError>); 6] = [
        ("1", Ok(RequestId::Number(1))),
        (r#""1""#, Ok(RequestId::String("1".into()))),
        ("null", Err(RequestIdError::Null)),
        ("1.0", Err(RequestIdError::NotAnInteger("1.0".into()))),
        ("[1]", Err(RequestIdError::WrongType("an array"))),
        ("false", Err(RequestIdError::WrongType("a boolean"))),
    ];
    for (input, expect) in cases {
        assert_eq!(RequestId::from_json(input), expect, "input: {input}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = jsonrpc::decode(&bytes);
    }

    #[test]
    fn decoding_json_like_text_never_panics(text in r#"[\[\]{}":,0-9a-z .\-]{0,64}"#) {
        let _ = jsonrpc::decode_str(&text);
    }

    #[test]
    fn integer_ids_round_trip_as_numbers(id in any::<i64>()) {
        let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let Ok(Incoming::Single(Message::Request(decoded))) = jsonrpc::decode_str(&request) else {
            panic!("a request");
        };
        prop_assert_eq!(&decoded.id, &RequestId::Number(id));
        let response = serde_json::to_value(Response::success(decoded.id, serde_json::json!({})))
            .expect("json");
        prop_assert_eq!(&response["id"], &Value::from(id));
    }

    #[test]
    fn string_ids_round_trip_as_strings(id in any::<String>()) {
        let request = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let Ok(Incoming::Single(Message::Request(decoded))) = jsonrpc::decode_str(&request) else {
            panic!("a request");
        };
        prop_assert_eq!(&decoded.id, &RequestId::String(id.clone()));
        let response = serde_json::to_value(Response::success(decoded.id, serde_json::json!({})))
            .expect("json");
        prop_assert_eq!(&response["id"], &Value::from(id));
    }
}
