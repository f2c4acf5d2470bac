//! The skills provider: every skill under one directory (a directory holding a `SKILL.md`,
//! nested skills included), served as `skill://<skill-path>/<file>` resources with the Skills
//! extension's catalog (`skills/list`, `skills/get`) and directory reads.
//!
//! **Layer:** provider (`mcp-resources-fs`). It is the filesystem provider rooted at the skills
//! directory, seen through a URI mapping: `file://<dir>/<path>` is `skill://<path>` (the first
//! segment of the path is the URI's authority). Every read, listing and walk is that provider's,
//! so skills get the same sandbox as files (no symlink followed, secrets and ignored files
//! absent, the read limit). This module adds what makes a directory a skill ([`catalog`]): a
//! `SKILL.md` whose frontmatter ([`frontmatter`]) names the skill as its directory is named,
//! within the extension's limits, and the manifest of its files with their digests. Only the
//! files of valid skills are served; anything else under the directory names nothing. This
//! module never knows a protocol or JSON.
//!
//! Specification: the Skills extension (SEP-2640), "Skill Format", "Resource Mapping",
//! "Enumeration via `skills/list`", "Retrieval via `skills/get`", "Directory Listing".

mod catalog;
mod frontmatter;

use std::collections::VecDeque;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use mcp_resources_core::cache::CachePolicy;
use mcp_resources_core::change::{Change, ChangeSource};
use mcp_resources_core::provider::{
    DirectoryRequest, ListRequest, Provider, ProviderError, ReadRequest, SkillRequest,
};
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::skill::Skill;
use mcp_resources_core::uri::ResourceUri;

use crate::watch::FsWatcher;
use crate::{FilesystemProvider, FsConfig, FsError, WatchError};

use catalog::Catalog;

/// The scheme of skill URIs.
pub const SKILL_SCHEME: &str = "skill";

/// Serves the skills under one directory (a directory holding a `SKILL.md` whose frontmatter
/// `name` is the directory's name, nested skills included) as `skill://<path>/<file>`: the
/// filesystem provider rooted there, seen through that URI mapping, so skills get the sandbox of
/// files. Only the files of valid skills are served; a directory that breaks a rule (the name,
/// the frontmatter, 512 files or 16 MiB) is skipped with a warning.
///
/// Cheap to clone: clones share the catalog.
#[derive(Clone, Debug)]
pub struct SkillsProvider {
    files: FilesystemProvider,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// `file://` and the skills directory's path, with a trailing slash.
    file_prefix: String,
    catalog: RwLock<Arc<Catalog>>,
    digests: catalog::Digests,
    /// The engine's content rules, for the manifests' digests.
    rules: Option<Redactor>,
}

impl SkillsProvider {
    /// Walks `config`'s one root, the skills directory, and builds the catalog of its skills
    /// (reading and hashing their files). Blocking: in async code, call it through
    /// `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// An [`FsError`] for a root that is not one directory, as [`FilesystemProvider::new`]
    /// gives.
    pub fn new(config: FsConfig) -> Result<SkillsProvider, FsError> {
        SkillsProvider::open(config, None)
    }

    /// [`SkillsProvider::new`] for an engine whose content rules are `rules`: each manifest
    /// digest is then of the file as a read serves it, masked (a digest of the file as written
    /// would let anyone guess a short masked secret against it, and would not match the read).
    ///
    /// # Errors
    ///
    /// As [`SkillsProvider::new`].
    pub fn with_content_rules(
        config: FsConfig,
        rules: Redactor,
    ) -> Result<SkillsProvider, FsError> {
        SkillsProvider::open(config, Some(rules))
    }

    fn open(config: FsConfig, rules: Option<Redactor>) -> Result<SkillsProvider, FsError> {
        let files = FilesystemProvider::new(config)?;
        let [root] = files.shared.roots.as_slice() else {
            return Err(FsError::NotOneRoot);
        };
        let shared = Arc::new(Shared {
            file_prefix: root.uri_prefix.clone(),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            digests: catalog::Digests::default(),
            rules,
        });
        let provider = SkillsProvider { files, shared };
        provider.rebuild();
        Ok(provider)
    }

    /// How many skills the catalog holds.
    pub fn len(&self) -> usize {
        self.catalog().len()
    }

    /// Whether the catalog holds no skill.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Starts following changes of the skills directory (see [`FilesystemProvider::watch`]):
    /// each batch rebuilds the catalog, and the returned source reports skills that appeared or
    /// went (a list change of their `SKILL.md` URIs), skills whose files changed (their
    /// `SKILL.md` updated) and every changed file of a skill (updated).
    ///
    /// # Errors
    ///
    /// As [`FilesystemProvider::watch`].
    pub fn watch(&self) -> Result<SkillsWatcher, WatchError> {
        Ok(SkillsWatcher {
            files: self.files.watch()?,
            provider: self.clone(),
            ready: VecDeque::new(),
        })
    }

    fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(
            &self
                .shared
                .catalog
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// Builds the catalog again from the index (blocking) and returns the one it replaced.
    fn rebuild(&self) -> Arc<Catalog> {
        let built = Arc::new(Catalog::build(
            &self.files,
            &self.shared.file_prefix,
            &self.shared.digests,
            self.shared.rules.as_ref(),
        ));
        tracing::info!(skills = built.len(), "skills catalog built");
        std::mem::replace(
            &mut *self
                .shared
                .catalog
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            built,
        )
    }

    /// A read found `file` different from its manifest's digest: its kept digest is
    /// forgotten and the catalog rebuilt, so that the next manifest has the bytes served.
    async fn changed_since_the_manifest(&self, file: &ResourceUri) {
        self.shared.digests.forget(file.as_str());
        let provider = self.clone();
        let rebuild = move || {
            provider.rebuild();
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let _ = runtime.spawn_blocking(rebuild).await;
            }
            Err(_) => rebuild(),
        }
    }

    /// The `file://` URI a `skill://` URI names, inside a skill of the catalog (the skill's
    /// directory itself included). The way back must give the same URI, so that no spelling
    /// (an authority of `.` or `..` becoming a dot segment) is a second name for a file.
    fn file_uri(&self, catalog: &Catalog, uri: &ResourceUri) -> Option<ResourceUri> {
        let rest = uri.as_str().strip_prefix("skill://")?;
        let file = ResourceUri::parse(&format!("{}{rest}", self.shared.file_prefix)).ok()?;
        let (whole, _) = file.as_str().split_once('?').unwrap_or((file.as_str(), ""));
        let (asked, _) = uri.as_str().split_once('?').unwrap_or((uri.as_str(), ""));
        let back = catalog::skill_uri(&self.shared.file_prefix, whole)?;
        (back.as_str() == asked && catalog.holds(&file)).then_some(file)
    }

    /// The `skill://` URI of a `file://` URI below the skills directory.
    fn skill_uri(&self, file: &ResourceUri) -> Option<ResourceUri> {
        catalog::skill_uri(&self.shared.file_prefix, file.as_str())
    }

    /// `resource` with its `file://` URI turned into its `skill://` one.
    fn as_skill_resource(&self, mut resource: Resource) -> Option<Resource> {
        resource.uri = self.skill_uri(&resource.uri)?;
        Some(resource)
    }
}

#[async_trait]
impl Provider for SkillsProvider {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == SKILL_SCHEME
    }

    /// `skill://NAME/FILE?offset=O&length=L` is the range `O..O+L` of the skill file's URI
    /// without its query, for the engine's content rules (as for `file://`).
    fn range_of(
        &self,
        uri: &ResourceUri,
    ) -> Option<(ResourceUri, mcp_resources_core::resource::ByteRange)> {
        crate::read::range_of(uri)
    }

    /// A skill file's `file://` URI for its `skill://` one (with the same query), and the
    /// reverse for a file of a skill: rules written for either name hold for the other.
    fn same_as(&self, uri: &ResourceUri) -> Option<ResourceUri> {
        let catalog = self.catalog();
        if uri.scheme() == SKILL_SCHEME {
            return self.file_uri(&catalog, uri);
        }
        let (whole, query) = match uri.as_str().split_once('?') {
            Some((whole, query)) => (whole, Some(query)),
            None => (uri.as_str(), None),
        };
        let file = ResourceUri::parse(whole).ok()?;
        if !catalog.holds(&file) {
            return None;
        }
        let skill = self.skill_uri(&file)?;
        match query {
            None => Some(skill),
            Some(query) => ResourceUri::parse(&format!("{skill}?{query}")).ok(),
        }
    }

    /// Each skill's `SKILL.md`, with the skill's name and description.
    async fn list(&self, request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        Ok(self
            .catalog()
            .skills_after(request.after)
            .take(request.limit)
            .map(|entry| entry.listed.clone())
            .collect())
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        let catalog = self.catalog();
        let Some(file) = self.file_uri(&catalog, request.uri) else {
            return Ok(None);
        };
        let inner = ReadRequest {
            uri: &file,
            template: None,
            variables: None,
            ..request
        };
        let Some(contents) = self.files.read(inner).await? else {
            return Ok(None);
        };
        let whole = request.uri.query().is_none() && request.range.is_none();
        if let (true, [part], Some(digest)) = (whole, contents.as_slice(), catalog.digest(&file)) {
            if catalog::sha256(&part.body) != digest {
                self.changed_since_the_manifest(&file).await;
                return Err(ProviderError::public(format!(
                    "{} changed since its skill's manifest was made; fetch the skill again \
                     (skills/get)",
                    request.uri
                )));
            }
        }
        let is_skill_file = catalog.is_skill_file(request.uri);
        Ok(Some(
            contents
                .into_iter()
                .map(|mut part| {
                    part.uri = request.uri.clone();
                    if is_skill_file {
                        part.mime_type = Some(catalog::SKILL_MIME_TYPE.to_owned());
                    }
                    part
                })
                .collect(),
        ))
    }

    fn matches_templates(&self) -> bool {
        false
    }

    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let catalog = self.catalog();
        let Some(directory) = self.file_uri(&catalog, request.uri) else {
            return Ok(None);
        };
        let after = request
            .after
            .and_then(|after| after.strip_prefix("skill://"))
            .map(|rest| format!("{}{rest}", self.shared.file_prefix));
        let inner = DirectoryRequest {
            uri: &directory,
            after: after.as_deref(),
            ..request
        };
        Ok(self.files.list_directory(inner).await?.map(|children| {
            children
                .into_iter()
                .filter_map(|child| self.as_skill_resource(child))
                .collect()
        }))
    }

    async fn list_skills(&self, request: ListRequest<'_>) -> Result<Vec<Skill>, ProviderError> {
        Ok(self
            .catalog()
            .skills_after(request.after)
            .take(request.limit)
            .map(|entry| entry.skill.clone())
            .collect())
    }

    async fn get_skill(&self, request: SkillRequest<'_>) -> Result<Option<Skill>, ProviderError> {
        Ok(self
            .catalog()
            .skill(request.uri.as_str())
            .map(|entry| entry.skill.clone()))
    }

    fn cache_policy(&self) -> CachePolicy {
        self.files.cache_policy()
    }
}

/// The changes of a [`SkillsProvider`]'s skills, in `skill://` terms (see
/// [`SkillsProvider::watch`]).
pub struct SkillsWatcher {
    files: FsWatcher,
    provider: SkillsProvider,
    ready: VecDeque<Change>,
}

impl std::fmt::Debug for SkillsWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsWatcher")
            .field("ready", &self.ready.len())
            .finish_non_exhaustive()
    }
}

impl SkillsWatcher {
    /// The next change, waiting for it; `None` once the watcher has stopped.
    pub async fn recv(&mut self) -> Option<Change> {
        loop {
            if let Some(change) = self.ready.pop_front() {
                return Some(change);
            }
            // Every change ready now is one rebuild.
            let mut changes = vec![self.files.recv().await?];
            changes.extend(std::iter::from_fn(|| self.files.try_recv()));
            let provider = self.provider.clone();
            let rebuild = move || {
                let before = provider.rebuild();
                (before, provider.catalog())
            };
            let rebuilt = match tokio::runtime::Handle::try_current() {
                Ok(runtime) => runtime.spawn_blocking(rebuild).await.ok(),
                Err(_) => Some(rebuild()),
            };
            let Some((before, after)) = rebuilt else {
                continue;
            };
            self.ready
                .extend(catalog::changes(&before, &after, &changes, |file| {
                    self.provider.skill_uri(file)
                }));
        }
    }
}

#[async_trait]
impl ChangeSource for SkillsWatcher {
    async fn next_change(&mut self) -> Option<Change> {
        self.recv().await
    }
}
