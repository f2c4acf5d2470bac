//! Skills (the Skills extension, SEP-2640) in the domain model: a [`Skill`] is a directory of
//! resources with a `SKILL.md` at its root, described by that file's frontmatter and by the
//! manifest of its files.
//!
//! **Layer:** core, domain model. These are plain values a provider builds (it reads the files,
//! parses the frontmatter, hashes the bytes); the adapters turn them into the extension's wire
//! shapes. This module never knows YAML, JSON, a file system or a protocol version.

use std::fmt::Write as _;

use crate::uri::ResourceUri;

/// The file every skill has at its root.
pub const SKILL_FILE: &str = "SKILL.md";

/// The most files one skill may hold, its `SKILL.md` included (the extension's limit).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes all files of one skill may hold together (the extension's limit, 16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One skill, as listed and as fetched.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    /// The URI of its `SKILL.md`; the segment before `SKILL.md` is its name.
    pub uri: ResourceUri,
    /// The whole frontmatter of its `SKILL.md`, every field as the author wrote it (`name` and
    /// `description` at least).
    pub frontmatter: Frontmatter,
    /// Its files.
    pub files: SkillFiles,
}

impl Skill {
    /// The frontmatter's `name`, when it is a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.string("name")
    }

    /// The frontmatter's `description`, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.string("description")
    }
}

/// A skill's files: every one with its digest and size, or the marker that they are generated
/// (no stable digests can be given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkillFiles {
    /// Every file of the skill exactly once, its `SKILL.md` included.
    Manifest(Vec<SkillFile>),
    /// Generated content: no manifest.
    Dynamic,
}

/// One file of a skill's manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    /// Its URI.
    pub uri: ResourceUri,
    /// The SHA-256 of its bytes, exactly those a read returns.
    pub sha256: [u8; 32],
    /// How many bytes.
    pub size: u64,
}

impl SkillFile {
    /// The digest as the extension writes it: `sha256:` and 64 lowercase hex digits.
    pub fn digest(&self) -> String {
        let mut text = String::with_capacity(7 + 64);
        text.push_str("sha256:");
        for byte in self.sha256 {
            let _ = write!(text, "{byte:02x}");
        }
        text
    }
}

/// A skill's frontmatter: a map, in the author's order, of the values YAML can hold that JSON
/// can too.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frontmatter(pub Vec<(String, FrontmatterValue)>);

impl Frontmatter {
    /// The value of `key`, the last one if it is repeated.
    pub fn get(&self, key: &str) -> Option<&FrontmatterValue> {
        self.0
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// The value of `key` when it is a string.
    pub fn string(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(FrontmatterValue::String(text)) => Some(text),
            _ => None,
        }
    }
}

/// One value of a frontmatter.
#[derive(Clone, Debug, PartialEq)]
pub enum FrontmatterValue {
    /// `null` (or `~`, or nothing).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Integer(i64),
    /// Any other number (finite).
    Float(f64),
    /// A string.
    String(String),
    /// A sequence.
    List(Vec<FrontmatterValue>),
    /// A mapping with string keys, in the author's order.
    Map(Vec<(String, FrontmatterValue)>),
}

/// Whether `name` follows the Agent Skills naming rules as the extension's conformance suite
/// checks them: 1 to 64 characters from `a-z`, `0-9` and `-`, no leading, trailing or doubled
/// hyphen.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-tools", "x1", &"a".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "Pdf",
            "pdf_tools",
            "pdf tools",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_digest_is_sha256_and_lowercase_hex() {
        let mut sha256 = [0_u8; 32];
        sha256[0] = 0xAB;
        sha256[31] = 0x01;
        let file = SkillFile {
            uri: ResourceUri::parse("skill://a/SKILL.md").unwrap(),
            sha256,
            size: 0,
        };
        let digest = file.digest();
        assert_eq!(digest.len(), 7 + 64);
        assert!(digest.starts_with("sha256:ab00"));
        assert!(digest.ends_with("0001"));
    }

    #[test]
    fn the_last_of_a_repeated_key_wins() {
        let frontmatter = Frontmatter(vec![
            ("name".into(), FrontmatterValue::String("a".into())),
            ("name".into(), FrontmatterValue::String("b".into())),
            ("n".into(), FrontmatterValue::Integer(1)),
        ]);
        assert_eq!(frontmatter.string("name"), Some("b"));
        assert_eq!(frontmatter.string("n"), None);
    }
}
