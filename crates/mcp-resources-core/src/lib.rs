//! The pure engine of MCP resources: URIs, RFC 6570 templates, routing, pagination,
//! subscriptions and access control.
//!
//! **Layer:** core. It speaks domain terms only (resource URI, resource, template, contents,
//! principal, policy, page, change, subscriber). It must never know a protocol version, a
//! JSON-RPC method name, JSON itself, tokio or any I/O. Its one seam to the outside world is the
//! async [`Provider`](crate::provider::Provider) trait, whose futures carry no runtime types, and
//! its companion [`ChangeSource`](crate::change::ChangeSource), through which a provider's source
//! says what changed.
//!
//! # What is here
//!
//! - [`uri`] and [`template`]: validated, canonical resource URIs, and RFC 6570 templates that
//!   both expand and match.
//! - [`resource`]: the domain model ([`Resource`](resource::Resource),
//!   [`ResourceTemplate`](resource::ResourceTemplate), [`Contents`](resource::Contents)).
//! - [`provider`]: the async seam; [`memory`]: an in-memory provider; [`change`]: what a
//!   source reports when it changes.
//! - [`engine`]: static resources, templates and providers registered together, and the four
//!   operations adapters call per request: list resources, list templates, read, complete.
//! - [`pagination`]: pages and tamper-evident cursors; [`policy`]: principals and access
//!   control; [`completion`]; [`cache`]: caching hints; [`error`]: one error enum per operation.
//! - [`input`]: what a read may need from the client first (elicitation, sampling, roots);
//!   [`sensitive`]: audited resources and reads the user confirms; [`redact`]: content rules.
//!
//! # What is not here
//!
//! No wire types or JSON (the adapters convert), no base64 (bodies are text or raw bytes), no
//! clock of its own (timestamps come from the sources, ttls are durations, confirmations call
//! the clock function they are given), no randomness (the cursor and confirmation keys are
//! passed in), no runtime (any executor drives the futures), no I/O (providers that do I/O live
//! in crates of their own).
//!
//! # Routing order
//!
//! A read is checked against the policy, then resolved by exact URI among the static resources,
//! then by the providers that claim the URI (in registration order), then by the function
//! templates in [`TemplateIndex`](template::TemplateIndex) order. Lists are static resources
//! first, then each provider, each in canonical-URI order, filtered by the policy before they are
//! paged. Details in [`engine`].
//!
//! # Subscriptions
//!
//! The subscription hub (the `subscription` module) is a separate pure value: the engine keeps
//! no subscriber state. The adapters ask [`Engine::allows`](engine::Engine::allows) with
//! [`Action::Subscribe`](policy::Action::Subscribe) before recording a subscription, and
//! whoever changes a source (a file watcher, the owner of a
//! [`MemoryProvider`](memory::MemoryProvider)) reports the change to the hub, which coalesces
//! changes and hands back the deliveries to send.
//!
//! # Example
//!
//! ```
//! use mcp_resources_core::engine::{Engine, FunctionTemplate};
//! use mcp_resources_core::pagination::CursorKey;
//! use mcp_resources_core::policy::Principal;
//! use mcp_resources_core::resource::{Body, Contents, Resource, ResourceTemplate};
//! use mcp_resources_core::template::UriTemplate;
//! use mcp_resources_core::uri::ResourceUri;
//!
//! let readme = ResourceUri::parse("mem:///readme").unwrap();
//! let greeting = ResourceTemplate::new(UriTemplate::parse("hello://{name}").unwrap(), "greeting");
//! let engine = Engine::builder(CursorKey::new([7; 32]))
//!     .static_resource(
//!         Resource::new(readme.clone(), "readme").with_mime_type("text/plain"),
//!         vec![Contents::text(readme.clone(), "Read me first.")],
//!     )
//!     .template(FunctionTemplate::new(greeting, |uri, variables| {
//!         let text = format!("Hello, {}!", variables.get_str("name").unwrap_or("stranger"));
//!         let contents = Contents::text(uri.clone(), text);
//!         async move { Ok(vec![contents]) }
//!     }))
//!     .build()
//!     .unwrap();
//!
//! let anyone = Principal::anonymous();
//! pollster::block_on(async {
//!     let page = engine.list_resources(&anyone, None).await.unwrap();
//!     assert_eq!(page.items.len(), 1);
//!     assert_eq!(page.next_cursor, None);
//!
//!     let read = engine.read(&anyone, &readme).await.unwrap();
//!     assert_eq!(read.contents[0].body, Body::Text("Read me first.".into()));
//!
//!     let ada = ResourceUri::parse("hello://ada").unwrap();
//!     let read = engine.read(&anyone, &ada).await.unwrap();
//!     assert_eq!(read.contents[0].body, Body::Text("Hello, ada!".into()));
//! });
//! ```

pub mod cache;
pub mod change;
pub mod completion;
pub mod engine;
pub mod error;
pub mod input;
pub mod memory;
pub mod pagination;
pub mod policy;
pub mod provider;
pub mod redact;
pub mod resource;
pub mod secret;
pub mod sensitive;
pub mod service;
pub mod skill;
pub mod store;
pub mod subscription;
pub mod template;
pub mod uri;
