//! The YAML frontmatter of a `SKILL.md`, read into the core's [`Frontmatter`].
//!
//! **Layer:** provider (`mcp-resources-fs`), part of the skills provider. The frontmatter is the
//! text between a first line `---` (after an optional byte-order mark) and the next line that is
//! `---` (trailing blanks allowed), as hosts find it. It is read from `yaml-rust2`'s events, and
//! plain scalars are typed here by the YAML 1.2 core schema, which hosts use to parse the same
//! text and compare it with what `skills/list` sends (`Null` is null, `yes` a string, `0o17` is
//! 15, `0x-1` a string); keys are named as a JavaScript host names them (`~` is `""`, `1e3` is
//! `"1000"`). What a host would read otherwise, or JSON cannot hold, is refused rather than
//! changed: a second document, a tag, a non-finite number, a sequence or mapping as a key, and
//! anchors and aliases (which would also let a small text expand into a huge value). The text is
//! bounded, and so is its nesting, so that no recursion over it can exhaust a stack. This module
//! never reads a file and never knows a URI.

use mcp_resources_core::skill::{Frontmatter, FrontmatterValue};
use yaml_rust2::parser::{Event, EventReceiver, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// The longest frontmatter read, in bytes: a page of 20 skills stays a few MiB even if every
/// byte of each becomes a six-byte JSON escape.
pub(crate) const MAX_FRONTMATTER_BYTES: usize = 16 * 1024;

/// The deepest nesting of sequences and mappings.
pub(crate) const MAX_DEPTH: usize = 32;

/// The frontmatter of the `SKILL.md` text `text`, or why it has none that can be served.
pub(crate) fn parse(text: &str) -> Result<Frontmatter, String> {
    let yaml = block(text)?;
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(format!(
            "the frontmatter is over {MAX_FRONTMATTER_BYTES} bytes"
        ));
    }
    let mut builder = Builder::default();
    Parser::new_from_str(yaml)
        .load(&mut builder, true)
        .map_err(|error| format!("bad YAML: {error}"))?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    match builder.root {
        Some(FrontmatterValue::Map(entries)) => Ok(Frontmatter(entries)),
        Some(FrontmatterValue::Null) | None => Err("the frontmatter is empty".to_owned()),
        Some(_) => Err("the frontmatter is not a mapping".to_owned()),
    }
}

/// The YAML between the opening `---` line and the closing one.
fn block(text: &str) -> Result<&str, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))
        .ok_or("SKILL.md does not start with a `---` line")?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n', ' ', '\t']) == "---" {
            return Ok(&rest[..offset]);
        }
        offset += line.len();
    }
    Err("the frontmatter has no closing `---` line".to_owned())
}

/// Builds the value of one document from the parser's events, refusing what [the module
/// documentation](self) lists; after the first refusal it ignores the rest.
#[derive(Default)]
struct Builder {
    /// The open sequences and mappings, innermost last.
    open: Vec<Open>,
    root: Option<FrontmatterValue>,
    documents: usize,
    error: Option<String>,
}

enum Open {
    List(Vec<FrontmatterValue>),
    /// A mapping's entries, and the key waiting for its value.
    Map(Vec<(String, FrontmatterValue)>, Option<String>),
}

impl EventReceiver for Builder {
    fn on_event(&mut self, event: Event) {
        if self.error.is_none() {
            if let Err(error) = self.take(event) {
                self.error = Some(error);
            }
        }
    }
}

impl Builder {
    fn take(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err("the frontmatter holds more than one YAML document".to_owned());
                }
            }
            Event::Alias(_) => return Err(ANCHORS.to_owned()),
            Event::Scalar(text, style, anchor, tag) => {
                refuse_anchor_and_tag(anchor, tag.is_some())?;
                let value = match style {
                    TScalarStyle::Plain => plain(&text)?,
                    _ => FrontmatterValue::String(text),
                };
                self.add(value)?;
            }
            Event::SequenceStart(anchor, tag) => {
                refuse_anchor_and_tag(anchor, tag.is_some())?;
                self.open_one(Open::List(Vec::new()))?;
            }
            Event::MappingStart(anchor, tag) => {
                refuse_anchor_and_tag(anchor, tag.is_some())?;
                self.open_one(Open::Map(Vec::new(), None))?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let value = match self.open.pop() {
                    Some(Open::List(items)) => FrontmatterValue::List(items),
                    Some(Open::Map(entries, None)) => FrontmatterValue::Map(entries),
                    Some(Open::Map(_, Some(_))) | None => {
                        return Err("bad YAML: an unbalanced collection".to_owned());
                    }
                };
                self.add(value)?;
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
        Ok(())
    }

    fn open_one(&mut self, open: Open) -> Result<(), String> {
        if self.open.len() >= MAX_DEPTH {
            return Err(format!(
                "the frontmatter nests deeper than {MAX_DEPTH} levels"
            ));
        }
        self.open.push(open);
        Ok(())
    }

    /// Puts a finished value where it belongs: an item, a key, a key's value, or the document.
    fn add(&mut self, value: FrontmatterValue) -> Result<(), String> {
        match self.open.last_mut() {
            None => self.root = Some(value),
            Some(Open::List(items)) => items.push(value),
            Some(Open::Map(_, pending @ None)) => *pending = Some(key_text(&value)?),
            Some(Open::Map(entries, pending @ Some(_))) => {
                let key = pending.take().unwrap_or_default();
                entries.push((key, value));
            }
        }
        Ok(())
    }
}

const ANCHORS: &str = "the frontmatter uses YAML anchors or aliases";

fn refuse_anchor_and_tag(anchor: usize, tagged: bool) -> Result<(), String> {
    if anchor > 0 {
        return Err(ANCHORS.to_owned());
    }
    if tagged {
        return Err("the frontmatter uses YAML tags".to_owned());
    }
    Ok(())
}

/// A plain scalar, typed by the YAML 1.2 core schema.
fn plain(text: &str) -> Result<FrontmatterValue, String> {
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => FrontmatterValue::Null,
        "true" | "True" | "TRUE" => FrontmatterValue::Bool(true),
        "false" | "False" | "FALSE" => FrontmatterValue::Bool(false),
        _ => {
            if let Some(number) = integer(text) {
                number
            } else if is_float(text) {
                match text.parse::<f64>() {
                    Ok(number) if number.is_finite() => FrontmatterValue::Float(number),
                    _ => return Err(format!("the number {text} has no JSON form")),
                }
            } else if matches!(
                text.trim_start_matches(['-', '+']),
                ".inf" | ".Inf" | ".INF"
            ) || matches!(text, ".nan" | ".NaN" | ".NAN")
            {
                return Err(format!("the number {text} has no JSON form"));
            } else {
                FrontmatterValue::String(text.to_owned())
            }
        }
    })
}

/// A core-schema integer (decimal with an optional sign, `0o` octal, `0x` hex): an integer when
/// it fits 64 bits, else the number a JavaScript host reads.
fn integer(text: &str) -> Option<FrontmatterValue> {
    let (digits, radix) = if let Some(octal) = text.strip_prefix("0o") {
        (octal, 8)
    } else if let Some(hex) = text.strip_prefix("0x") {
        (hex, 16)
    } else {
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        (unsigned, 10)
    };
    if digits.is_empty() || !digits.chars().all(|digit| digit.is_digit(radix)) {
        return None;
    }
    if radix == 10 {
        return Some(match text.parse::<i64>() {
            Ok(number) => FrontmatterValue::Integer(number),
            Err(_) => FrontmatterValue::Float(text.parse::<f64>().ok()?),
        });
    }
    Some(match i64::from_str_radix(digits, radix) {
        Ok(number) => FrontmatterValue::Integer(number),
        Err(_) => FrontmatterValue::Float(digits.chars().fold(0.0, |value, digit| {
            value * f64::from(radix) + f64::from(digit.to_digit(radix).unwrap_or(0))
        })),
    })
}

/// Whether `text` is a core-schema float: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_float(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((whole, fraction)) => digits(whole) && (fraction.is_empty() || digits(fraction)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent
        .is_none_or(|exponent| digits(exponent.strip_prefix(['-', '+']).unwrap_or(exponent)));
    mantissa_ok && exponent_ok
}

/// A mapping key as a JavaScript host names it: a string as it is, a scalar by its value's
/// text (null as `""`, a number as JavaScript prints it).
fn key_text(key: &FrontmatterValue) -> Result<String, String> {
    Ok(match key {
        FrontmatterValue::String(text) => text.clone(),
        FrontmatterValue::Null => String::new(),
        FrontmatterValue::Bool(flag) => flag.to_string(),
        FrontmatterValue::Integer(number) => number.to_string(),
        FrontmatterValue::Float(number) if number.fract() == 0.0 && number.abs() < 1e21 => {
            format!("{number:.0}")
        }
        FrontmatterValue::Float(number) => number.to_string(),
        FrontmatterValue::List(_) | FrontmatterValue::Map(_) => {
            return Err("a frontmatter key is not a scalar".to_owned());
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> FrontmatterValue {
        let frontmatter = parse(&format!("---\nv: {text}\n---\nbody")).unwrap();
        frontmatter.get("v").unwrap().clone()
    }

    #[test]
    fn the_block_between_the_dashes_is_read_as_yaml_1_2() {
        let frontmatter = parse(
            "---\r\nname: pdf-tools\r\ndescription: Fills PDF forms.\r\nmetadata:\r\n  tags: [a, b]\r\n---\r\n# Body\n",
        )
        .unwrap();
        assert_eq!(frontmatter.string("name"), Some("pdf-tools"));
        assert_eq!(
            frontmatter.get("metadata"),
            Some(&FrontmatterValue::Map(vec![(
                "tags".into(),
                FrontmatterValue::List(vec![
                    FrontmatterValue::String("a".into()),
                    FrontmatterValue::String("b".into()),
                ])
            )]))
        );
        // YAML 1.2 core schema, not 1.1: `yes` and `on` stay strings, `0o17` is octal.
        assert_eq!(value("yes"), FrontmatterValue::String("yes".into()));
        assert_eq!(value("on"), FrontmatterValue::String("on".into()));
        assert_eq!(value("0o17"), FrontmatterValue::Integer(15));
        assert_eq!(value("true"), FrontmatterValue::Bool(true));
        assert_eq!(value("~"), FrontmatterValue::Null);
        assert_eq!(value("1.5"), FrontmatterValue::Float(1.5));
        assert_eq!(
            value("2026-01-01"),
            FrontmatterValue::String("2026-01-01".into())
        );
        assert_eq!(value("'007'"), FrontmatterValue::String("007".into()));
    }

    #[test]
    fn what_json_cannot_hold_or_a_missing_block_is_refused() {
        for (text, why) in [
            ("name: a\n", "does not start"),
            ("---\nname: a\n", "no closing"),
            ("---\n- a\n---\n", "not a mapping"),
            ("---\nv: .inf\n---\n", "no JSON form"),
            ("---\n[a]: b\n---\n", "not a scalar"),
            ("---\na: &x 1\nb: *x\n---\n", "anchors or aliases"),
            ("---\na: *x\n---\n", "bad YAML"),
            (
                "---\nname: x\n...\nallowed-tools: Bash\n---\n",
                "more than one",
            ),
            ("---\na: !!str 1\n---\n", "tags"),
            ("---\na: .nan\n---\n", "no JSON form"),
            ("---\na: 1e999\n---\n", "no JSON form"),
            ("---\na: [\n---\n", "bad YAML"),
        ] {
            let refused = parse(text).unwrap_err();
            assert!(refused.contains(why), "{text:?}: {refused}");
        }
        let huge = format!("---\nv: {}\n---\n", "x".repeat(MAX_FRONTMATTER_BYTES));
        assert!(parse(&huge).unwrap_err().contains("over"));
        // Deep nesting in every form the parser takes, within the size bound.
        for deep in [
            format!("---\nv: {}x\n---\n", "- ".repeat(8_000)),
            format!("---\nv: {}x{}\n---\n", "[".repeat(200), "]".repeat(200)),
            format!("---\nv: {}x\n---\n", "{a: ".repeat(200)),
        ] {
            let refused = parse(&deep).unwrap_err();
            assert!(
                refused.contains("deeper") || refused.contains("bad YAML"),
                "{refused}"
            );
        }
        let nested = format!(
            "---\nv: {}x{}\n---\n",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&nested).is_ok(), "{MAX_DEPTH} levels are fine");
    }

    #[test]
    fn scalar_keys_are_named_as_a_javascript_host_names_them() {
        let frontmatter = parse("---\n1: one\ntrue: yes\n~: x\n1e3: y\n1.50: z\n---\n").unwrap();
        let keys: Vec<&str> = frontmatter.0.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["1", "true", "", "1000", "1.5"]);
    }

    /// What a YAML 1.2 core-schema parse (the `yaml` 2.x package hosts use) gives for plain
    /// scalars that YAML 1.1, or a looser reading, types otherwise.
    #[test]
    fn plain_scalars_are_typed_by_the_core_schema() {
        for (text, expected) in [
            ("Null", FrontmatterValue::Null),
            ("NULL", FrontmatterValue::Null),
            ("", FrontmatterValue::Null),
            ("0x-1", FrontmatterValue::String("0x-1".into())),
            ("0o-7", FrontmatterValue::String("0o-7".into())),
            ("0x1F", FrontmatterValue::Integer(31)),
            ("+12", FrontmatterValue::Integer(12)),
            ("007", FrontmatterValue::Integer(7)),
            ("1_000", FrontmatterValue::String("1_000".into())),
            (
                "0xFFFFFFFFFFFFFFFF",
                FrontmatterValue::Float(18_446_744_073_709_551_615.0),
            ),
            (".5", FrontmatterValue::Float(0.5)),
            ("1.", FrontmatterValue::Float(1.0)),
            ("-2e3", FrontmatterValue::Float(-2000.0)),
            ("1.2.3", FrontmatterValue::String("1.2.3".into())),
            ("e3", FrontmatterValue::String("e3".into())),
        ] {
            assert_eq!(plain(text).unwrap(), expected, "{text:?}");
        }
    }

    #[test]
    fn the_block_is_found_where_a_host_finds_it() {
        for text in [
            "\u{feff}---\nname: x\n---\n# body\n",
            "---\nname: x\n--- \n# body\n",
            "---\nname: x\n---\t\n# body\n",
            "---\r\nname: x\r\ndescription: |\r\n  a\r\n  b\r\n---\r\n",
        ] {
            assert!(parse(text).is_ok(), "{text:?}: {:?}", parse(text));
        }
        let folded = parse("---\r\nname: x\r\nd: |\r\n  a\r\n  b\r\n---\r\n").unwrap();
        assert_eq!(
            folded.string("d"),
            Some("a\nb\n"),
            "line breaks in scalars are LF"
        );
    }
}
