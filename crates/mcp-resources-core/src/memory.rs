//! [`MemoryProvider`]: a provider backed by an ordered in-memory map, mutable at runtime.
//!
//! **Layer:** core, a provider. It serves the core's tests and embedders whose resources change
//! at runtime (fixed ones are the engine's static resources). It does no I/O and never knows a protocol; it is also the reference
//! behaviour of the [`Provider`] contract (ordering, `after`, `limit`, ranges).
//!
//! Changing it ([`MemoryProvider::insert`], [`MemoryProvider::remove`]) does not notify anyone:
//! whoever changes it also tells the subscription hub, which stays pure.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;

use crate::cache::CachePolicy;
use crate::provider::{CompletionRequest, ListRequest, Provider, ProviderError, ReadRequest};
use crate::resource::{Contents, Resource, ResourceTemplate};
use crate::uri::ResourceUri;

/// A provider holding resources and their contents in a `BTreeMap` keyed by canonical URI.
///
/// Listing a page costs `O(log n + page)`, whatever the number of resources. Reads and writes
/// may happen concurrently (a read-write lock guards the map; no lock is held across an await).
#[derive(Debug, Default)]
pub struct MemoryProvider {
    prefix: Option<String>,
    templates: Vec<ResourceTemplate>,
    cache_policy: CachePolicy,
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: BTreeMap<String, Entry>,
    completions: BTreeMap<String, Vec<String>>,
}

#[derive(Debug)]
struct Entry {
    resource: Resource,
    contents: Vec<Contents>,
}

impl MemoryProvider {
    /// An empty provider that claims exactly the URIs it holds.
    pub fn new() -> MemoryProvider {
        MemoryProvider::default()
    }

    /// Claims every URI whose canonical text starts with `prefix` (for example `mem://notes/`),
    /// held or not, so that the engine asks it to read them all. Claiming does not take the
    /// URIs away from others: a read of a URI it does not hold answers `None`, and the engine
    /// then passes the URI on to later providers and templates.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> MemoryProvider {
        self.prefix = Some(prefix.into());
        self
    }

    /// Declares a template this provider serves (listed by the engine; its reads reach
    /// [`MemoryProvider`] like any other read).
    #[must_use]
    pub fn with_template(mut self, template: ResourceTemplate) -> MemoryProvider {
        self.templates.push(template);
        self
    }

    /// Sets how its answers may be cached.
    #[must_use]
    pub fn with_cache_policy(mut self, cache_policy: CachePolicy) -> MemoryProvider {
        self.cache_policy = cache_policy;
        self
    }

    /// Adds or replaces a resource and its contents; returns whether it replaced one.
    pub fn insert(&self, resource: Resource, contents: Vec<Contents>) -> bool {
        let key = resource.uri.as_str().to_owned();
        self.write()
            .entries
            .insert(key, Entry { resource, contents })
            .is_some()
    }

    /// Removes a resource; returns whether it was there.
    pub fn remove(&self, uri: &str) -> bool {
        self.write().entries.remove(uri).is_some()
    }

    /// Whether a resource with this canonical URI is held.
    pub fn contains(&self, uri: &str) -> bool {
        self.read_state().entries.contains_key(uri)
    }

    /// How many resources are held.
    pub fn len(&self) -> usize {
        self.read_state().entries.len()
    }

    /// Whether no resource is held.
    pub fn is_empty(&self) -> bool {
        self.read_state().entries.is_empty()
    }

    /// Sets the candidate values proposed when completing the template variable `variable`
    /// (those starting with the typed prefix are proposed, in the given order).
    pub fn set_completions(&self, variable: impl Into<String>, values: Vec<String>) {
        self.write().completions.insert(variable.into(), values);
    }

    /// The contents of `request.uri`, or of its range, as [`Provider::read`] answers them.
    fn read_in_memory(
        &self,
        request: &ReadRequest<'_>,
    ) -> Result<Option<Vec<Contents>>, ProviderError> {
        let state = self.read_state();
        let Some(entry) = state.entries.get(request.uri.as_str()) else {
            return Ok(None);
        };
        let Some(range) = request.range else {
            return Ok(Some(entry.contents.clone()));
        };
        let mut parts = Vec::with_capacity(entry.contents.len());
        for contents in &entry.contents {
            let body = contents.body.slice(range).ok_or_else(|| {
                ProviderError::invalid_params(format!(
                    "range {}+{} of {} splits a utf-8 character",
                    range.offset, range.length, request.uri
                ))
            })?;
            parts.push(Contents {
                body,
                ..contents.clone()
            });
        }
        Ok(Some(parts))
    }

    fn read_state(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl Provider for MemoryProvider {
    fn claims(&self, uri: &ResourceUri) -> bool {
        match &self.prefix {
            Some(prefix) => uri.as_str().starts_with(prefix.as_str()),
            None => self.contains(uri.as_str()),
        }
    }

    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        let state = self.read_state();
        let lower = match request.after {
            Some(after) => Bound::Excluded(after),
            None => Bound::Unbounded,
        };
        let page = state
            .entries
            .range::<str, _>((lower, Bound::Unbounded))
            .take(request.limit)
            .map(|(_, entry)| entry.resource.clone())
            .collect();
        Ok(page)
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        self.templates.clone()
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        self.read_in_memory(&request)
    }

    async fn complete(&self, request: CompletionRequest<'_>) -> Result<Vec<String>, ProviderError> {
        let state = self.read_state();
        let values = state
            .completions
            .get(request.variable)
            .map_or_else(Vec::new, |values| {
                values
                    .iter()
                    .filter(|value| value.starts_with(request.prefix))
                    .cloned()
                    .collect()
            });
        Ok(values)
    }

    fn cache_policy(&self) -> CachePolicy {
        self.cache_policy
    }
}
