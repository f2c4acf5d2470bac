//! The domain model of resources: [`Resource`], [`ResourceTemplate`] and the [`Contents`] a
//! read returns, with their display metadata ([`Annotations`], [`Icon`]).
//!
//! **Layer:** core, domain model. These are plain values: they never know a wire shape, JSON,
//! base64 or a protocol version. The adapters convert them to the wire types of their era
//! (dropping, for example, `title` before 2025-06-18 and `icons` before 2025-11-25), and encode
//! [`Body::Bytes`] as base64 on the wire.

use std::fmt;
use std::sync::Arc;

use crate::template::UriTemplate;
use crate::uri::ResourceUri;

/// The MIME type of a *directory resource*: a resource whose direct children a client lists
/// with `resources/directory/read` (the Skills extension, SEP-2640). Its URI has no trailing
/// slash.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// A resource the server exposes: its URI and how it is described in lists.
///
/// Every field may hold any value, so they are public; [`Resource::new`] and the `with_*`
/// methods are conveniences.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// The canonical URI of the resource: its identity and its key in lists.
    pub uri: ResourceUri,
    /// A short programmatic name (for example a file name).
    pub name: String,
    /// A human-readable title, if different from the name.
    pub title: Option<String>,
    /// What the resource is, for the model or the user.
    pub description: Option<String>,
    /// The MIME type of its contents, when known.
    pub mime_type: Option<String>,
    /// The size of its raw contents in bytes (before any base64 encoding), when known.
    pub size: Option<u64>,
    /// Hints about audience, priority and last modification.
    pub annotations: Option<Annotations>,
    /// Icons a client may show next to the resource.
    pub icons: Vec<Icon>,
}

impl Resource {
    /// A resource with a URI and a name and no other metadata.
    pub fn new(uri: ResourceUri, name: impl Into<String>) -> Resource {
        Resource {
            uri,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: Vec::new(),
        }
    }

    /// A directory resource: a URI, a name and the MIME type [`DIRECTORY_MIME_TYPE`].
    pub fn directory(uri: ResourceUri, name: impl Into<String>) -> Resource {
        Resource::new(uri, name).with_mime_type(DIRECTORY_MIME_TYPE)
    }

    /// Whether this is a directory resource (its MIME type is [`DIRECTORY_MIME_TYPE`]).
    pub fn is_directory(&self) -> bool {
        self.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE)
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Resource {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Resource {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Resource {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the size in bytes.
    #[must_use]
    pub fn with_size(mut self, size: u64) -> Resource {
        self.size = Some(size);
        self
    }

    /// Sets the annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: Annotations) -> Resource {
        self.annotations = Some(annotations);
        self
    }

    /// Adds an icon.
    #[must_use]
    pub fn with_icon(mut self, icon: Icon) -> Resource {
        self.icons.push(icon);
        self
    }
}

/// A parameterized family of resources, described by an RFC 6570 URI template.
///
/// Same display fields as [`Resource`], without a size.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceTemplate {
    /// The URI template (for example `db://{table}/{id}`).
    pub uri_template: UriTemplate,
    /// A short programmatic name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the resources of this template are.
    pub description: Option<String>,
    /// The MIME type shared by all resources of the template, when there is one.
    pub mime_type: Option<String>,
    /// Hints about audience, priority and last modification.
    pub annotations: Option<Annotations>,
    /// Icons a client may show next to the template.
    pub icons: Vec<Icon>,
}

impl ResourceTemplate {
    /// A template with a name and no other metadata.
    pub fn new(uri_template: UriTemplate, name: impl Into<String>) -> ResourceTemplate {
        ResourceTemplate {
            uri_template,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: Vec::new(),
        }
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> ResourceTemplate {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> ResourceTemplate {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceTemplate {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// Who a resource is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Display hints attached to a resource, a template or contents.
///
/// Annotations are hints for clients; they are never used for authorization.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Annotations {
    /// Who the resource is meant for; empty means unspecified.
    pub audience: Vec<Role>,
    /// How important the resource is.
    pub priority: Option<Priority>,
    /// When the resource was last modified, as the source knows it.
    pub last_modified: Option<Timestamp>,
}

/// A priority between 0 (entirely optional) and 1 (effectively required), inclusive.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Priority(f64);

impl Priority {
    /// The priority `value`, or an error when it is not a number in `0.0..=1.0`.
    pub fn new(value: f64) -> Result<Priority, PriorityError> {
        if (0.0..=1.0).contains(&value) {
            Ok(Priority(value))
        } else {
            Err(PriorityError(value))
        }
    }

    /// The value, in `0.0..=1.0`.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// A priority outside `0.0..=1.0` (or not a number).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("priority {0} is not a number between 0 and 1")]
pub struct PriorityError(pub f64);

/// An RFC 3339 date-time (for example `2025-01-12T15:00:58Z`), kept as validated text.
///
/// The core has no clock: a timestamp is whatever the source says, passed through to the
/// adapters unchanged. [`Timestamp::from_unix_seconds`] formats one from a file's modification
/// time or a database column.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(Arc<str>);

impl Timestamp {
    /// Validates `input` as an RFC 3339 `date-time` (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`).
    pub fn parse(input: &str) -> Result<Timestamp, TimestampError> {
        if is_rfc3339(input.as_bytes()) {
            Ok(Timestamp(input.into()))
        } else {
            Err(TimestampError(input.to_owned()))
        }
    }

    /// The UTC timestamp `seconds` after the Unix epoch (negative values are before it),
    /// formatted as `YYYY-MM-DDTHH:MM:SSZ`. Years outside `0..=9999` are clamped to that range.
    pub fn from_unix_seconds(seconds: i64) -> Timestamp {
        const MIN: i64 = -62_167_219_200; // 0000-01-01T00:00:00Z
        const MAX: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z
        let seconds = seconds.clamp(MIN, MAX);
        let days = seconds.div_euclid(86_400);
        let second_of_day = seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let text = format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            second_of_day / 3600,
            second_of_day / 60 % 60,
            second_of_day % 60
        );
        Timestamp(text.into())
    }

    /// The timestamp as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Text that is not an RFC 3339 date-time.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an RFC 3339 date-time such as 2025-01-12T15:00:58Z")]
pub struct TimestampError(pub String);

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after Howard Hinnant's
/// `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_rfc3339(s: &[u8]) -> bool {
    fn number(s: &[u8], at: usize, len: usize, max: u32) -> bool {
        let Some(digits) = s.get(at..at + len) else {
            return false;
        };
        digits.iter().all(u8::is_ascii_digit)
            && digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')) <= max
    }
    fn byte(s: &[u8], at: usize, expected: &[u8]) -> bool {
        s.get(at).is_some_and(|b| expected.contains(b))
    }
    let date_time = number(s, 0, 4, 9999)
        && byte(s, 4, b"-")
        && number(s, 5, 2, 12)
        && byte(s, 7, b"-")
        && number(s, 8, 2, 31)
        && byte(s, 10, b"Tt")
        && number(s, 11, 2, 23)
        && byte(s, 13, b":")
        && number(s, 14, 2, 59)
        && byte(s, 16, b":")
        && number(s, 17, 2, 60);
    if !date_time || s[5..7] == *b"00" || s[8..10] == *b"00" {
        return false;
    }
    let mut at = 19;
    if byte(s, at, b".") {
        let digits = s[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return false;
        }
        at += 1 + digits;
    }
    match s.get(at) {
        Some(b'Z' | b'z') => at + 1 == s.len(),
        Some(b'+' | b'-') => {
            number(s, at + 1, 2, 23)
                && byte(s, at + 3, b":")
                && number(s, at + 4, 2, 59)
                && at + 6 == s.len()
        }
        _ => false,
    }
}

/// An icon for a resource or template.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Icon {
    /// Where the icon is: an `https:` or `data:` URI.
    pub src: String,
    /// Its MIME type, when the URI does not make it obvious.
    pub mime_type: Option<String>,
    /// The sizes it is available in, such as `48x48` or `any`.
    pub sizes: Vec<String>,
    /// The theme it is designed for, if any.
    pub theme: Option<IconTheme>,
}

/// The background an icon is designed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IconTheme {
    /// Light backgrounds.
    Light,
    /// Dark backgrounds.
    Dark,
}

/// What a read returns: the body of one resource (or one part of it).
///
/// A read may return several contents (for example a directory and its entries). Bodies are
/// reference counted, so cloning contents never copies the text or bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents {
    /// The URI these contents are of.
    pub uri: ResourceUri,
    /// Their MIME type, when known.
    pub mime_type: Option<String>,
    /// The text or bytes.
    pub body: Body,
}

impl Contents {
    /// Text contents.
    pub fn text(uri: ResourceUri, text: impl Into<Arc<str>>) -> Contents {
        Contents {
            uri,
            mime_type: None,
            body: Body::Text(text.into()),
        }
    }

    /// Binary contents (base64-encoded on the wire by the adapters, never here).
    pub fn bytes(uri: ResourceUri, bytes: impl Into<Arc<[u8]>>) -> Contents {
        Contents {
            uri,
            mime_type: None,
            body: Body::Bytes(bytes.into()),
        }
    }

    /// The contents of a file's `bytes`: text when they are UTF-8 without a NUL, bytes
    /// otherwise; with `mime_type` when known, else `text/plain` or
    /// `application/octet-stream`.
    pub fn of_file(uri: ResourceUri, bytes: Vec<u8>, mime_type: Option<&str>) -> Contents {
        let text = if memchr::memchr(0, &bytes).is_none() {
            String::from_utf8(bytes).map_err(std::string::FromUtf8Error::into_bytes)
        } else {
            Err(bytes)
        };
        match text {
            Ok(text) => Contents::text(uri, text).with_mime_type(mime_type.unwrap_or("text/plain")),
            Err(bytes) => Contents::bytes(uri, bytes)
                .with_mime_type(mime_type.unwrap_or("application/octet-stream")),
        }
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Contents {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// The body of [`Contents`]: text or raw bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// UTF-8 text.
    Text(Arc<str>),
    /// Raw bytes.
    Bytes(Arc<[u8]>),
}

impl Body {
    /// The size of the body in bytes (UTF-8 bytes for text, raw bytes before base64 for bytes).
    pub fn len(&self) -> u64 {
        let len = match self {
            Body::Text(text) => text.len(),
            Body::Bytes(bytes) => bytes.len(),
        };
        len as u64
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The length of the body as the adapters put it on the wire, the quotes left out: base64
    /// for bytes, JSON-escaped text (serde_json's escapes: two bytes for `"`, a backslash and
    /// the short control escapes, six for the other control characters). Text is scanned only
    /// when its escapes could take it past `limit`; below that, its raw length is returned.
    pub fn wire_len(&self, limit: u64) -> u64 {
        match self {
            Body::Bytes(bytes) => (bytes.len() as u64).div_ceil(3) * 4,
            Body::Text(text) => {
                let raw = text.len() as u64;
                if raw.saturating_mul(6) <= limit {
                    return raw;
                }
                // What escaping adds to each byte (one for a quote, a backslash and the five
                // control characters with a short escape, five for the other control
                // characters), summed in runs of 32 bytes in one byte each: a loop the compiler
                // turns into vector operations (a 1 MiB text: about 0.05 ms, where a match per
                // byte into a `u64` took 0.5).
                fn extra(byte: u8) -> u8 {
                    let short = matches!(byte, b'\n' | b'\r' | b'\t' | 0x08 | 0x0c);
                    let quoted = byte == b'"' || byte == b'\\';
                    u8::from(byte < 0x20) * 5 - u8::from(short) * 4 + u8::from(quoted)
                }
                let bytes = text.as_bytes();
                let mut chunks = bytes.chunks_exact(32);
                let mut added: u64 = 0;
                for chunk in &mut chunks {
                    added += u64::from(chunk.iter().fold(0_u8, |sum, &byte| sum + extra(byte)));
                }
                added += chunks
                    .remainder()
                    .iter()
                    .map(|&byte| u64::from(extra(byte)))
                    .sum::<u64>();
                raw + added
            }
        }
    }

    /// The part `range` of the body, cut at the end of the body (so a range starting at or past
    /// the end gives an empty body, like a read at the end of a file). `None` for text when one
    /// end of the range falls inside a UTF-8 character.
    pub fn slice(&self, range: ByteRange) -> Option<Body> {
        let len = self.len();
        let start = range.offset.min(len);
        let end = range.offset.saturating_add(range.length).min(len);
        // Both ends are at most `len`, which came from a `usize`.
        let (start, end) = (start as usize, end as usize);
        match self {
            Body::Text(text) => text.get(start..end).map(|part| Body::Text(part.into())),
            Body::Bytes(bytes) => Some(Body::Bytes(bytes[start..end].into())),
        }
    }
}

/// A part of a resource's body, in bytes: for ranged reads of large resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteRange {
    /// The first byte of the part.
    pub offset: u64,
    /// How many bytes at most.
    pub length: u64,
}
