//! The YAML frontmatter of a `SKILL.md`, read into the core's [`Frontmatter`].
//!
//! **Layer:** provider (`mcp-resources-fs`), part of the skills provider. The frontmatter is the
//! text between a first line `---` and the next line `---`, parsed as YAML 1.2 (core schema, as
//! hosts parse it to compare with what `skills/list` sends: `yes` is a string, `0o17` is 15) by
//! `yaml-rust2`. What JSON cannot hold is refused rather than changed: a non-finite number, a
//! mapping or sequence as a key, anchors and aliases (which would also let a small text expand
//! into a huge value). This module never reads a file and never knows a URI.

use mcp_resources_core::skill::{Frontmatter, FrontmatterValue};
use yaml_rust2::parser::{Event, EventReceiver, Parser};
use yaml_rust2::{Yaml, YamlLoader};

/// The longest frontmatter read, in bytes.
pub(crate) const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The frontmatter of the `SKILL.md` text `text`, or why it has none that can be served.
pub(crate) fn parse(text: &str) -> Result<Frontmatter, String> {
    let yaml = block(text)?;
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(format!(
            "the frontmatter is over {MAX_FRONTMATTER_BYTES} bytes"
        ));
    }
    refuse_aliases(yaml)?;
    let documents =
        YamlLoader::load_from_str(yaml).map_err(|error| format!("bad YAML: {error}"))?;
    match documents.into_iter().next() {
        Some(Yaml::Hash(entries)) => entries
            .into_iter()
            .map(|(key, value)| Ok((key_text(&key)?, value_of(value)?)))
            .collect::<Result<Vec<_>, String>>()
            .map(Frontmatter),
        Some(_) => Err("the frontmatter is not a mapping".to_owned()),
        None => Err("the frontmatter is empty".to_owned()),
    }
}

/// The YAML between the opening `---` line and the closing one.
fn block(text: &str) -> Result<&str, String> {
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))
        .ok_or("SKILL.md does not start with a `---` line")?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Ok(&rest[..offset]);
        }
        offset += line.len();
    }
    Err("the frontmatter has no closing `---` line".to_owned())
}

/// Refuses anchors and aliases before anything is built from the text.
fn refuse_aliases(yaml: &str) -> Result<(), String> {
    struct Aliases(bool);
    impl EventReceiver for Aliases {
        fn on_event(&mut self, event: Event) {
            let anchored = match event {
                Event::Alias(_) => true,
                Event::Scalar(_, _, anchor, _)
                | Event::SequenceStart(anchor, _)
                | Event::MappingStart(anchor, _) => anchor > 0,
                _ => false,
            };
            self.0 |= anchored;
        }
    }
    let mut found = Aliases(false);
    Parser::new_from_str(yaml)
        .load(&mut found, false)
        .map_err(|error| format!("bad YAML: {error}"))?;
    if found.0 {
        return Err("the frontmatter uses YAML anchors or aliases".to_owned());
    }
    Ok(())
}

/// A mapping key as text: a string, or a scalar written as JSON would name it.
fn key_text(key: &Yaml) -> Result<String, String> {
    match key {
        Yaml::String(text) | Yaml::Real(text) => Ok(text.clone()),
        Yaml::Integer(number) => Ok(number.to_string()),
        Yaml::Boolean(flag) => Ok(flag.to_string()),
        Yaml::Null => Ok("null".to_owned()),
        _ => Err("a frontmatter key is not a scalar".to_owned()),
    }
}

fn value_of(yaml: Yaml) -> Result<FrontmatterValue, String> {
    Ok(match yaml {
        Yaml::Null => FrontmatterValue::Null,
        Yaml::Boolean(flag) => FrontmatterValue::Bool(flag),
        Yaml::Integer(number) => FrontmatterValue::Integer(number),
        Yaml::Real(text) => match Yaml::Real(text.clone()).as_f64() {
            Some(number) if number.is_finite() => FrontmatterValue::Float(number),
            _ => return Err(format!("the number {text} has no JSON form")),
        },
        Yaml::String(text) => FrontmatterValue::String(text),
        Yaml::Array(items) => {
            FrontmatterValue::List(items.into_iter().map(value_of).collect::<Result<_, _>>()?)
        }
        Yaml::Hash(entries) => FrontmatterValue::Map(
            entries
                .into_iter()
                .map(|(key, value)| Ok((key_text(&key)?, value_of(value)?)))
                .collect::<Result<_, String>>()?,
        ),
        Yaml::Alias(_) | Yaml::BadValue => {
            return Err("the frontmatter holds a value YAML could not type".to_owned());
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
            ("---\na: [\n---\n", "bad YAML"),
        ] {
            let refused = parse(text).unwrap_err();
            assert!(refused.contains(why), "{text:?}: {refused}");
        }
        let huge = format!("---\nv: {}\n---\n", "x".repeat(MAX_FRONTMATTER_BYTES));
        assert!(parse(&huge).unwrap_err().contains("over"));
    }

    #[test]
    fn scalar_keys_are_named_as_json_names_them() {
        let frontmatter = parse("---\n1: one\ntrue: yes\n---\n").unwrap();
        assert_eq!(frontmatter.string("1"), Some("one"));
        assert_eq!(frontmatter.string("true"), Some("yes"));
    }
}
