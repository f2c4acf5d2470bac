//! The server builder and the state every transport shares.
//!
//! **Layer:** server. A [`ServerBuilder`] collects what is served (static resources, templates
//! backed by functions, providers), who may see it (a policy), the limits, and how the server
//! presents itself; [`ServerBuilder::build`] turns that into one core
//! [`Service`] plus the configuration of both adapters, behind a cheap, cloneable [`Server`]
//! handle. The transports ([`Server::serve_stdio`], and the Streamable HTTP ones in `http`)
//! take it from there. This module never parses a message or touches a socket: it only wires
//! the core to the adapters and tells listeners when a resource changed.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use mcp_2026::{Handler, ModernConfig};
use mcp_legacy_2025::LegacyConfig;
use mcp_resources_core::change::{ChangeFeed, ChangeSource};
use mcp_resources_core::engine::{Engine, FunctionTemplate, Limits, StaticResource};
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::{Policy, Principal};
use mcp_resources_core::provider::{Provider, ProviderError};
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::resource::{Contents, Resource, ResourceTemplate};
use mcp_resources_core::sensitive::{AuditSink, Clock, SensitiveRule, Sensitivity};
use mcp_resources_core::service::{Offer, Service};
use mcp_resources_core::store::{SessionStore, TicketStore};
use mcp_resources_core::subscription::SubscriptionLimits;
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_types::lifecycle::Implementation;
use tokio_util::sync::CancellationToken;

use crate::feed::{Cluster, DEFAULT_SETTLE};
use crate::wake::Wakers;

/// The default `ttlMs` of a modern `server/discover` result: one hour.
const DISCOVER_TTL_MS: u64 = 3_600_000;

/// Why a [`Server`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The engine refused what was registered (a static URI or a template text given twice).
    #[error(transparent)]
    Engine(#[from] mcp_resources_core::error::BuildError),
    /// No cursor key was given and the operating system could not supply random bytes for one.
    #[error("cannot draw a random cursor key from the operating system: {0}")]
    Random(getrandom::Error),
    /// A change feed was given, and the builder was not called inside a tokio runtime to spawn
    /// the task that hears it.
    #[error(
        "a server with a change feed is built inside a tokio runtime (it hears the feed on a task)"
    )]
    NoRuntime,
    /// Confirmations were to be shared between instances
    /// ([`ServerBuilder::shared_confirmations`]) without the key the instances share
    /// ([`ServerBuilder::cursor_key`]).
    #[error("shared confirmations need the deployment's shared key: set a cursor key")]
    NoSharedKey,
}

/// Collects what a [`Server`] serves and how it presents itself.
///
/// ```
/// use mcp_resources_server::Server;
/// use mcp_resources_core::resource::{Contents, Resource};
/// use mcp_resources_core::uri::ResourceUri;
///
/// let uri = ResourceUri::parse("docs://readme").unwrap();
/// let server = Server::builder()
///     .server_info("docs", "1.0.0")
///     .static_resource(
///         Resource::new(uri.clone(), "readme").with_mime_type("text/markdown"),
///         vec![Contents::text(uri, "# Hello")],
///     )
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
pub struct ServerBuilder {
    server_info: Implementation,
    instructions: Option<String>,
    limits: Limits,
    cursor_key: Option<CursorKey>,
    policy: Option<Arc<dyn Policy>>,
    statics: Vec<StaticResource>,
    templates: Vec<FunctionTemplate>,
    providers: Vec<Arc<dyn Provider>>,
    offer: Offer,
    subscription_limits: SubscriptionLimits,
    stdio_principal: Principal,
    redactor: Option<Redactor>,
    sensitive: Vec<SensitiveRule>,
    audit: Option<Arc<dyn AuditSink>>,
    feed: Option<Arc<dyn ChangeFeed>>,
    feed_settle: Duration,
    store: Option<Arc<dyn SessionStore>>,
    tickets: Option<Arc<dyn TicketStore>>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("server_info", &self.server_info)
            .field("limits", &self.limits)
            .field("statics", &self.statics.len())
            .field("templates", &self.templates.len())
            .field("providers", &self.providers.len())
            .field("offer", &self.offer)
            .finish_non_exhaustive()
    }
}

impl Default for ServerBuilder {
    fn default() -> ServerBuilder {
        ServerBuilder::new()
    }
}

impl ServerBuilder {
    /// An empty builder: named after this crate, default limits, everything allowed to
    /// everyone, a random cursor key, subscriptions, list changes and completions offered.
    pub fn new() -> ServerBuilder {
        ServerBuilder {
            server_info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            limits: Limits::default(),
            cursor_key: None,
            policy: None,
            statics: Vec::new(),
            templates: Vec::new(),
            providers: Vec::new(),
            offer: Offer::default(),
            subscription_limits: SubscriptionLimits::default(),
            stdio_principal: Principal::anonymous(),
            redactor: None,
            sensitive: Vec::new(),
            audit: None,
            feed: None,
            feed_settle: DEFAULT_SETTLE,
            store: None,
            tickets: None,
        }
    }

    /// Marks resources sensitive: every list, read, subscription and completion of them is
    /// recorded by the audit sink ([`ServerBuilder::audit`]), and a rule with `confirm` makes
    /// each read wait for the user's yes (an elicitation in either era; see
    /// [`mcp_resources_core::sensitive`]). Confirmation states are signed with a key drawn at
    /// build time and timed by the monotonic clock (no state outlives the process), unless
    /// they are shared ([`ServerBuilder::shared_confirmations`]).
    #[must_use]
    pub fn sensitive(mut self, rule: SensitiveRule) -> Self {
        self.sensitive.push(rule);
        self
    }

    /// Where the records of sensitive resources go (for example an
    /// [`AuditLog`](crate::audit::AuditLog)); without one, sensitive rules only confirm.
    #[must_use]
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }

    /// Sets the name and version the server gives in `initialize` and `server/discover`.
    #[must_use]
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.server_info.name = name.into();
        self.server_info.version = version.into();
        self
    }

    /// Sets the whole implementation description (title, description, icons, website too).
    #[must_use]
    pub fn implementation(mut self, implementation: Implementation) -> Self {
        self.server_info = implementation;
        self
    }

    /// Sets the guidance for the client's model (`instructions` of both eras).
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets every engine limit at once.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets how many items a list page holds at most (default 100).
    #[must_use]
    pub fn page_size(mut self, page_size: NonZeroUsize) -> Self {
        self.limits.page_size = page_size;
        self
    }

    /// Sets the content rules every text answer of a read passes through, in both eras and
    /// on every transport (none by default; see [`Redactor::credentials`]).
    #[must_use]
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Sets the largest read, in bytes, over all contents of one read (default 16 MiB).
    #[must_use]
    pub fn max_read_bytes(mut self, max_read_bytes: u64) -> Self {
        self.limits.max_read_bytes = max_read_bytes;
        self
    }

    /// Sets the key that signs pagination cursors. By default a random one is drawn from the
    /// operating system, so cursors do not survive a restart; set a fixed key to make them.
    #[must_use]
    pub fn cursor_key(mut self, cursor_key: CursorKey) -> Self {
        self.cursor_key = Some(cursor_key);
        self
    }

    /// Sets the access policy (default: everything allowed to everyone).
    #[must_use]
    pub fn policy(mut self, policy: Arc<dyn Policy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Sets the principal the stdio transport runs every request with (default anonymous):
    /// stdio has no authentication, the process that started the server is the client.
    #[must_use]
    pub fn stdio_principal(mut self, principal: Principal) -> Self {
        self.stdio_principal = principal;
        self
    }

    /// Adds a resource with fixed contents, served from memory.
    #[must_use]
    pub fn static_resource(self, resource: Resource, contents: Vec<Contents>) -> Self {
        self.static_entry(StaticResource::new(resource, contents))
    }

    /// Adds a static resource with its own cache policy.
    #[must_use]
    pub fn static_entry(mut self, entry: StaticResource) -> Self {
        self.statics.push(entry);
        self
    }

    /// Adds static resources with their own cache policies, after those already added
    /// ([`EngineBuilder::static_entries`](mcp_resources_core::engine::EngineBuilder::static_entries):
    /// the first ones added keep their vector).
    #[must_use]
    pub fn static_entries(mut self, mut entries: Vec<StaticResource>) -> Self {
        if self.statics.is_empty() {
            self.statics = entries;
        } else {
            self.statics.append(&mut entries);
        }
        self
    }

    /// Adds a template served by functions (a reader, optionally a completer).
    #[must_use]
    pub fn template(mut self, template: FunctionTemplate) -> Self {
        self.templates.push(template);
        self
    }

    /// Adds a template whose reads call `reader` with the matched URI and its variables; no
    /// contents means "not found". Shorthand for [`ServerBuilder::template`] with
    /// [`FunctionTemplate::new`].
    #[must_use]
    pub fn template_fn<F, Fut>(self, descriptor: ResourceTemplate, reader: F) -> Self
    where
        F: Fn(&ResourceUri, &Variables) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Contents>, ProviderError>> + Send + 'static,
    {
        self.template(FunctionTemplate::new(descriptor, reader))
    }

    /// Adds a provider, after those already added.
    #[must_use]
    pub fn provider(mut self, provider: Arc<dyn Provider>) -> Self {
        self.providers.push(provider);
        self
    }

    /// Sets what is offered to clients (default: subscriptions, list changes, completions).
    #[must_use]
    pub fn offer(mut self, offer: Offer) -> Self {
        self.offer = offer;
        self
    }

    /// Sets the bounds on what one subscriber (a legacy session, a listen stream) may hold.
    #[must_use]
    pub fn subscription_limits(mut self, limits: SubscriptionLimits) -> Self {
        self.subscription_limits = limits;
        self
    }

    /// Carries changes between the instances of a deployment through `feed` (see
    /// [`crate::feed`]): what [`Server::follow`] takes from a source is published to every
    /// instance, and every instance's changes reach this one's subscribers. The server is then
    /// built inside a tokio runtime, on which it hears the feed until it shuts down (the task
    /// holds the server: call [`Server::shutdown`] to let it go).
    #[must_use]
    pub fn feed(mut self, feed: Arc<dyn ChangeFeed>) -> Self {
        self.feed = Some(feed);
        self
    }

    /// Sets how long changes heard from the feed are gathered before subscribers are told
    /// (default [`DEFAULT_SETTLE`], 20 ms): the same change
    /// published by several instances within it is told once.
    #[must_use]
    pub fn feed_settle(mut self, settle: Duration) -> Self {
        self.feed_settle = settle;
        self
    }

    /// Keeps the legacy sessions of Streamable HTTP in `store`, shared by the instances of a
    /// deployment, so that any instance serves any session's requests (a session's GET stream
    /// is on one of them, and hears what the session subscribed to anywhere): see the HTTP
    /// transport's legacy sessions. Without it, a session lives in the instance that opened
    /// it, and a load balancer sends its requests there (affinity on `Mcp-Session-Id`).
    #[must_use]
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Makes the confirmations of sensitive resources good on every instance of a deployment
    /// (see [`mcp_resources_core::sensitive`]): a 2026-07-28 client's answer may reach another
    /// instance than the one that asked, and is served there, once deployment-wide: asking
    /// issues the state's ticket in `tickets`, and an answer is served only by redeeming it.
    /// The states are signed with a key derived from the shared cursor key
    /// ([`ServerBuilder::cursor_key`], required) and expire by the wall clock (instances whose
    /// clocks disagree judge a state's five minutes differently; none serves it twice). Without
    /// it, an instance's confirmations are good on it alone.
    #[must_use]
    pub fn shared_confirmations(mut self, tickets: Arc<dyn TicketStore>) -> Self {
        self.tickets = Some(tickets);
        self
    }

    /// Builds the server.
    ///
    /// # Errors
    ///
    /// [`BuildError::Engine`] when a static URI or a template text is registered twice;
    /// [`BuildError::Random`] when no cursor key was set and the OS has no randomness to give;
    /// [`BuildError::NoRuntime`] when a feed was given and no tokio runtime is current;
    /// [`BuildError::NoSharedKey`] when confirmations are shared and no cursor key was set.
    pub fn build(self) -> Result<Server, BuildError> {
        if self.feed.is_some() && tokio::runtime::Handle::try_current().is_err() {
            return Err(BuildError::NoRuntime);
        }
        let shared_confirmations = match (self.tickets, &self.cursor_key) {
            (Some(tickets), Some(key)) => Some((tickets, key.derive("confirmation"))),
            (Some(_), None) => return Err(BuildError::NoSharedKey),
            (None, _) => None,
        };
        let cursor_key = match self.cursor_key {
            Some(key) => key,
            None => {
                let mut bytes = [0_u8; 32];
                getrandom::fill(&mut bytes).map_err(BuildError::Random)?;
                CursorKey::new(bytes)
            }
        };
        let mut engine = Engine::builder(cursor_key).limits(self.limits);
        if let Some(redactor) = self.redactor {
            engine = engine.redactor(redactor);
        }
        if !self.sensitive.is_empty() {
            let mut sensitivity = match shared_confirmations {
                Some((tickets, key)) => {
                    let mut serial = [0_u8; 8];
                    getrandom::fill(&mut serial).map_err(BuildError::Random)?;
                    // The wall clock, which every instance reads alike; a clock stepped back
                    // serves no state twice (the redeemed ticket is gone).
                    let clock: Clock = Arc::new(|| {
                        std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |since| since.as_secs())
                    });
                    Sensitivity::new(key, clock).shared(tickets, u64::from_be_bytes(serial))
                }
                None => {
                    let mut key = [0_u8; 32];
                    getrandom::fill(&mut key).map_err(BuildError::Random)?;
                    // Seconds since the server was built, on the monotonic clock: the key is
                    // this process's, so no state outlives it, and a wall clock stepped back
                    // cannot bring a used state's expiry back to life (a replay).
                    let started = std::time::Instant::now();
                    let clock: Clock = Arc::new(move || started.elapsed().as_secs());
                    Sensitivity::new(key, clock)
                }
            };
            for rule in self.sensitive {
                sensitivity = sensitivity.rule(rule);
            }
            if let Some(sink) = self.audit {
                sensitivity = sensitivity.audit(sink);
            }
            engine = engine.sensitivity(sensitivity);
        }
        // Who asks decides what is listed and read: every modern result is private then, the
        // ones the engine's hints do not cover (discover) included.
        let per_principal = self
            .policy
            .as_ref()
            .is_some_and(|policy| policy.depends_on_principal());
        if let Some(policy) = self.policy {
            engine = engine.policy(policy);
        }
        engine = engine.static_entries(self.statics);
        for template in self.templates {
            engine = engine.template(template);
        }
        for provider in self.providers {
            engine = engine.provider(provider);
        }
        let service = Service::with_offer(engine.build()?, self.offer, self.subscription_limits);
        let offer = service.offer();

        let legacy = LegacyConfig {
            instructions: self.instructions.clone(),
            ..LegacyConfig::new(self.server_info.clone(), offer)
        };
        let modern = ModernConfig {
            instructions: self.instructions,
            offer,
            legacy_versions: legacy.supported.iter().rev().cloned().collect(),
            discover_ttl_ms: DISCOVER_TTL_MS,
            private_results: per_principal,
            ..ModernConfig::new(self.server_info)
        };
        let shutdown = CancellationToken::new();
        let (service, wakers) = (Arc::new(service), Arc::new(Wakers::default()));
        let cluster = Cluster::new(
            self.feed,
            self.feed_settle,
            Arc::clone(&service),
            Arc::clone(&wakers),
            shutdown.clone(),
        );
        cluster.start();
        Ok(Server {
            shared: Arc::new(Shared {
                service,
                legacy: Arc::new(legacy),
                modern: Handler::new(Arc::new(modern)),
                wakers,
                cluster,
                shutdown,
                stdio_principal: Arc::new(self.stdio_principal),
                store: self.store,
            }),
        })
    }
}

/// A built server: cheap to clone, every clone is a handle on the same service, subscribers
/// and shutdown signal. Serve it with [`Server::serve_stdio`] or over Streamable HTTP; tell it
/// about changes with [`Server::resource_updated`] and [`Server::list_changed`].
#[derive(Clone, Debug)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

/// What every transport and every clone of a [`Server`] shares.
pub(crate) struct Shared {
    /// The engine and the subscription hub.
    pub(crate) service: Arc<Service>,
    /// How legacy sessions present the server.
    pub(crate) legacy: Arc<LegacyConfig>,
    /// The modern adapter (stateless, shared by every modern request).
    pub(crate) modern: Handler,
    /// Who to wake when a subscriber has changes waiting.
    pub(crate) wakers: Arc<Wakers>,
    /// Cancelled once, when the server is asked to shut down: every transport, connection and
    /// live stream waits on it.
    pub(crate) shutdown: CancellationToken,
    /// The principal of every stdio request.
    pub(crate) stdio_principal: Arc<Principal>,
    /// The change feed between instances, readiness, and the end of live streams.
    pub(crate) cluster: Arc<Cluster>,
    /// Where legacy HTTP sessions are kept for every instance, if anywhere.
    pub(crate) store: Option<Arc<dyn SessionStore>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("cluster", &self.cluster)
            .field("store", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A builder with the defaults of [`ServerBuilder::new`].
    pub fn builder() -> ServerBuilder {
        ServerBuilder::new()
    }

    /// The core service behind this server (the engine and the subscription hub).
    pub fn service(&self) -> &Service {
        &self.shared.service
    }

    /// Tells subscribers of `uri` (legacy `resources/subscribe`, modern listen streams) that
    /// it changed. Changes coalesce until each subscriber is told. With a change feed, this
    /// tells this instance's subscribers only; [`Server::follow`] publishes to every instance.
    pub fn resource_updated(&self, uri: &str) {
        let ready = self.shared.service.resource_updated(uri);
        self.shared.wakers.wake(&ready);
    }

    /// Tells subscribers of list changes that the list of resources changed. When the
    /// resources that came or went are known, prefer [`Server::list_changed_for`].
    pub fn list_changed(&self) {
        let ready = self.shared.service.list_changed();
        self.shared.wakers.wake(&ready);
    }

    /// Tells subscribers of list changes that the resources `changed` came or went, those
    /// allowed to list one of them only: activity where a principal cannot see is not told to
    /// it.
    pub fn list_changed_for(&self, changed: &[ResourceUri]) {
        let ready = self.shared.service.list_changed_for(changed);
        self.shared.wakers.wake(&ready);
    }

    /// Waits until [`Server::shutdown`] is called (at once if it was).
    pub async fn shut_down(&self) {
        self.shared.shutdown.cancelled().await;
    }

    /// Asks every transport serving this server to shut down gracefully: open listen streams
    /// get their final result, then the transports stop. Returns at once.
    pub fn shutdown(&self) {
        self.shared.shutdown.cancel();
    }

    /// Whether [`Server::shutdown`] was called.
    pub fn is_shut_down(&self) -> bool {
        self.shared.shutdown.is_cancelled()
    }

    /// Whether this server is ready to serve: not shut down, and its change feed (if it has
    /// one) heard. An instance whose feed is away still answers reads, but its subscribers
    /// would miss changes seen by other instances; a load balancer should prefer another.
    pub fn is_ready(&self) -> bool {
        !self.is_shut_down() && self.shared.cluster.is_connected()
    }

    /// Feeds the changes a provider's source reports (a file watcher, a repository whose refs
    /// move) to the subscribers (through the feed, to every instance, when the server has
    /// one: [`ServerBuilder::feed`]), until the source stops or the server shuts down. Spawns a
    /// task on the current tokio runtime.
    pub fn follow(&self, mut source: impl ChangeSource + 'static) -> tokio::task::JoinHandle<()> {
        let server = self.clone();
        tokio::spawn(async move {
            loop {
                let change = tokio::select! {
                    () = server.shared.shutdown.cancelled() => return,
                    change = source.next_change() => change,
                };
                match change {
                    None => return,
                    Some(change) => server.shared.cluster.tell(change).await,
                }
            }
        })
    }
}
