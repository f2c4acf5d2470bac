//! The engine: static resources, templates and providers registered together, and the four
//! operations the adapters call per request (list resources, list templates, read, complete).
//!
//! **Layer:** core, the registry and router. It never knows a protocol version, a JSON-RPC
//! method, JSON, a runtime or I/O: its async methods only await the [`Provider`] seam and the
//! template functions, whose futures are `Send`.
//!
//! # Routing order of a read
//!
//! 1. The policy is asked first: a principal that may not [`Read`](Action::Read) the URI gets
//!    [`ReadError::NotFound`], exactly as for a URI that does not exist (or
//!    [`ReadError::Denied`] when [`Limits::reveal_denied`] is set).
//! 2. **Static resources**, by exact canonical URI (a hash lookup).
//! 3. **Providers that [claim](Provider::claims) the URI**, in registration order. The first one
//!    that answers `Some` wins; `None` passes on to the next. A provider gets the variables of
//!    the first of its own templates that matches the URI (unless it
//!    [parses its URIs itself](Provider::matches_templates)).
//! 4. **Function templates**, through [`TemplateIndex::find`] in its documented order; a template
//!    function that returns no contents means not found.
//! 5. Otherwise [`ReadError::Directory`] when the URI is a directory the principal may see
//!    (visible as for [`Engine::list_directory`]), else [`ReadError::NotFound`].
//!
//! # Listing order
//!
//! Resources: the static resources first (source 0), then each provider in registration order
//! (source `i + 1`), each source in ascending canonical-URI order. Every item is checked against
//! the policy ([`Action::List`]) *before* it counts towards the page, so a page holds up to
//! [`Limits::page_size`] visible items. Cursors resume strictly after the last returned key (see
//! [`pagination`](crate::pagination)). A URI served by two sources is listed by both.
//!
//! Templates: the engine's templates in registration order (function-backed and listed-only
//! ones), then each provider's templates (taken once, at registration) in provider order. The
//! template list is not filtered by the policy: a template names a family of URIs, not a
//! resource, and reading or completing through it is still checked per URI.
//!
//! # Subscriptions
//!
//! The engine keeps no subscriber state. The subscription hub
//! (`crate::subscription`) is a separate pure value owned by the binary/adapters: before
//! subscribing a principal to a URI they ask [`Engine::allows`] with
//! [`Action::Subscribe`]; whoever changes a provider (a file watcher, a
//! [`MemoryProvider`](crate::memory::MemoryProvider) owner) tells the hub, which coalesces the
//! changes and hands back deliveries.

mod directory;
mod lists;
mod redaction;
mod sensitive;

/// How many bytes a ranged read looks past each edge of its range when content rules are on:
/// more than the longest secret a built-in rule finds whole (a PEM key block of a 4096-bit
/// RSA key is about 3.3 KB). See the `redaction` module.
pub const REDACT_MARGIN: u64 = 16 * 1024;

use std::collections::HashMap;
use std::future::Future;
use std::num::NonZeroUsize;
use std::sync::Arc;

use crate::cache::{CacheHint, CachePolicy, CacheScope};
use crate::completion::{Completion, filter_candidates};
use crate::error::{BuildError, CompleteError, ListError, ReadError};
use crate::input::Inputs;
use crate::pagination::{CursorCodec, CursorError, CursorKey, Page, Position};
use crate::policy::{Action, AllowAll, Policy, Principal};
use crate::provider::{BoxFuture, CompletionRequest, Provider, ProviderError, ReadRequest};
use crate::redact::Redactor;
use crate::resource::{ByteRange, Contents, Resource, ResourceTemplate};
use crate::sensitive::Sensitivity;
use crate::skill::Skill;
use crate::template::{TemplateIndex, UriTemplate, Variables};
use crate::uri::ResourceUri;

/// The function behind a template: produces the contents of a URI from its variables and the
/// client's answers to the input it asked for before (see
/// [`ProviderError::input_required`]). Returning no contents means "not found".
pub type TemplateReader = Box<
    dyn Fn(
            &ResourceUri,
            &Variables,
            &Inputs,
        ) -> BoxFuture<'static, Result<Vec<Contents>, ProviderError>>
        + Send
        + Sync,
>;

/// The function proposing values for a variable of a template.
pub type TemplateCompleter = Box<
    dyn Fn(CompletionRequest<'_>) -> BoxFuture<'static, Result<Vec<String>, ProviderError>>
        + Send
        + Sync,
>;

/// The knobs of an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How many items a list page holds at most. Default 100.
    pub page_size: NonZeroUsize,
    /// The largest read, in bytes (the sum of all bodies of one read). Default 16 MiB.
    pub max_read_bytes: u64,
    /// The ttl of answers whose source sets none, in milliseconds. Default 0 (immediately
    /// stale: clients may keep but must revalidate).
    pub default_ttl_ms: u64,
    /// Whether a denied read says "denied" instead of "not found". Default `false`.
    pub reveal_denied: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            page_size: NonZeroUsize::new(100).expect("invariant: 100 is not zero"),
            max_read_bytes: 16 * 1024 * 1024,
            default_ttl_ms: 0,
            reveal_denied: false,
        }
    }
}

/// A template served by functions: a reader, optionally a completer, and a cache policy.
pub struct FunctionTemplate {
    descriptor: ResourceTemplate,
    reader: TemplateReader,
    completer: Option<TemplateCompleter>,
    cache_policy: CachePolicy,
}

impl FunctionTemplate {
    /// A template whose reads call `reader` with the matched URI and variables.
    pub fn new<F, Fut>(descriptor: ResourceTemplate, reader: F) -> FunctionTemplate
    where
        F: Fn(&ResourceUri, &Variables) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Contents>, ProviderError>> + Send + 'static,
    {
        FunctionTemplate {
            descriptor,
            reader: Box::new(move |uri, variables, _| Box::pin(reader(uri, variables))),
            completer: None,
            cache_policy: CachePolicy::default(),
        }
    }

    /// A template whose reads call `reader` with the matched URI, the variables and the
    /// client's answers to input asked for before: a reader that needs the user's answer, a
    /// message of the client's model or its roots fails with
    /// [`ProviderError::input_required`], and is called again with the answers.
    pub fn with_inputs<F, Fut>(descriptor: ResourceTemplate, reader: F) -> FunctionTemplate
    where
        F: Fn(&ResourceUri, &Variables, &Inputs) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Contents>, ProviderError>> + Send + 'static,
    {
        FunctionTemplate {
            descriptor,
            reader: Box::new(move |uri, variables, inputs| {
                Box::pin(reader(uri, variables, inputs))
            }),
            completer: None,
            cache_policy: CachePolicy::default(),
        }
    }

    /// Completes its variables with `completer`.
    #[must_use]
    pub fn with_completer<F, Fut>(mut self, completer: F) -> FunctionTemplate
    where
        F: Fn(CompletionRequest<'_>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<String>, ProviderError>> + Send + 'static,
    {
        self.completer = Some(Box::new(move |request| Box::pin(completer(request))));
        self
    }

    /// Sets how its answers may be cached.
    #[must_use]
    pub fn with_cache_policy(mut self, cache_policy: CachePolicy) -> FunctionTemplate {
        self.cache_policy = cache_policy;
        self
    }
}

impl std::fmt::Debug for FunctionTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionTemplate")
            .field("descriptor", &self.descriptor)
            .field("completer", &self.completer.is_some())
            .field("cache_policy", &self.cache_policy)
            .finish_non_exhaustive()
    }
}

/// A resource with fixed contents, served from memory by exact URI.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticResource {
    /// How it is listed.
    pub resource: Resource,
    /// What a read returns.
    pub contents: Vec<Contents>,
    /// How reads of it may be cached.
    pub cache_policy: CachePolicy,
}

impl StaticResource {
    /// A static resource with the default cache policy.
    pub fn new(resource: Resource, contents: Vec<Contents>) -> StaticResource {
        StaticResource {
            resource,
            contents,
            cache_policy: CachePolicy::default(),
        }
    }
}

/// Registers everything an [`Engine`] serves, then builds it.
pub struct EngineBuilder {
    limits: Limits,
    cursor_key: CursorKey,
    policy: Arc<dyn Policy>,
    statics: Vec<StaticResource>,
    templates: Vec<TemplateSlot>,
    providers: Vec<Arc<dyn Provider>>,
    redactor: Redactor,
    sensitivity: Option<Sensitivity>,
}

impl std::fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("limits", &self.limits)
            .field("statics", &self.statics.len())
            .field("templates", &self.templates.len())
            .field("providers", &self.providers.len())
            .finish_non_exhaustive()
    }
}

impl EngineBuilder {
    /// An empty builder: default limits, the [`AllowAll`] policy, cursors signed with
    /// `cursor_key`.
    pub fn new(cursor_key: CursorKey) -> EngineBuilder {
        EngineBuilder {
            limits: Limits::default(),
            cursor_key,
            policy: Arc::new(AllowAll),
            statics: Vec::new(),
            templates: Vec::new(),
            providers: Vec::new(),
            redactor: Redactor::none(),
            sensitivity: None,
        }
    }

    /// Sets the sensitive resources: audited, and read only once the user confirms where a
    /// rule says so (none by default; see [`sensitive`](crate::sensitive)).
    #[must_use]
    pub fn sensitivity(mut self, sensitivity: Sensitivity) -> EngineBuilder {
        self.sensitivity = (!sensitivity.is_empty()).then_some(sensitivity);
        self
    }

    /// Sets the content rules every text body of a read passes through (none by default; the
    /// server binary sets [`Redactor::credentials`] and the configured rules).
    #[must_use]
    pub fn redactor(mut self, redactor: Redactor) -> EngineBuilder {
        self.redactor = redactor;
        self
    }

    /// Sets the limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> EngineBuilder {
        self.limits = limits;
        self
    }

    /// Sets the access policy.
    #[must_use]
    pub fn policy(mut self, policy: Arc<dyn Policy>) -> EngineBuilder {
        self.policy = policy;
        self
    }

    /// Adds a static resource with its contents.
    #[must_use]
    pub fn static_resource(self, resource: Resource, contents: Vec<Contents>) -> EngineBuilder {
        self.static_entry(StaticResource::new(resource, contents))
    }

    /// Adds a static resource with its own cache policy.
    #[must_use]
    pub fn static_entry(mut self, entry: StaticResource) -> EngineBuilder {
        self.statics.push(entry);
        self
    }

    /// Adds static resources with their own cache policies, after those already added. The
    /// first ones added keep their vector: with many resources, a second one beside it would
    /// be a peak of memory at start-up.
    #[must_use]
    pub fn static_entries(mut self, mut entries: Vec<StaticResource>) -> EngineBuilder {
        if self.statics.is_empty() {
            self.statics = entries;
        } else {
            self.statics.append(&mut entries);
        }
        self
    }

    /// Adds a template served by functions.
    #[must_use]
    pub fn template(mut self, template: FunctionTemplate) -> EngineBuilder {
        self.templates.push(TemplateSlot {
            descriptor: template.descriptor,
            owner: Owner::Function {
                reader: template.reader,
                completer: template.completer,
                cache_policy: template.cache_policy,
            },
        });
        self
    }

    /// Adds a template that is only listed: its URIs are served by a provider (or not at all),
    /// and it proposes no completions.
    #[must_use]
    pub fn listed_template(mut self, descriptor: ResourceTemplate) -> EngineBuilder {
        self.templates.push(TemplateSlot {
            descriptor,
            owner: Owner::Listed,
        });
        self
    }

    /// Adds a provider, after those already added. Its templates are taken now.
    #[must_use]
    pub fn provider(mut self, provider: Arc<dyn Provider>) -> EngineBuilder {
        self.providers.push(provider);
        self
    }

    /// Builds the engine; fails on a static URI or a template text registered twice.
    pub fn build(self) -> Result<Engine, BuildError> {
        let policy_depends = self.policy.depends_on_principal();
        let default_ttl = self.limits.default_ttl_ms;

        let mut statics: Vec<StaticSlot> = self
            .statics
            .into_iter()
            .map(|entry| StaticSlot {
                size: entry
                    .contents
                    .iter()
                    .map(|contents| contents.body.len())
                    .sum(),
                cache: entry.cache_policy.hint(default_ttl, policy_depends),
                resource: entry.resource,
                contents: entry.contents.into(),
            })
            .collect();
        // In place: a stable sort would copy the slots aside, a peak of memory at start-up
        // with many resources (equal URIs are refused below, whichever comes first).
        statics.sort_unstable_by(|a, b| a.resource.uri.as_str().cmp(b.resource.uri.as_str()));
        if let Some(pair) = statics
            .windows(2)
            .find(|pair| pair[0].resource.uri == pair[1].resource.uri)
        {
            return Err(BuildError::DuplicateResource {
                uri: pair[0].resource.uri.to_string(),
            });
        }
        let static_index = statics
            .iter()
            .enumerate()
            // The URI's own text, shared: no copy of it per resource.
            .map(|(index, slot)| (slot.resource.uri.shared_text(), index))
            .collect();

        // The list's hint holds for every source it may draw from; with no source at all it is
        // the engine default.
        let mut list_cache: Option<CacheHint> = None;
        let mut combine_list = |hint: CacheHint| {
            list_cache = Some(list_cache.map_or(hint, |list| list.combine(hint)));
        };
        for slot in &statics {
            combine_list(slot.cache);
        }

        let mut templates = self.templates;
        let mut providers = Vec::with_capacity(self.providers.len());
        for (index, provider) in self.providers.into_iter().enumerate() {
            let cache = provider.cache_policy().hint(default_ttl, policy_depends);
            combine_list(cache);
            let mut own_templates = TemplateIndex::new();
            for descriptor in provider.templates() {
                own_templates.insert(descriptor.uri_template.clone(), ());
                templates.push(TemplateSlot {
                    descriptor,
                    owner: Owner::Provider(index),
                });
            }
            providers.push(ProviderSlot {
                provider,
                templates: own_templates,
                cache,
            });
        }

        let mut by_text = HashMap::with_capacity(templates.len());
        let mut read_templates = TemplateIndex::new();
        // The template list is the same for everyone (taken at build time), but under a policy
        // that looks at the principal it is private like every other answer: who may read what
        // it names depends on who asks.
        let mut templates_cache = CacheHint {
            ttl_ms: default_ttl,
            scope: if policy_depends {
                CacheScope::Private
            } else {
                CacheScope::Public
            },
        };
        for (index, slot) in templates.iter().enumerate() {
            let text = slot.descriptor.uri_template.as_str().to_owned();
            if by_text.insert(text.clone(), index).is_some() {
                return Err(BuildError::DuplicateTemplate { template: text });
            }
            match &slot.owner {
                Owner::Function { cache_policy, .. } => {
                    read_templates.insert(slot.descriptor.uri_template.clone(), index);
                    let ttl = cache_policy.ttl_ms.unwrap_or(default_ttl);
                    templates_cache.ttl_ms = templates_cache.ttl_ms.min(ttl);
                }
                Owner::Provider(provider) => {
                    templates_cache.ttl_ms = templates_cache
                        .ttl_ms
                        .min(providers[*provider].cache.ttl_ms);
                }
                Owner::Listed => {}
            }
        }

        Ok(Engine {
            limits: self.limits,
            codec: CursorCodec::new(&self.cursor_key),
            policy: self.policy,
            statics,
            static_index,
            providers,
            templates,
            by_text,
            read_templates,
            list_cache: list_cache
                .unwrap_or_else(|| CachePolicy::default().hint(default_ttl, policy_depends)),
            templates_cache,
            redactor: self.redactor,
            sensitivity: self.sensitivity,
        })
    }
}

/// A skill found by [`Engine::get_skill`], with the caching hint of its provider.
#[derive(Clone, Debug, PartialEq)]
pub struct SkillOutput {
    /// The skill.
    pub skill: Skill,
    /// How long the answer stays fresh and who may reuse it.
    pub cache: CacheHint,
}

/// The result of a read.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadOutput {
    /// The contents, one or more: shared with the engine for a static resource, so that
    /// reading it copies nothing.
    pub contents: Arc<[Contents]>,
    /// The caching hint.
    pub cache: CacheHint,
    /// How many spans each content rule masked in what was read (margins of a range
    /// included), for the audit log; empty when nothing was masked.
    pub masked: Vec<(String, usize)>,
}

/// The resource engine: routes reads, pages lists, filters by policy and completes template
/// variables. Immutable once built (providers may change inside); share it behind an `Arc`.
pub struct Engine {
    limits: Limits,
    codec: CursorCodec,
    policy: Arc<dyn Policy>,
    /// Sorted by canonical URI.
    statics: Vec<StaticSlot>,
    /// Keyed by the server's own URIs (looked up with the client's): foldhash, seeded at random.
    static_index: HashMap<Arc<str>, usize, foldhash::fast::RandomState>,
    providers: Vec<ProviderSlot>,
    /// In listing order.
    templates: Vec<TemplateSlot>,
    by_text: HashMap<String, usize>,
    /// Function templates only, pointing into `templates`.
    read_templates: TemplateIndex<usize>,
    list_cache: CacheHint,
    templates_cache: CacheHint,
    /// The content rules of reads.
    redactor: Redactor,
    /// The sensitive resources; `None` when there is none.
    sensitivity: Option<Sensitivity>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("limits", &self.limits)
            .field("statics", &self.statics.len())
            .field("providers", &self.providers.len())
            .field("templates", &self.templates.len())
            .finish_non_exhaustive()
    }
}

struct StaticSlot {
    resource: Resource,
    /// Shared with every read's [`ReadOutput`]: a read of a static resource copies nothing.
    contents: Arc<[Contents]>,
    size: u64,
    cache: CacheHint,
}

struct ProviderSlot {
    provider: Arc<dyn Provider>,
    templates: TemplateIndex<()>,
    cache: CacheHint,
}

impl ProviderSlot {
    /// The provider's template matching `uri` and its variables, when the provider asks the
    /// engine to match them ([`Provider::matches_templates`]).
    fn matched(&self, uri: &ResourceUri) -> Option<(&UriTemplate, Variables)> {
        if !self.provider.matches_templates() {
            return None;
        }
        self.templates
            .find(uri.as_str())
            .map(|(template, _, variables)| (template, variables))
    }
}

/// The request a provider is asked to read `uri` with, `matched` being
/// [`ProviderSlot::matched`].
fn read_request<'a>(
    principal: &'a Principal,
    uri: &'a ResourceUri,
    matched: &'a Option<(&'a UriTemplate, Variables)>,
    range: Option<ByteRange>,
    inputs: &'a Inputs,
) -> ReadRequest<'a> {
    ReadRequest {
        principal,
        uri,
        template: matched.as_ref().map(|(template, _)| *template),
        variables: matched.as_ref().map(|(_, variables)| variables),
        range,
        inputs,
    }
}

struct TemplateSlot {
    descriptor: ResourceTemplate,
    owner: Owner,
}

enum Owner {
    Function {
        reader: TemplateReader,
        completer: Option<TemplateCompleter>,
        cache_policy: CachePolicy,
    },
    Listed,
    Provider(usize),
}

/// The smallest batch asked of a source while filling a page, so that runs of denied
/// resources are skipped in a few calls rather than one call per resource.
const MIN_BATCH: usize = 16;

/// The most skills one `skills/list` page holds, whatever the page size: an entry carries its
/// whole frontmatter and manifest (up to 512 files), so twenty keep a page within a few MiB.
pub const MAX_SKILLS_PAGE: usize = 20;

impl Engine {
    /// A builder; see [`EngineBuilder`].
    pub fn builder(cursor_key: CursorKey) -> EngineBuilder {
        EngineBuilder::new(cursor_key)
    }

    /// The limits the engine was built with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether the policy allows `principal` to do `action` on `uri` (for example
    /// [`Action::Subscribe`] before the subscription hub records a subscription).
    pub fn allows(&self, principal: &Principal, action: Action, uri: &ResourceUri) -> bool {
        self.allows_every_name(principal, action, uri)
    }

    /// One page of the template list, starting at `cursor` (from the beginning when `None`).
    pub async fn list_templates(
        &self,
        principal: &Principal,
        cursor: Option<&str>,
    ) -> Result<Page<ResourceTemplate>, ListError> {
        let _ = principal;
        let start = match cursor {
            None => 0,
            Some(cursor) => match self.codec.decode(cursor)? {
                Position::Templates { after } => after as usize + 1,
                other => {
                    return Err(CursorError::WrongList {
                        expected: "templates",
                        found: other.list_name(),
                    }
                    .into());
                }
            },
        };
        let start = start.min(self.templates.len());
        let end = start
            .saturating_add(self.limits.page_size.get())
            .min(self.templates.len());
        let items = self.templates[start..end]
            .iter()
            .map(|slot| slot.descriptor.clone())
            .collect();
        let next_cursor = (end < self.templates.len()).then(|| {
            let after = u32::try_from(end - 1).expect("invariant: fewer than 2^32 templates");
            self.codec.encode(&Position::Templates { after })
        });
        Ok(Page {
            items,
            next_cursor,
            cache: self.templates_cache,
        })
    }

    /// Reads `uri` whole, in the routing order of the module documentation, its text bodies
    /// passed through the content rules ([`EngineBuilder::redactor`]; see the `redaction`
    /// module).
    pub async fn read(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
    ) -> Result<ReadOutput, ReadError> {
        self.read_with(principal, uri, Inputs::none()).await
    }

    /// [`Engine::read`] retried with the client's answers to the input an earlier read asked
    /// for ([`ReadError::InputRequired`]): a provider's, or the confirmation of a sensitive
    /// resource (see [`sensitive`](crate::sensitive)).
    pub async fn read_with(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        if self.sensitivity.is_some() {
            return self.read_sensitive(principal, uri, None, inputs).await;
        }
        self.read_unaudited(principal, uri, None, inputs).await
    }

    /// A read (of `range`, when given) past the sensitive rules.
    async fn read_unaudited(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        range: Option<ByteRange>,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        match (range, self.redactor.is_empty()) {
            (None, true) => self.read_inner(principal, uri, None, 0, inputs).await,
            (None, false) => self.read_redacted(principal, uri, inputs).await,
            (Some(range), true) => {
                self.read_inner(principal, uri, Some(range), 0, inputs)
                    .await
            }
            (Some(range), false) => {
                // A range of a provider's range URI is a range of the resource that one is of:
                // the content rules must see that resource's bytes around it (and be scoped by
                // its URI), not the range URI's alone.
                match self.range_of(uri) {
                    Some((base, outer)) => {
                        let inner = ByteRange {
                            offset: outer.offset.saturating_add(range.offset),
                            length: range.length.min(outer.length.saturating_sub(range.offset)),
                        };
                        self.read_range_redacted(principal, uri, &base, inner, inputs)
                            .await
                    }
                    None => {
                        self.read_range_redacted(principal, uri, uri, range, inputs)
                            .await
                    }
                }
            }
        }
    }

    /// Reads the byte range `range` of each body of `uri`; for resources too large for one read.
    /// Text bodies pass the content rules as in [`Engine::read`], a secret that crosses an edge
    /// of the range included.
    pub async fn read_range(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        range: ByteRange,
    ) -> Result<ReadOutput, ReadError> {
        if self.sensitivity.is_some() {
            return self
                .read_sensitive(principal, uri, Some(range), Inputs::none())
                .await;
        }
        self.read_unaudited(principal, uri, Some(range), Inputs::none())
            .await
    }

    /// The resource `uri` is a range of, and that range, as the first claiming provider that
    /// knows says ([`Provider::range_of`]).
    pub(crate) fn range_of(&self, uri: &ResourceUri) -> Option<(ResourceUri, ByteRange)> {
        self.providers.iter().find_map(|slot| {
            if slot.provider.claims(uri) {
                slot.provider.range_of(uri)
            } else {
                None
            }
        })
    }

    /// The first steps of [`Engine::read_inner`], which never wait: the policy, then the
    /// static resources.
    fn read_at_once(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        range: Option<ByteRange>,
        slack: u64,
    ) -> Option<Result<ReadOutput, ReadError>> {
        if !self.policy.allows(principal, Action::Read, uri) {
            let uri = uri.to_string();
            return Some(Err(if self.limits.reveal_denied {
                ReadError::Denied { uri }
            } else {
                ReadError::NotFound { uri }
            }));
        }
        let &index = self.static_index.get(uri.as_str())?;
        Some(self.read_static(&self.statics[index], uri, range, slack))
    }

    /// A provider's contents of `uri` as a read's output, within the size limit.
    fn provider_output(
        &self,
        slot: &ProviderSlot,
        uri: &ResourceUri,
        contents: Vec<Contents>,
        slack: u64,
    ) -> Result<ReadOutput, ReadError> {
        self.check_size(uri, total_size(&contents).saturating_sub(slack))?;
        Ok(ReadOutput {
            contents: contents.into(),
            cache: self.provider_cache(slot, uri),
            masked: Vec::new(),
        })
    }

    /// The caching hint of a provider's answer about `uri`: its own for that URI
    /// ([`Provider::cache_policy_of`]), else the provider's.
    fn provider_cache(&self, slot: &ProviderSlot, uri: &ResourceUri) -> CacheHint {
        slot.provider
            .cache_policy_of(uri)
            .map_or(slot.cache, |policy| {
                policy.hint(
                    self.limits.default_ttl_ms,
                    self.policy.depends_on_principal(),
                )
            })
    }

    fn read_static(
        &self,
        slot: &StaticSlot,
        uri: &ResourceUri,
        range: Option<ByteRange>,
        slack: u64,
    ) -> Result<ReadOutput, ReadError> {
        let contents = match range {
            None => {
                self.check_size(uri, slot.size)?;
                Arc::clone(&slot.contents)
            }
            Some(range) => {
                let contents = slice_contents(&slot.contents, range)
                    .ok_or_else(|| splits_a_character(uri, range))?;
                self.check_size(uri, total_size(&contents).saturating_sub(slack))?;
                contents.into()
            }
        };
        Ok(ReadOutput {
            contents,
            cache: slot.cache,
            masked: Vec::new(),
        })
    }

    /// A read of `uri` (its part `range`, when given), in the routing order of the module
    /// documentation, without content rules; `slack` bytes of the answer are not counted
    /// against the size limit (a range widened by the content rules' margins).
    pub(crate) async fn read_inner(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        range: Option<ByteRange>,
        slack: u64,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        if let Some(read) = self.read_at_once(principal, uri, range, slack) {
            return read;
        }

        for slot in &self.providers {
            if !slot.provider.claims(uri) {
                continue;
            }
            let matched = slot.matched(uri);
            let request = read_request(principal, uri, &matched, range, inputs);
            let read = slot.provider.read(request).await;
            if let Some(contents) = read.map_err(|error| ReadError::from_provider(uri, error))? {
                return self.provider_output(slot, uri, contents, slack);
            }
        }

        let matched = self.read_templates.find(uri.as_str());
        let function =
            matched.and_then(
                |(_, &index, variables)| match &self.templates[index].owner {
                    Owner::Function {
                        reader,
                        cache_policy,
                        ..
                    } => Some((reader, cache_policy, variables)),
                    // `read_templates` holds function templates only.
                    Owner::Listed | Owner::Provider(_) => None,
                },
            );
        if let Some((reader, cache_policy, variables)) = function {
            let mut contents = reader(uri, &variables, inputs)
                .await
                .map_err(|error| ReadError::from_provider(uri, error))?;
            if !contents.is_empty() {
                if let Some(range) = range {
                    contents = slice_contents(&contents, range)
                        .ok_or_else(|| splits_a_character(uri, range))?;
                }
                self.check_size(uri, total_size(&contents).saturating_sub(slack))?;
                let cache = cache_policy.hint(
                    self.limits.default_ttl_ms,
                    self.policy.depends_on_principal(),
                );
                return Ok(ReadOutput {
                    contents: contents.into(),
                    cache,
                    masked: Vec::new(),
                });
            }
        }

        let uri_text = uri.to_string();
        Err(if self.is_visible_directory(principal, uri).await {
            ReadError::Directory { uri: uri_text }
        } else {
            ReadError::NotFound { uri: uri_text }
        })
    }

    fn check_size(&self, uri: &ResourceUri, actual: u64) -> Result<(), ReadError> {
        let limit = self.limits.max_read_bytes;
        if actual > limit {
            return Err(ReadError::TooLarge {
                uri: uri.to_string(),
                limit,
                actual,
            });
        }
        Ok(())
    }

    /// Proposes values for the variable `variable` of the template whose text is `template`,
    /// given what was typed (`prefix`) and the other variables already chosen (`context`).
    ///
    /// Candidates come from the template's completer or its provider (a listed-only template
    /// proposes none), then pass the policy filter of [`completion`](crate::completion), and
    /// are capped at [`MAX_COMPLETION_VALUES`](crate::completion::MAX_COMPLETION_VALUES).
    pub async fn complete(
        &self,
        principal: &Principal,
        template: &str,
        variable: &str,
        prefix: &str,
        context: &Variables,
    ) -> Result<Completion, CompleteError> {
        let Some(&index) = self.by_text.get(template) else {
            return Err(CompleteError::UnknownTemplate {
                template: template.to_owned(),
            });
        };
        let slot = &self.templates[index];
        let uri_template: &UriTemplate = &slot.descriptor.uri_template;
        if !uri_template.variable_names().any(|name| name == variable) {
            return Err(CompleteError::UnknownVariable {
                template: template.to_owned(),
                variable: variable.to_owned(),
            });
        }
        let request = CompletionRequest {
            principal,
            template: uri_template,
            variable,
            prefix,
            context,
        };
        let candidates = match &slot.owner {
            Owner::Function {
                completer: Some(completer),
                ..
            } => completer(request).await?,
            Owner::Function {
                completer: None, ..
            }
            | Owner::Listed => Vec::new(),
            Owner::Provider(provider) => {
                self.providers[*provider].provider.complete(request).await?
            }
        };
        // Candidates are values leaving too: one the content rules would mask is dropped
        // (masked, it would complete to nothing).
        let candidates = if self.redactor.is_empty() {
            candidates
        } else {
            candidates
                .into_iter()
                .filter(|candidate| {
                    matches!(
                        self.redactor.redact(template, candidate).text,
                        std::borrow::Cow::Borrowed(_)
                    )
                })
                .collect()
        };
        let completion = filter_candidates(
            candidates,
            uri_template,
            variable,
            context,
            principal,
            &|principal, action, uri| self.allows_every_name(principal, action, uri),
        );
        self.audit_completion(principal, uri_template, variable, context, &completion)
            .await?;
        Ok(completion)
    }
}

fn total_size(contents: &[Contents]) -> u64 {
    contents.iter().map(|contents| contents.body.len()).sum()
}

/// The error for a `range` of `uri` that cannot be cut from its text.
fn splits_a_character(uri: &ResourceUri, range: ByteRange) -> ReadError {
    ReadError::InvalidRange {
        uri: uri.to_string(),
        offset: range.offset,
        length: range.length,
        reason: "it splits a utf-8 character",
    }
}

/// The range of every body, or `None` when one of them cannot be cut there.
fn slice_contents(contents: &[Contents], range: ByteRange) -> Option<Vec<Contents>> {
    contents
        .iter()
        .map(|contents| {
            let body = contents.body.slice(range)?;
            Some(Contents {
                uri: contents.uri.clone(),
                mime_type: contents.mime_type.clone(),
                body,
            })
        })
        .collect()
}
