//! The typed `_meta` every modern (2026-07-28) request must carry: [`RequestMeta`], parsed from
//! the open map with an error that says exactly which required key is missing or malformed.
//!
//! **Layer:** wire types, above the area modules whose types it holds (capabilities,
//! `Implementation`, the log level) and above [`crate::meta`], whose key names it reads. It must
//! never decide what a missing or malformed key means for the response (that is the modern
//! adapter's job), nor know the legacy era, where `_meta` is optional and untyped.

use serde_json::Value;

use crate::capabilities::ClientCapabilities;
use crate::echo::echo;
use crate::lifecycle::Implementation;
use crate::logging::LoggingLevel;
use crate::meta::{
    CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, Meta, PROGRESS_TOKEN, PROTOCOL_VERSION,
    ProgressToken,
};
use crate::version::ProtocolVersion;

/// The typed `_meta` of a modern request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// The version this request speaks (required).
    pub protocol_version: ProtocolVersion,
    /// What the client supports for this request (required; `{}` means nothing optional).
    pub client_capabilities: ClientCapabilities,
    /// Who the client says it is (for logs only).
    pub client_info: Option<Implementation>,
    /// The log level the client opted into for this request.
    pub log_level: Option<LoggingLevel>,
    /// The progress token the client opted into for this request.
    pub progress_token: Option<ProgressToken>,
    /// Every other key, kept as it came.
    pub other: Meta,
}

/// Why a modern request `_meta` is not valid (answered with `-32602`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestMetaError {
    /// `io.modelcontextprotocol/protocolVersion` is absent.
    #[error("missing _meta key io.modelcontextprotocol/protocolVersion")]
    MissingProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities` is absent.
    #[error("missing _meta key io.modelcontextprotocol/clientCapabilities")]
    MissingClientCapabilities,
    /// A reserved key is present but its value has the wrong shape.
    #[error("invalid _meta key {key}: {reason}")]
    Invalid {
        /// The key whose value is malformed.
        key: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

fn typed<T: serde::de::DeserializeOwned>(
    key: &'static str,
    value: &Value,
) -> Result<T, RequestMetaError> {
    // serde quotes the offending value: echoed, as every client value an error quotes is.
    T::deserialize(value).map_err(|error| RequestMetaError::Invalid {
        key,
        reason: echo(&error.to_string()).into_owned(),
    })
}

/// Like [`typed`] for object-shaped values: serde would otherwise read a struct from an array.
fn typed_object<T: serde::de::DeserializeOwned>(
    key: &'static str,
    value: &Value,
) -> Result<T, RequestMetaError> {
    if !value.is_object() {
        return Err(RequestMetaError::Invalid {
            key,
            reason: format!("expected an object, got {}", echo(&value.to_string())),
        });
    }
    typed(key, value)
}

impl RequestMeta {
    /// Request metadata with the two required keys and nothing else.
    pub fn new(protocol_version: ProtocolVersion, client_capabilities: ClientCapabilities) -> Self {
        RequestMeta {
            protocol_version,
            client_capabilities,
            client_info: None,
            log_level: None,
            progress_token: None,
            other: Meta::new(),
        }
    }

    /// Parses a request `_meta`, naming the first required key that is missing or malformed.
    pub fn parse(meta: &Meta) -> Result<Self, RequestMetaError> {
        let protocol_version = match meta.get(PROTOCOL_VERSION) {
            Some(Value::String(version)) => ProtocolVersion::new(version.as_str()),
            Some(other) => {
                return Err(RequestMetaError::Invalid {
                    key: PROTOCOL_VERSION,
                    reason: format!("expected a string, got {other}"),
                });
            }
            None => return Err(RequestMetaError::MissingProtocolVersion),
        };
        let client_capabilities = match meta.get(CLIENT_CAPABILITIES) {
            Some(value) => typed_object(CLIENT_CAPABILITIES, value)?,
            None => return Err(RequestMetaError::MissingClientCapabilities),
        };
        let client_info = meta
            .get(CLIENT_INFO)
            .map(|value| typed_object(CLIENT_INFO, value))
            .transpose()?;
        let log_level = meta
            .get(LOG_LEVEL)
            .map(|value| typed(LOG_LEVEL, value))
            .transpose()?;
        let progress_token = meta
            .get(PROGRESS_TOKEN)
            .map(|value| typed(PROGRESS_TOKEN, value))
            .transpose()?;
        let other = meta
            .iter()
            .filter(|(key, _)| {
                ![
                    PROTOCOL_VERSION,
                    CLIENT_CAPABILITIES,
                    CLIENT_INFO,
                    LOG_LEVEL,
                    PROGRESS_TOKEN,
                ]
                .contains(&key.as_str())
            })
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        Ok(RequestMeta {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
            other,
        })
    }

    /// The `_meta` map for this metadata, as a client sends it.
    pub fn to_meta(&self) -> Meta {
        let mut meta = self.other.clone();
        meta.insert(
            PROTOCOL_VERSION.into(),
            Value::from(self.protocol_version.as_str()),
        );
        meta.insert(
            CLIENT_CAPABILITIES.into(),
            to_json(&self.client_capabilities),
        );
        if let Some(info) = &self.client_info {
            meta.insert(CLIENT_INFO.into(), to_json(info));
        }
        if let Some(level) = &self.log_level {
            meta.insert(LOG_LEVEL.into(), to_json(level));
        }
        if let Some(token) = &self.progress_token {
            meta.insert(PROGRESS_TOKEN.into(), token.to_value());
        }
        meta
    }
}

/// Converts one of our wire types to JSON. They have string keys and no fallible `Serialize`,
/// so the conversion cannot fail; `Null` would only appear for a foreign type.
fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
