//! The values of template variables: [`VarValue`] and [`Variables`], given to an expansion or
//! returned by a match.
//!
//! **Layer:** core, inside [`template`](super), below expansion, matching and the index. Plain
//! data; it must never know a template's syntax or what the values name.

use std::collections::BTreeMap;

/// The value of one template variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VarValue {
    /// A string.
    String(String),
    /// A list of strings; empty means undefined.
    List(Vec<String>),
    /// An associative array, in the order its pairs are expanded; empty means undefined.
    Map(Vec<(String, String)>),
}

impl VarValue {
    /// The string, if this is [`VarValue::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VarValue::String(value) => Some(value),
            VarValue::List(_) | VarValue::Map(_) => None,
        }
    }

    /// Whether RFC 6570 treats this value as undefined (an empty list or map).
    pub(super) fn is_undefined(&self) -> bool {
        match self {
            VarValue::String(_) => false,
            VarValue::List(items) => items.is_empty(),
            VarValue::Map(pairs) => pairs.is_empty(),
        }
    }
}

impl From<&str> for VarValue {
    fn from(value: &str) -> Self {
        VarValue::String(value.to_owned())
    }
}

impl From<String> for VarValue {
    fn from(value: String) -> Self {
        VarValue::String(value)
    }
}

impl From<Vec<String>> for VarValue {
    fn from(items: Vec<String>) -> Self {
        VarValue::List(items)
    }
}

impl From<Vec<&str>> for VarValue {
    fn from(items: Vec<&str>) -> Self {
        VarValue::List(items.into_iter().map(str::to_owned).collect())
    }
}

impl From<Vec<(String, String)>> for VarValue {
    fn from(pairs: Vec<(String, String)>) -> Self {
        VarValue::Map(pairs)
    }
}

impl From<Vec<(&str, &str)>> for VarValue {
    fn from(pairs: Vec<(&str, &str)>) -> Self {
        VarValue::Map(
            pairs
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect(),
        )
    }
}

/// Variables for expansion, or extracted by a match: a map from name to [`VarValue`], iterated in
/// name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variables {
    values: BTreeMap<String, VarValue>,
}

impl Variables {
    /// No variables.
    pub fn new() -> Self {
        Variables::default()
    }

    /// Sets `name` to `value`, replacing any earlier value.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<VarValue>) {
        self.values.insert(name.into(), value.into());
    }

    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&VarValue> {
        self.values.get(name)
    }

    /// The value of `name`, if it is set to a string.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(VarValue::as_str)
    }

    /// All variables, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &VarValue)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// The number of variables set.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no variable is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<N: Into<String>, V: Into<VarValue>> FromIterator<(N, V)> for Variables {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Self {
        let mut variables = Variables::new();
        for (name, value) in iter {
            variables.insert(name, value);
        }
        variables
    }
}
