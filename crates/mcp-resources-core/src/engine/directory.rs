//! Directory reads: one page of the direct children of a directory resource, the engine's side
//! of `resources/directory/read` (the Skills extension, SEP-2640).
//!
//! **Layer:** core, part of the engine. A directory belongs to the first provider, in
//! registration order, that claims its URI and answers [`Provider::list_directory`](crate::provider::Provider::list_directory) with
//! `Some`; static resources and function templates have no directories. Its children come in
//! that provider's canonical-URI order, each checked against the policy ([`Action::List`])
//! before it counts towards the page, exactly as the resource list is paged; a cursor resumes
//! strictly after the last child returned, and names its directory (the child's URI starts
//! with the directory's and a slash), so it is refused for any other directory. Like the rest of
//! the engine, this module never knows a wire shape, JSON, a runtime or I/O.
//!
//! Visibility of a directory: the policy allows [`Action::List`] on its URI or on its URI with a
//! trailing slash, so that a grant `file:///docs/**` (which covers `file:///docs/` but not
//! `file:///docs`) lets its holder walk `docs`. A directory the principal may not see is
//! [`DirectoryError::NotADirectory`], as one that does not exist (unless the engine reveals
//! denials), and it is absent from its parent's children.

use crate::error::DirectoryError;
use crate::pagination::{CursorError, Page, Position};
use crate::policy::{Action, Principal};
use crate::provider::DirectoryRequest;
use crate::resource::Resource;
use crate::uri::ResourceUri;

use super::{Engine, MIN_BATCH};

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
        let page_size = self.limits.page_size.get();
        let mut items: Vec<Resource> = Vec::with_capacity(page_size.min(1024));
        let mut has_more = false;
        let (source, mut after) = match resume {
            Some((source, after)) => (source, Some(after)),
            None => (self.directory_source(principal, uri).await?, None),
        };
        let slot = &self.providers[source - 1];
        loop {
            let want = (page_size - items.len()).max(MIN_BATCH).saturating_add(1);
            let request = DirectoryRequest {
                principal,
                uri,
                after: after.as_deref(),
                limit: want,
            };
            let mut batch = slot
                .provider
                .list_directory(request)
                .await
                .map_err(|error| DirectoryError::Provider {
                    source_index: source - 1,
                    error,
                })?
                // Gone between two pages: what is left of it is nothing.
                .unwrap_or_default();
            batch.truncate(want);
            let exhausted = batch.len() < want;
            let batch_last = batch.last().map(|child| child.uri.as_str().to_owned());
            for child in batch {
                if !self.child_visible(principal, &child) {
                    continue;
                }
                if items.len() == page_size {
                    has_more = true;
                    break;
                }
                items.push(child);
            }
            // A provider that does not move forward is treated as exhausted, so that one
            // ignoring `after` cannot make the engine loop.
            let moved = match (&batch_last, &after) {
                (Some(last), Some(previous)) => last > previous,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if has_more || exhausted || !moved {
                break;
            }
            after = batch_last;
        }
        let next_cursor = match items.last() {
            Some(last) if has_more => Some(self.codec.encode(&Position::Directory {
                source: u32::try_from(source).expect("invariant: fewer than 2^32 sources"),
                after: last.uri.as_str().to_owned(),
            })),
            _ => None,
        };
        Ok(Page {
            items,
            next_cursor,
            cache: slot.cache,
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
        let of_this_directory = after
            .strip_prefix(uri.as_str())
            .is_some_and(|rest| rest.starts_with('/'));
        if !of_this_directory || source == 0 || source > self.providers.len() {
            return Err(CursorError::WrongList {
                expected: "directory",
                found: "another directory",
            }
            .into());
        }
        Ok((source, after))
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
            self.policy.allows(principal, Action::List, &child.uri)
        }
    }
}

fn not_a_directory(uri: &ResourceUri) -> DirectoryError {
    DirectoryError::NotADirectory {
        uri: uri.as_str().to_owned(),
    }
}
