//! An index of many templates, looked up by the literal prefix of each template so that finding
//! the template of a URI tries only the templates that could match it.
//!
//! **Layer:** core, inside [`template`](super). It must never know what the values stand for
//! (providers, handlers): they are an opaque `T`.

use std::collections::{BTreeSet, HashMap};

use super::syntax::UriTemplate;
use super::variables::Variables;

/// Many templates with a value each, for finding the template that matches a URI.
///
/// Templates are grouped by [`UriTemplate::literal_prefix`]. A lookup probes, for each distinct
/// prefix length (longest first), the one group whose prefix is that many bytes of the URI, so it
/// only tries templates whose literal prefix is a prefix of the URI. With 10,000 templates of the
/// shape `db://table17/{id}` a lookup tries one template.
///
/// # Order
///
/// When several templates match a URI, [`find`](TemplateIndex::find) returns the first in this
/// order:
///
/// 1. the longest literal prefix (`file:///docs/{+path}` before `file:///{+path}`);
/// 2. then the most literal characters in the whole template (`db://{table}/rows/{id}` before
///    `db://{table}/{+rest}`);
/// 3. then registration order.
///
/// ```
/// use mcp_resources_core::template::{TemplateIndex, UriTemplate};
///
/// let mut index = TemplateIndex::new();
/// index.insert(UriTemplate::parse("file:///{+path}").unwrap(), "any file");
/// index.insert(UriTemplate::parse("file:///docs/{+path}").unwrap(), "docs");
/// let (template, value, variables) = index.find("file:///docs/a/b.md").unwrap();
/// assert_eq!((template.as_str(), *value), ("file:///docs/{+path}", "docs"));
/// assert_eq!(variables.get_str("path"), Some("a/b.md"));
/// assert_eq!(*index.find("file:///src/main.rs").unwrap().1, "any file");
/// ```
#[derive(Clone, Debug)]
pub struct TemplateIndex<T> {
    /// Templates and values in registration order.
    entries: Vec<(UriTemplate, T)>,
    /// Entry indices by literal prefix, each list in lookup order.
    by_prefix: HashMap<String, Vec<usize>>,
    /// The distinct lengths of the literal prefixes.
    prefix_lengths: BTreeSet<usize>,
}

impl<T> Default for TemplateIndex<T> {
    fn default() -> Self {
        TemplateIndex {
            entries: Vec::new(),
            by_prefix: HashMap::new(),
            prefix_lengths: BTreeSet::new(),
        }
    }
}

impl<T> TemplateIndex<T> {
    /// An empty index.
    pub fn new() -> Self {
        TemplateIndex::default()
    }

    /// Adds a template with its value. Adding the same template twice keeps both; the earlier
    /// one wins lookups.
    pub fn insert(&mut self, template: UriTemplate, value: T) {
        let index = self.entries.len();
        let prefix = template.literal_prefix().to_owned();
        self.prefix_lengths.insert(prefix.len());
        let group = self.by_prefix.entry(prefix).or_default();
        let literal_len = template.literal_len();
        // Most literal characters first, then registration order: insert after every entry
        // with at least as many literal characters.
        let at = group.partition_point(|&other| self.entries[other].0.literal_len() >= literal_len);
        group.insert(at, index);
        self.entries.push((template, value));
    }

    /// The first template, in the [documented order](TemplateIndex#order), that matches `uri`,
    /// with its value and the extracted variables.
    pub fn find(&self, uri: &str) -> Option<(&UriTemplate, &T, Variables)> {
        for &length in self.prefix_lengths.range(..=uri.len()).rev() {
            let Some(prefix) = uri.get(..length) else {
                continue;
            };
            let Some(group) = self.by_prefix.get(prefix) else {
                continue;
            };
            for &index in group {
                let (template, value) = &self.entries[index];
                if let Some(variables) = template.match_uri(uri) {
                    return Some((template, value, variables));
                }
            }
        }
        None
    }

    /// The number of templates.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no templates.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The templates and their values, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = (&UriTemplate, &T)> {
        self.entries
            .iter()
            .map(|(template, value)| (template, value))
    }
}
