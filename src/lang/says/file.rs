//! Reading a file of sentences and filling its templates: no language's words, no I/O.

use std::borrow::Cow;
use std::collections::BTreeMap;

use yaml_rust2::{Yaml, YamlLoader};

use super::super::{Plural, capitalised};

/// One entry of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Text(String),
    List(Vec<String>),
    Table(BTreeMap<String, Node>),
}

/// A file that cannot be read as texts.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// Not YAML, or more or less than one document.
    #[error("not one YAML document: {0}")]
    Yaml(String),
    /// A value that is not a text, a list of texts or a table of them (a number, a boolean).
    #[error("{0}: a text must be written as a string, a list of strings or a table of them")]
    Shape(String),
}

/// A file's texts.
pub type Texts = BTreeMap<String, Node>;

/// Reads a file's texts.
pub fn read(yaml: &str) -> Result<Texts, Error> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| Error::Yaml(e.to_string()))?;
    let [doc] = docs.as_slice() else {
        return Err(Error::Yaml(format!("{} documents", docs.len())));
    };
    match node(doc, "")? {
        Node::Table(table) => Ok(table),
        _ => Err(Error::Shape("the file".into())),
    }
}

fn node(yaml: &Yaml, path: &str) -> Result<Node, Error> {
    let shape = || Error::Shape(path.to_owned());
    match yaml {
        Yaml::String(text) => Ok(Node::Text(text.clone())),
        Yaml::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(shape))
            .collect::<Result<_, _>>()
            .map(Node::List),
        Yaml::Hash(hash) => {
            let mut table = BTreeMap::new();
            for (key, value) in hash {
                let key = key.as_str().ok_or_else(shape)?;
                let inner = if path.is_empty() {
                    key.to_owned()
                } else {
                    format!("{path}.{key}")
                };
                table.insert(key.to_owned(), node(value, &inner)?);
            }
            Ok(Node::Table(table))
        }
        _ => Err(shape()),
    }
}

/// The entry at a path of keys.
pub fn at<'a>(texts: &'a Texts, path: &[&str]) -> Option<&'a Node> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(texts.get(*first)?, |node, key| match node {
            Node::Table(table) => table.get(*key),
            _ => None,
        })
}

/// The template with its placeholders filled; a placeholder with no value stays as written
/// (the tests keep any from shipping).
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        match value(args, &after[..close]) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[open..=open + close + 1]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A placeholder's value: as given, or capitalised where the name is (`{To_do}`).
fn value<'a>(args: &[(&str, &'a str)], name: &str) -> Option<Cow<'a, str>> {
    if let Some((_, v)) = args.iter().find(|(k, _)| *k == name) {
        return Some(Cow::Borrowed(v));
    }
    let mut chars = name.chars();
    let first = chars.next()?;
    if !first.is_uppercase() {
        return None;
    }
    let lower: String = first.to_lowercase().chain(chars).collect();
    args.iter()
        .find(|(k, _)| *k == lower)
        .map(|(_, v)| Cow::Owned(capitalised(v)))
}

/// The placeholders a template names, as written.
pub fn placeholders(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
        .collect()
}

/// The name of a plural category, as files write it.
pub fn category(plural: Plural) -> &'static str {
    match plural {
        Plural::One => "one",
        Plural::Few => "few",
        Plural::Many => "many",
    }
}
