//! Our resources for servers built on `rmcp`, the official Rust SDK: its `ServerHandler`
//! keeps its tools and prompts, and answers every resource request from our engine and
//! providers, in both protocol eras as rmcp serves them.
//!
//! **Layer:** a front end beside the server library. rmcp decodes, negotiates the version and
//! runs the transport; this crate turns each of its typed resource requests into a core
//! [`Query`], asks the [`Server`]'s service, and turns the answer back into rmcp's types
//! through the same conversion and the same error codes as our own adapters
//! (`mcp-resources-wire`, and the error mappings of `mcp-legacy-2025` and `mcp-2026`). It must
//! never parse a message or run a transport of its own, and never decide a protocol rule the
//! adapters already decide.
//!
//! # Use
//!
//! Build a [`Server`] as for our own transports (providers, policy, sensitive resources, …),
//! wrap it in [`Resources`], keep that in your handler, and let [`serve_resources!`] write the
//! resource methods of your `impl ServerHandler`; declare the capabilities with
//! [`Resources::capabilities`] and feed the providers' changes with `Server::follow`:
//!
//! ```no_run
//! use mcp_resources_rmcp::{Resources, serve_resources};
//! use mcp_resources_server::Server;
//! use rmcp::ServerHandler;
//! use rmcp::model::{ServerCapabilities, ServerConfig};
//!
//! #[derive(Clone)]
//! struct Docs {
//!     resources: Resources,
//! }
//!
//! impl ServerHandler for Docs {
//!     fn get_info(&self) -> ServerConfig {
//!         ServerConfig::new(self.resources.capabilities(ServerCapabilities::default()))
//!     }
//!     serve_resources!(resources);
//! }
//!
//! let docs = Docs { resources: Resources::new(Server::builder().build().unwrap()) };
//! ```
//!
//! # What is served
//!
//! `resources/list`, `resources/templates/list` and `resources/read` (with pagination, the
//! policy, content rules and cache hints), completion of template variables, the Skills
//! extension (`skills/list`, `skills/get`, `resources/directory/read`), and change
//! notifications: `resources/subscribe` with `notifications/resources/updated` and
//! `notifications/resources/list_changed` in a legacy session, `subscriptions/listen` in the
//! 2026-07-28 era. A read that needs the user's input (a sensitive resource to confirm, a
//! provider's question) is an `InputRequiredResult` in 2026-07-28 and the server's own
//! `elicitation/create`, `sampling/createMessage` or `roots/list` requests in a legacy session.
//!
//! # Who asks
//!
//! rmcp decides who is connected; a [`Resources`] answers every request as one principal
//! ([`Resources::with_principal`], anonymous by default; a named principal makes every
//! 2026-07-28 result private to caches). Serve principals apart with one handler each.
//!
//! # Eras and sessions
//!
//! Each request is served in the era rmcp serves it in: 2026-07-28 when its own `_meta` names
//! it; else the version its connection's `initialize` negotiated, with the capabilities the
//! client declared then (a request's `_meta` changes neither, and a second `initialize` is
//! answered without changing anything); else, with no session, the legacy version it
//! names, with no client to ask. Legacy sessions are told apart by rmcp's peer, so one
//! `Resources` (or its clones, which share everything) may serve many; a session's
//! subscriptions end with it. A listen stream's acknowledgment is decided before the stream
//! subscribes (rmcp sends it first): a change in between is not told, and a stream whose
//! acknowledged URIs cannot all be subscribed ends with an error rather than staying silent
//! about some. In rmcp's stateless HTTP mode every request is a session of its own, so a
//! legacy `resources/subscribe` there is accepted and never told anything.

mod asking;
mod convert;
mod feed;
mod sessions;

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_legacy_2025::errors as legacy;
use mcp_resources_core::error::ReadError;
use mcp_resources_core::input::Inputs;
use mcp_resources_core::policy::{Action, Principal};
use mcp_resources_core::service::{Answer, Query, QueryContext};
use mcp_resources_core::subscription::SubscriberId;
use mcp_resources_core::template::Variables;
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_server::Server;
use mcp_resources_wire::input as to_wire_input;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetSkillRequestParams, GetSkillResult,
    InitializeRequestParams, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, Reference, ServerCapabilities,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, Peer};

use crate::convert::Era;
use crate::sessions::{SessionRef, Sessions};

/// The most rounds of questions one legacy read may ask the client before it is refused: a
/// confirmation takes one, a provider's question one more.
const MAX_ASK_ROUNDS: usize = 4;

/// A [`Server`]'s resources for an rmcp `ServerHandler`: one method per resource request,
/// each taking rmcp's params and context and giving rmcp's result. [`serve_resources!`]
/// writes the forwarding methods. Clones share everything, the legacy sessions included.
#[derive(Clone, Debug)]
pub struct Resources {
    server: Server,
    principal: Arc<Principal>,
    /// Every 2026-07-28 result is private to caches (a named principal shaped it).
    private: bool,
    sessions: Arc<Sessions>,
}

impl Resources {
    /// The resources of `server`, answered as the anonymous principal.
    pub fn new(server: Server) -> Resources {
        Resources {
            server,
            principal: Arc::new(Principal::anonymous()),
            private: false,
            sessions: Arc::default(),
        }
    }

    /// The same resources answered as `principal`; every 2026-07-28 result is then private
    /// (`cacheScope: "private"`): what a principal is shown is its own.
    #[must_use]
    pub fn with_principal(self, principal: Principal) -> Resources {
        Resources {
            principal: Arc::new(principal),
            private: true,
            ..self
        }
    }

    /// The same resources with every 2026-07-28 result private to caches, whatever the
    /// engine's hints say: for a server whose clients authenticate, so that no shared cache
    /// hands one caller's answer to another.
    #[must_use]
    pub fn with_private_results(self) -> Resources {
        Resources {
            private: true,
            ..self
        }
    }

    /// The server behind it (to tell it about changes, or to shut it down).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// `capabilities` with what the resources offer added: `resources` (with `subscribe` and
    /// `listChanged` as offered), `completions`, and the Skills extension with directory reads.
    pub fn capabilities(&self, mut capabilities: ServerCapabilities) -> ServerCapabilities {
        let offer = self.server.service().offer();
        let mut resources = rmcp::model::ResourcesCapability::default();
        resources.subscribe = offer.subscribe.then_some(true);
        resources.list_changed = offer.list_changed.then_some(true);
        capabilities.resources = Some(resources);
        if offer.completions {
            capabilities.completions = Some(serde_json::Map::new());
        }
        if offer.directories {
            let mut settings = serde_json::Map::new();
            settings.insert("directoryRead".to_owned(), serde_json::Value::Bool(true));
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(rmcp::model::SKILLS_EXTENSION_ID.to_owned(), settings);
        }
        capabilities
    }

    /// `resources/list`.
    pub async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let era = Era::of(&context, self.private);
        let cursor = request.and_then(|params| params.cursor);
        match self.ask(Query::ListResources { cursor }, None).await {
            Answer::Resources(Ok(page)) => convert::resources(page, &era),
            Answer::Resources(Err(error)) => Err(era.list_error(error)),
            _ => Err(convert::mismatched()),
        }
    }

    /// `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let era = Era::of(&context, self.private);
        let cursor = request.and_then(|params| params.cursor);
        match self.ask(Query::ListTemplates { cursor }, None).await {
            Answer::Templates(Ok(page)) => convert::templates(page, &era),
            Answer::Templates(Err(error)) => Err(era.list_error(error)),
            _ => Err(convert::mismatched()),
        }
    }

    /// `resources/read`. A read that needs the user's input is an `InputRequiredResult` in
    /// 2026-07-28 (its retry carries the answers); in a legacy session the client is asked
    /// with the server's own requests and the read is retried here, at most four rounds, all
    /// within one deadline, at most sixteen such reads of a session at once.
    pub async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let era = Era::of(&context, self.private);
        let uri = era.parse_uri(&request.uri)?;
        // A retry's answers and state are the modern era's; a legacy read starts with none.
        let mut inputs = match (&era, &request.input_responses) {
            (Era::Modern { .. }, Some(responses)) => Inputs {
                responses: match serde_json::to_value(responses) {
                    Ok(serde_json::Value::Object(map)) => to_wire_input::responses(&map),
                    _ => BTreeMap::new(),
                },
                state: request.request_state.clone(),
            },
            (Era::Modern { .. }, None) => Inputs {
                responses: BTreeMap::new(),
                state: request.request_state.clone(),
            },
            (Era::Legacy(_), _) => Inputs::default(),
        };
        let mut asking = None;
        let deadline = asking::deadline();
        for _round in 0..=MAX_ASK_ROUNDS {
            let query = Query::Read {
                uri: uri.clone(),
                inputs,
            };
            let read = match self.ask(query, None).await {
                Answer::Read(read) => read,
                _ => return Err(convert::mismatched()),
            };
            let input = match read {
                Ok(output) => return convert::read(&output, &request.uri, &era),
                Err(ReadError::InputRequired { input, .. }) => input,
                Err(error) => return Err(era.read_error(error, &request.uri)),
            };
            let Era::Legacy(version) = &era else {
                return convert::input_required(&input, &context).map(Into::into);
            };
            if let Some(refused) = asking::refusal(&context, version, &request.uri, &input) {
                return Err(refused);
            }
            if asking.is_none() {
                let session = self.session(&context.peer)?;
                asking = Some(
                    session
                        .start_asking()
                        .ok_or_else(|| convert::error(legacy::too_many_asks(&request.uri)))?,
                );
            }
            inputs = asking::ask(&context, version, &request.uri, *input, deadline).await?;
        }
        Err(ErrorData::internal_error(
            format!(
                "the read of {} still needs input after {MAX_ASK_ROUNDS} rounds of questions; \
                 it is not served",
                mcp_types::error::echo(&request.uri)
            ),
            None,
        ))
    }

    /// `completion/complete` of a resource template's variable (this bridge has no prompts:
    /// a `ref/prompt` is left to the handler, which should answer it itself).
    pub async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let era = Era::of(&context, self.private);
        if !self.server.service().offer().completions {
            return Err(not_offered("completion/complete"));
        }
        let Reference::Resource(reference) = request.r#ref else {
            return Err(ErrorData::invalid_params(
                "completion of a prompt argument: these resources have no prompts",
                None,
            ));
        };
        let mut variables = Variables::new();
        for (name, value) in request
            .context
            .and_then(|context| context.arguments)
            .into_iter()
            .flatten()
        {
            variables.insert(name, value);
        }
        let query = Query::Complete {
            template: reference.uri,
            variable: request.argument.name,
            prefix: request.argument.value,
            context: variables,
        };
        match self.ask(query, None).await {
            Answer::Completion(Ok(completion)) => convert::completion(completion, &era),
            Answer::Completion(Err(error)) => Err(era.complete_error(error)),
            _ => Err(convert::mismatched()),
        }
    }

    /// `resources/subscribe` in a legacy session: `notifications/resources/updated` follows
    /// each change of the resource until it is unsubscribed or the session ends.
    pub async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let era = Era::of(&context, self.private);
        if let Era::Modern { .. } = era {
            return Err(not_offered("resources/subscribe (legacy sessions only)"));
        }
        let uri = era.parse_uri(&request.uri)?;
        let subscriber = self.session(&context.peer)?.subscriber;
        match self.ask(Query::Subscribe { uri }, Some(subscriber)).await {
            Answer::Subscribed(Ok(())) => Ok(()),
            Answer::Subscribed(Err(error)) => {
                Err(convert::error(legacy::subscription(&error, &request.uri)))
            }
            _ => Err(convert::mismatched()),
        }
    }

    /// `resources/unsubscribe` in a legacy session; succeeds whether or not the subscription
    /// existed.
    pub async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let era = Era::of(&context, self.private);
        if matches!(era, Era::Modern { .. }) || !self.server.service().offer().subscribe {
            return Err(not_offered("resources/unsubscribe"));
        }
        let uri = era.parse_uri(&request.uri)?;
        let subscriber = self.session(&context.peer)?.subscriber;
        self.ask(Query::Unsubscribe { uri }, Some(subscriber)).await;
        Ok(())
    }

    /// What a 2026-07-28 `subscriptions/listen` is acknowledged with: list changes when
    /// offered, and the resources asked for that this principal may subscribe to and read,
    /// each spelled in its canonical form (a change names a resource by it). Tools and prompts
    /// list changes are the handler's own business and are not accepted here.
    pub fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let offer = self.server.service().offer();
        let engine = self.server.service().engine();
        let mut accepted = SubscriptionFilter::new();
        if offer.list_changed && requested.resources_list_changed == Some(true) {
            accepted.resources_list_changed = Some(true);
        }
        if let (true, Some(uris)) = (offer.subscribe, &requested.resource_subscriptions) {
            let mut kept: Vec<String> = Vec::new();
            let allowed = uris
                .iter()
                .filter(|text| {
                    ResourceUri::parse(text).is_ok_and(|uri| {
                        uri.as_str() == text.as_str()
                            && engine.allows(&self.principal, Action::Subscribe, &uri)
                            && engine.allows(&self.principal, Action::Read, &uri)
                    })
                })
                .cloned();
            let limit = self
                .server
                .service()
                .subscription_limits()
                .max_subscriptions_per_subscriber;
            let mut seen = std::collections::HashSet::new();
            for uri in allowed {
                if kept.len() == limit {
                    break;
                }
                if seen.insert(uri.clone()) {
                    kept.push(uri);
                }
            }
            accepted.resource_subscriptions = Some(kept);
        }
        Some(accepted)
    }

    /// Runs one 2026-07-28 listen stream: subscribes to what was acknowledged and sends each
    /// change on the stream until the client cancels it or the server shuts down.
    pub async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        feed::listen(self, context).await
    }

    /// `resources/directory/read` (Skills extension): a page of a directory's children.
    pub async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let era = Era::of(&context, self.private);
        let uri = era.parse_uri(&request.uri)?;
        let query = Query::ReadDirectory {
            uri,
            cursor: request.cursor,
        };
        match self.ask(query, None).await {
            Answer::Directory(Ok(page)) => convert::resources(page, &era),
            Answer::Directory(Err(error)) => Err(era.directory_error(error, &request.uri)),
            _ => Err(convert::mismatched()),
        }
    }

    /// `skills/list` (Skills extension).
    pub async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let era = Era::of(&context, self.private);
        let cursor = request.and_then(|params| params.cursor);
        match self.ask(Query::ListSkills { cursor }, None).await {
            Answer::Skills(Ok(page)) => convert::skills(page, &era),
            Answer::Skills(Err(error)) => Err(era.list_error(error)),
            _ => Err(convert::mismatched()),
        }
    }

    /// `skills/get` (Skills extension).
    pub async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let era = Era::of(&context, self.private);
        let uri = era.parse_uri(&request.uri)?;
        match self.ask(Query::GetSkill { uri }, None).await {
            Answer::Skill(Ok(found)) => convert::skill(found, &era),
            Answer::Skill(Err(error)) => Err(era.skill_error(error, &request.uri)),
            _ => Err(convert::mismatched()),
        }
    }

    /// The client of a legacy session is ready: from now on it is told when the list of
    /// resources changes (when list changes are offered).
    pub async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.server.service().offer().list_changed {
            let Ok(SessionRef { subscriber, .. }) = self.session(&context.peer) else {
                return;
            };
            let watch = Query::WatchListChanges { enabled: true };
            if let Answer::WatchingListChanges(Err(error)) = self.ask(watch, Some(subscriber)).await
            {
                tracing::warn!(%error, "the session will not be told of list changes");
            }
        }
    }

    /// `initialize`: answered from the params rmcp recorded for the connection, never
    /// recording new ones. rmcp records the client's params before the handshake's handler
    /// runs and the negotiated ones after it, and takes a second `initialize` as any request:
    /// rmcp's default handler would record its params, starting the session over with other
    /// capabilities and a version nobody negotiated while its subscriptions and waiting reads
    /// went on. Here a second `initialize` changes nothing and is answered with the session's
    /// own version (our legacy adapter refuses it; a bridge cannot tell it from the first in
    /// every rmcp transport). Connections without recorded params (none of rmcp's today) get
    /// the request's. [`serve_resources!`] writes an `initialize` calling this; a handler
    /// writing its own calls it instead of recording the params itself.
    ///
    /// # Errors
    ///
    /// rmcp's own, when no version can be agreed.
    pub fn initialize<H: rmcp::ServerHandler>(
        &self,
        handler: &H,
        request: &InitializeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        match context.peer.peer_info() {
            Some(recorded) => handler.negotiate_initialize(&recorded),
            None => {
                context.peer.set_peer_info(request.clone());
                handler.negotiate_initialize(request)
            }
        }
    }

    /// Asks the service `query` as this principal, with `subscriber` for subscription queries.
    async fn ask(&self, query: Query, subscriber: Option<SubscriberId>) -> Answer {
        let context = QueryContext {
            principal: &self.principal,
            subscriber,
        };
        self.server.service().answer(context, query).await
    }

    /// `peer`'s legacy session, made (with the task that tells its client) at the first call.
    fn session(&self, peer: &Peer<RoleServer>) -> Result<SessionRef, ErrorData> {
        self.sessions
            .of(&self.server, peer)
            .ok_or_else(|| ErrorData::internal_error("no legacy session on this connection", None))
    }
}

/// `-32601` for a method these resources do not offer.
fn not_offered(method: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
        None,
    )
}

/// Writes, inside an `impl rmcp::ServerHandler` block, the resource methods forwarded to the
/// [`Resources`] in field `$field` of the handler: lists, reads, templates, completion,
/// subscriptions in both eras, the Skills extension, `initialize` (where a second one
/// changes nothing, [`Resources::initialize`]) and `on_initialized`. Declare the capabilities in
/// `get_info` with [`Resources::capabilities`].
///
/// A handler that writes some of these itself leaves them out: `serve_resources!($field,
/// without complete)` (a handler completing prompt arguments too calls
/// [`Resources::complete`] for `ref/resource`), `without initialize` (its `initialize` calls
/// [`Resources::initialize`]), or `without complete, initialize`.
#[macro_export]
macro_rules! serve_resources {
    ($field:ident) => {
        $crate::serve_resources!(@resources $field);
        $crate::serve_resources!(@complete $field);
        $crate::serve_resources!(@initialize $field);
    };
    ($field:ident, without complete) => {
        $crate::serve_resources!(@resources $field);
        $crate::serve_resources!(@initialize $field);
    };
    ($field:ident, without initialize) => {
        $crate::serve_resources!(@resources $field);
        $crate::serve_resources!(@complete $field);
    };
    ($field:ident, without complete, initialize) => {
        $crate::serve_resources!(@resources $field);
    };
    (@complete $field:ident) => {
        async fn complete(
            &self,
            request: ::rmcp::model::CompleteRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::CompleteResult, ::rmcp::ErrorData> {
            self.$field.complete(request, context).await
        }
    };
    (@initialize $field:ident) => {
        async fn initialize(
            &self,
            request: ::rmcp::model::InitializeRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::InitializeResult, ::rmcp::ErrorData> {
            self.$field.initialize(self, &request, &context)
        }
    };
    (@resources $field:ident) => {
        async fn list_resources(
            &self,
            request: ::std::option::Option<::rmcp::model::PaginatedRequestParams>,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::ListResourcesResult, ::rmcp::ErrorData> {
            self.$field.list_resources(request, context).await
        }
        async fn list_resource_templates(
            &self,
            request: ::std::option::Option<::rmcp::model::PaginatedRequestParams>,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::ListResourceTemplatesResult, ::rmcp::ErrorData>
        {
            self.$field.list_resource_templates(request, context).await
        }
        async fn read_resource(
            &self,
            request: ::rmcp::model::ReadResourceRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::ReadResourceResponse, ::rmcp::ErrorData> {
            self.$field.read_resource(request, context).await
        }
        async fn subscribe(
            &self,
            request: ::rmcp::model::SubscribeRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<(), ::rmcp::ErrorData> {
            self.$field.subscribe(request, context).await
        }
        async fn unsubscribe(
            &self,
            request: ::rmcp::model::UnsubscribeRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<(), ::rmcp::ErrorData> {
            self.$field.unsubscribe(request, context).await
        }
        fn accepted_subscription_filter(
            &self,
            requested: &::rmcp::model::SubscriptionFilter,
        ) -> ::std::option::Option<::rmcp::model::SubscriptionFilter> {
            self.$field.accepted_subscription_filter(requested)
        }
        async fn listen(
            &self,
            context: ::rmcp::service::SubscriptionContext,
        ) -> ::std::result::Result<(), ::rmcp::ErrorData> {
            self.$field.listen(context).await
        }
        async fn read_resource_directory(
            &self,
            request: ::rmcp::model::ReadResourceDirectoryRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::ReadResourceDirectoryResult, ::rmcp::ErrorData>
        {
            self.$field.read_resource_directory(request, context).await
        }
        async fn list_skills(
            &self,
            request: ::std::option::Option<::rmcp::model::PaginatedRequestParams>,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::ListSkillsResult, ::rmcp::ErrorData> {
            self.$field.list_skills(request, context).await
        }
        async fn get_skill(
            &self,
            request: ::rmcp::model::GetSkillRequestParams,
            context: ::rmcp::service::RequestContext<::rmcp::service::RoleServer>,
        ) -> ::std::result::Result<::rmcp::model::GetSkillResult, ::rmcp::ErrorData> {
            self.$field.get_skill(request, context).await
        }
        async fn on_initialized(
            &self,
            context: ::rmcp::service::NotificationContext<::rmcp::service::RoleServer>,
        ) {
            self.$field.on_initialized(context).await
        }
    };
}
