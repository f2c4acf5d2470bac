//! Completion of URI template variables: the answer type and the policy filter every candidate
//! goes through.
//!
//! **Layer:** core. Candidates come from the template's completer or its provider
//! ([`Engine::complete`](crate::engine::Engine::complete) picks which); this module filters them
//! so that a completion never reveals what the principal cannot read: each candidate is put into
//! the template (with the other variables from the context), and the resulting URI must be one
//! the principal may both [`Complete`](Action::Complete) and [`Read`](Action::Read). Candidates
//! whose URI does not parse are dropped. It never knows the wire names (`hasMore`) or a protocol.

use crate::policy::{Action, Principal};
use crate::template::{UriTemplate, VarValue, Variables};
use crate::uri::ResourceUri;

/// The most values one completion returns (the protocol's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The answer to a completion request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// Up to [`MAX_COMPLETION_VALUES`] values, in the order the source proposed them.
    pub values: Vec<String>,
    /// How many candidates passed the policy, including those beyond the cap.
    pub total: u64,
    /// Whether there are more than `values` holds.
    pub has_more: bool,
}

/// Keeps the candidates whose URI `principal` may complete and read, capped at
/// [`MAX_COMPLETION_VALUES`].
pub(crate) fn filter_candidates(
    candidates: Vec<String>,
    template: &UriTemplate,
    variable: &str,
    context: &Variables,
    principal: &Principal,
    allows: &dyn Fn(&Principal, Action, &ResourceUri) -> bool,
) -> Completion {
    let mut variables = context.clone();
    let mut completion = Completion::default();
    for candidate in candidates {
        variables.insert(variable, VarValue::String(candidate.clone()));
        let Ok(uri) = ResourceUri::parse(&template.expand(&variables)) else {
            continue;
        };
        if !allows(principal, Action::Complete, &uri) || !allows(principal, Action::Read, &uri) {
            continue;
        }
        completion.total += 1;
        if completion.values.len() < MAX_COMPLETION_VALUES {
            completion.values.push(candidate);
        } else {
            completion.has_more = true;
        }
    }
    completion
}
