//! The fixture every test drives: a real `Service` over an in-memory engine, and a driver that
//! runs a session's queries against it the way the binary does (with `pollster`, never tokio).

use std::num::NonZeroUsize;
use std::sync::Arc;

use mcp_legacy_2025::{LegacyConfig, Output, Session, Ticket};
use mcp_resources_core::engine::{Engine, FunctionTemplate, Limits};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::{Action, Policy, Principal};
use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::resource::{
    Annotations, Contents, Icon, Priority, Resource, ResourceTemplate, Role, Timestamp,
};
use mcp_resources_core::service::{Offer, QueryContext, Service};
use mcp_resources_core::subscription::{SubscriberId, SubscriptionLimits};
use mcp_resources_core::template::UriTemplate;
use mcp_resources_core::uri::ResourceUri;
use mcp_types::lifecycle::Implementation;
use mcp_types::resources::Icon as WireIcon;

/// Everything under `mem:///private/` is for the subject `admin` only.
struct PrivateFolder;

impl Policy for PrivateFolder {
    fn allows(&self, principal: &Principal, _action: Action, uri: &ResourceUri) -> bool {
        !uri.as_str().starts_with("mem:///private/")
            || principal.subject.as_deref() == Some("admin")
    }
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).expect("fixture uris are valid")
}

fn template(text: &str, name: &str) -> ResourceTemplate {
    ResourceTemplate::new(
        UriTemplate::parse(text).expect("fixture templates are valid"),
        name,
    )
}

/// Five listed resources (three pages of two), a blob, a resource over the read limit, a private
/// one, and three templates (two pages of two): one with a completer that reads the context, one
/// failing, one listed only.
pub(crate) fn engine() -> Engine {
    let limits = Limits {
        page_size: NonZeroUsize::new(2).expect("not zero"),
        max_read_bytes: 1024,
        ..Limits::default()
    };
    let readme = uri("mem:///docs/readme.md");
    let notes = uri("mem:///docs/notes.txt");
    let logo = uri("mem:///img/logo.png");
    let big = uri("mem:///big.txt");
    let secret = uri("mem:///private/secret.txt");
    let annotations = Annotations {
        audience: vec![Role::User, Role::Assistant],
        priority: Some(Priority::new(0.8).expect("in range")),
        last_modified: Some(Timestamp::parse("2025-01-12T15:00:58Z").expect("rfc 3339")),
    };
    let icon = Icon {
        src: "https://example.com/readme.png".into(),
        mime_type: Some("image/png".into()),
        sizes: vec!["48x48".into()],
        theme: None,
    };
    let users = FunctionTemplate::new(
        template("users://{org}/{name}", "user").with_title("User profile"),
        |uri, variables| {
            let text = format!(
                "{} of {}",
                variables.get_str("name").unwrap_or("?"),
                variables.get_str("org").unwrap_or("?")
            );
            let contents = Contents::text(uri.clone(), text).with_mime_type("text/plain");
            async move { Ok(vec![contents]) }
        },
    )
    .with_completer(|request| {
        let candidates: &[&str] = match request.context.get_str("org") {
            Some("acme") => &["ada", "alan"],
            Some(_) => &["grace"],
            None => &["ada", "alan", "grace"],
        };
        let prefix = request.prefix.to_owned();
        let values: Vec<String> = candidates
            .iter()
            .filter(|candidate| candidate.starts_with(&prefix))
            .map(|candidate| (*candidate).to_owned())
            .collect();
        async move { Ok(values) }
    });
    let failing = FunctionTemplate::new(template("fail://{what}", "failing"), |_, variables| {
        let public = variables.get_str("what") == Some("public");
        async move {
            if public {
                Err(ProviderError::public("the backend is down for maintenance"))
            } else {
                Err(ProviderError::new("connection to db at 10.0.0.7 refused"))
            }
        }
    });
    Engine::builder(CursorKey::new([7; 32]))
        .limits(limits)
        .policy(Arc::new(PrivateFolder))
        .static_resource(
            Resource::new(readme.clone(), "readme.md")
                .with_title("Read me")
                .with_description("Start here")
                .with_mime_type("text/markdown")
                .with_size(20)
                .with_annotations(annotations)
                .with_icon(icon),
            vec![Contents::text(readme, "# Hello\n\nRead me.\n").with_mime_type("text/markdown")],
        )
        .static_resource(
            Resource::new(notes.clone(), "notes.txt").with_mime_type("text/plain"),
            vec![Contents::text(notes, "some notes").with_mime_type("text/plain")],
        )
        .static_resource(
            Resource::new(logo.clone(), "logo.png")
                .with_mime_type("image/png")
                .with_size(8),
            vec![
                Contents::bytes(logo, vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a])
                    .with_mime_type("image/png"),
            ],
        )
        .static_resource(
            Resource::new(big.clone(), "big.txt").with_size(2048),
            vec![Contents::text(big, "x".repeat(2048))],
        )
        .static_resource(
            Resource::new(uri("mem:///docs/todo.md"), "todo.md"),
            vec![Contents::text(uri("mem:///docs/todo.md"), "- write tests")],
        )
        .static_resource(
            Resource::new(secret.clone(), "secret.txt"),
            vec![Contents::text(secret, "s3cr3t")],
        )
        .template(users)
        .template(failing)
        .listed_template(
            template("mem:///docs/{file}", "doc")
                .with_description("A document")
                .with_mime_type("text/markdown"),
        )
        .build()
        .expect("the fixture engine builds")
}

/// A service over the fixture engine offering `offer`.
pub(crate) fn service(offer: Offer) -> Service {
    Service::with_offer(engine(), offer, SubscriptionLimits::default())
}

/// The configuration of the fixture server.
pub(crate) fn config(offer: Offer) -> LegacyConfig {
    let mut server_info = Implementation::new("fixture-server", "0.1.0");
    server_info.title = Some("Fixture Server".into());
    server_info.description = Some("Serves the fixture resources".into());
    server_info.website_url = Some("https://example.com".into());
    server_info.icons = Some(vec![WireIcon {
        src: "https://example.com/icon.png".into(),
        mime_type: None,
        sizes: None,
        theme: None,
    }]);
    let mut config = LegacyConfig::new(server_info, offer);
    config.instructions = Some("Read mem:///docs/readme.md first.".into());
    config
}

/// One session with its service and subscriber, driven like the binary drives it.
pub(crate) struct Driver {
    pub(crate) session: Session,
    pub(crate) service: Service,
    pub(crate) subscriber: SubscriberId,
    pub(crate) principal: Principal,
}

impl Driver {
    pub(crate) fn new(offer: Offer) -> Driver {
        let service = service(offer);
        let subscriber = service.add_subscriber();
        Driver {
            session: Session::new(Arc::new(config(offer))),
            service,
            subscriber,
            principal: Principal::anonymous(),
        }
    }

    /// Answers one query with the real service.
    pub(crate) fn answer(&mut self, ticket: Ticket, query: mcp_resources_core::service::Query) {
        let context = QueryContext {
            principal: &self.principal,
            subscriber: Some(self.subscriber),
        };
        let answer = pollster::block_on(self.service.answer(context, query));
        self.session.handle_answer(ticket, answer);
    }

    /// Tells the session about `uri` changing, if it is subscribed.
    pub(crate) fn resource_updated(&mut self, uri: &str) {
        if self
            .service
            .resource_updated(uri)
            .contains(&self.subscriber)
        {
            let changes = self.service.drain_changes(self.subscriber);
            self.session.handle_changes(changes);
        }
    }

    /// Tells the session the list changed, if it watches list changes.
    pub(crate) fn list_changed(&mut self) {
        if self.service.list_changed().contains(&self.subscriber) {
            let changes = self.service.drain_changes(self.subscriber);
            self.session.handle_changes(changes);
        }
    }

    /// Drains every output, answering queries at once; returns the messages sent (as text) and
    /// the tickets cancelled.
    pub(crate) fn run(&mut self) -> Vec<String> {
        let mut sent = Vec::new();
        while let Some(output) = self.session.poll_output() {
            match output {
                Output::Send(outgoing) => {
                    sent.push(String::from_utf8(outgoing.bytes).expect("utf-8 json"));
                }
                Output::Query { ticket, query } => self.answer(ticket, query),
                Output::Cancel { .. } => {}
            }
        }
        sent
    }
}
