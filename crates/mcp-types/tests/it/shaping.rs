//! Per-version shaping: one newest-shape value, emitted as each version knows it, carries exactly
//! the fields that version defines (checked against the version's schema, which is open and so
//! would accept extra fields).

use mcp_types::resources::{self, ResourceLink, ResourceLinkType};
use mcp_types::testing;
use mcp_types::{ProtocolVersion, v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25};
use serde_json::Value;

use crate::common::*;

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

fn check(value: &Value, expect: &str) {
    assert_eq!(keys(value).join(" "), expect, "value: {value}");
}

/// Every key of `value` is a property of `type_name` in the version's schema.
fn only_defined_keys(version: &ProtocolVersion, type_name: &str, value: &Value) {
    let Some(_) = testing::spec_dir() else { return };
    let schema = testing::schema(version).expect("schema");
    let defs = schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .expect("defs");
    let properties = defs[type_name]["properties"]
        .as_object()
        .expect("properties");
    for key in keys(value) {
        assert!(
            properties.contains_key(&key),
            "{version} {type_name} has no field {key}"
        );
    }
}

fn resource_as(version: &ProtocolVersion) -> Value {
    let page = resources::ListResourcesResult {
        resources: vec![full_resource()],
        next_cursor: None,
        meta: None,
    };
    shaped_list(version, page)["resources"][0].clone()
}

#[test]
fn resource_per_version() {
    let old = resource_as(&ProtocolVersion::V2024_11_05);
    check(&old, "annotations description mimeType name size uri");
    check(&old["annotations"], "audience priority");
    check(
        &resource_as(&ProtocolVersion::V2025_03_26),
        "annotations description mimeType name size uri",
    );
    let titled = resource_as(&ProtocolVersion::V2025_06_18);
    check(
        &titled,
        "_meta annotations description mimeType name size title uri",
    );
    check(&titled["annotations"], "audience lastModified priority");
    let newest = resource_as(&ProtocolVersion::V2025_11_25);
    check(
        &newest,
        "_meta annotations description icons mimeType name size title uri",
    );
    for version in ProtocolVersion::KNOWN {
        let shaped = if version.has_result_type() {
            to_json(&full_resource())
        } else {
            resource_as(&version)
        };
        only_defined_keys(&version, "Resource", &shaped);
        if version.has_last_modified() {
            only_defined_keys(&version, "Annotations", &shaped["annotations"]);
        }
    }
}

#[test]
fn template_contents_and_implementation_per_version() {
    let page = resources::ListResourceTemplatesResult {
        resource_templates: vec![full_template()],
        next_cursor: None,
        meta: None,
    };
    let read = resources::ReadResourceResult {
        contents: vec![text_contents(), blob_contents()],
        meta: None,
    };
    for (version, template_keys, contents_keys) in [
        (
            ProtocolVersion::V2024_11_05,
            "annotations description mimeType name uriTemplate",
            "mimeType text uri",
        ),
        (
            ProtocolVersion::V2025_06_18,
            "_meta annotations description mimeType name title uriTemplate",
            "_meta mimeType text uri",
        ),
        (
            ProtocolVersion::V2025_11_25,
            "_meta annotations description icons mimeType name title uriTemplate",
            "_meta mimeType text uri",
        ),
    ] {
        let template = &shaped_templates(&version, page.clone())["resourceTemplates"][0];
        check(template, template_keys);
        only_defined_keys(&version, "ResourceTemplate", template);
        let contents = shaped_read(&version, read.clone())["contents"].clone();
        check(&contents[0], contents_keys);
        only_defined_keys(&version, "TextResourceContents", &contents[0]);
        only_defined_keys(&version, "BlobResourceContents", &contents[1]);
    }

    let old: v2024_11_05::Implementation = full_implementation().into();
    check(&to_json(&old), "name version");
    let titled: v2025_06_18::Implementation = full_implementation().into();
    check(&to_json(&titled), "name title version");
    let newest: v2025_11_25::Implementation = full_implementation();
    check(
        &to_json(&newest),
        "description icons name title version websiteUrl",
    );
    only_defined_keys(
        &ProtocolVersion::V2025_11_25,
        "Implementation",
        &to_json(&newest),
    );
}

#[test]
fn annotations_left_empty_by_narrowing_are_not_sent() {
    let mut newest = resources::Resource::new("file:///a.txt", "a.txt");
    newest.annotations = Some(resources::Annotations {
        last_modified: Some("2026-11-29T12:00:00Z".into()),
        ..resources::Annotations::default()
    });
    let old = serde_json::to_value(v2024_11_05::Resource::from(newest.clone())).unwrap();
    assert_eq!(old.get("annotations"), None, "{old}");
    let newer = serde_json::to_value(v2025_06_18::Resource::from(newest)).unwrap();
    assert_eq!(newer["annotations"]["lastModified"], "2026-11-29T12:00:00Z");
}

#[test]
fn revision_2025_03_26_reuses_the_2024_11_05_shapes() {
    let resource: v2025_03_26::Resource = full_resource().into();
    let same: v2024_11_05::Resource = full_resource().into();
    assert_eq!(resource, same);
}

#[test]
fn resource_links_exist_from_2025_06_18_and_gain_icons_in_2025_11_25() {
    let link = ResourceLink {
        kind: ResourceLinkType::ResourceLink,
        resource: full_resource(),
    };
    let newest = to_json(&link);
    assert_eq!(newest["type"], "resource_link");
    assert!(newest.get("icons").is_some());
    let older: v2025_06_18::ResourceLink = link.into();
    let older = to_json(&older);
    check(
        &older,
        "_meta annotations description mimeType name size title type uri",
    );
    only_defined_keys(&ProtocolVersion::V2025_06_18, "ResourceLink", &older);
    assert!(!ProtocolVersion::V2025_03_26.has_resource_links());
}

#[test]
fn capabilities_per_version() {
    let mut capabilities = resources_server_capabilities();
    capabilities.extensions = Some(Default::default());
    capabilities.tasks = Some(Default::default());
    let shaped = |version: ProtocolVersion| -> String {
        keys(&to_json(&capabilities.clone().for_version(&version))).join(" ")
    };
    // Extensions are declared in every era (SEP-2133): no legacy schema closes the object.
    assert_eq!(
        shaped(ProtocolVersion::V2024_11_05),
        "extensions logging resources"
    );
    assert_eq!(
        shaped(ProtocolVersion::V2025_03_26),
        "completions extensions logging resources"
    );
    assert_eq!(
        shaped(ProtocolVersion::V2025_11_25),
        "completions extensions logging resources tasks"
    );
    assert_eq!(
        shaped(ProtocolVersion::V2026_07_28),
        "completions extensions logging resources"
    );
}

/// A borrowed entry of `contents` against the JSON of the owned newest shape and of the
/// 2024-11-05 shape.
fn check_contents_ref(mime_type: Option<&str>, body: &str, blob: bool) {
    use mcp_types::resources::ContentsRef;
    let owned = if blob {
        resources::ResourceContents::Blob(resources::BlobResourceContents {
            uri: "mem:///x".to_owned(),
            mime_type: mime_type.map(str::to_owned),
            blob: body.to_owned(),
            meta: None,
        })
    } else {
        resources::ResourceContents::Text(resources::TextResourceContents {
            uri: "mem:///x".to_owned(),
            mime_type: mime_type.map(str::to_owned),
            text: body.to_owned(),
            meta: None,
        })
    };
    let expect = serde_json::to_string(&owned).unwrap();
    let original: v2024_11_05::ResourceContents = match owned {
        resources::ResourceContents::Text(text) => resources::ResourceContents::Text(text.into()),
        resources::ResourceContents::Blob(blob) => resources::ResourceContents::Blob(blob.into()),
    };
    assert_eq!(serde_json::to_string(&original).unwrap(), expect);
    let view = if blob {
        ContentsRef::Blob {
            uri: "mem:///x",
            mime_type,
            blob: body.to_owned(),
        }
    } else {
        ContentsRef::Text {
            uri: "mem:///x",
            mime_type,
            text: serde_json::value::to_raw_value(body).unwrap(),
        }
    };
    assert_eq!(serde_json::to_string(&view).unwrap(), expect);
}

#[test]
fn borrowed_contents_write_the_json_of_the_owned_shapes() {
    let bodies = [
        "",
        "plain",
        "a \"quoted\" line\n\ttab \\ slash",
        "\u{1}\u{1f}é中\u{2028}🦀",
    ];
    for body in bodies {
        for mime_type in [None, Some("text/plain")] {
            check_contents_ref(mime_type, body, false);
        }
    }
    check_contents_ref(Some("image/png"), "AAEC/w==", true);
    check_contents_ref(None, "", true);
}
