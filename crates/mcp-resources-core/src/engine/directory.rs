//! Directory reads: one page of the direct children of a directory resource, the engine's side
//! of `resources/directory/read` (the Skills extension, SEP-2640).
//!
//! **Layer:** core, part of the engine. A directory belongs to the first provider, in
//! registration order, that claims its URI and answers [`Provider::list_directory`](crate::provider::Provider::list_directory) with
//! `Some`; static resources and function templates have no directories. Its children come in
//! that provider's canonical-URI order, each checked against the policy ([`Action::List`])
//! before it counts towards the page, by the loop that pages the resource list
//! ([`Engine::fill_page`]); a cursor resumes
//! strictly after the last child returned, and names its directory (the child's URI is the
//! directory's, a slash and one segment), so it is refused for any other directory. Like the
//! rest of the engine, this module never knows a wire shape, JSON, a runtime or I/O.
//!
//! Visibility of a directory: the policy allows [`Action::List`] on its URI or on its URI with a
//! trailing slash, so that a grant `file:///docs/**` (which covers `file:///docs/` but not
//! `file:///docs`) lets its holder walk `docs`. A directory the principal may not see is
//! [`DirectoryError::NotADirectory`], as one that does not exist (unless the engine reveals
//! denials), and it is absent from its parent's children.

use crate::error::DirectoryError;
use crate::pagination::{CursorError, Page, Position};
use crate::policy::{Action, Principal};
use crate::provider::{BoxFuture, DirectoryRequest};
use crate::resource::Resource;
use crate::uri::ResourceUri;

use super::Engine;

impl Engine {
    /// One page of the direct children of the directory `uri`, starting at `cursor` (from the
    /// first child when `None`). An empty directory is one empty page.
    pub async fn list_directory(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        cursor: Option<&str>,
    ) -> Result<Page<Resource>, DirectoryError> {
        if !self.directory_visible(principal, uri) {
            return Err(if self.limits.reveal_denied {
                DirectoryError::Denied {
                    uri: uri.as_str().to_owned(),
                }
            } else {
                not_a_directory(uri)
            });
        }
        let resume = cursor
            .map(|cursor| self.directory_position(uri, cursor))
            .transpose()?;
        let (source, after) = match resume {
            Some((source, after)) => (source, Some(after)),
            None => (self.directory_source(principal, uri).await?, None),
        };
        let slot = &self.providers[source - 1];
        let fetch = |_source: usize, after: Option<String>, limit: usize| -> BoxFuture<'_, _> {
            Box::pin(async move {
                let request = DirectoryRequest {
                    principal,
                    uri,
                    after: after.as_deref(),
                    limit,
                };
                // Gone between two pages: what is left of it is nothing.
                Ok(slot
                    .provider
                    .list_directory(request)
                    .await?
                    .unwrap_or_default())
            })
        };
        let visible = |child: &Resource| self.child_visible(principal, child);
        let filled = self
            .fill_page(source, source, after, fetch, visible)
            .await
            .map_err(|failed| DirectoryError::Provider {
                source_index: failed.source - 1,
                error: failed.error,
            })?;
        let next_cursor = self.next_cursor(&filled, |source, after| Position::Directory {
            source,
            after,
        });
        let items = self.listed_page(principal, filled.items).await?;
        Ok(Page {
            items,
            next_cursor,
            cache: self.provider_cache(slot, uri),
        })
    }

    /// The source (`provider index + 1`) serving directory `uri`: the first claiming provider
    /// that has it.
    async fn directory_source(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
    ) -> Result<usize, DirectoryError> {
        for (index, slot) in self.providers.iter().enumerate() {
            if !slot.provider.claims(uri) {
                continue;
            }
            let probe = DirectoryRequest {
                principal,
                uri,
                after: None,
                limit: 0,
            };
            let found = slot.provider.list_directory(probe).await.map_err(|error| {
                DirectoryError::Provider {
                    source_index: index,
                    error,
                }
            })?;
            if found.is_some() {
                return Ok(index + 1);
            }
        }
        Err(not_a_directory(uri))
    }

    /// Where `cursor` resumes the children of `uri`: its source and the last child returned.
    fn directory_position(
        &self,
        uri: &ResourceUri,
        cursor: &str,
    ) -> Result<(usize, String), DirectoryError> {
        let (source, after) = match self.codec.decode(cursor)? {
            Position::Directory { source, after } => (source as usize, after),
            other => {
                return Err(CursorError::WrongList {
                    expected: "directory",
                    found: other.list_name(),
                }
                .into());
            }
        };
        // The last child returned is a direct child of this directory: its URI is the
        // directory's, a slash and one segment.
        let of_this_directory = after
            .strip_prefix(uri.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|name| !name.is_empty() && !name.contains('/'));
        if !of_this_directory || source == 0 || source > self.providers.len() {
            return Err(CursorError::WrongList {
                expected: "directory",
                found: "another directory",
            }
            .into());
        }
        Ok((source, after))
    }

    /// Whether `uri` is a directory that `principal` may see; a provider failing to say counts
    /// as no.
    pub(super) async fn is_visible_directory(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
    ) -> bool {
        self.directory_visible(principal, uri)
            && self.directory_source(principal, uri).await.is_ok()
    }

    /// Whether `principal` may see the directory `uri` (see the module documentation).
    fn directory_visible(&self, principal: &Principal, uri: &ResourceUri) -> bool {
        if self.policy.allows(principal, Action::List, uri) {
            return true;
        }
        ResourceUri::parse(&format!("{}/", uri.as_str()))
            .is_ok_and(|contents| self.policy.allows(principal, Action::List, &contents))
    }

    /// Whether `principal` may see `child` among its directory's children.
    fn child_visible(&self, principal: &Principal, child: &Resource) -> bool {
        if child.is_directory() {
            self.directory_visible(principal, &child.uri)
        } else {
            self.allows_every_name(principal, Action::List, &child.uri)
        }
    }
}

fn not_a_directory(uri: &ResourceUri) -> DirectoryError {
    DirectoryError::NotADirectory {
        uri: uri.as_str().to_owned(),
    }
}
