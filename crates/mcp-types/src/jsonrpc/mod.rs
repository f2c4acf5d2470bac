//! The JSON-RPC 2.0 envelope shared by every MCP version: requests, notifications, responses,
//! error objects, and the decoder that turns bytes into one of them.
//!
//! **Layer:** wire types. The envelope keeps `params` and `result` as raw JSON
//! ([`RawValue`]) so that an adapter deserializes them straight into the typed params of the
//! method it dispatches to, without an intermediate `serde_json::Value`. For sending, the
//! envelope types are generic over their payload, so a typed result is serialized in one pass.
//! This module must never know method names, protocol versions or what a resource is.

mod decode;
mod envelope;
mod id;

pub use serde_json::value::RawValue;

pub use self::decode::{DecodeError, Incoming, InvalidMessage, Meant, decode, decode_str};
pub use self::envelope::{
    ErrorCode, ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, JsonRpcVersion,
    METHOD_NOT_FOUND, Message, Notification, Outcome, PARSE_ERROR, ParamsError, Request, Response,
    to_vec,
};
pub use self::id::{RequestId, RequestIdError};
