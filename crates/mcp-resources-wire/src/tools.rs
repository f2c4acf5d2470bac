//! The resources-as-tools bridge: five tools over the same engine and policy, for hosts that
//! call tools but never read resources (`--tools`; off by default, since one capability offered
//! twice confuses a model choosing between them).
//!
//! **Layer:** wire conversion. It turns a `tools/call`'s name and arguments into a core
//! [`Query`] and the core's [`Answer`] into a `CallToolResult`'s members, and lists the tools'
//! definitions; the adapters route the methods, add their era's members (`resultType`, cache
//! hints) and declare the capability. It never knows a session, an error code or a transport:
//! a bad argument, a missing or denied resource, a failure are tool errors (`isError: true`
//! with a text saying why), the same text for a missing and a denied resource.
//!
//! | tool | arguments | answer |
//! |---|---|---|
//! | `list_resources` | `cursor?`, `prefix?` | a page of resources (JSON text), those under `prefix` |
//! | `read_resource` | `uri`, `offset?`, `length?` | the contents as embedded resources |
//! | `list_resource_templates` | `cursor?` | a page of templates (JSON text) |
//! | `read_directory` | `uri`, `cursor?` | a page of a directory's children (JSON text) |
//! | `complete_template_variable` | `template`, `variable`, `prefix?`, `context?` | values (JSON text) |

use mcp_resources_core::error::{CompleteError, DirectoryError, ListError, ReadError};
use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::resource::ByteRange;
use mcp_resources_core::service::{Answer, Offer, Query};
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use serde_json::{Map, Value, json};

use crate::{Shape, contents, listed, template};

/// The tool names, in the order listed.
pub const TOOL_NAMES: [&str; 5] = [
    "list_resources",
    "read_resource",
    "list_resource_templates",
    "read_directory",
    "complete_template_variable",
];

/// One valid call of a tool.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolCall {
    /// `list_resources`.
    ListResources {
        /// Where to resume.
        cursor: Option<String>,
        /// Only resources whose URI starts with this.
        prefix: Option<String>,
    },
    /// `read_resource`.
    ReadResource {
        /// The resource.
        uri: ResourceUri,
        /// A byte range, for large resources.
        range: Option<ByteRange>,
    },
    /// `list_resource_templates`.
    ListTemplates {
        /// Where to resume.
        cursor: Option<String>,
    },
    /// `read_directory`.
    ReadDirectory {
        /// The directory.
        uri: ResourceUri,
        /// Where to resume.
        cursor: Option<String>,
    },
    /// `complete_template_variable`.
    Complete {
        /// The template's text.
        template: String,
        /// The variable.
        variable: String,
        /// What was typed.
        prefix: String,
        /// The other variables, chosen.
        context: Variables,
    },
}

/// Why a `tools/call` is refused before the core is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// No tool has this name (or its capability is not offered): a protocol error,
    /// invalid params (`-32602`), as the spec says of unknown tools.
    UnknownTool(String),
    /// The arguments do not fit the tool's input schema: a tool error (`isError: true`), so
    /// that the model can correct itself.
    BadArguments(String),
}

/// Whether the tool `name` is served under `offer` (`read_directory` with directories,
/// `complete_template_variable` with completions).
fn served(name: &str, offer: Offer) -> bool {
    match name {
        "read_directory" => offer.directories,
        "complete_template_variable" => offer.completions,
        _ => TOOL_NAMES.contains(&name),
    }
}

/// The tools' definitions, as `tools/list` lists them (`titled`: with `title`, 2025-06-18 on),
/// those `offer` serves.
pub fn definitions(titled: bool, offer: Offer) -> Vec<Value> {
    let string = |description: &str| json!({"type": "string", "description": description});
    let cursor = string("Where to resume: the nextCursor of the previous page.");
    let uri = string("The resource's URI, as listed.");
    let defs = [
        (
            "List resources",
            "Lists the resources this server offers, a page at a time (follow nextCursor). \
             Use read_resource to read one.",
            json!({"cursor": cursor, "prefix": string("Only resources whose URI starts with this.")}),
            vec![],
        ),
        (
            "Read a resource",
            "Reads a resource by its URI. For large ones, give offset and length in bytes.",
            json!({
                "uri": uri,
                "offset": {"type": "integer", "minimum": 0, "description": "The first byte to read."},
                "length": {"type": "integer", "minimum": 1, "description": "How many bytes to read."},
            }),
            vec!["uri"],
        ),
        (
            "List resource templates",
            "Lists the URI templates (RFC 6570) of resources this server can read.",
            json!({"cursor": cursor}),
            vec![],
        ),
        (
            "Read a directory",
            "Lists the direct children of a directory resource, a page at a time.",
            json!({"uri": uri, "cursor": cursor}),
            vec!["uri"],
        ),
        (
            "Complete a template variable",
            "Proposes values for one variable of a resource template.",
            json!({
                "template": string("The template, as listed by list_resource_templates."),
                "variable": string("The variable to complete."),
                "prefix": string("What was typed so far."),
                "context": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "The template's other variables, already chosen."
                },
            }),
            vec!["template", "variable"],
        ),
    ];
    TOOL_NAMES
        .iter()
        .zip(defs)
        .filter(|(name, _)| served(name, offer))
        .map(|(name, (title, description, properties, required))| {
            let mut tool = json!({
                "name": name,
                "description": description,
                "inputSchema": {
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false,
                },
            });
            if titled {
                tool["title"] = Value::from(title);
            }
            tool
        })
        .collect()
}

/// The call of tool `name` with `arguments`, checked against the tool's input schema.
///
/// # Errors
///
/// [`CallError::UnknownTool`] for a tool `offer` does not serve; [`CallError::BadArguments`]
/// for an unknown or missing argument, one of the wrong type, a URI that does not parse.
pub fn parse(
    name: &str,
    arguments: Option<&Map<String, Value>>,
    offer: Offer,
) -> Result<ToolCall, CallError> {
    if !served(name, offer) {
        let names: Vec<&str> = TOOL_NAMES
            .iter()
            .copied()
            .filter(|name| served(name, offer))
            .collect();
        return Err(CallError::UnknownTool(format!(
            "unknown tool {}; the tools are {}",
            mcp_types::error::echo(name),
            names.join(", ")
        )));
    }
    parse_arguments(name, arguments).map_err(CallError::BadArguments)
}

/// The arguments of the served tool `name`, checked.
fn parse_arguments(name: &str, arguments: Option<&Map<String, Value>>) -> Result<ToolCall, String> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    let allowed: &[&str] = match name {
        "list_resources" => &["cursor", "prefix"],
        "read_resource" => &["uri", "offset", "length"],
        "list_resource_templates" => &["cursor"],
        "read_directory" => &["uri", "cursor"],
        "complete_template_variable" => &["template", "variable", "prefix", "context"],
        other => return Err(format!("unknown tool {}", mcp_types::error::echo(other))),
    };
    if let Some(extra) = arguments
        .keys()
        .find(|key| !allowed.contains(&key.as_str()))
    {
        return Err(format!(
            "{name} has no argument {}; it takes {}",
            mcp_types::error::echo(extra),
            allowed.join(", ")
        ));
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match arguments.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("{name}: {key} must be a string")),
        }
    };
    let required = |key: &str| -> Result<String, String> {
        text(key)?.ok_or_else(|| format!("{name}: {key} is required"))
    };
    let number = |key: &str| -> Result<Option<u64>, String> {
        match arguments.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("{name}: {key} must be a whole number of bytes")),
        }
    };
    let uri = |text: String| {
        ResourceUri::parse(&text).map_err(|error| {
            format!(
                "{name}: uri {} is not valid: {error}",
                mcp_types::error::echo(&text)
            )
        })
    };
    Ok(match name {
        "list_resources" => ToolCall::ListResources {
            cursor: text("cursor")?,
            prefix: text("prefix")?,
        },
        "read_resource" => {
            let range = match (number("offset")?, number("length")?) {
                (None, None) => None,
                (_, Some(0)) => return Err(format!("{name}: length must be at least 1")),
                (offset, length) => {
                    let offset = offset.unwrap_or(0);
                    Some(ByteRange {
                        offset,
                        length: length.unwrap_or(u64::MAX - offset),
                    })
                }
            };
            ToolCall::ReadResource {
                uri: uri(required("uri")?)?,
                range,
            }
        }
        "list_resource_templates" => ToolCall::ListTemplates {
            cursor: text("cursor")?,
        },
        "read_directory" => ToolCall::ReadDirectory {
            uri: uri(required("uri")?)?,
            cursor: text("cursor")?,
        },
        _ => {
            let context = match arguments.get("context") {
                None | Some(Value::Null) => Variables::default(),
                Some(Value::Object(map)) => map
                    .iter()
                    .map(|(key, value)| match value {
                        Value::String(value) => Ok((key.clone(), value.clone())),
                        _ => Err(format!("{name}: context values must be strings")),
                    })
                    .collect::<Result<Variables, String>>()?,
                Some(_) => return Err(format!("{name}: context must be an object")),
            };
            ToolCall::Complete {
                template: required("template")?,
                variable: required("variable")?,
                prefix: text("prefix")?.unwrap_or_default(),
                context,
            }
        }
    })
}

impl ToolCall {
    /// The core's query for the call.
    pub fn query(&self) -> Query {
        match self.clone() {
            ToolCall::ListResources { cursor, .. } => Query::ListResources { cursor },
            ToolCall::ReadResource { uri, range: None } => Query::Read {
                uri,
                inputs: Default::default(),
            },
            ToolCall::ReadResource {
                uri,
                range: Some(range),
            } => Query::ReadRange { uri, range },
            ToolCall::ListTemplates { cursor } => Query::ListTemplates { cursor },
            ToolCall::ReadDirectory { uri, cursor } => Query::ReadDirectory { uri, cursor },
            ToolCall::Complete {
                template,
                variable,
                prefix,
                context,
            } => Query::Complete {
                template,
                variable,
                prefix,
                context,
            },
        }
    }

    /// The members of the `CallToolResult` for `answer` (`content`, and `isError` for a tool
    /// error; `structuredContent` beside a JSON text from 2025-06-18, `structured`), in the
    /// resource shape `shape`.
    pub fn result(&self, answer: Answer, shape: Shape, structured: bool) -> Map<String, Value> {
        let page = |value: Value| {
            let mut result = Map::new();
            result.insert(
                "content".to_owned(),
                json!([{"type": "text", "text": value.to_string()}]),
            );
            if structured {
                result.insert("structuredContent".to_owned(), value);
            }
            result
        };
        let resources = |items: &[mcp_resources_core::resource::Resource],
                         next: Option<String>,
                         prefix: Option<&str>| {
            let items: Vec<Value> = items
                .iter()
                .filter(|item| prefix.is_none_or(|prefix| item.uri.as_str().starts_with(prefix)))
                .map(|item| json!(listed(item, shape, Some)))
                .collect();
            let mut value = json!({ "resources": items });
            if let Some(next) = next {
                value["nextCursor"] = Value::from(next);
            }
            value
        };
        match (self, answer) {
            (ToolCall::ListResources { prefix, .. }, Answer::Resources(Ok(page_of))) => page(
                resources(&page_of.items, page_of.next_cursor, prefix.as_deref()),
            ),
            (ToolCall::ReadDirectory { .. }, Answer::Directory(Ok(page_of))) => {
                page(resources(&page_of.items, page_of.next_cursor, None))
            }
            (ToolCall::ListTemplates { .. }, Answer::Templates(Ok(page_of))) => {
                let items: Vec<Value> = page_of
                    .items
                    .into_iter()
                    .map(|item| json!(template(item)))
                    .collect();
                let mut value = json!({ "resourceTemplates": items });
                if let Some(next) = page_of.next_cursor {
                    value["nextCursor"] = Value::from(next);
                }
                page(value)
            }
            (ToolCall::Complete { .. }, Answer::Completion(Ok(completion))) => {
                page(json!(crate::completion(completion)))
            }
            (ToolCall::ReadResource { .. }, Answer::Read(Ok(output))) => {
                let blocks: Vec<Value> = output
                    .contents
                    .iter()
                    .map(|part| json!({"type": "resource", "resource": contents(part)}))
                    .collect();
                let mut result = Map::new();
                result.insert("content".to_owned(), Value::Array(blocks));
                result
            }
            (call, answer) => failure(&call.failure_text(answer)),
        }
    }

    /// The text of a tool error for an answer that is not a success: a missing and a denied
    /// resource read alike.
    fn failure_text(&self, answer: Answer) -> String {
        let missing = |uri: &str| {
            format!(
                "resource {} not found (or not readable by you)",
                mcp_types::error::echo(uri)
            )
        };
        match answer {
            Answer::Read(Err(
                ReadError::NotFound { uri }
                | ReadError::Denied { uri }
                | ReadError::Directory { uri },
            )) => missing(&uri),
            Answer::Read(Err(ReadError::InputRequired { uri, .. })) => format!(
                "resource {} needs the user's confirmation: read it as a resource \
                 (resources/read), which this tool cannot ask for",
                mcp_types::error::echo(&uri)
            ),
            Answer::Read(Err(ReadError::Provider(error))) => provider_text(&error),
            Answer::Read(Err(ReadError::Audit(_)))
            | Answer::Directory(Err(DirectoryError::Audit(_)))
            | Answer::Resources(Err(ListError::Audit(_)))
            | Answer::Templates(Err(ListError::Audit(_)))
            | Answer::Completion(Err(CompleteError::Audit(_))) => {
                "the audit log could not record this request about a sensitive resource, so it \
                 was not served"
                    .to_owned()
            }
            Answer::Read(Err(error)) => error.to_string(),
            Answer::Directory(Err(
                DirectoryError::NotADirectory { uri } | DirectoryError::Denied { uri },
            )) => format!(
                "{} is not a directory (or not readable by you)",
                mcp_types::error::echo(&uri)
            ),
            Answer::Directory(Err(DirectoryError::Provider { error, .. }))
            | Answer::Resources(Err(ListError::Provider { error, .. }))
            | Answer::Templates(Err(ListError::Provider { error, .. }))
            | Answer::Completion(Err(CompleteError::Provider(error))) => provider_text(&error),
            Answer::Directory(Err(error)) => error.to_string(),
            Answer::Resources(Err(error)) | Answer::Templates(Err(error)) => error.to_string(),
            Answer::Completion(Err(error)) => error.to_string(),
            _ => "the server gave an answer of the wrong kind".to_owned(),
        }
    }
}

/// What a client may be told of a provider's failure: its message when the provider made it
/// public, else that it failed.
fn provider_text(error: &ProviderError) -> String {
    if error.is_public() {
        error.message().to_owned()
    } else {
        "internal error".to_owned()
    }
}

/// The members of a tool error result saying `text`, bounded as every quote of a client value
/// is ([`mcp_types::error::echo`]: the core's messages quote URIs, templates and variables).
pub fn failure(text: &str) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert(
        "content".to_owned(),
        json!([{"type": "text", "text": mcp_types::error::echo(text)}]),
    );
    result.insert("isError".to_owned(), Value::Bool(true));
    result
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use mcp_resources_core::cache::{CacheHint, CacheScope};
    use mcp_resources_core::engine::ReadOutput;
    use mcp_resources_core::resource::Contents;

    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn arguments_are_checked_against_each_schema() {
        let bad = [
            ("nope", json!({}), "unknown tool nope"),
            ("read_resource", json!({}), "uri is required"),
            ("read_resource", json!({"uri": 3}), "uri must be a string"),
            ("read_resource", json!({"uri": "x"}), "is not valid"),
            (
                "read_resource",
                json!({"uri": "file:///a", "offset": -1}),
                "whole number",
            ),
            (
                "read_resource",
                json!({"uri": "file:///a", "length": 0}),
                "at least 1",
            ),
            (
                "list_resources",
                json!({"limit": 3}),
                "has no argument limit",
            ),
            (
                "complete_template_variable",
                json!({"template": "t"}),
                "variable is required",
            ),
            (
                "complete_template_variable",
                json!({"template": "t", "variable": "v", "context": {"a": 1}}),
                "context values must be strings",
            ),
        ];
        let offer = Offer {
            tools: true,
            ..Offer::default()
        };
        for (name, arguments, wanted) in bad {
            let error = parse(name, Some(&args(arguments)), offer).unwrap_err();
            let (CallError::UnknownTool(text) | CallError::BadArguments(text)) = &error;
            assert!(text.contains(wanted), "{name}: {error:?}");
            assert_eq!(
                matches!(error, CallError::UnknownTool(_)),
                name == "nope",
                "{error:?}"
            );
        }
        let without = Offer {
            directories: false,
            completions: false,
            ..offer
        };
        assert_eq!(definitions(true, without).len(), 3);
        assert!(matches!(
            parse(
                "read_directory",
                Some(&args(json!({"uri": "file:///a"}))),
                without
            ),
            Err(CallError::UnknownTool(_))
        ));
        assert_eq!(
            parse(
                "read_resource",
                Some(&args(
                    json!({"uri": "file:///a", "offset": 5, "length": 10})
                )),
                offer
            )
            .unwrap()
            .query(),
            Query::ReadRange {
                uri: ResourceUri::parse("file:///a").unwrap(),
                range: ByteRange {
                    offset: 5,
                    length: 10
                },
            }
        );
        assert!(matches!(
            parse("list_resources", None, offer).unwrap().query(),
            Query::ListResources { cursor: None }
        ));
        let titled = definitions(true, offer);
        assert_eq!(titled.len(), TOOL_NAMES.len());
        assert!(titled.iter().all(|tool| {
            tool["inputSchema"]["additionalProperties"] == false && tool.get("title").is_some()
        }));
        assert!(
            definitions(false, offer)
                .iter()
                .all(|tool| tool.get("title").is_none())
        );
    }

    #[test]
    fn a_read_is_an_embedded_resource_and_missing_or_denied_read_alike() {
        let uri = ResourceUri::parse("file:///a.txt").unwrap();
        let call = ToolCall::ReadResource {
            uri: uri.clone(),
            range: None,
        };
        let output = ReadOutput {
            contents: Arc::from(vec![Contents::text(uri.clone(), "hello")]),
            cache: CacheHint {
                ttl_ms: 0,
                scope: CacheScope::Private,
            },
            masked: Vec::new(),
        };
        let read = call.result(Answer::Read(Ok(output)), Shape::Newest, true);
        assert_eq!(
            Value::Object(read),
            json!({"content": [{"type": "resource",
                "resource": {"uri": "file:///a.txt", "text": "hello"}}]})
        );
        let texts: Vec<Value> = [
            ReadError::NotFound {
                uri: "file:///a.txt".to_owned(),
            },
            ReadError::Denied {
                uri: "file:///a.txt".to_owned(),
            },
        ]
        .into_iter()
        .map(|error| Value::Object(call.result(Answer::Read(Err(error)), Shape::Newest, true)))
        .collect();
        assert_eq!(texts[0], texts[1]);
        assert_eq!(texts[0]["isError"], true);
        let internal = call.result(
            Answer::Read(Err(ReadError::Provider(ProviderError::new(
                "disk /dev/sda1 died",
            )))),
            Shape::Newest,
            true,
        );
        assert!(!Value::Object(internal).to_string().contains("sda1"));
    }
}
