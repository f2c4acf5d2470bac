//! The JSON-RPC request id, kept exactly as the peer wrote it.
//!
//! **Layer:** wire types. An id is either a JSON integer or a JSON string, and the two are never
//! confused: `1` and `"1"` are different ids, and an adapter must echo the one it received. This
//! module knows nothing of methods, versions or sessions.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON-RPC request id: an integer or a string, never `null`, a float or anything else.
///
/// The JSON type is preserved: `RequestId::Number(1)` serializes as `1`, `RequestId::String("1")`
/// as `"1"`. The same shape is used for progress tokens and listen subscription ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id such as `7`.
    Number(i64),
    /// A string id such as `"listen-1"`.
    String(String),
}

/// Why a JSON value is not a valid request id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestIdError {
    /// The id was `null`, which MCP forbids for requests.
    #[error("request id must not be null")]
    Null,
    /// The id was a number with a fraction or exponent, such as `1.5`.
    #[error("request id must be an integer or a string, got the number {0}")]
    NotAnInteger(String),
    /// The id was an integer outside the range of `i64`.
    #[error("request id {0} is out of range")]
    OutOfRange(String),
    /// The id was a boolean, an array or an object.
    #[error("request id must be an integer or a string, got {0}")]
    WrongType(&'static str),
}

impl RequestId {
    /// Reads an id from an already parsed JSON value, with a typed reason when it is not one.
    pub fn from_value(value: &Value) -> Result<Self, RequestIdError> {
        match value {
            Value::String(text) => Ok(RequestId::String(text.clone())),
            Value::Number(number) => {
                if let Some(integer) = number.as_i64() {
                    Ok(RequestId::Number(integer))
                } else if number.is_u64() {
                    Err(RequestIdError::OutOfRange(number.to_string()))
                } else {
                    Err(RequestIdError::NotAnInteger(number.to_string()))
                }
            }
            Value::Null => Err(RequestIdError::Null),
            Value::Bool(_) => Err(RequestIdError::WrongType("a boolean")),
            Value::Array(_) => Err(RequestIdError::WrongType("an array")),
            Value::Object(_) => Err(RequestIdError::WrongType("an object")),
        }
    }

    /// Reads an id from raw JSON text, with a typed reason when it is not one.
    pub fn from_json(text: &str) -> Result<Self, RequestIdError> {
        match serde_json::from_str::<RequestId>(text) {
            Ok(id) => Ok(id),
            Err(_) => match serde_json::from_str::<Value>(text) {
                Ok(value) => Self::from_value(&value),
                Err(_) => Err(RequestIdError::WrongType("invalid json")),
            },
        }
    }

    /// The id as JSON, with its JSON type.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(number) => Value::from(*number),
            RequestId::String(text) => Value::from(text.as_str()),
        }
    }
}

impl fmt::Display for RequestId {
    /// Writes the id as JSON: integers bare, strings quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(number) => write!(f, "{number}"),
            RequestId::String(text) => write!(f, "{}", Value::from(text.as_str())),
        }
    }
}

impl From<i64> for RequestId {
    fn from(number: i64) -> Self {
        RequestId::Number(number)
    }
}

impl From<&str> for RequestId {
    fn from(text: &str) -> Self {
        RequestId::String(text.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(text: String) -> Self {
        RequestId::String(text)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(number) => serializer.serialize_i64(*number),
            RequestId::String(text) => serializer.serialize_str(text),
        }
    }
}

struct RequestIdVisitor;

impl Visitor<'_> for RequestIdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer or a string request id")
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<RequestId, E> {
        i64::try_from(value)
            .map(RequestId::Number)
            .map_err(|_| E::custom(RequestIdError::OutOfRange(value.to_string())))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<RequestId, E> {
        Ok(RequestId::String(value))
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RequestIdVisitor)
    }
}

impl JsonSchema for RequestId {
    fn schema_name() -> Cow<'static, str> {
        "RequestId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A uniquely identifying ID for a request in JSON-RPC.",
            "type": ["string", "integer"]
        })
    }
}
