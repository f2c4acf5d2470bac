//! Directory reads through the engine: paging children, binding cursors to their directory,
//! policy on children and on the directory itself, and what is not a directory.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_resources_core::engine::{Engine, EngineBuilder, Limits};
use mcp_resources_core::error::DirectoryError;
use mcp_resources_core::pagination::CursorError;
use mcp_resources_core::policy::{Action, Grantee, PatternPolicy, Principal, UriPattern};
use mcp_resources_core::provider::{
    DirectoryRequest, ListRequest, Provider, ProviderError, ReadRequest,
};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::uri::ResourceUri;

use crate::fixtures::{key, run, uri, uris};

/// A tree of `t:` URIs: directories by URI, each holding its children, in canonical order.
/// Children can be added and removed while a walk is under way.
struct Tree {
    directories: Mutex<BTreeMap<String, Vec<Resource>>>,
}

impl Tree {
    /// A tree with these directories (and `t:///` as root) and these files.
    fn new(directories: &[&str], files: &[&str]) -> Arc<Tree> {
        let tree = Arc::new(Tree {
            directories: Mutex::new(BTreeMap::new()),
        });
        for directory in directories {
            tree.add(Resource::directory(uri(directory), "d"));
        }
        for file in files {
            tree.add(Resource::new(uri(file), "f"));
        }
        tree
    }

    fn add(&self, child: Resource) {
        let text = child.uri.as_str().to_owned();
        let parent = text[..text.rfind('/').expect("a path")].to_owned();
        let mut directories = self.directories.lock().unwrap();
        if child.is_directory() {
            directories.entry(text).or_default();
        }
        let children = directories.entry(parent).or_default();
        children.push(child);
        children.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
    }

    fn remove(&self, file: &str) {
        for children in self.directories.lock().unwrap().values_mut() {
            children.retain(|child| child.uri.as_str() != file);
        }
    }
}

#[async_trait]
impl Provider for Tree {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == "t"
    }

    async fn list(&self, _request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        Ok(Vec::new())
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        Ok(Some(vec![Contents::text(request.uri.clone(), "file")]))
    }

    async fn list_directory(
        &self,
        request: DirectoryRequest<'_>,
    ) -> Result<Option<Vec<Resource>>, ProviderError> {
        let directories = self.directories.lock().unwrap();
        let Some(children) = directories.get(request.uri.as_str()) else {
            return Ok(None);
        };
        let after = request.after.unwrap_or("");
        Ok(Some(
            children
                .iter()
                .filter(|child| child.uri.as_str() > after)
                .take(request.limit)
                .cloned()
                .collect(),
        ))
    }
}

fn engine(tree: &Arc<Tree>, page_size: usize, policy: Option<PatternPolicy>) -> Engine {
    let mut builder = EngineBuilder::new(key())
        .limits(Limits {
            page_size: NonZeroUsize::new(page_size).unwrap(),
            ..Limits::default()
        })
        .provider(tree.clone());
    if let Some(policy) = policy {
        builder = builder.policy(Arc::new(policy));
    }
    builder.build().unwrap()
}

/// Every child of `directory`, page by page.
fn walk(engine: &Engine, principal: &Principal, directory: &str) -> Vec<String> {
    let directory = uri(directory);
    let mut seen = Vec::new();
    let mut cursor = None;
    for _ in 0..1000 {
        let page = run(engine.list_directory(principal, &directory, cursor.as_deref())).unwrap();
        seen.extend(uris(&page.items));
        cursor = page.next_cursor;
        if cursor.is_none() {
            return seen;
        }
    }
    panic!("the walk of {directory} does not end");
}

#[test]
fn children_come_a_page_at_a_time_in_canonical_order() {
    let files: Vec<String> = (0..25).map(|i| format!("t:///d/f{i:02}")).collect();
    let mut all: Vec<&str> = files.iter().map(String::as_str).collect();
    all.push("t:///d/sub/deep");
    let tree = Tree::new(&["t:///d", "t:///d/sub", "t:///d/empty"], &all);
    let engine = engine(&tree, 10, None);
    let anyone = Principal::anonymous();
    let children = walk(&engine, &anyone, "t:///d");
    let mut expected: Vec<String> = files.clone();
    expected.extend(["t:///d/empty".to_owned(), "t:///d/sub".to_owned()]);
    expected.sort();
    assert_eq!(
        children, expected,
        "direct children only, each once, in order"
    );

    let first = run(engine.list_directory(&anyone, &uri("t:///d"), None)).unwrap();
    assert_eq!(first.items.len(), 10);
    assert!(first.next_cursor.is_some());
    let subdirectory = walk_items(&engine, "t:///d")
        .into_iter()
        .find(|child| child.uri.as_str() == "t:///d/sub")
        .unwrap();
    assert!(subdirectory.is_directory());

    let empty = run(engine.list_directory(&anyone, &uri("t:///d/empty"), None)).unwrap();
    assert!(empty.items.is_empty());
    assert_eq!(empty.next_cursor, None);
}

fn walk_items(engine: &Engine, directory: &str) -> Vec<Resource> {
    let directory = uri(directory);
    let mut items = Vec::new();
    let mut cursor = None;
    loop {
        let page =
            run(engine.list_directory(&Principal::anonymous(), &directory, cursor.as_deref()))
                .unwrap();
        items.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return items,
        }
    }
}

#[test]
fn a_walk_changed_between_pages_skips_and_repeats_nothing_that_stayed() {
    let files: Vec<String> = (0..30).map(|i| format!("t:///d/f{i:02}")).collect();
    let tree = Tree::new(
        &["t:///d"],
        &files.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let engine = engine(&tree, 7, None);
    let anyone = Principal::anonymous();
    let directory = uri("t:///d");
    let first = run(engine.list_directory(&anyone, &directory, None)).unwrap();
    // Between pages: one file already seen and one not yet seen go, two appear.
    tree.remove("t:///d/f01");
    tree.remove("t:///d/f20");
    tree.add(Resource::new(uri("t:///d/f00a"), "f"));
    tree.add(Resource::new(uri("t:///d/f25a"), "f"));
    let mut seen = uris(&first.items);
    let mut cursor = first.next_cursor;
    while let Some(next) = cursor {
        let page = run(engine.list_directory(&anyone, &directory, Some(&next))).unwrap();
        seen.extend(uris(&page.items));
        cursor = page.next_cursor;
    }
    let mut unique = seen.clone();
    unique.dedup();
    assert_eq!(unique, seen, "nothing repeated");
    for file in files
        .iter()
        .filter(|file| !["t:///d/f01", "t:///d/f20"].contains(&file.as_str()))
    {
        assert!(
            seen.contains(file),
            "{file} stayed throughout and was skipped"
        );
    }
    assert!(
        !seen.contains(&"t:///d/f20".to_owned()),
        "removed before its page"
    );
    assert!(
        seen.contains(&"t:///d/f25a".to_owned()),
        "added after the cursor"
    );
}

#[test]
fn a_cursor_belongs_to_its_directory_and_its_list() {
    let tree = Tree::new(
        &["t:///a", "t:///b"],
        &["t:///a/1", "t:///a/2", "t:///a/3", "t:///b/1", "t:///b/2"],
    );
    let engine = engine(&tree, 1, None);
    let anyone = Principal::anonymous();
    let of_a = run(engine.list_directory(&anyone, &uri("t:///a"), None))
        .unwrap()
        .next_cursor
        .unwrap();
    let elsewhere = run(engine.list_directory(&anyone, &uri("t:///b"), Some(&of_a)));
    assert!(matches!(
        elsewhere,
        Err(DirectoryError::InvalidCursor(CursorError::WrongList { .. }))
    ));
    // Nor on an ancestor: its children are not the cursor's.
    let tree_deep = Tree::new(&["t:///p", "t:///p/q"], &["t:///p/q/1", "t:///p/q/2"]);
    let deep = self::engine(&tree_deep, 1, None);
    let of_q = run(deep.list_directory(&anyone, &uri("t:///p/q"), None))
        .unwrap()
        .next_cursor
        .unwrap();
    let replayed = run(deep.list_directory(&anyone, &uri("t:///p"), Some(&of_q)));
    assert!(
        matches!(replayed, Err(DirectoryError::InvalidCursor(_))),
        "{replayed:?}"
    );
    // A prefix of the directory's name is another directory.
    let prefixed = run(engine.list_directory(&anyone, &uri("t:///"), Some(&of_a)));
    assert!(matches!(prefixed, Err(DirectoryError::InvalidCursor(_))));
    let mut tampered = of_a.clone();
    tampered.replace_range(2..3, if &of_a[2..3] == "A" { "B" } else { "A" });
    assert!(matches!(
        run(engine.list_directory(&anyone, &uri("t:///a"), Some(&tampered))),
        Err(DirectoryError::InvalidCursor(_))
    ));
    // The resource list takes no directory cursor.
    assert!(run(engine.list_resources(&anyone, Some(&of_a))).is_err());
}

#[test]
fn a_file_a_missing_path_and_an_unclaimed_uri_are_not_directories() {
    let tree = Tree::new(&["t:///d"], &["t:///d/file"]);
    let engine = engine(&tree, 10, None);
    let anyone = Principal::anonymous();
    for not_one in ["t:///d/file", "t:///d/missing", "other:///d"] {
        let answer = run(engine.list_directory(&anyone, &uri(not_one), None));
        assert!(
            matches!(answer, Err(DirectoryError::NotADirectory { ref uri }) if uri == not_one),
            "{not_one}: {answer:?}"
        );
    }
}

#[test]
fn the_policy_hides_children_and_directories() {
    let tree = Tree::new(
        &["t:///r", "t:///r/open", "t:///r/shut"],
        &[
            "t:///r/open/a",
            "t:///r/shut/b",
            "t:///r/top.md",
            "t:///r/top.txt",
        ],
    );
    // Anyone may list the root's markdown and walk `open`, nothing else.
    let policy = PatternPolicy::new()
        .grant(
            Grantee::Anyone,
            Action::List,
            UriPattern::parse("t:///r").unwrap(),
        )
        .grant(
            Grantee::Anyone,
            Action::List,
            UriPattern::parse("t:///r/*.md").unwrap(),
        )
        .grant(
            Grantee::Anyone,
            Action::List,
            UriPattern::parse("t:///r/open/**").unwrap(),
        );
    let engine = engine(&tree, 10, Some(policy));
    let anyone = Principal::anonymous();
    assert_eq!(
        walk(&engine, &anyone, "t:///r"),
        ["t:///r/open", "t:///r/top.md"],
        "denied children are absent; a `dir/**` grant shows `dir`"
    );
    assert_eq!(walk(&engine, &anyone, "t:///r/open"), ["t:///r/open/a"]);
    let shut = run(engine.list_directory(&anyone, &uri("t:///r/shut"), None));
    assert!(
        matches!(shut, Err(DirectoryError::NotADirectory { .. })),
        "a denied directory is as missing: {shut:?}"
    );
}
