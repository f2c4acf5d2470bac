//! The JSON-RPC 2.0 envelope itself: requests, notifications, responses, error objects with the
//! codes JSON-RPC defines, and their serialization.
//!
//! **Layer:** wire types, inside [`jsonrpc`](super), below the decoder ([`super::decode()`])
//! and the other helpers of the envelope, which all use these types. It must never know method
//! names, protocol versions, what a resource is, or the error codes MCP adds
//! ([`crate::error`]).

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::id::RequestId;
use crate::echo::echo;

/// The `"jsonrpc": "2.0"` member: serializes as `"2.0"` and accepts nothing else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl JsonRpcVersion {
    /// The only version string JSON-RPC 2.0 allows.
    pub const TEXT: &'static str = "2.0";
}

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(Self::TEXT)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VersionVisitor;
        impl Visitor<'_> for VersionVisitor {
            type Value = JsonRpcVersion;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the string \"2.0\"")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<JsonRpcVersion, E> {
                if value == JsonRpcVersion::TEXT {
                    Ok(JsonRpcVersion)
                } else {
                    Err(E::invalid_value(de::Unexpected::Str(value), &self))
                }
            }
        }
        deserializer.deserialize_str(VersionVisitor)
    }
}

impl JsonSchema for JsonRpcVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonRpcVersion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "const": "2.0" })
    }
}

/// A JSON-RPC request: it has an id and expects exactly one response.
///
/// `P` is the params type: raw JSON when decoded by [`decode()`](super::decode()), a typed
/// params struct when built by a client or a test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request<P = Box<RawValue>> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id the response must echo, with its JSON type.
    pub id: RequestId,
    /// The method name, such as `resources/read`.
    pub method: String,
    /// The params, absent when the sender left them out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// A JSON-RPC notification: no id, and the receiver must not answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Notification<P = Box<RawValue>> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name, such as `notifications/resources/updated`.
    pub method: String,
    /// The params, absent when the sender left them out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// The params of a request or notification do not have the shape the method needs (-32602).
#[derive(Debug, thiserror::Error)]
#[error("invalid params: {0}")]
pub struct ParamsError(#[from] pub serde_json::Error);

impl ParamsError {
    /// The `-32602` error object to answer with; its message [`echo`]ed, since serde quotes the
    /// offending value (an unknown variant, a string of the wrong type).
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::invalid_params(echo(&self.to_string()))
    }
}

fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ParamsError> {
    // Absent params read as an empty object, so a method whose params are all optional accepts a
    // request without them and a method with a required field reports that field.
    let text = params.map_or("{}", RawValue::get);
    // Every MCP method names its params: a by-position array would otherwise be mapped onto the
    // struct's fields in declaration order (serde reads a struct from a sequence).
    if text.starts_with('[') {
        return Err(ParamsError(de::Error::custom(
            "params must be an object, got an array",
        )));
    }
    Ok(serde_json::from_str(text)?)
}

impl<P> Request<P> {
    /// A request with the given id, method and params.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<P>) -> Self {
        Request {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params,
        }
    }
}

impl Request {
    /// Deserializes the raw params into the typed params of the method (absent params read as
    /// `{}`).
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, ParamsError> {
        parse_params(self.params.as_deref())
    }
}

impl<P> Notification<P> {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Option<P>) -> Self {
        Notification {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
        }
    }
}

impl Notification {
    /// Deserializes the raw params into the typed params of the method (absent params read as
    /// `{}`).
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, ParamsError> {
        parse_params(self.params.as_deref())
    }
}

/// A JSON-RPC error code. Open: any integer is accepted; the codes MCP defines are constants
/// (the JSON-RPC 2.0 ones below, MCP's in [`crate::error`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

// The codes JSON-RPC 2.0 itself defines; the MCP ones are in `crate::error`.

/// `-32700`: the bytes are not valid JSON.
pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
/// `-32600`: valid JSON, not a valid JSON-RPC request (or a forbidden batch).
pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
/// `-32601`: unknown method, or a capability the server did not advertise.
pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
/// `-32602`: invalid params, invalid cursor, missing modern `_meta` key, and (modern) resource
/// not found.
pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
/// `-32603`: internal error.
pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorObject {
    /// The error code, such as `-32602`.
    pub code: ErrorCode,
    /// A short description of the error.
    pub message: String,
    /// Extra information whose shape depends on the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object with the given code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` set.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700` Parse error.
    pub fn parse_error(detail: impl Into<String>) -> Self {
        ErrorObject::new(PARSE_ERROR, format!("Parse error: {}", detail.into()))
    }

    /// `-32600` Invalid Request.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        ErrorObject::new(
            INVALID_REQUEST,
            format!("Invalid Request: {}", detail.into()),
        )
    }

    /// `-32601` Method not found, naming the method ([`echo`]ed).
    pub fn method_not_found(method: &str) -> Self {
        ErrorObject::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", echo(method)),
        )
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorObject::new(INVALID_PARAMS, message)
    }

    /// `-32603` Internal error.
    pub fn internal_error(message: impl Into<String>) -> Self {
        ErrorObject::new(INTERNAL_ERROR, message)
    }
}

/// The outcome a response carries: a result or an error, never both.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<R> {
    /// The `result` member.
    Success(R),
    /// The `error` member.
    Failure(ErrorObject),
}

/// A JSON-RPC response: the answer to one request, with its id.
///
/// `id` is `None` only for an error response to a message whose id could not be read; the
/// field is then left out, as the 2025-11-25 and 2026-07-28 schemas allow. (JSON-RPC 2.0 writes
/// `"id": null` there, and the schemas up to 2025-06-18 require an id on every error; no form
/// satisfies all of them, and a peer cannot correlate such an error either way.)
#[derive(Debug, Clone, PartialEq)]
pub struct Response<R = Box<RawValue>> {
    /// The id of the request this answers.
    pub id: Option<RequestId>,
    /// The result or the error.
    pub outcome: Outcome<R>,
}

impl<R> Response<R> {
    /// A successful response carrying `result`.
    pub fn success(id: RequestId, result: R) -> Self {
        Response {
            id: Some(id),
            outcome: Outcome::Success(result),
        }
    }

    /// An error response. Pass `None` only when the request id could not be read.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Response {
            id,
            outcome: Outcome::Failure(error),
        }
    }

    /// The result, if this is a successful response.
    pub fn result(&self) -> Option<&R> {
        match &self.outcome {
            Outcome::Success(result) => Some(result),
            Outcome::Failure(_) => None,
        }
    }

    /// The error, if this is an error response.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        match &self.outcome {
            Outcome::Success(_) => None,
            Outcome::Failure(error) => Some(error),
        }
    }
}

impl<R: Serialize> Serialize for Response<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", &JsonRpcVersion)?;
        if let Some(id) = &self.id {
            map.serialize_entry("id", id)?;
        }
        match &self.outcome {
            Outcome::Success(result) => map.serialize_entry("result", result)?,
            Outcome::Failure(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl<'de, R: Deserialize<'de>> Deserialize<'de> for Response<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ResponseVisitor<R>(std::marker::PhantomData<R>);
        impl<'de, R: Deserialize<'de>> Visitor<'de> for ResponseVisitor<R> {
            type Value = Response<R>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC response object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Response<R>, A::Error> {
                let mut version = None;
                let mut id = None;
                let mut result = None;
                let mut error = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "jsonrpc" => version = Some(map.next_value::<JsonRpcVersion>()?),
                        "id" => id = map.next_value::<Option<RequestId>>()?,
                        "result" => result = Some(map.next_value::<R>()?),
                        "error" => error = Some(map.next_value::<ErrorObject>()?),
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                if version.is_none() {
                    return Err(de::Error::missing_field("jsonrpc"));
                }
                let outcome = match (result, error) {
                    (Some(result), None) => Outcome::Success(result),
                    (None, Some(error)) => Outcome::Failure(error),
                    (Some(_), Some(_)) => {
                        return Err(de::Error::custom("response has both result and error"));
                    }
                    (None, None) => return Err(de::Error::missing_field("result")),
                };
                if id.is_none() && matches!(outcome, Outcome::Success(_)) {
                    return Err(de::Error::missing_field("id"));
                }
                Ok(Response { id, outcome })
            }
        }
        deserializer.deserialize_map(ResponseVisitor(std::marker::PhantomData))
    }
}

/// One decoded JSON-RPC message with raw params or result.
#[derive(Debug, Clone)]
pub enum Message {
    /// A request (has `method` and `id`).
    Request(Request),
    /// A notification (has `method`, no `id`).
    Notification(Notification),
    /// A response (has `result` or `error`).
    Response(Response),
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(request) => request.serialize(serializer),
            Message::Notification(notification) => notification.serialize(serializer),
            Message::Response(response) => response.serialize(serializer),
        }
    }
}

/// Serializes any envelope or payload as compact JSON bytes, the form every transport sends.
///
/// The wire types of this crate never fail to serialize; an error can only come from a
/// caller's own payload type.
pub fn to_vec<T: Serialize + ?Sized>(message: &T) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(message)
}
