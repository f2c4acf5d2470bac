//! Content rules on the way out: credentials found in text by their content, and configured
//! masks of personal data, replaced in place by masks of the same length in bytes.
//!
//! **Layer:** core. Pure functions over text: a [`Redactor`] built once from the built-in
//! credential rules ([`Redactor::credentials`]) and the configured ones ([`RedactRule`]), then
//! [`Redactor::redact`] for each text body. It never knows a provider, a transport, an era, a
//! file or the audit log (what was masked is counted in [`Redaction`] for whoever logs it).
//!
//! **Lengths are kept.** Every masked byte becomes one `*` (line breaks stay), so a body's size,
//! the offsets of a ranged read and everything after a mask stay true, and the result is valid
//! UTF-8 whatever characters were masked. **Time is linear** in the text: every rule is a
//! `regex` (finite automata, no backtracking), each run once over the text, capture groups
//! resolved only within a match.
//!
//! The built-in credential rules (see [`BUILT_IN`]): private key blocks (PEM, and the same
//! block inside a JSON string such as a GCP service-account key), AWS access key ids and secret
//! keys (the latter by its assignment), GCP API keys and service-account `private_key_id`s, Azure
//! storage `AccountKey`s, GitHub, GitLab, OpenAI and Slack tokens (bot, user and app), Slack
//! webhooks, JWTs, `Authorization: Basic|Bearer …` values, the password of a
//! `scheme://user:password@host` URL, XML `<password>` elements, `password VALUE` as `.netrc`
//! and command lines write it, and generic `password|secret|token|api_key… = "value"`
//! assignments (quoted, unquoted or JSON-escaped) whose value looks random (at least 12
//! characters, of at least three character classes or a high per-character entropy; not a
//! UUID, a path, a dotted name or a `${VAR}`). Each has a test with a true positive and a
//! near-miss that stays untouched.

use std::borrow::Cow;

use regex::Regex;

use crate::policy::UriPattern;

/// How a match is masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mask {
    /// Every byte replaced.
    Full,
    /// The first N characters kept.
    KeepFirst(usize),
    /// The last N characters kept.
    KeepLast(usize),
    /// The first and last N characters kept (an ID number: `11**************34`).
    KeepEnds(usize),
}

/// A built-in kind of personal data a configured rule may name instead of a regex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An email address.
    Email,
    /// A phone number: an optional `+` and country code, then 7 to 15 digits, which may be
    /// grouped by spaces, dots or dashes.
    Phone,
    /// A dotted IPv4 address, each part at most 255.
    Ipv4,
    /// A national identity number of 15 or 18 characters (the last may be `X`), or a US SSN.
    NationalId,
    /// A payment card number: 13 to 19 digits, in groups or not, that pass the Luhn check.
    Card,
}

/// What a configured rule finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A regular expression (Rust's `regex` syntax); with a capture group named `secret`, only
    /// that group is masked.
    Regex(String),
    /// A built-in kind.
    Kind(Kind),
}

/// A configured rule: `[[redact]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedactRule {
    /// Its name, in errors and in the counts of what was masked.
    pub name: String,
    /// What it finds.
    pub pattern: Pattern,
    /// How it masks.
    pub mask: Mask,
    /// The URIs it applies to (globs, as grants use); all when empty.
    pub uris: Vec<String>,
}

/// A rule that cannot be built, named.
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    /// Its regular expression does not compile.
    #[error("redact rule {name:?}: the regex does not compile: {reason}")]
    Regex {
        /// The rule's name.
        name: String,
        /// Why.
        reason: String,
    },
    /// One of its URI globs is not valid.
    #[error("redact rule {name:?}: uri pattern {pattern:?}: {reason}")]
    Uri {
        /// The rule's name.
        name: String,
        /// The glob.
        pattern: String,
        /// Why.
        reason: String,
    },
}

/// What one rule checks a match for, beyond the regex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    None,
    /// The `secret` group looks random.
    Random,
    /// The digits pass the Luhn check.
    Luhn,
    /// Each dotted part is at most 255.
    Octets,
    /// 7 to 15 digits, whatever their grouping (a longer run is something else).
    PhoneDigits,
    /// A key block without its END line is at most 8 KiB.
    KeyBlock,
    /// Upper and lower case letters and digits, all three (a generated key, not a word).
    Mixed,
}

/// One compiled rule.
#[derive(Clone, Debug)]
struct Compiled {
    name: String,
    regex: Regex,
    /// The index of the group to mask, when not the whole match.
    group: Option<usize>,
    mask: Mask,
    check: Check,
    /// What a mask leaves in place inside the match.
    keep: Keep,
    /// Text the rule can only match in: a text without it is not searched (the key-lines
    /// rules have no literal of their own to start from).
    requires: Option<&'static str>,
    uris: Vec<UriPattern>,
}

/// What a mask leaves in place inside its span, besides what [`Mask`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    Nothing,
    /// Line breaks (a key block keeps its lines).
    LineBreaks,
    /// Line breaks, blanks, quotes and commas (a key's lines written as strings keep their
    /// syntax: a JSON array stays JSON).
    Punctuation,
}

impl Keep {
    fn keeps(self, character: char) -> bool {
        match self {
            Keep::Nothing => false,
            Keep::LineBreaks => matches!(character, '\n' | '\r'),
            Keep::Punctuation => matches!(character, '\n' | '\r' | ' ' | '\t' | '"' | '\'' | ','),
        }
    }
}

/// The built-in credential rules: name and regex (a `secret` group is what is masked).
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "private-key",
        // The block ends at its END line; at the end of a JSON string (a `"` before `,`, `}`
        // or `]`: the string's end is never masked, so JSON stays JSON — but a key written as
        // concatenated string literals goes on); or at the end of the text (a range or a cut
        // value may end inside it; without an END, at most 8 KiB: a mere mention of the
        // header in prose masks nothing).
        r#"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY( BLOCK)?-----(?P<secret>[^\x00]*?)(-----END[ A-Z0-9]{0,40}PRIVATE KEY( BLOCK)?-----|"[ \t\r\n]*[,}\]]|\z)"#,
    ),
    (
        // A key's lines after its BEGIN line, however they are written: a PEM file, a diff's
        // context or added lines, an array of strings, concatenated literals (the block rule
        // above stops at the first string's end). Only the base64 is masked: quotes, commas
        // and line breaks stay.
        "key-lines-after-begin",
        r#"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\\n)?["']?[ \t]*[,+]?[ \t]*\r?\n(?P<secret>(?m:(?:^[ \t+\-]*["']?[A-Za-z0-9+/=]{16,80}(?:\\n)?["']?[ \t]*[,+]?[ \t]*(?:\r?\n|\z))+))"#,
    ),
    (
        // A key's lines before its END line: what a range or a diff hunk shows of a key whose
        // BEGIN line it does not hold.
        "key-lines-before-end",
        r#"(?m)(?P<secret>(?:^[ \t+\-]*["']?[A-Za-z0-9+/=]{16,80}(?:\\n)?["']?[ \t]*[,+]?[ \t]*\r?\n)+)[ \t+\-]*["']?-----END[ A-Z0-9]{0,40}PRIVATE KEY"#,
    ),
    (
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b",
    ),
    (
        "aws-secret-access-key",
        r#"(?i-u)aws[ -~]{0,20}?(?:secret|private)[ -~]{0,20}?\\?['"]?[ \t]*[:=][ \t]*\\?['"]?(?P<secret>[A-Za-z0-9/+=]{40})\b"#,
    ),
    ("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    (
        "gcp-private-key-id",
        r#""private_key_id"\s*:\s*"(?P<secret>[0-9a-f]{40})""#,
    ),
    (
        "azure-storage-key",
        r"(?i)AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)",
    ),
    (
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{82})\b",
    ),
    ("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}",
    ),
    (
        "slack-token",
        r"\b(?:xox[abposr]|xapp)-[A-Za-z0-9\-]{10,250}\b",
    ),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})",
    ),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    ),
    (
        "http-authorization",
        r"(?i-u)authorization\\?['\x22]?[ \t]*[:=][ \t]*\\?['\x22]?(?:basic|bearer|token)[ \t]+(?P<secret>[A-Za-z0-9+/=._~\-]{8,})",
    ),
    (
        "spaced-password",
        r"(?i-u)(?:password|passwd)[ \t]+(?P<secret>[0-9a-z!#$%&*+\-./=?@^_{|}~]{12,200})",
    ),
    (
        "xml-password",
        r"(?i-u)<[a-z_:\-]{0,30}(?:password|passwd|secret|token|api_?key)>(?u:(?P<secret>[^<]{1,400}))</",
    ),
    (
        "url-password",
        // `(?-u:\b)`: a Unicode word boundary before non-ASCII text made this rule 10 times
        // slower on ordinary source.
        r#"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@"'\\]{1,100}:(?P<secret>[^\s@/"'\\]{1,200})@"#,
    ),
    (
        "assigned-secret",
        // ASCII only and led by its keywords, so that the regex engine finds candidates by
        // their literals (a Unicode class in front made this rule 20 times slower).
        // A key and its value may be quoted, and the quotes escaped (JSON inside JSON: a SQL
        // column holding settings). The value excludes brackets: `Option<Password>` and
        // `f(x)` are code, not secrets.
        r#"(?i-u)(?:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|auth[_\-]?key|credential)[a-z0-9_.\-]{0,30}\\?['"]?[ \t]*(?::=|=>|=|:)[ \t]*\\?['"]?(?P<secret>[0-9a-z!#$%&*+\-./=?@^_{|}~]{12,400})"#,
    ),
];

/// The kinds' regexes, and what else they check.
fn kind_regex(kind: Kind) -> (&'static str, Check) {
    match kind {
        Kind::Email => (
            r"\b[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9.\-]{1,253}\.[A-Za-z]{2,24}\b",
            Check::None,
        ),
        Kind::Phone => (
            r"(?:\+\d{1,3}[ .\-]?)?\b\d{2,4}(?:[ .\-]?\d{2,4}){1,4}\b",
            Check::PhoneDigits,
        ),
        Kind::Ipv4 => (r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b", Check::Octets),
        Kind::NationalId => (
            r"\b(?:\d{17}[\dXx]|\d{15}|\d{3}-\d{2}-\d{4})\b",
            Check::None,
        ),
        Kind::Card => (r"\b\d(?:[ \-]?\d){12,18}\b", Check::Luhn),
    }
}

/// The compiled rules. Cheap to clone (the regexes are shared).
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    rules: Vec<Compiled>,
}

/// A text after the rules: the masked text when anything was masked, and how many spans each
/// rule masked (in rule order, rules that masked nothing left out).
#[derive(Debug, PartialEq, Eq)]
pub struct Redaction<'a> {
    /// The text, masked.
    pub text: Cow<'a, str>,
    /// `(rule, spans masked)`.
    pub counts: Vec<(String, usize)>,
}

fn compile(name: &str, pattern: &str) -> Result<(Regex, Option<usize>), RedactError> {
    let regex = regex::RegexBuilder::new(pattern)
        .size_limit(4 << 20)
        .build()
        .map_err(|error| RedactError::Regex {
            name: name.to_owned(),
            reason: error.to_string(),
        })?;
    let group = regex
        .capture_names()
        .position(|group| group == Some("secret"));
    Ok((regex, group))
}

impl Redactor {
    /// No rules: every text passes as it is.
    pub fn none() -> Redactor {
        Redactor::default()
    }

    /// The built-in credential rules ([`BUILT_IN`]), every byte of a secret masked.
    pub fn credentials() -> Redactor {
        let rules = BUILT_IN
            .iter()
            .map(|(name, pattern)| {
                let (regex, group) =
                    compile(name, pattern).expect("invariant: the built-in rules compile");
                Compiled {
                    name: (*name).to_owned(),
                    regex,
                    group,
                    mask: Mask::Full,
                    check: match *name {
                        "assigned-secret" | "spaced-password" | "xml-password" => Check::Random,
                        "openai-key" => Check::Mixed,
                        "private-key" => Check::KeyBlock,
                        _ => Check::None,
                    },
                    requires: name.starts_with("key-lines").then_some("PRIVATE KEY"),
                    keep: match *name {
                        "private-key" => Keep::LineBreaks,
                        "key-lines-after-begin" | "key-lines-before-end" => Keep::Punctuation,
                        _ => Keep::Nothing,
                    },
                    uris: Vec::new(),
                }
            })
            .collect();
        Redactor { rules }
    }

    /// These rules, then `rules`.
    ///
    /// # Errors
    ///
    /// The first rule that does not compile, named.
    pub fn with_rules(mut self, rules: &[RedactRule]) -> Result<Redactor, RedactError> {
        for rule in rules {
            let (pattern, check) = match &rule.pattern {
                Pattern::Regex(pattern) => (pattern.as_str(), Check::None),
                Pattern::Kind(kind) => kind_regex(*kind),
            };
            let (regex, group) = compile(&rule.name, pattern)?;
            let uris = rule
                .uris
                .iter()
                .map(|pattern| {
                    UriPattern::parse(pattern).map_err(|error| RedactError::Uri {
                        name: rule.name.clone(),
                        pattern: pattern.clone(),
                        reason: error.to_string(),
                    })
                })
                .collect::<Result<_, _>>()?;
            self.rules.push(Compiled {
                name: rule.name.clone(),
                regex,
                group,
                mask: rule.mask,
                check,
                keep: Keep::Nothing,
                requires: None,
                uris,
            });
        }
        Ok(self)
    }

    /// Whether there is no rule at all.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// `bytes`, a body of the resource `uri` answered as bytes, with its runs of valid UTF-8
    /// masked in place (a body may hold stray bytes, or a range cut a character at an edge);
    /// `None` when nothing was. One pass over the whole body: each invalid byte stands in as
    /// a NUL (one byte for one byte, so offsets hold, and no key block runs across it), where
    /// one pass per run made a random binary cost 50 times more.
    pub fn redact_bytes(&self, uri: &str, bytes: &[u8]) -> Option<Vec<u8>> {
        self.redact_bytes_counted(uri, bytes).0
    }

    /// [`Redactor::redact_bytes`], with how many spans each rule masked (as
    /// [`Redaction::counts`]).
    pub fn redact_bytes_counted(
        &self,
        uri: &str,
        bytes: &[u8],
    ) -> (Option<Vec<u8>>, Vec<(String, usize)>) {
        let stand_in: Cow<'_, str> = match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => {
                let mut text = String::with_capacity(bytes.len());
                for chunk in bytes.utf8_chunks() {
                    text.push_str(chunk.valid());
                    text.extend(std::iter::repeat_n('\0', chunk.invalid().len()));
                }
                Cow::Owned(text)
            }
        };
        let Redaction { text, counts } = self.redact(uri, &stand_in);
        let Cow::Owned(masked) = text else {
            return (None, counts);
        };
        let mut out = bytes.to_vec();
        for ((byte, before), after) in out.iter_mut().zip(stand_in.bytes()).zip(masked.bytes()) {
            if before != after {
                *byte = after;
            }
        }
        (Some(out), counts)
    }

    /// `text`, a body of the resource `uri`, with every span a rule finds masked.
    pub fn redact<'a>(&self, uri: &str, text: &'a str) -> Redaction<'a> {
        // (start, end, rule): the byte spans to mask.
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        let mut counts = Vec::new();
        for (index, rule) in self.rules.iter().enumerate() {
            if !rule.uris.is_empty() && !rule.uris.iter().any(|pattern| pattern.matches(uri)) {
                continue;
            }
            if rule
                .requires
                .is_some_and(|required| !text.contains(required))
            {
                continue;
            }
            let before = spans.len();
            for found in rule.regex.find_iter(text) {
                let (start, end) = match rule.group {
                    None => (found.start(), found.end()),
                    Some(group) => {
                        let Some(captures) =
                            rule.regex.captures_at(&text[..found.end()], found.start())
                        else {
                            continue;
                        };
                        match captures.get(group) {
                            Some(secret) => (secret.start(), secret.end()),
                            None => continue,
                        }
                    }
                };
                if start == end
                    || !passes(rule, &text[start..end], &text[found.start()..found.end()])
                {
                    continue;
                }
                spans.push((start, end, index));
            }
            if spans.len() > before {
                counts.push((rule.name.clone(), spans.len() - before));
            }
        }
        if spans.is_empty() {
            return Redaction {
                text: Cow::Borrowed(text),
                counts,
            };
        }
        let mut bytes = text.as_bytes().to_vec();
        for (start, end, index) in spans {
            let rule = &self.rules[index];
            mask_span(&mut bytes, text, start, end, rule.mask, rule.keep);
        }
        let masked =
            String::from_utf8(bytes).expect("invariant: masks replace whole characters by ASCII");
        Redaction {
            text: Cow::Owned(masked),
            counts,
        }
    }
}

/// Whether a match (`found`, the part to mask, within `whole`) passes its rule's check.
fn passes(rule: &Compiled, found: &str, whole: &str) -> bool {
    match rule.check {
        Check::KeyBlock => whole.ends_with("-----") || found.len() <= 8 * 1024,
        Check::Mixed => {
            found.bytes().any(|b| b.is_ascii_uppercase())
                && found.bytes().any(|b| b.is_ascii_lowercase())
                && found.bytes().any(|b| b.is_ascii_digit())
        }
        Check::None => true,
        Check::PhoneDigits => (7..=15).contains(&found.bytes().filter(u8::is_ascii_digit).count()),
        Check::Random => looks_random(found),
        Check::Luhn => luhn(found),
        Check::Octets => found
            .split('.')
            .all(|part| part.parse::<u16>().is_ok_and(|value| value <= 255)),
    }
}

/// Whether a value looks like a generated secret rather than a word, a placeholder or a
/// reference (`${DB_PASSWORD}`, `changeme`, `os.environ["X"]`).
fn looks_random(value: &str) -> bool {
    if value.len() < 12 {
        return false;
    }
    if value.starts_with('$') || value.starts_with('%') || value.contains("{{") {
        return false;
    }
    // A lowercase path, a dotted name of lowercase identifiers or snake_case words
    // (`/run/secrets/db`, `self.config.token`, `requirements_document`): not a secret.
    let lowercase = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_';
    if value.starts_with('/') && value.bytes().all(|b| lowercase(b) || b"/.-".contains(&b)) {
        return false;
    }
    if value.split('.').all(|part| {
        !part.is_empty() && part.bytes().all(lowercase) && !part.as_bytes()[0].is_ascii_digit()
    }) && (value.contains('.') || value.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    {
        return false;
    }
    // An identifier, not a secret: a UUID.
    let groups: Vec<usize> = value.split('-').map(str::len).collect();
    if groups == [8, 4, 4, 4, 12] && value.bytes().all(|b| b == b'-' || b.is_ascii_hexdigit()) {
        return false;
    }
    let classes = [
        value.bytes().any(|b| b.is_ascii_lowercase()),
        value.bytes().any(|b| b.is_ascii_uppercase()),
        value.bytes().any(|b| b.is_ascii_digit()),
        value.bytes().any(|b| !b.is_ascii_alphanumeric()),
    ]
    .iter()
    .filter(|present| **present)
    .count();
    classes >= 3 || entropy(value) >= 3.5
}

/// Shannon entropy of `value`'s bytes, in bits per byte.
fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in value.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let total = value.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let share = f64::from(*count) / total;
            -share * share.log2()
        })
        .sum()
}

/// The Luhn check over the digits of `value`.
fn luhn(value: &str) -> bool {
    let digits: Vec<u32> = value.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(index, digit)| {
            if index % 2 == 1 {
                let doubled = digit * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                *digit
            }
        })
        .sum();
    sum % 10 == 0
}

/// Masks `text[start..end]` in `bytes` (a copy of `text`): every byte of the masked characters
/// becomes `*`, but the characters `mask` keeps and those `keep` keeps.
fn mask_span(bytes: &mut [u8], text: &str, start: usize, end: usize, mask: Mask, keep: Keep) {
    let span = &text[start..end];
    let count = span.chars().count();
    let (first, last) = match mask {
        Mask::Full => (0, 0),
        Mask::KeepFirst(n) => (n, 0),
        Mask::KeepLast(n) => (0, n),
        Mask::KeepEnds(n) => (n, n),
    };
    // Keeping as many characters as there are would show it all: then all are masked.
    let (first, last) = if first + last >= count {
        (0, 0)
    } else {
        (first, last)
    };
    for (index, (offset, character)) in span.char_indices().enumerate() {
        if index < first || index >= count - last {
            continue;
        }
        if keep.keeps(character) {
            continue;
        }
        let at = start + offset;
        for byte in &mut bytes[at..at + character.len_utf8()] {
            *byte = b'*';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(text: &str) -> String {
        Redactor::credentials()
            .redact("file:///x", text)
            .text
            .into_owned()
    }

    /// Each built-in rule: a true positive whose secret is masked (and the length kept), and a
    /// near-miss that comes back byte for byte.
    #[test]
    fn every_built_in_rule_masks_its_kind_and_spares_its_near_miss() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "private-key",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98\nZmZmZmZm\n-----END RSA PRIVATE KEY-----\n",
                "MIIEowIBAAKCAQEA7bq98",
                "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----\n",
            ),
            (
                "aws-access-key-id",
                "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
                "AKIAIOSFODNN7EXAMPLE",
                "the id AKIA is a prefix, AKIAshort is not a key\n",
            ),
            (
                "aws-secret-access-key",
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed aws docs\n",
            ),
            (
                "gcp-api-key",
                "key: AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe\n",
                "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
                "AIzas are birds, AIza123 is short\n",
            ),
            (
                "gcp-private-key-id",
                "{\"private_key_id\": \"1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c\"}",
                "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c",
                "{\"client_id\": \"1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c\"}",
            ),
            (
                "azure-storage-key",
                "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;",
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
                "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=;",
            ),
            (
                "github-token",
                "GITHUB=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\n",
                "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",
                "see ghp_ in the docs, and gh_pages\n",
            ),
            (
                "gitlab-token",
                "token glpat-xxxxXXXX1234yyyyZZZZ here\n",
                "glpat-xxxxXXXX1234yyyyZZZZ",
                "glpat- alone\n",
            ),
            (
                "slack-token",
                "SLACK=xoxb-2305150341-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\n",
                "xoxb-2305150341-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
                "xoxo, hugs\n",
            ),
            (
                "slack-webhook",
                "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx\n",
                "T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx",
                "https://hooks.slack.com/services/ is the endpoint\n",
            ),
            (
                "jwt",
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==);\n",
            ),
            (
                "openai-key",
                "OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd\n",
                "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
                "the sk-learn package and a task-force meeting\n",
            ),
            (
                "http-authorization",
                "curl -H 'Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1lMTIz' https://api\n",
                "YWxhZGRpbjpvcGVuc2VzYW1lMTIz",
                "Authorization: Bearer <token> goes in the header\n",
            ),
            (
                "spaced-password",
                "machine api.example.com login ada password Xk9mQ2vL7pW4zRt\n",
                "Xk9mQ2vL7pW4zRt",
                "the password authentication flow is described below\n",
            ),
            (
                "xml-password",
                "<datasource><password>Xk9#mQ2$vL7pW4zR</password></datasource>\n",
                "Xk9#mQ2$vL7pW4zR",
                "<passwordPolicy>strict</passwordPolicy>\n",
            ),
            (
                "url-password",
                "DATABASE_URL=postgres://app:S3cr3t-P4ss@db.internal:5432/shop\n",
                "S3cr3t-P4ss",
                "see https://example.com/a:b@c for the syntax, and user@host\n",
            ),
            (
                "assigned-secret",
                "db:\n  password: \"Xk9#mQ2$vL7pW4zR\"\n",
                "Xk9#mQ2$vL7pW4zR",
                "password = \"${DB_PASSWORD}\"\nrequest_token = 123e4567-e89b-12d3-a456-426614174000\nLorem ipsum dolor sit amet, consectetur adipiscing elit\n",
            ),
        ];
        for (rule, text, secret, near_miss) in cases {
            let masked = credentials(text);
            assert_eq!(masked.len(), text.len(), "{rule}: the length is kept");
            assert!(!masked.contains(secret), "{rule}: {masked}");
            assert!(masked.contains(&"*".repeat(4)), "{rule}: {masked}");
            assert_eq!(&credentials(near_miss), near_miss, "{rule}: the near-miss");
        }
    }

    #[test]
    fn a_key_block_keeps_its_lines_and_an_unterminated_one_is_masked_to_the_end() {
        let text =
            "before\n-----BEGIN PRIVATE KEY-----\nabc\ndef\n-----END PRIVATE KEY-----\nafter";
        let masked = credentials(text);
        assert_eq!(
            masked,
            "before\n-----BEGIN PRIVATE KEY-----\n***\n***\n-----END PRIVATE KEY-----\nafter"
        );
        // A ranged read may end inside the block.
        let cut = "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
        assert!(!credentials(cut).contains("b3Bl"));
    }

    #[test]
    fn configured_kinds_mask_as_told_and_only_where_told() {
        let rules = [
            RedactRule {
                name: "emails".to_owned(),
                pattern: Pattern::Kind(Kind::Email),
                mask: Mask::KeepFirst(1),
                uris: Vec::new(),
            },
            RedactRule {
                name: "phones".to_owned(),
                pattern: Pattern::Kind(Kind::Phone),
                mask: Mask::KeepLast(4),
                uris: vec!["file:///crm/**".to_owned()],
            },
            RedactRule {
                name: "ids".to_owned(),
                pattern: Pattern::Kind(Kind::NationalId),
                mask: Mask::KeepEnds(2),
                uris: Vec::new(),
            },
            RedactRule {
                name: "cards".to_owned(),
                pattern: Pattern::Kind(Kind::Card),
                mask: Mask::KeepLast(4),
                uris: Vec::new(),
            },
            RedactRule {
                name: "ips".to_owned(),
                pattern: Pattern::Kind(Kind::Ipv4),
                mask: Mask::Full,
                uris: Vec::new(),
            },
        ];
        let redactor = Redactor::none().with_rules(&rules).unwrap();
        let text = "mail zhang@example.com, call 13800138000, id 110101199003074534, \
                    card 4111 1111 1111 1111, not a card 4111 1111 1111 1112, host 10.0.0.1, \
                    version 1.2.3.400";
        let crm = redactor.redact("file:///crm/a.txt", text);
        assert_eq!(
            crm.text,
            "mail z****************, call *******8000, id 11**************34, \
             card ***************1111, not a card 4111 1111 1111 1112, host ********, \
             version 1.2.3.400"
        );
        assert_eq!(
            crm.counts,
            [
                ("emails".to_owned(), 1),
                ("phones".to_owned(), 1),
                ("ids".to_owned(), 1),
                ("cards".to_owned(), 1),
                ("ips".to_owned(), 1)
            ]
        );
        // Phones are masked under file:///crm/ only.
        let elsewhere = redactor.redact("file:///docs/a.txt", "call 13800138000");
        assert_eq!(elsewhere.text, "call 13800138000");
    }

    #[test]
    fn a_rule_that_does_not_compile_is_named() {
        let error = Redactor::none()
            .with_rules(&[RedactRule {
                name: "broken".to_owned(),
                pattern: Pattern::Regex("(unclosed".to_owned()),
                mask: Mask::Full,
                uris: Vec::new(),
            }])
            .unwrap_err();
        assert!(error.to_string().contains("\"broken\""), "{error}");
        let error = Redactor::none()
            .with_rules(&[RedactRule {
                name: "where".to_owned(),
                pattern: Pattern::Regex("x".to_owned()),
                mask: Mask::Full,
                uris: vec![String::new()],
            }])
            .unwrap_err();
        assert!(error.to_string().contains("\"where\""), "{error}");
    }

    #[test]
    fn a_regex_with_a_secret_group_masks_the_group_only() {
        let redactor = Redactor::none()
            .with_rules(&[RedactRule {
                name: "internal".to_owned(),
                pattern: Pattern::Regex(r"ticket=(?P<secret>[0-9]+)".to_owned()),
                mask: Mask::Full,
                uris: Vec::new(),
            }])
            .unwrap();
        assert_eq!(
            redactor.redact("x:y", "a ticket=12345 b").text,
            "a ticket=***** b"
        );
    }

    #[test]
    fn masked_multibyte_characters_keep_the_byte_length_and_stay_utf8() {
        let redactor = Redactor::none()
            .with_rules(&[RedactRule {
                name: "names".to_owned(),
                pattern: Pattern::Regex("张三丰".to_owned()),
                mask: Mask::KeepFirst(1),
                uris: Vec::new(),
            }])
            .unwrap();
        let masked = redactor.redact("x:y", "名字: 张三丰.");
        assert_eq!(masked.text, "名字: 张******.");
        assert_eq!(masked.text.len(), "名字: 张三丰.".len());
    }

    /// Masks never touch the quotes of a JSON string, so a JSON answer (a SQL row, a git
    /// commit) stays JSON even when a key block in it is cut short.
    #[test]
    fn json_answers_stay_json() {
        let row = serde_json::json!({
            "key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "url": "postgres://app:S3cr3t-P4ss@db/shop",
            "quoted": "mysql://u:p\"x@h",
            "after": "kept"
        })
        .to_string();
        let masked = credentials(&row);
        let parsed: serde_json::Value = serde_json::from_str(&masked).expect("still JSON");
        assert_eq!(parsed["after"], "kept");
        assert!(
            !masked.contains("MIIEvQ") && !masked.contains("S3cr3t"),
            "{masked}"
        );
    }

    /// Secrets in escaped JSON (a settings column, a JSON string holding JSON) and in keys
    /// written as concatenated literals; code and prose that only look like them stay.
    #[test]
    fn escaped_and_concatenated_secrets_and_code_near_misses() {
        let settings = serde_json::json!({
            "settings": "{\"smtp\":{\"password\":\"Xk9#mQ2$vL7pW4zR\"},\"aws_secret_access_key\":\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"}"
        })
        .to_string();
        let masked = credentials(&settings);
        assert!(
            !masked.contains("Xk9#") && !masked.contains("wJalrX"),
            "{masked}"
        );
        serde_json::from_str::<serde_json::Value>(&masked).expect("still JSON");
        let concatenated = "KEY = (\"-----BEGIN RSA PRIVATE KEY-----\\n\"\n       \"MIIEowIBAAKCAQEA7bq98\\n\"\n       \"-----END RSA PRIVATE KEY-----\\n\")\n";
        assert!(!credentials(concatenated).contains("MIIEow"));
        for code in [
            "    password: Option<Password>,\n",
            "let token = self.shared.shutdown.clone();\n",
            "password_file: /run/secrets/db-password\n",
            "The header -----BEGIN OPENSSH PRIVATE KEY----- starts a key file; ",
        ] {
            let mut text = code.to_owned();
            if code.starts_with("The header") {
                text.push_str(&"and so on. ".repeat(1000));
            }
            assert_eq!(credentials(&text), text, "{code}");
        }
    }

    /// What the second review found: keys written as arrays of lines, a diff's context lines
    /// of a key whose BEGIN line the hunk does not hold, dotted tokens, quoted header keys;
    /// and a binary body's NULs stop a key block.
    #[test]
    fn keys_in_arrays_and_diffs_dotted_tokens_and_quoted_headers() {
        let array = "KEY = [\n  \"-----BEGIN PRIVATE KEY-----\",\n  \"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\",\n  \"C7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dV\",\n  \"-----END PRIVATE KEY-----\"\n]\n";
        let masked = credentials(array);
        assert!(
            !masked.contains("MIIEvQ") && !masked.contains("C7VJTU"),
            "{masked}"
        );
        assert_eq!(
            masked.matches('"').count(),
            array.matches('"').count(),
            "quotes stay"
        );
        let diff = "@@ -3,4 +3,5 @@\n jvjUEFGc2SsVK9HcF+0xmxs9Qz1RbWdA\n Qz1RbWdAjvjUEFGc2SsVK9HcF+0xmxs=\n -----END RSA PRIVATE KEY-----\n+more\n";
        let masked = credentials(diff);
        assert!(
            !masked.contains("jvjUEF") && masked.contains("+more"),
            "{masked}"
        );
        for (text, secret) in [
            (
                "token = \"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs\"\n",
                "ZnCjm1XVW7",
            ),
            ("DB_PASSWORD = \"Xk9mQ2vL.pW4zRt8\"\n", "Xk9mQ2vL"),
            (
                "{\"Authorization\": \"Basic dXNlcjpwYXNz\"}",
                "dXNlcjpwYXNz",
            ),
        ] {
            assert!(!credentials(text).contains(secret), "{text}");
        }
        let binary = "-----BEGIN PRIVATE KEY-----\0\0padding\0-----END PRIVATE KEY-----";
        assert_eq!(credentials(binary), binary, "a NUL is no key's");
        for near_miss in [
            "the password requirements_document is long\n",
            "class=\"sk-nav-menu-item-with-a-very-long-kebab-name\"\n",
        ] {
            assert_eq!(credentials(near_miss), near_miss);
        }
    }

    /// Built once: compiling the rules is the slow part.
    static REDACTOR: std::sync::LazyLock<Redactor> = std::sync::LazyLock::new(|| {
        Redactor::credentials()
            .with_rules(&[RedactRule {
                name: "mail".to_owned(),
                pattern: Pattern::Kind(Kind::Email),
                mask: Mask::KeepEnds(1),
                uris: Vec::new(),
            }])
            .unwrap()
    });

    proptest::proptest! {
        /// Whatever the text (fragments of secrets, separators, any characters), a redaction
        /// keeps every byte's place: each byte comes back as it was or as `*`, and a line
        /// break always as it was. (Its time is linear by construction: `regex` runs finite
        /// automata, never backtracking; `cargo xtask bench` measures it.)
        #[test]
        fn masks_only_replace_bytes_in_place(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("password = ".to_owned()),
                    proptest::strategy::Just("-----BEGIN PRIVATE KEY-----\n".to_owned()),
                    proptest::strategy::Just("-----END PRIVATE KEY-----".to_owned()),
                    proptest::strategy::Just("ghp_".to_owned()),
                    proptest::strategy::Just("eyJ".to_owned()),
                    proptest::strategy::Just("://u:".to_owned()),
                    proptest::strategy::Just("@".to_owned()),
                    "[A-Za-z0-9+/=_.:@\\-]{0,60}",
                    "\\PC{0,20}",
                    proptest::strategy::Just("\n".to_owned()),
                ],
                0..40,
            )
        ) {
            let text: String = parts.concat();
            let masked = REDACTOR.redact("file:///p", &text);
            proptest::prop_assert_eq!(masked.text.len(), text.len());
            for (before, after) in text.bytes().zip(masked.text.bytes()) {
                proptest::prop_assert!(after == before || (after == b'*' && before != b'\n'));
            }
        }
    }
}
