//! The core's input requests and responses (see `mcp_resources_core::input`) as the wire
//! writes them: `elicitation/create`, `sampling/createMessage` and `roots/list` requests, and
//! the client's results read back, in both eras (the modern `inputRequests` and
//! `inputResponses` maps hold the same objects the legacy era sends as requests).
//!
//! **Layer:** wire conversion. It never decides whether a client may be asked (the adapters
//! check its capabilities), never trusts a response beyond its shape, and never knows a
//! session or an error code.

use std::collections::BTreeMap;

use mcp_resources_core::input::{
    ElicitAction, Elicitation, FieldKind, FieldValue, InputRequest, InputResponse, Role, Sampling,
};
use mcp_types::capabilities::{ClientCapabilities, ListChangedCapability};
use serde_json::{Map, Value, json};

/// The most answers of one retry read back; more are ignored (a read asks a handful).
const MAX_RESPONSES: usize = 64;

/// The client capabilities `requests` need that `declared` lacks, as a capabilities object
/// (what `-32021`'s `data.requiredCapabilities` holds); `None` when nothing is missing.
pub fn missing_capabilities(
    requests: &BTreeMap<String, InputRequest>,
    declared: &ClientCapabilities,
) -> Option<ClientCapabilities> {
    let mut missing = ClientCapabilities::default();
    let mut any = false;
    for request in requests.values() {
        match request {
            InputRequest::Elicit(_) if declared.elicitation.is_none() => {
                missing.elicitation = Some(Map::new());
                any = true;
            }
            InputRequest::Sample(_) if declared.sampling.is_none() => {
                missing.sampling = Some(Map::new());
                any = true;
            }
            InputRequest::ListRoots if declared.roots.is_none() => {
                missing.roots = Some(ListChangedCapability::default());
                any = true;
            }
            _ => {}
        }
    }
    any.then_some(missing)
}

/// The names of the capabilities `missing` holds (`elicitation`, `sampling`, `roots`), as an
/// error message names them.
pub fn capability_names(missing: &ClientCapabilities) -> Vec<&'static str> {
    [
        missing.elicitation.is_some().then_some("elicitation"),
        missing.sampling.is_some().then_some("sampling"),
        missing.roots.is_some().then_some("roots"),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The method and params of `request`. `with_mode` writes an elicitation's `mode: "form"`
/// (2025-11-25 on; 2025-06-18 has no modes).
pub fn request(request: &InputRequest, with_mode: bool) -> (&'static str, Option<Value>) {
    match request {
        InputRequest::Elicit(form) => ("elicitation/create", Some(elicit(form, with_mode))),
        InputRequest::Sample(sampling) => ("sampling/createMessage", Some(sample(sampling))),
        InputRequest::ListRoots => ("roots/list", None),
    }
}

/// The modern `inputRequests` map: each request as `{method, params}`.
pub fn requests(requests: &BTreeMap<String, InputRequest>) -> Map<String, Value> {
    requests
        .iter()
        .map(|(key, input)| {
            let (method, params) = request(input, true);
            let mut object = Map::new();
            object.insert("method".to_owned(), Value::from(method));
            if let Some(params) = params {
                object.insert("params".to_owned(), params);
            }
            (key.clone(), Value::Object(object))
        })
        .collect()
}

fn elicit(form: &Elicitation, with_mode: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in &form.fields {
        let mut schema = match &field.kind {
            FieldKind::Boolean { default } => {
                let mut schema = json!({"type": "boolean"});
                if let Some(default) = default {
                    schema["default"] = Value::Bool(*default);
                }
                schema
            }
            FieldKind::Text => json!({"type": "string"}),
            FieldKind::Integer => json!({"type": "integer"}),
            FieldKind::Choice(values) => json!({"type": "string", "enum": values}),
        };
        if let Some(title) = &field.title {
            schema["title"] = Value::from(title.as_str());
        }
        if let Some(description) = &field.description {
            schema["description"] = Value::from(description.as_str());
        }
        properties.insert(field.name.clone(), schema);
        if field.required {
            required.push(Value::from(field.name.as_str()));
        }
    }
    let mut params = json!({
        "message": form.message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    });
    if with_mode {
        params["mode"] = Value::from("form");
    }
    params
}

fn sample(sampling: &Sampling) -> Value {
    let messages: Vec<Value> = sampling
        .messages
        .iter()
        .map(|(role, text)| {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": {"type": "text", "text": text}})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": sampling.max_tokens});
    if let Some(system) = &sampling.system_prompt {
        params["systemPrompt"] = Value::from(system.as_str());
    }
    params
}

/// The modern `inputResponses` map read back (at most 64 entries).
pub fn responses(map: &Map<String, Value>) -> BTreeMap<String, InputResponse> {
    map.iter()
        .take(MAX_RESPONSES)
        .map(|(key, value)| (key.clone(), response(value)))
        .collect()
}

/// One client result read back by its shape: `action` makes an elicitation's answer, `roots` a
/// roots list, `model` with `content` a sampled message; anything else is
/// [`InputResponse::Unusable`].
pub fn response(value: &Value) -> InputResponse {
    let Some(object) = value.as_object() else {
        return InputResponse::Unusable;
    };
    if let Some(action) = object.get("action").and_then(Value::as_str) {
        let action = match action {
            "accept" => ElicitAction::Accept,
            "decline" => ElicitAction::Decline,
            "cancel" => ElicitAction::Cancel,
            _ => return InputResponse::Unusable,
        };
        let content = object
            .get("content")
            .and_then(Value::as_object)
            .map(|content| {
                content
                    .iter()
                    .filter_map(|(name, value)| Some((name.clone(), field_value(value)?)))
                    .collect()
            })
            .unwrap_or_default();
        return InputResponse::Elicit { action, content };
    }
    if let Some(roots) = object.get("roots").and_then(Value::as_array) {
        let uris = roots
            .iter()
            .filter_map(|root| root.get("uri")?.as_str().map(str::to_owned))
            .collect();
        return InputResponse::Roots(uris);
    }
    if let (Some(model), Some(content)) = (
        object.get("model").and_then(Value::as_str),
        object.get("content"),
    ) {
        let text = content
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return InputResponse::Sample {
            text: text.to_owned(),
            model: model.to_owned(),
        };
    }
    InputResponse::Unusable
}

fn field_value(value: &Value) -> Option<FieldValue> {
    match value {
        Value::String(text) => Some(FieldValue::Text(text.clone())),
        Value::Bool(flag) => Some(FieldValue::Boolean(*flag)),
        Value::Number(number) => number.as_i64().map(FieldValue::Integer),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(FieldValue::List),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use mcp_resources_core::input::Field;

    use super::*;

    #[test]
    fn a_yes_no_form_is_a_flat_schema_and_its_answers_read_back() {
        let form = InputRequest::Elicit(Elicitation {
            message: "Read it?".to_owned(),
            fields: vec![Field {
                name: "confirm".to_owned(),
                title: Some("Allow".to_owned()),
                description: None,
                kind: FieldKind::Boolean {
                    default: Some(false),
                },
                required: true,
            }],
        });
        let (method, params) = request(&form, false);
        assert_eq!(method, "elicitation/create");
        assert_eq!(
            params.unwrap(),
            json!({"message": "Read it?", "requestedSchema": {"type": "object",
                "properties": {"confirm": {"type": "boolean", "default": false, "title": "Allow"}},
                "required": ["confirm"]}})
        );
        assert_eq!(request(&form, true).1.unwrap()["mode"], "form");
        let yes =
            response(&json!({"action": "accept", "content": {"confirm": true, "n": 2, "x": 1.5}}));
        assert_eq!(
            yes,
            InputResponse::Elicit {
                action: ElicitAction::Accept,
                content: BTreeMap::from([
                    ("confirm".to_owned(), FieldValue::Boolean(true)),
                    ("n".to_owned(), FieldValue::Integer(2)),
                ]),
            }
        );
        assert_eq!(
            response(&json!({"action": "decline"})),
            InputResponse::Elicit {
                action: ElicitAction::Decline,
                content: BTreeMap::new()
            }
        );
        assert_eq!(
            response(&json!({"action": "maybe"})),
            InputResponse::Unusable
        );
        assert_eq!(response(&json!("accept")), InputResponse::Unusable);
    }

    #[test]
    fn sampling_and_roots_round_trip_by_shape() {
        let ask = InputRequest::Sample(Sampling {
            messages: vec![(Role::User, "Summarize".to_owned())],
            system_prompt: Some("Be brief".to_owned()),
            max_tokens: 100,
        });
        let map = requests(&BTreeMap::from([
            ("s".to_owned(), ask),
            ("r".to_owned(), InputRequest::ListRoots),
        ]));
        assert_eq!(map["s"]["method"], "sampling/createMessage");
        assert_eq!(
            map["s"]["params"]["messages"][0]["content"]["text"],
            "Summarize"
        );
        assert_eq!(map["r"], json!({"method": "roots/list"}));
        let answers = responses(
            json!({
                "s": {"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m"},
                "r": {"roots": [{"uri": "file:///a"}, {"name": "no uri"}]},
            })
            .as_object()
            .unwrap(),
        );
        assert_eq!(
            answers["s"],
            InputResponse::Sample {
                text: "Short.".to_owned(),
                model: "m".to_owned()
            }
        );
        assert_eq!(
            answers["r"],
            InputResponse::Roots(vec!["file:///a".to_owned()])
        );
    }
}
