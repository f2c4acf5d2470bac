//! The catalog of the skills provider: which directories are skills, their frontmatter and the
//! manifest of their files, built from one snapshot of the index.
//!
//! **Layer:** provider (`mcp-resources-fs`), part of the skills provider. A directory is a skill
//! when it holds a regular file `SKILL.md` whose frontmatter names it: its `name` is the
//! directory's name and follows the Agent Skills rules, its `description` is a non-empty string
//! of at most 1,024 characters, and the skill holds at most 512 files and 16 MiB (nested skills'
//! files count in the enclosing one, as they are listed in its manifest). A directory that
//! breaks a rule is skipped with a warning that says why. Every file is read through the
//! filesystem provider (its sandbox, its limit), and its digest is of exactly the bytes a read
//! returns; digests are kept between builds for files whose size and modification time did not
//! change. This module never knows a protocol or JSON.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::SystemTime;

use mcp_resources_core::change::Change;
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::resource::{Body, Resource};
use mcp_resources_core::skill::{
    MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_FILE, Skill, SkillFile, SkillFiles, is_valid_name,
};
use mcp_resources_core::uri::ResourceUri;
use sha2::{Digest, Sha256};

use crate::read::Part;
use crate::{FilesystemProvider, read_lock};

use super::frontmatter;

/// The MIME type of a `SKILL.md`.
pub(super) const SKILL_MIME_TYPE: &str = "text/markdown";

/// The longest description the Agent Skills rules allow, in characters.
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The skills of one build.
#[derive(Debug, Default)]
pub(super) struct Catalog {
    /// Each skill by the `skill://` URI of its `SKILL.md`.
    skills: BTreeMap<String, Entry>,
    /// The `file://` URI of every skill's directory.
    roots: BTreeSet<String>,
    /// The SHA-256 of every file of a manifest, by `file://` URI.
    digests: HashMap<String, [u8; 32]>,
}

/// One skill of the catalog.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) skill: Skill,
    /// Its `SKILL.md` as `resources/list` lists it.
    pub(super) listed: Resource,
}

/// Digests kept between builds: by `file://` URI, with the size and modification time they
/// were computed for.
#[derive(Debug, Default)]
pub(super) struct Digests(Mutex<HashMap<String, Kept>>);

/// A kept digest: the file's size and modification time, the SHA-256 of the file as written
/// (to notice a change at read time) and of what a read serves (the manifest's: the file with
/// the content rules' masks, when rules are given).
type Kept = (u64, Option<SystemTime>, [u8; 32], [u8; 32]);

/// A file below a candidate skill, as the index lists it.
struct Member {
    uri: ResourceUri,
    size: u64,
    modified: Option<SystemTime>,
}

impl Catalog {
    /// Builds the catalog of the skills below `prefix` (the skills directory's `file://` URI
    /// and a slash) from `files`' index, reading what it must (blocking).
    pub(super) fn build(
        files: &FilesystemProvider,
        prefix: &str,
        digests: &Digests,
        rules: Option<&Redactor>,
    ) -> Catalog {
        let candidates = candidates(files, prefix);
        let mut catalog = Catalog::default();
        // The digest of every file hashed or kept in this build, by `file://` URI.
        let mut seen = HashMap::new();
        for (skill_file, members) in candidates {
            match entry(
                files,
                prefix,
                digests,
                rules,
                &skill_file,
                &members,
                &mut seen,
            ) {
                Ok(entry) => {
                    let root = skill_file.as_str().trim_end_matches(SKILL_FILE);
                    catalog.roots.insert(root.trim_end_matches('/').to_owned());
                    catalog
                        .skills
                        .insert(entry.skill.uri.as_str().to_owned(), entry);
                }
                Err(why) => tracing::warn!(skill = %skill_file, "skill skipped: {why}"),
            }
        }
        // Digests of files that are gone, or no longer in a skill, are not kept.
        digests
            .lock()
            .retain(|uri, _| seen.contains_key(uri.as_str()));
        catalog.digests = seen;
        catalog
    }

    pub(super) fn len(&self) -> usize {
        self.skills.len()
    }

    /// The skills whose `SKILL.md` URI is greater than `after`, in URI order.
    pub(super) fn skills_after(&self, after: Option<&str>) -> impl Iterator<Item = &Entry> {
        let start = match after {
            Some(after) => std::ops::Bound::Excluded(after),
            None => std::ops::Bound::Unbounded,
        };
        self.skills
            .range::<str, _>((start, std::ops::Bound::Unbounded))
            .map(|(_, entry)| entry)
    }

    /// The skill whose `SKILL.md` is `uri`.
    pub(super) fn skill(&self, uri: &str) -> Option<&Entry> {
        self.skills.get(uri)
    }

    /// The manifest's digest of the file `file` (a `file://` URI), if a skill holds it.
    pub(super) fn digest(&self, file: &ResourceUri) -> Option<[u8; 32]> {
        self.digests.get(file.as_str()).copied()
    }

    /// Whether `uri` is the `SKILL.md` of a skill.
    pub(super) fn is_skill_file(&self, uri: &ResourceUri) -> bool {
        self.skills.contains_key(uri.as_str())
    }

    /// Whether the `file://` URI `file` is a skill's directory or lies below one.
    pub(super) fn holds(&self, file: &ResourceUri) -> bool {
        let text = file.as_str();
        let mut text = text.split_once('?').map_or(text, |(whole, _)| whole);
        loop {
            if self.roots.contains(text) {
                return true;
            }
            match text.rfind('/') {
                Some(slash) => text = &text[..slash],
                None => return false,
            }
        }
    }
}

impl Digests {
    /// Forgets the kept digest of `file`: the next build reads it again.
    pub(super) fn forget(&self, file: &str) {
        self.lock().remove(file);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Kept>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The `skill://` URI of the `file://` URI `file` below `prefix`, if it is canonical (the first
/// segment, the URI's authority, must be lowercase to stay what it is).
pub(super) fn skill_uri(prefix: &str, file: &str) -> Option<ResourceUri> {
    let text = format!("skill://{}", file.strip_prefix(prefix)?);
    ResourceUri::parse(&text)
        .ok()
        .filter(|uri| uri.as_str() == text)
}

/// Every `SKILL.md` below `prefix` with the files below its directory, from one look at the
/// index.
fn candidates(files: &FilesystemProvider, prefix: &str) -> Vec<(ResourceUri, Vec<Member>)> {
    let index = read_lock(&files.shared.index);
    let skill_files: Vec<&ResourceUri> = index
        .files
        .iter()
        .filter(|(uri, meta)| meta.name == SKILL_FILE && uri.as_str().starts_with(prefix))
        .map(|(uri, _)| uri)
        .collect();
    skill_files
        .into_iter()
        .map(|skill_file| {
            let below = skill_file.as_str().trim_end_matches(SKILL_FILE);
            let members = index
                .files
                .range::<str, _>((std::ops::Bound::Included(below), std::ops::Bound::Unbounded))
                .take_while(|(uri, _)| uri.as_str().starts_with(below))
                // One more than the limit is enough to refuse.
                .take(MAX_SKILL_FILES + 1)
                .map(|(uri, meta)| Member {
                    uri: uri.clone(),
                    size: meta.size,
                    modified: meta.modified,
                })
                .collect();
            (skill_file.clone(), members)
        })
        .collect()
}

/// The catalog entry of the skill whose `SKILL.md` is `skill_file`, or why it is skipped.
/// `seen` gathers the digests computed or kept, by `file://` URI.
fn entry(
    files: &FilesystemProvider,
    prefix: &str,
    digests: &Digests,
    rules: Option<&Redactor>,
    skill_file: &ResourceUri,
    members: &[Member],
    seen: &mut HashMap<String, [u8; 32]>,
) -> Result<Entry, String> {
    let uri = skill_uri(prefix, skill_file.as_str())
        .ok_or("its skill:// URI is not canonical (is its first directory lowercase ASCII?)")?;
    let directory = uri
        .as_str()
        .trim_end_matches(SKILL_FILE)
        .trim_end_matches('/');
    let name = directory.rsplit('/').next().unwrap_or_default();
    if !is_valid_name(name) {
        return Err(format!(
            "its directory name {name:?} breaks the naming rules (1-64 of a-z, 0-9 and -, no \
             leading, trailing or doubled -)"
        ));
    }
    if members.len() > MAX_SKILL_FILES {
        return Err(format!("it holds more than {MAX_SKILL_FILES} files"));
    }
    let total: u64 = members.iter().map(|member| member.size).sum();
    if total > MAX_SKILL_BYTES {
        return Err(format!(
            "its files hold {total} bytes, over {MAX_SKILL_BYTES}"
        ));
    }
    let text = match read(files, skill_file)? {
        Body::Text(text) => text,
        Body::Bytes(_) => return Err("its SKILL.md is not UTF-8 text".to_owned()),
    };
    let frontmatter = frontmatter::parse(&text)?;
    match frontmatter.string("name") {
        Some(written) if written == name => {}
        Some(written) => {
            return Err(format!(
                "its frontmatter names it {written:?}, its directory {name:?}"
            ));
        }
        None => return Err("its frontmatter has no string `name`".to_owned()),
    }
    let description = match frontmatter.string("description") {
        Some(description)
            if !description.is_empty() && description.chars().count() <= MAX_DESCRIPTION_CHARS =>
        {
            description.to_owned()
        }
        _ => {
            return Err(format!(
                "its frontmatter has no `description` of 1 to {MAX_DESCRIPTION_CHARS} characters"
            ));
        }
    };
    let mut manifest = Vec::with_capacity(members.len());
    for member in members {
        let file_uri = skill_uri(prefix, member.uri.as_str())
            .ok_or_else(|| format!("{} has no canonical skill:// URI", member.uri))?;
        let (written, sha256, size) = digest(files, digests, member, rules, &file_uri)?;
        seen.insert(member.uri.as_str().to_owned(), written);
        manifest.push(SkillFile {
            uri: file_uri,
            sha256,
            size,
        });
    }
    let listed = Resource::new(uri.clone(), name)
        .with_description(description)
        .with_mime_type(SKILL_MIME_TYPE)
        .with_size(text.len() as u64);
    Ok(Entry {
        skill: Skill {
            uri,
            frontmatter,
            files: SkillFiles::Manifest(manifest),
        },
        listed,
    })
}

/// The SHA-256 of `member` as written, the SHA-256 of what a read of it (as `served`, its
/// `skill://` URI) returns once `rules` masked it, and its length: kept from an earlier build
/// when its size and modification time are the same, else read now. A manifest that gave the
/// digest of the unmasked file would let anyone guess a short masked secret against it.
fn digest(
    files: &FilesystemProvider,
    digests: &Digests,
    member: &Member,
    rules: Option<&Redactor>,
    served: &ResourceUri,
) -> Result<([u8; 32], [u8; 32], u64), String> {
    if let Some((size, modified, written, read)) = digests.lock().get(member.uri.as_str()) {
        if *size == member.size && *modified == member.modified {
            return Ok((*written, *read, *size));
        }
    }
    let body = read(files, &member.uri)?;
    let written = sha256(&body);
    let bytes: &[u8] = match &body {
        Body::Text(text) => text.as_bytes(),
        Body::Bytes(bytes) => bytes,
    };
    let masked = rules.and_then(|rules| rules.redact_bytes(served.as_str(), bytes));
    let read_sha = masked.map_or(written, |masked| Sha256::digest(&masked).into());
    let size = body.len();
    digests.lock().insert(
        member.uri.as_str().to_owned(),
        (size, member.modified, written, read_sha),
    );
    Ok((written, read_sha, size))
}

/// The SHA-256 of the bytes of `body` (UTF-8 for text).
pub(super) fn sha256(body: &Body) -> [u8; 32] {
    let bytes: &[u8] = match body {
        Body::Text(text) => text.as_bytes(),
        Body::Bytes(bytes) => bytes,
    };
    Sha256::digest(bytes).into()
}

/// The whole body of the file `uri`, read through the filesystem provider.
fn read(files: &FilesystemProvider, uri: &ResourceUri) -> Result<Body, String> {
    match files.shared.read_blocking(uri, Part::Whole, None) {
        Ok(Some(mut contents)) if contents.len() == 1 => Ok(contents.remove(0).body),
        Ok(_) => Err(format!("{uri} could not be read (gone, or refused)")),
        Err(error) => Err(format!("{uri} could not be read: {error}")),
    }
}

/// What changed between two builds, in `skill://` terms, for the file-system changes `seen`
/// that caused the second: skills that appeared or went (a list change of their `SKILL.md`
/// URIs), skills whose frontmatter or manifest changed (their `SKILL.md` updated), and each
/// updated file that lies in a skill.
pub(super) fn changes(
    before: &Catalog,
    after: &Catalog,
    seen: &[Change],
    skill_uri: impl Fn(&ResourceUri) -> Option<ResourceUri>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    let created: Vec<ResourceUri> = after
        .skills
        .iter()
        .filter(|(uri, _)| !before.skills.contains_key(*uri))
        .map(|(_, entry)| entry.skill.uri.clone())
        .collect();
    let removed: Vec<ResourceUri> = before
        .skills
        .iter()
        .filter(|(uri, _)| !after.skills.contains_key(*uri))
        .map(|(_, entry)| entry.skill.uri.clone())
        .collect();
    if !created.is_empty() || !removed.is_empty() {
        changes.push(Change::ListChanged { created, removed });
    }
    for (uri, entry) in &after.skills {
        if before
            .skills
            .get(uri)
            .is_some_and(|old| old.skill != entry.skill)
        {
            changes.push(Change::Updated(entry.skill.uri.clone()));
        }
    }
    for change in seen {
        if let Change::Updated(file) = change {
            if let Some(uri) = skill_uri(file).filter(|_| after.holds(file)) {
                if !changes.contains(&Change::Updated(uri.clone())) {
                    changes.push(Change::Updated(uri));
                }
            }
        }
    }
    changes
}
