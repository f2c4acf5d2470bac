//! The service: the engine and the subscription hub together, answering the [`Query`]s of the
//! protocol adapters.
//!
//! **Layer:** core. This is the seam between the sans-io adapters and the one async step the
//! server binary runs: an adapter turns a wire request into a [`Query`], the binary awaits
//! [`Service::answer`], and the adapter turns the [`Answer`] into a wire response for its era and
//! version. Both eras share one [`SubscriptionHub`] here (a legacy session and each modern listen
//! stream are subscribers). This module must never know a protocol version, a method name, JSON,
//! tokio or any I/O; the hub sits behind a `std::sync::Mutex` that is never held across an
//! `await`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::completion::Completion;
use crate::engine::{Engine, ReadOutput, SkillOutput};
use crate::error::{CompleteError, DirectoryError, ListError, ReadError, SkillError};
use crate::input::Inputs;
use crate::pagination::Page;
use crate::policy::{Action, Principal};
use crate::resource::{ByteRange, Resource, ResourceTemplate};
use crate::sensitive::AuditError;
use crate::skill::Skill;
use crate::subscription::{
    Change, SubscribeError, SubscriberId, SubscriptionHub, SubscriptionLimits,
};
use crate::template::Variables;
use crate::uri::ResourceUri;

/// What the service offers to clients, declared as capabilities by the adapters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    /// Per-resource change notifications (legacy `resources/subscribe`, modern
    /// `resourceSubscriptions`).
    pub subscribe: bool,
    /// List-changed notifications.
    pub list_changed: bool,
    /// Completion of template variables.
    pub completions: bool,
    /// The Skills extension: `skills/list`, `skills/get` and directory reads
    /// (`resources/directory/read`).
    pub directories: bool,
    /// The resources-as-tools bridge, for hosts that call tools but never read resources:
    /// off unless asked for (one capability offered twice confuses a model choosing).
    pub tools: bool,
}

impl Default for Offer {
    /// Everything on but the tools bridge: the hub is always there, and completion answers
    /// (possibly with nothing) for every registered template.
    fn default() -> Offer {
        Offer {
            subscribe: true,
            list_changed: true,
            completions: true,
            directories: true,
            tools: false,
        }
    }
}

/// One question an adapter asks of the service.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// A page of the resource list.
    ListResources {
        /// Where to resume; from the start when `None`.
        cursor: Option<String>,
    },
    /// A page of the template list.
    ListTemplates {
        /// Where to resume; from the start when `None`.
        cursor: Option<String>,
    },
    /// The contents of one resource.
    Read {
        /// The resource.
        uri: ResourceUri,
        /// The client's answers to input an earlier read of it asked for; empty on a first
        /// read.
        inputs: Inputs,
    },
    /// The byte range `range` of each body of one resource (see
    /// [`Engine::read_range`](crate::engine::Engine::read_range)); a length past the read
    /// limit (`u64::MAX - offset`: to the end) is cut to it.
    ReadRange {
        /// The resource.
        uri: ResourceUri,
        /// The bytes.
        range: ByteRange,
    },
    /// A page of the direct children of a directory resource.
    ReadDirectory {
        /// The directory.
        uri: ResourceUri,
        /// Where to resume; from the first child when `None`.
        cursor: Option<String>,
    },
    /// A page of the skills served.
    ListSkills {
        /// Where to resume; from the start when `None`.
        cursor: Option<String>,
    },
    /// One skill, by the URI of its `SKILL.md`.
    GetSkill {
        /// The `SKILL.md` URI.
        uri: ResourceUri,
    },
    /// Values for one variable of a template.
    Complete {
        /// The template's text, as listed.
        template: String,
        /// The variable to complete.
        variable: String,
        /// What the user typed so far.
        prefix: String,
        /// The template's other variables, already chosen.
        context: Variables,
    },
    /// Subscribe the asking subscriber to one resource (checked against the policy).
    Subscribe {
        /// The resource.
        uri: ResourceUri,
    },
    /// Undo a [`Query::Subscribe`]; succeeds whether or not the subscription existed.
    Unsubscribe {
        /// The resource.
        uri: ResourceUri,
    },
    /// Turn list-changed delivery on or off for the asking subscriber.
    WatchListChanges {
        /// On or off.
        enabled: bool,
    },
    /// Subscribe the asking subscriber to several resources and possibly list changes at once,
    /// keeping only what can be honoured.
    Listen {
        /// The URIs asked for, as the client sent them.
        uris: Vec<String>,
        /// Whether list changes were asked for.
        list_changes: bool,
    },
}

/// The answer to a [`Query`], variant for variant.
#[derive(Debug)]
pub enum Answer {
    /// For [`Query::ListResources`].
    Resources(Result<Page<Resource>, ListError>),
    /// For [`Query::ListTemplates`].
    Templates(Result<Page<ResourceTemplate>, ListError>),
    /// For [`Query::Read`].
    Read(Result<ReadOutput, ReadError>),
    /// For [`Query::ReadDirectory`].
    Directory(Result<Page<Resource>, DirectoryError>),
    /// For [`Query::ListSkills`].
    Skills(Result<Page<Skill>, ListError>),
    /// For [`Query::GetSkill`].
    Skill(Result<SkillOutput, SkillError>),
    /// For [`Query::Complete`].
    Completion(Result<Completion, CompleteError>),
    /// For [`Query::Subscribe`].
    Subscribed(Result<(), SubscriptionError>),
    /// For [`Query::Unsubscribe`].
    Unsubscribed,
    /// For [`Query::WatchListChanges`].
    WatchingListChanges(Result<(), SubscriptionError>),
    /// For [`Query::Listen`]: what the service agreed to honour.
    Listening {
        /// The accepted URIs, in the order asked, without duplicates, as the client sent them.
        uris: Vec<String>,
        /// Whether list changes will be delivered.
        list_changes: bool,
    },
}

/// Why a subscription query failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubscriptionError {
    /// The service does not offer this kind of notification.
    #[error("this server does not offer {0} notifications")]
    NotOffered(&'static str),
    /// The query came without a subscriber.
    #[error("no subscriber was given for a subscription query")]
    NoSubscriber,
    /// The resource does not exist or the principal may not subscribe to it (the two are not
    /// told apart).
    #[error("resource {uri} not found")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// The hub refused.
    #[error(transparent)]
    Hub(#[from] SubscribeError),
    /// The audit log could not record the subscription to a sensitive resource, so it was not
    /// made.
    #[error(transparent)]
    Audit(#[from] AuditError),
}

/// Who asks: the principal of the session or request, and its subscriber when it has one.
#[derive(Clone, Copy, Debug)]
pub struct QueryContext<'a> {
    /// Whose permissions apply.
    pub principal: &'a Principal,
    /// The legacy session's or the listen stream's subscriber, for subscription queries.
    pub subscriber: Option<SubscriberId>,
}

/// The engine and the subscription hub, shared by every session and request of a server.
pub struct Service {
    engine: Engine,
    hub: Mutex<SubscriptionHub>,
    offer: Offer,
    /// The principal of each subscriber with list changes on, as it turned them on: a list
    /// change naming its resources reaches only those who may see one of them
    /// ([`Service::list_changed_for`]).
    list_watchers: Mutex<HashMap<SubscriberId, Principal>>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("engine", &self.engine)
            .field("offer", &self.offer)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// A service over `engine` offering everything, with default subscription limits.
    pub fn new(engine: Engine) -> Service {
        Service::with_offer(engine, Offer::default(), SubscriptionLimits::default())
    }

    /// A service over `engine` offering `offer`, with `limits` on each subscriber.
    pub fn with_offer(engine: Engine, offer: Offer, limits: SubscriptionLimits) -> Service {
        Service {
            engine,
            hub: Mutex::new(SubscriptionHub::new(limits)),
            offer,
            list_watchers: Mutex::default(),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// What the service offers.
    pub fn offer(&self) -> Offer {
        self.offer
    }

    /// The limits every subscriber has.
    pub fn subscription_limits(&self) -> SubscriptionLimits {
        self.hub().limits().clone()
    }

    /// Answers one query. The only `await`s are the engine's; the hub is locked only briefly
    /// and never across an `await`.
    pub async fn answer(&self, context: QueryContext<'_>, query: Query) -> Answer {
        let principal = context.principal;
        match query {
            Query::ListResources { cursor } => Answer::Resources(
                self.engine
                    .list_resources(principal, cursor.as_deref())
                    .await,
            ),
            Query::ListTemplates { cursor } => Answer::Templates(
                self.engine
                    .list_templates(principal, cursor.as_deref())
                    .await,
            ),
            Query::Read { uri, inputs } => {
                Answer::Read(self.engine.read_with(principal, &uri, &inputs).await)
            }
            Query::ReadRange { uri, mut range } => {
                range.length = range.length.min(self.engine.limits().max_read_bytes);
                Answer::Read(self.engine.read_range(principal, &uri, range).await)
            }
            Query::ListSkills { cursor } => {
                Answer::Skills(self.engine.list_skills(principal, cursor.as_deref()).await)
            }
            Query::GetSkill { uri } => Answer::Skill(self.engine.get_skill(principal, &uri).await),
            Query::ReadDirectory { uri, cursor } => Answer::Directory(
                self.engine
                    .list_directory(principal, &uri, cursor.as_deref())
                    .await,
            ),
            Query::Complete {
                template,
                variable,
                prefix,
                context: variables,
            } => Answer::Completion(
                self.engine
                    .complete(principal, &template, &variable, &prefix, &variables)
                    .await,
            ),
            Query::Subscribe { uri } => {
                let subscribed = self.subscribe(context, &uri);
                let audited = self
                    .engine
                    .audit_subscription(principal, uri.as_str(), subscribed.is_ok())
                    .await;
                if let Err(error) = audited {
                    if subscribed.is_ok() {
                        if let Some(subscriber) = context.subscriber {
                            self.hub().unsubscribe(subscriber, uri.as_str());
                        }
                    }
                    return Answer::Subscribed(Err(SubscriptionError::Audit(error)));
                }
                Answer::Subscribed(subscribed)
            }
            Query::Unsubscribe { uri } => {
                if let Some(subscriber) = context.subscriber {
                    self.hub().unsubscribe(subscriber, uri.as_str());
                }
                Answer::Unsubscribed
            }
            Query::WatchListChanges { enabled } => {
                Answer::WatchingListChanges(self.watch_list_changes(context, enabled))
            }
            Query::Listen { uris, list_changes } => {
                let answer = self.listen(context, uris, list_changes);
                self.audit_listen(context, answer).await
            }
        }
    }

    fn subscribe(
        &self,
        context: QueryContext<'_>,
        uri: &ResourceUri,
    ) -> Result<(), SubscriptionError> {
        if !self.offer.subscribe {
            return Err(SubscriptionError::NotOffered("resource update"));
        }
        let subscriber = context.subscriber.ok_or(SubscriptionError::NoSubscriber)?;
        if !self.may_subscribe(context.principal, uri) {
            return Err(SubscriptionError::NotFound {
                uri: uri.as_str().to_owned(),
            });
        }
        self.hub().subscribe(subscriber, uri.as_str())?;
        Ok(())
    }

    fn watch_list_changes(
        &self,
        context: QueryContext<'_>,
        enabled: bool,
    ) -> Result<(), SubscriptionError> {
        if enabled && !self.offer.list_changed {
            return Err(SubscriptionError::NotOffered("list-changed"));
        }
        let subscriber = context.subscriber.ok_or(SubscriptionError::NoSubscriber)?;
        self.hub().set_list_changes(subscriber, enabled)?;
        self.watch_as(subscriber, enabled.then_some(context.principal));
        Ok(())
    }

    /// Remembers (or forgets, with `None`) whom `subscriber` watches list changes as.
    fn watch_as(&self, subscriber: SubscriberId, principal: Option<&Principal>) {
        let mut watchers = self
            .list_watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match principal {
            Some(principal) => {
                watchers.insert(subscriber, principal.clone());
            }
            None => {
                watchers.remove(&subscriber);
            }
        }
    }

    fn listen(&self, context: QueryContext<'_>, uris: Vec<String>, list_changes: bool) -> Answer {
        let Some(subscriber) = context.subscriber else {
            return Answer::Listening {
                uris: Vec::new(),
                list_changes: false,
            };
        };
        let mut hub = self.hub();
        let list_changes = list_changes
            && self.offer.list_changed
            && hub.set_list_changes(subscriber, true).is_ok();
        if list_changes {
            self.watch_as(subscriber, Some(context.principal));
        }
        let mut accepted: Vec<String> = Vec::new();
        if self.offer.subscribe {
            for text in uris {
                let Ok(uri) = ResourceUri::parse(&text) else {
                    continue;
                };
                if accepted.contains(&text) || !self.may_subscribe(context.principal, &uri) {
                    continue;
                }
                if hub.subscribe(subscriber, uri.as_str()).is_ok() {
                    accepted.push(text);
                }
            }
        }
        Answer::Listening {
            uris: accepted,
            list_changes,
        }
    }

    /// Records the sensitive URIs a listen stream subscribed to; one that cannot be recorded is
    /// unsubscribed and left out of the acknowledgment.
    async fn audit_listen(&self, context: QueryContext<'_>, answer: Answer) -> Answer {
        let Answer::Listening { uris, list_changes } = answer else {
            return answer;
        };
        let mut kept = Vec::with_capacity(uris.len());
        for text in uris {
            let uri = ResourceUri::parse(&text).map(|uri| uri.as_str().to_owned());
            let canonical = uri.as_deref().unwrap_or(&text);
            match self
                .engine
                .audit_subscription(context.principal, canonical, true)
                .await
            {
                Ok(()) => kept.push(text),
                Err(_) => {
                    if let Some(subscriber) = context.subscriber {
                        self.hub().unsubscribe(subscriber, canonical);
                    }
                }
            }
        }
        Answer::Listening {
            uris: kept,
            list_changes,
        }
    }

    /// Subscribing needs both the subscribe and the read permission: an update notification
    /// tells that a resource exists and changed.
    fn may_subscribe(&self, principal: &Principal, uri: &ResourceUri) -> bool {
        self.engine.allows(principal, Action::Subscribe, uri)
            && self.engine.allows(principal, Action::Read, uri)
    }

    /// A new subscriber: a legacy session or a modern listen stream.
    pub fn add_subscriber(&self) -> SubscriberId {
        self.hub().add_subscriber()
    }

    /// Forgets a subscriber and everything it held.
    pub fn remove_subscriber(&self, subscriber: SubscriberId) {
        self.hub().remove_subscriber(subscriber);
        self.watch_as(subscriber, None);
    }

    /// A resource changed. Returns the subscribers that now have something to be told.
    pub fn resource_updated(&self, uri: &str) -> Vec<SubscriberId> {
        let mut hub = self.hub();
        hub.resource_updated(uri);
        hub.take_ready()
    }

    /// The resource at `uri` may have changed for `subscriber` alone. Returns the subscribers
    /// that now have something to be told (it, or none).
    pub fn resource_updated_for(&self, subscriber: SubscriberId, uri: &str) -> Vec<SubscriberId> {
        let mut hub = self.hub();
        hub.resource_updated_for(subscriber, uri);
        hub.take_ready()
    }

    /// The URIs `subscriber` is subscribed to, in the hub's order.
    pub fn subscriptions_of(&self, subscriber: SubscriberId) -> Vec<String> {
        self.hub()
            .subscriptions(subscriber)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The list of resources changed. Returns the subscribers that now have something to be
    /// told. Every subscriber with list changes on is told; when the resources that came and
    /// went are known, [`Service::list_changed_for`] tells only those who may see them.
    pub fn list_changed(&self) -> Vec<SubscriberId> {
        let mut hub = self.hub();
        hub.list_changed();
        hub.take_ready()
    }

    /// The resources `changed` appeared or disappeared: tells the subscribers with list changes
    /// on whose principal may list at least one of them (by the policy), and no one else, so
    /// that activity in places a principal cannot see does not reach it. Returns the
    /// subscribers that now have something to be told.
    pub fn list_changed_for(&self, changed: &[ResourceUri]) -> Vec<SubscriberId> {
        // The hub first, then the watchers: the order `listen` takes them in.
        let mut hub = self.hub();
        let watchers = self
            .list_watchers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        hub.list_changed_for(|subscriber| {
            watchers.get(&subscriber).is_some_and(|principal| {
                changed
                    .iter()
                    .any(|uri| self.engine.allows(principal, Action::List, uri))
            })
        });
        hub.take_ready()
    }

    /// Anything may have changed (changes were missed): every subscriber is told about each
    /// resource it subscribed to, and about the list if it listens to list changes. Returns
    /// the subscribers that now have something to be told.
    pub fn everything_changed(&self) -> Vec<SubscriberId> {
        let mut hub = self.hub();
        hub.everything_changed();
        hub.take_ready()
    }

    /// Takes what `subscriber` has to be told, coalesced since the last drain.
    pub fn drain_changes(&self, subscriber: SubscriberId) -> Vec<Change> {
        self.hub().drain(subscriber)
    }

    /// Like [`drain_changes`](Self::drain_changes), but appends to `changes`, so that a
    /// transport can reuse one buffer. Returns how many changes were appended.
    pub fn drain_changes_into(&self, subscriber: SubscriberId, changes: &mut Vec<Change>) -> usize {
        self.hub().drain_into(subscriber, changes)
    }

    fn hub(&self) -> MutexGuard<'_, SubscriptionHub> {
        // The hub's state stays consistent even if a holder panicked: every method leaves it
        // whole before returning.
        self.hub.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
