//! Reads through the content rules: every text body of an answer passes the engine's
//! [`Redactor`](crate::redact::Redactor) after the provider and before the caller (the
//! protocol adapters) sees it, whatever the provider, transport or era.
//!
//! **Layer:** core, part of the engine. It never knows a provider's URI shapes (a provider says
//! when a URI is a range of another, through [`Provider::range_of`](crate::provider::Provider::range_of)), a transport or an era.
//!
//! A whole read is masked in place. A ranged read (a provider's range URI, or
//! [`Engine::read_range`]) reads [`REDACT_MARGIN`](super::REDACT_MARGIN) bytes more on each side, masks that, and answers
//! the asked bytes of it: a secret that crosses an edge of the range is found and its bytes
//! inside the range come back masked, with every offset and size still true (masks keep
//! lengths). Providers must allow reads of their limit plus twice the margin (the binary
//! configures them so; the engine still holds answers to its own limit). When the widened
//! read fails (a provider that cannot cut its body there), the whole resource is read
//! instead; when that fails too, the read fails: the range alone is never answered, as a
//! secret it cuts would leak. Bodies answered as bytes are scanned too, run of UTF-8 by run
//! (a file that is text but for one Latin-1 byte is no less full of secrets); their bytes
//! that match a rule are masked like text.

use crate::error::ReadError;
use crate::input::Inputs;
use crate::policy::{Action, Principal};
use crate::resource::{Body, ByteRange, Contents, Resource};
use crate::skill::{FrontmatterValue, Skill};
use crate::uri::ResourceUri;

use super::{Engine, REDACT_MARGIN as MARGIN, ReadOutput, splits_a_character};

impl Engine {
    /// [`Engine::read`] with content rules.
    pub(super) async fn read_redacted(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        if let Some((base, range)) = self.range_of(uri) {
            return self
                .read_range_redacted(principal, uri, &base, range, inputs)
                .await;
        }
        let output = self.read_inner(principal, uri, None, 0, inputs).await?;
        let output = self.masked(uri, output);
        self.check_wire_size(uri, &output.contents)?;
        Ok(output)
    }

    /// Holds an answer to the read limit counted as sent (base64 for bytes, escaped text):
    /// providers may be allowed more, for the margins of ranged reads.
    fn check_wire_size(&self, uri: &ResourceUri, contents: &[Contents]) -> Result<(), ReadError> {
        let limit = self.limits.max_read_bytes;
        self.check_size(
            uri,
            contents.iter().map(|part| part.body.wire_len(limit)).sum(),
        )
    }

    /// The part `range` of `base`, answered as `uri` (the same, or the provider's URI of that
    /// range), with content rules that see past its edges.
    pub(super) async fn read_range_redacted(
        &self,
        principal: &Principal,
        uri: &ResourceUri,
        base: &ResourceUri,
        range: ByteRange,
        inputs: &Inputs,
    ) -> Result<ReadOutput, ReadError> {
        // The URI asked for is the one the policy judges (`base` is judged again by the read).
        if uri != base && !self.policy.allows(principal, Action::Read, uri) {
            let uri = uri.to_string();
            return Err(if self.limits.reveal_denied {
                ReadError::Denied { uri }
            } else {
                ReadError::NotFound { uri }
            });
        }
        let start = range.offset.saturating_sub(MARGIN);
        let end = range
            .offset
            .saturating_add(range.length)
            .saturating_add(MARGIN);
        let wide = ByteRange {
            offset: start,
            length: end - start,
        };
        let (output, lead) = match self
            .read_inner(principal, base, Some(wide), 2 * MARGIN, inputs)
            .await
        {
            Ok(output) => (output, range.offset - start),
            // A provider that cannot cut its body there (a character at the edge): the whole
            // resource, when it fits. Never the range alone: a secret it cuts would leak.
            Err(error @ ReadError::InputRequired { .. }) => return Err(error),
            Err(_) => (
                self.read_inner(principal, base, None, 0, inputs).await?,
                range.offset,
            ),
        };
        let mut contents = Vec::with_capacity(output.contents.len());
        let mut masked = Vec::new();
        for part in output.contents.iter() {
            contents.push(self.cut(uri, base, part, lead, range, &mut masked)?);
        }
        self.check_wire_size(uri, &contents)?;
        Ok(ReadOutput {
            contents: contents.into(),
            cache: output.cache,
            masked,
        })
    }

    /// `output` with its bodies masked: texts, and the runs of UTF-8 text inside bytes (a
    /// file that is text but for one Latin-1 byte or a NUL is answered as bytes, and is no
    /// less full of secrets).
    fn masked(&self, uri: &ResourceUri, output: ReadOutput) -> ReadOutput {
        let mut changed = false;
        let mut counts = Vec::new();
        let contents: Vec<Contents> = output
            .contents
            .iter()
            .map(|part| {
                let mut part = part.clone();
                match &part.body {
                    Body::Text(text) => {
                        let masked = self.redactor.redact(uri.as_str(), text);
                        tally(&mut counts, masked.counts);
                        if matches!(masked.text, std::borrow::Cow::Owned(_)) {
                            changed = true;
                            part.body = Body::Text(masked.text.into_owned().into());
                        }
                    }
                    Body::Bytes(bytes) => {
                        if let Some(masked) = self.mask_bytes(uri.as_str(), bytes, &mut counts) {
                            changed = true;
                            part.body = Body::Bytes(masked.into());
                        }
                    }
                }
                part
            })
            .collect();
        if !changed {
            return output;
        }
        ReadOutput {
            contents: contents.into(),
            cache: output.cache,
            masked: counts,
        }
    }

    /// The bytes `lead..lead + range.length` of `part` (cut at its end), masked with the
    /// context around them (rules scoped by `base`, the resource the range is of), answered
    /// as `uri`: text when the provider answered text (an error when the range cuts a
    /// character, as without rules), or when it answered bytes (a widened range may cut a
    /// character at its edges) whose asked part is text without NUL; bytes otherwise.
    fn cut(
        &self,
        uri: &ResourceUri,
        base: &ResourceUri,
        part: &Contents,
        lead: u64,
        range: ByteRange,
        counts: &mut Vec<(String, usize)>,
    ) -> Result<Contents, ReadError> {
        let raw: &[u8] = match &part.body {
            Body::Text(text) => text.as_bytes(),
            Body::Bytes(bytes) => bytes,
        };
        let len = raw.len() as u64;
        let from = lead.min(len) as usize;
        let to = lead.saturating_add(range.length).min(len) as usize;
        let masked = self.mask_bytes(base.as_str(), raw, counts);
        let asked = &masked.as_deref().unwrap_or(raw)[from..to];
        let is_text = match &part.body {
            Body::Text(_) => {
                if std::str::from_utf8(asked).is_err() {
                    return Err(splits_a_character(uri, range));
                }
                true
            }
            Body::Bytes(_) => std::str::from_utf8(asked).is_ok() && !asked.contains(&0),
        };
        let mut answer = part.clone();
        answer.uri = uri.clone();
        answer.body = if is_text {
            let text = std::str::from_utf8(asked).expect("invariant: checked above");
            Body::Text(text.into())
        } else {
            Body::Bytes(asked.into())
        };
        Ok(answer)
    }

    /// `bytes` with each run of valid UTF-8 in them masked in place; `None` when nothing was.
    /// The spans masked are added to `counts`.
    fn mask_bytes(
        &self,
        uri: &str,
        bytes: &[u8],
        counts: &mut Vec<(String, usize)>,
    ) -> Option<Vec<u8>> {
        let (masked, found) = self.redactor.redact_bytes_counted(uri, bytes);
        tally(counts, found);
        masked
    }

    /// `resource` with its title and description masked (a skill's description comes from
    /// its author, and may quote anything).
    pub(super) fn masked_resource(&self, mut resource: Resource) -> Resource {
        if self.redactor.is_empty() {
            return resource;
        }
        for text in [&mut resource.title, &mut resource.description]
            .into_iter()
            .flatten()
        {
            self.mask_string(resource.uri.as_str(), text);
        }
        resource
    }

    /// `skill` with every string of its frontmatter masked. (Its manifest's digests are of
    /// the files as written: a file the rules mask reads differently from its digest.)
    pub(super) fn masked_skill(&self, mut skill: Skill) -> Skill {
        if self.redactor.is_empty() {
            return skill;
        }
        let uri = skill.uri.as_str().to_owned();
        for (_, value) in &mut skill.frontmatter.0 {
            self.mask_value(&uri, value);
        }
        skill
    }

    fn mask_value(&self, uri: &str, value: &mut FrontmatterValue) {
        match value {
            FrontmatterValue::String(text) => self.mask_string(uri, text),
            FrontmatterValue::List(items) => {
                for item in items {
                    self.mask_value(uri, item);
                }
            }
            FrontmatterValue::Map(entries) => {
                for (_, item) in entries {
                    self.mask_value(uri, item);
                }
            }
            FrontmatterValue::Null
            | FrontmatterValue::Bool(_)
            | FrontmatterValue::Integer(_)
            | FrontmatterValue::Float(_) => {}
        }
    }

    fn mask_string(&self, uri: &str, text: &mut String) {
        let masked = self.redactor.redact(uri, text);
        if let std::borrow::Cow::Owned(masked) = masked.text {
            *text = masked;
        }
    }
}

/// Adds the spans of `found` to `counts`, by rule.
fn tally(counts: &mut Vec<(String, usize)>, found: Vec<(String, usize)>) {
    for (rule, spans) in found {
        match counts.iter_mut().find(|(name, _)| *name == rule) {
            Some((_, total)) => *total += spans,
            None => counts.push((rule, spans)),
        }
    }
}
