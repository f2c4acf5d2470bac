//! The tests of `mcp-resources-wire`: what it writes is what the owned wire types write.

use mcp_resources_core::resource::{Annotations, Icon, IconTheme, Priority, Role, Timestamp};
use mcp_resources_core::uri::ResourceUri;

use mcp_resources_core::resource as core;
use mcp_resources_wire::{Shape, annotations, icons, listed};
use mcp_types::resources as wire;

/// A resource in the owned wire shape: what a page was converted to before its entries
/// were borrowed.
fn owned(resource: core::Resource) -> wire::Resource {
    wire::Resource {
        uri: resource.uri.into_string(),
        name: resource.name,
        title: resource.title,
        description: resource.description,
        mime_type: resource.mime_type,
        size: resource.size,
        annotations: resource.annotations.map(annotations),
        icons: icons(resource.icons),
        meta: None,
    }
}

/// A listed entry writes exactly what the owned resource writes, whatever it holds.
#[test]
fn a_listed_resource_is_the_owned_resource_written() {
    let uri = |text| ResourceUri::parse(text).unwrap();
    let resources = [
        core::Resource::new(uri("mem:///bare"), "bare"),
        core::Resource::new(uri("file:///a%20b/%C3%A9.txt"), "quote \" and \\ é")
            .with_title("Title\n")
            .with_description("what")
            .with_mime_type("text/plain")
            .with_size(7)
            .with_annotations(Annotations {
                audience: vec![Role::User, Role::Assistant],
                priority: Some(Priority::new(0.25).unwrap()),
                last_modified: Some(Timestamp::parse("2025-01-12T15:00:58Z").unwrap()),
            })
            .with_icon(Icon {
                src: "https://example.com/a.png".into(),
                mime_type: Some("image/png".into()),
                sizes: vec!["48x48".into()],
                theme: Some(IconTheme::Dark),
            }),
    ];
    for resource in resources {
        let borrowed = serde_json::to_string(&listed(&resource, Shape::Newest, Some)).unwrap();
        let owned = serde_json::to_string(&owned(resource)).unwrap();
        assert_eq!(borrowed, owned);
    }
}
