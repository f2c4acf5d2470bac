//! Skills through the engine: the list paged across providers, a skill hidden from whoever may
//! not read one of its files, and `get_skill` by the `SKILL.md` URI.

use std::num::NonZeroUsize;
use std::sync::Arc;

use async_trait::async_trait;
use mcp_resources_core::engine::{Engine, EngineBuilder, Limits, MAX_SKILLS_PAGE};
use mcp_resources_core::error::SkillError;
use mcp_resources_core::policy::{Action, Grantee, PatternPolicy, Principal, UriPattern};
use mcp_resources_core::provider::{
    ListRequest, Provider, ProviderError, ReadRequest, SkillRequest,
};
use mcp_resources_core::resource::{Contents, Resource};
use mcp_resources_core::skill::{Frontmatter, FrontmatterValue, Skill, SkillFile, SkillFiles};
use mcp_resources_core::uri::ResourceUri;

use crate::fixtures::{key, run, uri};

/// A provider of fixed skills under one URI scheme, each with a `SKILL.md` and one script.
struct Skills {
    scheme: &'static str,
    skills: Vec<Skill>,
}

impl Skills {
    fn new(scheme: &'static str, names: &[&str]) -> Arc<Skills> {
        let mut skills: Vec<Skill> = names
            .iter()
            .map(|name| {
                let root = format!("{scheme}://{name}");
                let file = |path: &str| SkillFile {
                    uri: uri(&format!("{root}/{path}")),
                    sha256: [1; 32],
                    size: 3,
                };
                Skill {
                    uri: uri(&format!("{root}/SKILL.md")),
                    frontmatter: Frontmatter(vec![
                        ("name".into(), FrontmatterValue::String((*name).into())),
                        (
                            "description".into(),
                            FrontmatterValue::String("does things".into()),
                        ),
                    ]),
                    files: SkillFiles::Manifest(vec![file("SKILL.md"), file("scripts/run.sh")]),
                }
            })
            .collect();
        skills.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        Arc::new(Skills { scheme, skills })
    }
}

#[async_trait]
impl Provider for Skills {
    fn claims(&self, uri: &ResourceUri) -> bool {
        uri.scheme() == self.scheme
    }

    async fn list(&self, _request: ListRequest<'_>) -> Result<Vec<Resource>, ProviderError> {
        Ok(Vec::new())
    }

    async fn read(&self, request: ReadRequest<'_>) -> Result<Option<Vec<Contents>>, ProviderError> {
        Ok(Some(vec![Contents::text(request.uri.clone(), "abc")]))
    }

    async fn list_skills(&self, request: ListRequest<'_>) -> Result<Vec<Skill>, ProviderError> {
        let after = request.after.unwrap_or("");
        Ok(self
            .skills
            .iter()
            .filter(|skill| skill.uri.as_str() > after)
            .take(request.limit)
            .cloned()
            .collect())
    }

    async fn get_skill(&self, request: SkillRequest<'_>) -> Result<Option<Skill>, ProviderError> {
        Ok(self
            .skills
            .iter()
            .find(|skill| &skill.uri == request.uri)
            .cloned())
    }
}

fn engine(policy: Option<PatternPolicy>) -> Engine {
    let mut builder = EngineBuilder::new(key())
        .limits(Limits {
            page_size: NonZeroUsize::new(2).unwrap(),
            ..Limits::default()
        })
        .provider(Skills::new("one", &["a", "b", "c"]))
        .provider(Skills::new("two", &["d", "e"]));
    if let Some(policy) = policy {
        builder = builder.policy(Arc::new(policy));
    }
    builder.build().unwrap()
}

fn names(engine: &Engine, principal: &Principal) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = None;
    for _ in 0..100 {
        let page = run(engine.list_skills(principal, cursor.as_deref())).unwrap();
        assert!(page.items.len() <= 2);
        names.extend(
            page.items
                .iter()
                .map(|skill| skill.name().unwrap().to_owned()),
        );
        cursor = page.next_cursor;
        if cursor.is_none() {
            return names;
        }
    }
    panic!("the skill list does not end");
}

#[test]
fn skills_are_paged_across_providers_in_order() {
    let engine = engine(None);
    assert_eq!(
        names(&engine, &Principal::anonymous()),
        ["a", "b", "c", "d", "e"]
    );
    // A skill cursor is no resource cursor, and the reverse.
    let cursor = run(engine.list_skills(&Principal::anonymous(), None))
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(run(engine.list_resources(&Principal::anonymous(), Some(&cursor))).is_err());
}

#[test]
fn a_skills_page_holds_at_most_twenty_whatever_the_page_size() {
    let names: Vec<String> = (0..45).map(|index| format!("s{index:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let engine = EngineBuilder::new(key())
        .provider(Skills::new("many", &names))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let first = run(engine.list_skills(&anyone, None)).unwrap();
    assert_eq!(first.items.len(), MAX_SKILLS_PAGE);
    let second = run(engine.list_skills(&anyone, first.next_cursor.as_deref())).unwrap();
    assert_eq!(second.items[0].name(), Some("s20"));
}

#[test]
fn a_skill_with_a_file_the_principal_may_not_read_is_hidden() {
    // Anyone may list every SKILL.md, but read the files of `one://a` and `two://…` only.
    let policy = PatternPolicy::new()
        .grant(
            Grantee::Anyone,
            Action::List,
            UriPattern::parse("*://*/SKILL.md").unwrap(),
        )
        .grant(
            Grantee::Anyone,
            Action::Read,
            UriPattern::parse("one://a/**").unwrap(),
        )
        .grant(
            Grantee::Anyone,
            Action::Read,
            UriPattern::parse("two://**").unwrap(),
        );
    let engine = engine(Some(policy));
    let anyone = Principal::anonymous();
    assert_eq!(names(&engine, &anyone), ["a", "d", "e"]);
    let hidden = run(engine.get_skill(&anyone, &uri("one://b/SKILL.md")));
    assert!(
        matches!(hidden, Err(SkillError::NotASkill { .. })),
        "{hidden:?}"
    );
    let shown = run(engine.get_skill(&anyone, &uri("one://a/SKILL.md"))).unwrap();
    assert_eq!(shown.skill.name(), Some("a"));
}

#[test]
fn get_skill_knows_only_skill_files() {
    let engine = engine(None);
    let anyone = Principal::anonymous();
    let found = run(engine.get_skill(&anyone, &uri("two://e/SKILL.md"))).unwrap();
    assert_eq!(found.skill.uri.as_str(), "two://e/SKILL.md");
    for not_one in [
        "two://e/scripts/run.sh",
        "two://z/SKILL.md",
        "other://a/SKILL.md",
    ] {
        let answer = run(engine.get_skill(&anyone, &uri(not_one)));
        assert!(
            matches!(answer, Err(SkillError::NotASkill { ref uri }) if uri == not_one),
            "{not_one}: {answer:?}"
        );
    }
}
