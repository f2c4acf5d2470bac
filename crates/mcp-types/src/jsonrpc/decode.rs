//! Decoding bytes into JSON-RPC messages, with a typed error for everything that is not one.
//!
//! **Layer:** wire types. The decoder tells a single message from a batch and classifies every
//! failure as `-32700` (not JSON) or `-32600` (JSON, but not a JSON-RPC message), keeping the
//! request id whenever it can be read so the error response can echo it, and what the message was
//! meant to be ([`Meant`]): JSON-RPC answers an invalid request but never a notification or a
//! response, however malformed ([`DecodeError::is_answered`]). Whether a batch is legal is a
//! per-version fact ([`crate::ProtocolVersion::allows_batches`]) that adapters enforce; this
//! module never knows versions or methods.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use super::envelope::{
    ErrorCode, ErrorObject, INVALID_REQUEST, JsonRpcVersion, Message, Notification, PARSE_ERROR,
    Request, Response,
};
use super::id::{RequestId, RequestIdError};
use crate::echo::echo;

/// What [`decode`] found: one message or a batch (a JSON array) of them.
#[derive(Debug)]
pub enum Incoming {
    /// A single JSON object that is a valid JSON-RPC message.
    Single(Message),
    /// A non-empty JSON array; each element decoded on its own.
    Batch(Vec<Result<Message, DecodeError>>),
}

/// Why bytes could not be decoded into a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not valid JSON (`-32700`).
    #[error("invalid json: {0}")]
    InvalidJson(String),
    /// Valid JSON that is not a JSON-RPC message (`-32600`).
    #[error("invalid json-rpc message: {reason}")]
    InvalidMessage {
        /// The request id, when it could be read.
        id: Option<RequestId>,
        /// What is wrong.
        reason: InvalidMessage,
        /// What the message was meant to be, as its members tell.
        meant: Meant,
    },
}

/// What an invalid message was meant to be, as far as the members it has tell (their values
/// may be wrong). JSON-RPC 2.0 answers a request, even an invalid one, but never a
/// notification or a response: an invalid one of those is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meant {
    /// A `method` member with an `id` member (`null` or invalid included): answered.
    Request,
    /// A `method` member without an `id` member, and no `result` or `error`: never answered.
    Notification,
    /// A `result` or an `error` member without a `method` member: never answered.
    Response,
    /// Nothing tells (not an object, no envelope, or members of more than one kind): answered,
    /// as an invalid request.
    Unknown,
}

/// What makes valid JSON not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidMessage {
    /// The batch array is empty.
    #[error("empty batch")]
    EmptyBatch,
    /// The message is not a JSON object (for example a number or a string).
    #[error("message is not a json object")]
    NotAnObject,
    /// The object does not fit the envelope (for example a duplicated member).
    #[error("malformed message: {0}")]
    Malformed(String),
    /// There is no `jsonrpc` member.
    #[error("missing jsonrpc member")]
    MissingVersion,
    /// The `jsonrpc` member is not the string `"2.0"` (its raw JSON, cut to the first 64
    /// characters).
    #[error("jsonrpc member must be \"2.0\", got {0}")]
    WrongVersion(String),
    /// The `id` member is not an integer or a string.
    #[error("invalid id: {0}")]
    InvalidId(RequestIdError),
    /// The `method` member is not a string (its raw JSON, cut to the first 64 characters).
    #[error("method must be a string, got {0}")]
    MethodNotString(String),
    /// `params` is neither an object nor an array (its raw JSON, cut to the first 64
    /// characters).
    #[error("params must be an object or an array, got {0}")]
    ParamsNotStructured(String),
    /// A message has `method` together with `result` or `error`.
    #[error("message has both method and a result or error")]
    MethodWithResult,
    /// A response has both `result` and `error`.
    #[error("response has both result and error")]
    BothResultAndError,
    /// A message has none of `method`, `result` and `error`.
    #[error("message has no method, result or error")]
    NoMethodResultOrError,
    /// A success response has no `id`.
    #[error("result response has no id")]
    ResultWithoutId,
    /// The `error` member is not a valid error object.
    #[error("invalid error object: {0}")]
    InvalidErrorObject(String),
}

impl DecodeError {
    fn invalid(id: Option<RequestId>, reason: InvalidMessage) -> Self {
        DecodeError::invalid_as(id, reason, Meant::Unknown)
    }

    fn invalid_as(id: Option<RequestId>, reason: InvalidMessage, meant: Meant) -> Self {
        DecodeError::InvalidMessage { id, reason, meant }
    }

    /// Whether the error is to be answered: `false` for a would-be notification or response
    /// ([`Meant`]), which JSON-RPC never answers; `true` for invalid JSON and anything else.
    pub fn is_answered(&self) -> bool {
        match self {
            DecodeError::InvalidJson(_) => true,
            DecodeError::InvalidMessage { meant, .. } => {
                !matches!(meant, Meant::Notification | Meant::Response)
            }
        }
    }

    /// The JSON-RPC code to answer with: `-32700` or `-32600`.
    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::InvalidJson(_) => PARSE_ERROR,
            DecodeError::InvalidMessage { .. } => INVALID_REQUEST,
        }
    }

    /// The request id read from the message, if any.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            DecodeError::InvalidJson(_) => None,
            DecodeError::InvalidMessage { id, .. } => id.as_ref(),
        }
    }

    /// The error object to answer with.
    pub fn to_error_object(&self) -> ErrorObject {
        let message = match self {
            DecodeError::InvalidJson(_) => "Parse error",
            DecodeError::InvalidMessage { .. } => "Invalid Request",
        };
        ErrorObject::new(self.code(), message).with_data(Value::from(self.to_string()))
    }

    /// The error response to send back, echoing the id when it was readable.
    pub fn to_response(&self) -> Response {
        Response::error(self.id().cloned(), self.to_error_object())
    }
}

/// Decodes UTF-8 JSON bytes into a single message or a batch.
///
/// A single invalid message is an `Err`; inside a batch each element carries its own result, and
/// only an unparsable or empty batch is an `Err` as a whole.
pub fn decode(input: &[u8]) -> Result<Incoming, DecodeError> {
    match input.iter().find(|byte| !byte.is_ascii_whitespace()) {
        // Valid UTF-8 (every message worth answering) is checked once here, so that the members
        // borrowed as raw JSON are not checked again one by one; anything else goes the byte
        // way, which gives the same errors.
        Some(b'{') => match std::str::from_utf8(input) {
            Ok(text) => decode_object_str(text).map(Incoming::Single),
            Err(_) => decode_object(input).map(Incoming::Single),
        },
        Some(b'[') => {
            let elements = serde_json::from_slice::<Vec<&RawValue>>(input)
                .map_err(|error| classify(input, error))?;
            if elements.is_empty() {
                return Err(DecodeError::invalid(None, InvalidMessage::EmptyBatch));
            }
            Ok(Incoming::Batch(
                elements.into_iter().map(decode_element).collect(),
            ))
        }
        _ => match serde_json::from_slice::<IgnoredAny>(input) {
            Ok(_) => Err(DecodeError::invalid(None, InvalidMessage::NotAnObject)),
            Err(error) => Err(DecodeError::InvalidJson(error.to_string())),
        },
    }
}

/// Decodes a JSON text into a single message or a batch; see [`decode`].
pub fn decode_str(input: &str) -> Result<Incoming, DecodeError> {
    decode(input.as_bytes())
}

/// Tells invalid JSON from valid JSON that failed to fit the envelope.
fn classify(input: &[u8], error: serde_json::Error) -> DecodeError {
    if serde_json::from_slice::<IgnoredAny>(input).is_ok() {
        DecodeError::invalid(
            None,
            InvalidMessage::Malformed(echo(&error.to_string()).into_owned()),
        )
    } else {
        DecodeError::InvalidJson(error.to_string())
    }
}

fn decode_element(raw: &RawValue) -> Result<Message, DecodeError> {
    if raw.get().starts_with('{') {
        decode_object(raw.get().as_bytes())
    } else {
        Err(DecodeError::invalid(None, InvalidMessage::NotAnObject))
    }
}

/// The members of an envelope as raw JSON, `null` kept apart from absent.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Decodes one JSON object in a single pass over its bytes.
fn decode_object(input: &[u8]) -> Result<Message, DecodeError> {
    let envelope: Envelope<'_> =
        serde_json::from_slice(input).map_err(|error| match classify(input, error) {
            DecodeError::InvalidMessage { reason, .. } => {
                DecodeError::invalid(readable_id(input), reason)
            }
            invalid_json => invalid_json,
        })?;
    from_envelope(envelope)
}

/// [`decode_object`] for input already known to be UTF-8.
fn decode_object_str(input: &str) -> Result<Message, DecodeError> {
    let envelope: Envelope<'_> =
        serde_json::from_str(input).map_err(|error| match classify(input.as_bytes(), error) {
            DecodeError::InvalidMessage { reason, .. } => {
                DecodeError::invalid(readable_id(input.as_bytes()), reason)
            }
            invalid_json => invalid_json,
        })?;
    from_envelope(envelope)
}

impl Meant {
    /// What the members an envelope has tell.
    fn of(envelope: &Envelope<'_>) -> Meant {
        let answer = envelope.result.is_some() || envelope.error.is_some();
        match (envelope.method.is_some(), envelope.id.is_some(), answer) {
            (true, true, false) => Meant::Request,
            (true, false, false) => Meant::Notification,
            (false, _, true) => Meant::Response,
            (true, _, true) | (false, _, false) => Meant::Unknown,
        }
    }
}

/// The message an envelope holds, or what keeps it from being one.
fn from_envelope(envelope: Envelope<'_>) -> Result<Message, DecodeError> {
    let meant = Meant::of(&envelope);
    // An `id: null` is only tolerated on an error response; everywhere else it is invalid.
    let id_is_null = envelope.id.is_some_and(|id| id.get() == "null");
    let id = match envelope.id {
        Some(_) if id_is_null => None,
        Some(id) => Some(RequestId::from_json(id.get()).map_err(|error| {
            DecodeError::invalid_as(None, InvalidMessage::InvalidId(error), meant)
        })?),
        None => None,
    };
    let invalid = |reason| DecodeError::invalid_as(id.clone(), reason, meant);

    match envelope.jsonrpc {
        None => return Err(invalid(InvalidMessage::MissingVersion)),
        Some(version) if version.get() == "\"2.0\"" => {}
        Some(version) => {
            if serde_json::from_str::<JsonRpcVersion>(version.get()).is_err() {
                return Err(invalid(InvalidMessage::WrongVersion(excerpt(
                    version.get(),
                ))));
            }
        }
    }

    if let Some(method) = envelope.method {
        if envelope.result.is_some() || envelope.error.is_some() {
            return Err(invalid(InvalidMessage::MethodWithResult));
        }
        // Borrowed when it has no escape (always, for the methods MCP defines).
        let method: String = match serde_json::from_str::<&str>(method.get()) {
            Ok(method) => method.to_owned(),
            Err(_) => serde_json::from_str(method.get())
                .map_err(|_| invalid(InvalidMessage::MethodNotString(excerpt(method.get()))))?,
        };
        let params = match envelope.params {
            Some(params) if params.get().starts_with(['{', '[']) => Some(params.to_owned()),
            Some(params) => {
                return Err(invalid(InvalidMessage::ParamsNotStructured(excerpt(
                    params.get(),
                ))));
            }
            None => None,
        };
        return Ok(match id {
            Some(id) => Message::Request(Request::new(id, method, params)),
            None if id_is_null => {
                return Err(invalid(InvalidMessage::InvalidId(RequestIdError::Null)));
            }
            None => Message::Notification(Notification::new(method, params)),
        });
    }

    match (envelope.result, envelope.error) {
        (Some(_), Some(_)) => Err(invalid(InvalidMessage::BothResultAndError)),
        (None, None) => Err(invalid(InvalidMessage::NoMethodResultOrError)),
        (Some(result), None) => match id {
            Some(id) => Ok(Message::Response(Response::success(id, result.to_owned()))),
            None => Err(invalid(InvalidMessage::ResultWithoutId)),
        },
        (None, Some(error)) => {
            let error: ErrorObject = serde_json::from_str(error.get()).map_err(|error| {
                let reason = echo(&error.to_string()).into_owned();
                invalid(InvalidMessage::InvalidErrorObject(reason))
            })?;
            Ok(Message::Response(Response::error(id, error)))
        }
    }
}

/// The most characters of an offending member an error quotes.
const EXCERPT_CHARS: usize = 64;

/// The raw JSON of an offending member, cut to its first [`EXCERPT_CHARS`] characters: the error
/// (and every log line quoting it) must not grow with what a peer sends.
fn excerpt(raw: &str) -> String {
    match raw.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}... ({} bytes)", &raw[..end], raw.len()),
        None => raw.to_owned(),
    }
}

/// Best effort: the `id` of a JSON object that failed to decode as an envelope.
fn readable_id(input: &[u8]) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: Value,
    }
    let IdOnly { id } = serde_json::from_slice(input).ok()?;
    RequestId::from_value(&id).ok()
}
