//! Reads, lists and completions of sensitive resources: audited, and reads confirmed by the
//! user where a rule says so (the rules and the confirmation state are in
//! [`crate::sensitive`]).
//!
//! **Layer:** core, part of the engine. It never knows how the audit log is written, how an
//! era asks the user, or a clock (the [`Sensitivity`] holds the
//! server's clock function).
//!
//! A read is judged by every name of what it reads ([`Engine::names_of`]): the URI asked for,
//! the URI without its query, the resource it is a range of
//! ([`Provider::range_of`](crate::provider::Provider::range_of)) and the other URI its provider
//! says names the same thing ([`Provider::same_as`](crate::provider::Provider::same_as): a
//! skill file's `file://` URI), so that no range, query or second scheme escapes a rule written
//! for one of them. The policy comes first, on every name: one it denies makes the read not
//! found, never a question to the user (a question would tell that it exists). A served read
//! is private with no ttl (a gateway must not share it, nor serve it again unrecorded). A skill
//! with a file the user must confirm is neither listed nor described (its frontmatter and its
//! files' digests would tell what the confirmation guards). An audit record is written before
//! the answer leaves; when it cannot be, the answer is an error instead.

use crate::cache::{CacheHint, CacheScope};
use crate::completion::Completion;
use crate::error::ReadError;
use crate::input::Inputs;
use crate::policy::{Action, Principal};
use crate::resource::{ByteRange, Resource};
use crate::sensitive::{
    AuditAction, AuditError, AuditOutcome, Confirmation, SensitiveRule, Sensitivity,
};
use crate::skill::{Skill, SkillFiles};
use crate::template::{UriTemplate, VarValue, Variables};
use crate::uri::ResourceUri;

use super::{Engine, ReadOutput, total_size};

impl Engine {
    /// A read (of `range`, when given) under the sensitive rules.
    pub(super) async fn read_sensitive(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        range: Option<ByteRange>,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        let Some(sensitivity) = &self.sensitivity else {
            return self.read_unaudited(principal, uri, range, inputs).await;
        };
        let names = self.names_of(uri);
        let Some(rule) = names.iter().find_map(|name| sensitivity.covering(name)) else {
            return self.read_unaudited(principal, uri, range, inputs).await;
        };
        let record = |outcome| {
            Sensitivity::record_of(principal, AuditAction::Read, uri.as_str(), rule, outcome)
        };
        // Every name the policy can judge (a range's base, a skill file's `file://` URI) must
        // allow the read: never a question about, nor the contents of, what one of them denies.
        let readable = names.iter().all(|name| {
            ResourceUri::parse(name)
                .is_ok_and(|name| self.policy.allows(principal, Action::Read, &name))
        });
        if !readable {
            sensitivity.record(record(AuditOutcome::Refused)).await?;
            let uri = uri.to_string();
            return Err(if self.limits.reveal_denied {
                ReadError::Denied { uri }
            } else {
                ReadError::NotFound { uri }
            });
        }
        let confirming = names.iter().find_map(|name| sensitivity.confirming(name));
        if let Some(confirming) = confirming {
            let confirmation = sensitivity
                .confirmation(principal, uri, confirming, inputs)
                .await;
            let refusal = match confirmation {
                Confirmation::Confirmed => None,
                Confirmation::Ask(input) => Some((
                    AuditOutcome::ConfirmationAsked,
                    ReadError::InputRequired {
                        uri: uri.to_string(),
                        input: Box::new(input),
                    },
                )),
                Confirmation::Declined => Some((
                    AuditOutcome::Declined,
                    ReadError::NotConfirmed {
                        uri: uri.to_string(),
                    },
                )),
                Confirmation::Invalid(reason) => Some((
                    AuditOutcome::InvalidConfirmation,
                    ReadError::InvalidInput {
                        uri: uri.to_string(),
                        reason,
                    },
                )),
                Confirmation::Unavailable(error) => Some((
                    AuditOutcome::Refused,
                    ReadError::Unavailable {
                        uri: uri.to_string(),
                        error,
                    },
                )),
            };
            if let Some((outcome, error)) = refusal {
                sensitivity.record(record(outcome)).await?;
                return Err(error);
            }
        }
        let mut read = self.read_unaudited(principal, uri, range, inputs).await;
        if let Ok(output) = &mut read {
            // Served to this principal, recorded, perhaps confirmed: never reused by a cache
            // for another, nor without a record.
            output.cache = CacheHint {
                ttl_ms: 0,
                scope: CacheScope::Private,
            };
        }
        let mut line = record(if read.is_ok() {
            AuditOutcome::Served
        } else {
            AuditOutcome::Refused
        });
        if let Ok(output) = &read {
            line.bytes = Some(total_size(&output.contents));
            line.masked.clone_from(&output.masked);
        }
        sensitivity.record(line).await?;
        read
    }

    /// Every name a rule or the policy may know `uri` by, as text: the URI, the URI without
    /// its query (`x.csv?offset=0` is a part of `x.csv`), the resource a provider says it is a
    /// range of, and the other URI a provider says names the same thing (a skill file's
    /// `file://` URI).
    pub(super) fn names_of(&self, uri: &ResourceUri) -> Vec<String> {
        let mut names = vec![uri.as_str().to_owned()];
        let mut add = |name: &str| {
            if !names.iter().any(|known| known == name) {
                names.push(name.to_owned());
            }
        };
        if let Some((bare, _)) = uri.as_str().split_once(['?', '#']) {
            add(bare);
        }
        if let Some((base, _)) = self.range_of(uri) {
            add(base.as_str());
        }
        for slot in &self.providers {
            if let Some(same) = slot.provider.same_as(uri) {
                add(same.as_str());
                if let Some((bare, _)) = same.as_str().split_once(['?', '#']) {
                    add(bare);
                }
            }
        }
        names
    }

    /// Whether the policy lets `principal` do `action` on `uri`: with sensitive rules, on
    /// every name of it ([`Engine::names_of`]), so that a denial written for one name (a
    /// `grant = true` rule on `file://`) holds for the others (its `skill://` name).
    pub(super) fn allows_every_name(
        &self,
        principal: &Principal,
        action: Action,
        uri: &ResourceUri,
    ) -> bool {
        if !self.policy.allows(principal, action, uri) {
            return false;
        }
        if self.sensitivity.is_none() {
            return true;
        }
        self.names_of(uri).iter().skip(1).all(|name| {
            ResourceUri::parse(name).is_ok_and(|name| self.policy.allows(principal, action, &name))
        })
    }

    /// The first rule covering any name of `uri`, and the first asking for confirmation.
    fn rules_of(&self, uri: &ResourceUri) -> (Option<&SensitiveRule>, Option<&SensitiveRule>) {
        let Some(sensitivity) = &self.sensitivity else {
            return (None, None);
        };
        let names = self.names_of(uri);
        (
            names.iter().find_map(|name| sensitivity.covering(name)),
            names.iter().find_map(|name| sensitivity.confirming(name)),
        )
    }

    /// The items of a list page (or a directory's page) as they leave: their titles and
    /// descriptions masked (dropped, for what the user must confirm: a skill's description is
    /// its frontmatter), the sensitive ones recorded.
    pub(super) async fn listed_page(
        &self,
        principal: &Principal,
        items: Vec<Resource>,
    ) -> Result<Vec<Resource>, AuditError> {
        let items: Vec<Resource> = items
            .into_iter()
            .map(|resource| self.masked_resource(resource))
            .collect();
        let Some(sensitivity) = &self.sensitivity else {
            return Ok(items);
        };
        let mut items = items;
        for item in &mut items {
            let (covering, confirming) = self.rules_of(&item.uri);
            if confirming.is_some() {
                item.title = None;
                item.description = None;
            }
            if let Some(rule) = covering {
                let line = Sensitivity::record_of(
                    principal,
                    AuditAction::List,
                    item.uri.as_str(),
                    rule,
                    AuditOutcome::Served,
                );
                sensitivity.record(line).await?;
            }
        }
        Ok(items)
    }

    /// The URIs of `skill`: its `SKILL.md` and every file of its manifest.
    fn skill_uris(skill: &Skill) -> impl Iterator<Item = &ResourceUri> {
        let files = match &skill.files {
            SkillFiles::Manifest(files) => files.as_slice(),
            SkillFiles::Dynamic => &[],
        };
        std::iter::once(&skill.uri).chain(files.iter().map(|file| &file.uri))
    }

    /// Whether a file of `skill` (by any of its names) is one the user must confirm.
    pub(super) fn confirms_skill(&self, skill: &Skill) -> bool {
        let Some(sensitivity) = &self.sensitivity else {
            return false;
        };
        Engine::skill_uris(skill).any(|uri| {
            self.names_of(uri)
                .iter()
                .any(|name| sensitivity.confirming(name).is_some())
        })
    }

    /// Records each of `skills` that holds a sensitive file.
    pub(super) async fn audit_skills(
        &self,
        principal: &Principal,
        skills: &[Skill],
    ) -> Result<(), AuditError> {
        let Some(sensitivity) = &self.sensitivity else {
            return Ok(());
        };
        for skill in skills {
            let rule = Engine::skill_uris(skill).find_map(|uri| {
                self.names_of(uri)
                    .iter()
                    .find_map(|name| sensitivity.covering(name))
            });
            if let Some(rule) = rule {
                let line = Sensitivity::record_of(
                    principal,
                    AuditAction::Skill,
                    skill.uri.as_str(),
                    rule,
                    AuditOutcome::Served,
                );
                sensitivity.record(line).await?;
            }
        }
        Ok(())
    }

    /// Records the sensitive resources that the values of `completion` lead to.
    pub(super) async fn audit_completion(
        &self,
        principal: &Principal,
        template: &UriTemplate,
        variable: &str,
        context: &Variables,
        completion: &Completion,
    ) -> Result<(), AuditError> {
        let Some(sensitivity) = &self.sensitivity else {
            return Ok(());
        };
        let mut variables = context.clone();
        for value in &completion.values {
            variables.insert(variable, VarValue::String(value.clone()));
            let uri = template.expand(&variables);
            let rule = match ResourceUri::parse(&uri) {
                Ok(parsed) => self.rules_of(&parsed).0,
                Err(_) => sensitivity.covering(&uri),
            };
            if let Some(rule) = rule {
                let line = Sensitivity::record_of(
                    principal,
                    AuditAction::Complete,
                    &uri,
                    rule,
                    AuditOutcome::Served,
                );
                sensitivity.record(line).await?;
            }
        }
        Ok(())
    }

    /// Records a subscription to `uri` when it is sensitive, with whether it was `accepted`.
    pub async fn audit_subscription(
        &self,
        principal: &Principal,
        uri: &str,
        accepted: bool,
    ) -> Result<(), AuditError> {
        let Some(sensitivity) = &self.sensitivity else {
            return Ok(());
        };
        let rule = match ResourceUri::parse(uri) {
            Ok(parsed) => self.rules_of(&parsed).0,
            Err(_) => sensitivity.covering(uri),
        };
        let Some(rule) = rule else {
            return Ok(());
        };
        let outcome = if accepted {
            AuditOutcome::Served
        } else {
            AuditOutcome::Refused
        };
        let line = Sensitivity::record_of(principal, AuditAction::Subscribe, uri, rule, outcome);
        sensitivity.record(line).await
    }
}
