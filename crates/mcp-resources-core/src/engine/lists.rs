//! The paged lists of the engine drawn from its sources (resources, skills, a directory's
//! children), and the one loop that fills a page of any of them.
//!
//! **Layer:** core, part of the engine. A list runs over sources in order (the static resources
//! as source 0 where the list has them, then each provider), each in ascending key order (a
//! canonical URI). [`Engine::fill_page`] asks a source for a batch strictly after the last key,
//! checks every item against the policy *before* it counts towards the page, and moves on to the
//! next source when one is exhausted; the cursor names the source and the key of the page's
//! last item. Like the rest of the engine, this module never knows a wire shape, JSON, a runtime
//! or I/O.

use crate::error::{ListError, SkillError};
use crate::pagination::{CursorError, Page, Position};
use crate::policy::{Action, Principal};
use crate::provider::{BoxFuture, ListRequest, ProviderError, SkillRequest};
use crate::resource::Resource;
use crate::skill::{Skill, SkillFiles};
use crate::uri::ResourceUri;

use super::{Engine, MAX_SKILLS_PAGE, MIN_BATCH, SkillOutput};

/// What [`Engine::fill_page`] gathered.
pub(super) struct Filled<T> {
    /// The page's items, all visible.
    pub(super) items: Vec<T>,
    /// Whether a visible item was left for the next page.
    pub(super) has_more: bool,
    /// The source of the last item.
    pub(super) last_source: usize,
}

/// A source that failed while filling a page: its index (0 for static resources, `i + 1` for
/// provider `i`) and what it said.
pub(super) struct SourceFailed {
    pub(super) source: usize,
    pub(super) error: ProviderError,
}

impl Engine {
    /// One page of the resource list, starting at `cursor` (from the beginning when `None`).
    pub async fn list_resources(
        &self,
        principal: &Principal,
        cursor: Option<&str>,
    ) -> Result<Page<Resource>, ListError> {
        let (source, after) = match cursor {
            None => (0, None),
            Some(cursor) => match self.codec.decode(cursor)? {
                Position::Resources { source, after } => (source as usize, Some(after)),
                other => {
                    return Err(CursorError::WrongList {
                        expected: "resources",
                        found: other.list_name(),
                    }
                    .into());
                }
            },
        };
        let fetch = |source: usize, after: Option<String>, limit: usize| -> BoxFuture<'_, _> {
            Box::pin(async move {
                self.resources_of(source, principal, after.as_deref(), limit)
                    .await
            })
        };
        let visible =
            |resource: &Resource| self.allows_every_name(principal, Action::List, &resource.uri);
        let filled = self
            .fill_page(source, self.providers.len(), after, fetch, visible)
            .await
            .map_err(ListError::from)?;
        let next_cursor = self.next_cursor(&filled, |source, after| Position::Resources {
            source,
            after,
        });
        let items = self.listed_page(principal, filled.items).await?;
        Ok(Page {
            items,
            next_cursor,
            cache: self.list_cache,
        })
    }

    /// One page of the skills every provider serves, starting at `cursor`, at most
    /// [`MAX_SKILLS_PAGE`] of them. A skill is listed only to a principal who may list its
    /// `SKILL.md` and read every file of its manifest.
    pub async fn list_skills(
        &self,
        principal: &Principal,
        cursor: Option<&str>,
    ) -> Result<Page<Skill>, ListError> {
        let (source, after) = match cursor {
            None => (1, None),
            Some(cursor) => match self.codec.decode(cursor)? {
                Position::Skills { source, after } if source >= 1 => (source as usize, Some(after)),
                other => {
                    return Err(CursorError::WrongList {
                        expected: "skills",
                        found: other.list_name(),
                    }
                    .into());
                }
            },
        };
        let fetch = |source: usize, after: Option<String>, limit: usize| -> BoxFuture<'_, _> {
            Box::pin(async move {
                let Some(slot) = source
                    .checked_sub(1)
                    .and_then(|index| self.providers.get(index))
                else {
                    return Ok(Vec::new());
                };
                let request = ListRequest {
                    principal,
                    after: after.as_deref(),
                    limit,
                };
                slot.provider.list_skills(request).await
            })
        };
        let visible =
            |skill: &Skill| self.skill_visible(principal, skill) && !self.confirms_skill(skill);
        let page_size = self.limits.page_size.get().min(MAX_SKILLS_PAGE);
        let filled = self
            .fill_page_of(
                page_size,
                source,
                self.providers.len(),
                after,
                fetch,
                visible,
            )
            .await
            .map_err(ListError::from)?;
        let next_cursor =
            self.next_cursor(&filled, |source, after| Position::Skills { source, after });
        self.audit_skills(principal, &filled.items).await?;
        Ok(Page {
            items: filled
                .items
                .into_iter()
                .map(|skill| self.masked_skill(skill))
                .collect(),
            next_cursor,
            cache: self.list_cache,
        })
    }

    /// The skill whose `SKILL.md` is `uri`: from the first provider that claims the URI and
    /// has it, if `principal` may see it (as [`Engine::list_skills`] decides).
    pub async fn get_skill(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
    ) -> Result<SkillOutput, SkillError> {
        for (index, slot) in self.providers.iter().enumerate() {
            if !slot.provider.claims(uri) {
                continue;
            }
            let request = SkillRequest { principal, uri };
            let found =
                slot.provider
                    .get_skill(request)
                    .await
                    .map_err(|error| SkillError::Provider {
                        source_index: index,
                        error,
                    })?;
            if let Some(skill) = found {
                // A skill with a file the user must confirm is not described: its frontmatter
                // and digests would tell what the confirmation guards.
                if self.skill_visible(principal, &skill) && !self.confirms_skill(&skill) {
                    self.audit_skills(principal, std::slice::from_ref(&skill))
                        .await?;
                    return Ok(SkillOutput {
                        skill: self.masked_skill(skill),
                        cache: slot.cache,
                    });
                }
                break;
            }
        }
        Err(SkillError::NotASkill {
            uri: uri.as_str().to_owned(),
        })
    }

    /// Whether `principal` may see `skill`: list its `SKILL.md` and read every file it names.
    fn skill_visible(&self, principal: &Principal, skill: &Skill) -> bool {
        self.allows_every_name(principal, Action::List, &skill.uri)
            && match &skill.files {
                SkillFiles::Manifest(files) => files
                    .iter()
                    .all(|file| self.allows_every_name(principal, Action::Read, &file.uri)),
                SkillFiles::Dynamic => self.allows_every_name(principal, Action::Read, &skill.uri),
            }
    }

    /// Up to `limit` resources of one source, strictly after `after`, in URI order.
    async fn resources_of(
        &self,
        source: usize,
        principal: &Principal,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Resource>, ProviderError> {
        if source == 0 {
            let start = after.map_or(0, |after| {
                self.statics
                    .partition_point(|slot| slot.resource.uri.as_str() <= after)
            });
            let page = self.statics[start..].iter().take(limit);
            return Ok(page.map(|slot| slot.resource.clone()).collect());
        }
        let request = ListRequest {
            principal,
            after,
            limit,
        };
        self.providers[source - 1].provider.list(request).await
    }

    /// Fills one page from the sources `source..=last`, starting strictly after `after` in the
    /// first, with the items `visible` keeps: the loop of every list drawn from sources (see the
    /// module documentation). `fetch(source, after, limit)` returns up to `limit` items of one
    /// source strictly after `after`, in ascending key order.
    pub(super) async fn fill_page<'f, T: Keyed>(
        &self,
        source: usize,
        last: usize,
        after: Option<String>,
        fetch: impl Fn(usize, Option<String>, usize) -> BoxFuture<'f, Result<Vec<T>, ProviderError>>,
        visible: impl Fn(&T) -> bool,
    ) -> Result<Filled<T>, SourceFailed> {
        let page_size = self.limits.page_size.get();
        self.fill_page_of(page_size, source, last, after, fetch, visible)
            .await
    }

    /// [`Engine::fill_page`] with pages of `page_size` items.
    async fn fill_page_of<'f, T: Keyed>(
        &self,
        page_size: usize,
        mut source: usize,
        last: usize,
        mut after: Option<String>,
        fetch: impl Fn(usize, Option<String>, usize) -> BoxFuture<'f, Result<Vec<T>, ProviderError>>,
        visible: impl Fn(&T) -> bool,
    ) -> Result<Filled<T>, SourceFailed> {
        // A huge configured page size must not reserve memory for items that do not exist.
        let mut items: Vec<T> = Vec::with_capacity(page_size.min(1024));
        let mut last_source = source;
        while source <= last {
            loop {
                let want = (page_size - items.len()).max(MIN_BATCH).saturating_add(1);
                let mut batch = fetch(source, after.clone(), want)
                    .await
                    .map_err(|error| SourceFailed { source, error })?;
                batch.truncate(want);
                let exhausted = batch.len() < want;
                let batch_last = batch.last().map(|item| item.key().as_str().to_owned());
                for item in batch {
                    if !visible(&item) {
                        continue;
                    }
                    if items.len() == page_size {
                        return Ok(Filled {
                            items,
                            has_more: true,
                            last_source,
                        });
                    }
                    items.push(item);
                    last_source = source;
                }
                // A source that does not move forward is treated as exhausted, so that a
                // provider ignoring `after` cannot make the engine loop.
                let moved = match (&batch_last, &after) {
                    (Some(last), Some(previous)) => last > previous,
                    (Some(_), None) => true,
                    (None, _) => false,
                };
                if exhausted || !moved {
                    break;
                }
                after = batch_last;
            }
            source += 1;
            after = None;
        }
        Ok(Filled {
            items,
            has_more: false,
            last_source,
        })
    }

    /// The cursor after a filled page, `None` on the last one; `position` makes the position
    /// from the last item's source and key.
    pub(super) fn next_cursor<T: Keyed>(
        &self,
        filled: &Filled<T>,
        position: impl Fn(u32, String) -> Position,
    ) -> Option<String> {
        let last = filled.items.last().filter(|_| filled.has_more)?;
        let source = u32::try_from(filled.last_source).expect("invariant: fewer than 2^32 sources");
        Some(
            self.codec
                .encode(&position(source, last.key().as_str().to_owned())),
        )
    }
}

/// An item of a paged list: its key is a canonical URI.
pub(super) trait Keyed {
    fn key(&self) -> &ResourceUri;
}

impl Keyed for Resource {
    fn key(&self) -> &ResourceUri {
        &self.uri
    }
}

impl Keyed for Skill {
    fn key(&self) -> &ResourceUri {
        &self.uri
    }
}

impl From<SourceFailed> for ListError {
    fn from(failed: SourceFailed) -> ListError {
        ListError::Provider {
            // Source 0 (static resources) never fails.
            source_index: failed.source.saturating_sub(1),
            error: failed.error,
        }
    }
}
