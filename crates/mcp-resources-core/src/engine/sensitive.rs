//! Reads, lists and completions of sensitive resources: audited, and reads confirmed by the
//! user where a rule says so (the rules and the confirmation state are in
//! [`crate::sensitive`]).
//!
//! **Layer:** core, part of the engine. It never knows how the audit log is written, how an
//! era asks the user, or a clock (the [`Sensitivity`] holds the
//! server's clock function).
//!
//! The policy comes first: a URI the principal may not read is not found, never a question to
//! the user (a question would tell that it exists). A ranged read is judged by the URI asked
//! for and by the resource it is a range of ([`Provider::range_of`](crate::provider::Provider::range_of)),
//! so that no range URI escapes a rule written for its file. An audit record is written before
//! the answer leaves; when it cannot be, the answer is an error instead.

use crate::completion::Completion;
use crate::error::ReadError;
use crate::input::Inputs;
use crate::policy::{Action, Principal};
use crate::resource::{ByteRange, Resource};
use crate::sensitive::{AuditAction, AuditError, AuditOutcome, Confirmation, Sensitivity};
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
        let base = self.providers.iter().find_map(|slot| {
            if slot.provider.claims(uri) {
                slot.provider.range_of(uri).map(|(base, _)| base)
            } else {
                None
            }
        });
        let texts = [Some(uri), base.as_ref()];
        let rule = texts
            .iter()
            .flatten()
            .find_map(|text| sensitivity.covering(text.as_str()));
        let Some(rule) = rule else {
            return self.read_unaudited(principal, uri, range, inputs).await;
        };
        let record = |outcome| {
            Sensitivity::record_of(principal, AuditAction::Read, uri.as_str(), rule, outcome)
        };
        let readable = self.policy.allows(principal, Action::Read, uri)
            && base
                .as_ref()
                .is_none_or(|base| self.policy.allows(principal, Action::Read, base));
        let confirming = texts
            .iter()
            .flatten()
            .find_map(|text| sensitivity.confirming(text.as_str()));
        if let (Some(confirming), true) = (confirming, readable) {
            let refusal = match sensitivity.confirmation(principal, uri, confirming, inputs) {
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
            };
            if let Some((outcome, error)) = refusal {
                sensitivity.record(record(outcome)).await?;
                return Err(error);
            }
        }
        let read = self.read_unaudited(principal, uri, range, inputs).await;
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

    /// The items of a list page (or a directory's page) as they leave: their titles and
    /// descriptions masked, the sensitive ones recorded.
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
        for item in &items {
            if let Some(rule) = sensitivity.covering(item.uri.as_str()) {
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
            if let Some(rule) = sensitivity.covering(&uri) {
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
        let Some(rule) = sensitivity.covering(uri) else {
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
