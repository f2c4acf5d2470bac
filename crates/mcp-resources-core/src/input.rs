//! Input a read needs from the client before it can be answered: a question for the user
//! (elicitation), a completion from the client's model (sampling) or the client's roots.
//!
//! **Layer:** core, domain values only. A provider or a template function that needs input
//! fails its read with [`ProviderError::input_required`](crate::provider::ProviderError::input_required)
//! and an [`InputRequired`]; the engine answers [`ReadError::InputRequired`](crate::error::ReadError::InputRequired);
//! each adapter does its era's plumbing (2026-07-28: an `InputRequiredResult` and a retry
//! carrying `inputResponses` and `requestState`; the legacy era: the server's own
//! `elicitation/create`, `sampling/createMessage` or `roots/list` requests during the session,
//! then the read asked again). The retry's answers reach the provider as [`Inputs`]
//! ([`ReadRequest::inputs`](crate::provider::ReadRequest::inputs)). This module must never know
//! JSON, a method name or an era: the adapters convert.
//!
//! The state a read hands the client to echo ([`InputRequired::state`]) is attacker-controlled
//! when it comes back: whoever makes one must protect its integrity (the engine's confirmations
//! bind theirs with an HMAC, see the `sensitive` module).

use std::collections::BTreeMap;

/// What a read needs before it can be answered: requests for the client, by key, and an opaque
/// state to be echoed with the answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputRequired {
    /// The requests, by a key unique within this read; the answers come back under the same keys.
    pub requests: BTreeMap<String, InputRequest>,
    /// Opaque state the client echoes exactly on the retry; `None` when none is needed.
    pub state: Option<String>,
}

impl InputRequired {
    /// One request under `key`, no state.
    pub fn one(key: impl Into<String>, request: InputRequest) -> InputRequired {
        InputRequired {
            requests: BTreeMap::from([(key.into(), request)]),
            state: None,
        }
    }

    /// The same, with `state` to be echoed.
    #[must_use]
    pub fn with_state(mut self, state: impl Into<String>) -> InputRequired {
        self.state = Some(state.into());
        self
    }
}

/// One request for the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputRequest {
    /// Ask the user through a form (the client declared `elicitation`).
    Elicit(Elicitation),
    /// Ask the client's model for a message (the client declared `sampling`).
    Sample(Sampling),
    /// Ask for the client's roots (the client declared `roots`).
    ListRoots,
}

impl InputRequest {
    /// The client capability the request needs: `"elicitation"`, `"sampling"` or `"roots"`.
    pub fn capability(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "elicitation",
            InputRequest::Sample(_) => "sampling",
            InputRequest::ListRoots => "roots",
        }
    }
}

/// A form for the user: a message and flat fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elicitation {
    /// What the user is asked, and why.
    pub message: String,
    /// The fields of the form, in order.
    pub fields: Vec<Field>,
}

/// One field of an [`Elicitation`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The key of the answer.
    pub name: String,
    /// A label for people.
    pub title: Option<String>,
    /// A longer explanation.
    pub description: Option<String>,
    /// What it holds.
    pub kind: FieldKind,
    /// Whether an accepted form must hold it.
    pub required: bool,
}

/// What a [`Field`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Yes or no, with an optional default.
    Boolean {
        /// The value shown first.
        default: Option<bool>,
    },
    /// Free text.
    Text,
    /// A whole number.
    Integer,
    /// One of these values.
    Choice(Vec<String>),
}

/// A request for one message of the client's model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sampling {
    /// The conversation so far, text only.
    pub messages: Vec<(Role, String)>,
    /// An optional system prompt.
    pub system_prompt: Option<String>,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
}

/// Who said a message of a [`Sampling`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// The client's answer to one [`InputRequest`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputResponse {
    /// The answer to an [`InputRequest::Elicit`].
    Elicit {
        /// What the user did.
        action: ElicitAction,
        /// The values of an accepted form, by field name.
        content: BTreeMap<String, FieldValue>,
    },
    /// The answer to an [`InputRequest::Sample`]: the model's text (empty when it answered
    /// something else) and the model's name.
    Sample {
        /// The text.
        text: String,
        /// The model that wrote it.
        model: String,
    },
    /// The answer to an [`InputRequest::ListRoots`]: the roots' URIs.
    Roots(Vec<String>),
    /// An answer of none of these shapes, or the client's error instead of an answer.
    Unusable,
}

/// What the user did with a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted it.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

/// One value of an accepted form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// Text.
    Text(String),
    /// A whole number.
    Integer(i64),
    /// Yes or no.
    Boolean(bool),
    /// Several choices.
    List(Vec<String>),
}

/// The answers a retried read carries, with the state it echoes; empty on a first read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The client's answers, by the keys of the requests.
    pub responses: BTreeMap<String, InputResponse>,
    /// The state echoed from the [`InputRequired`] answered, unverified.
    pub state: Option<String>,
}

impl Inputs {
    /// No answers and no state: a first read.
    pub fn none() -> &'static Inputs {
        static NONE: Inputs = Inputs {
            responses: BTreeMap::new(),
            state: None,
        };
        &NONE
    }

    /// Whether there is nothing: no answers and no state.
    pub fn is_empty(&self) -> bool {
        self.responses.is_empty() && self.state.is_none()
    }
}
