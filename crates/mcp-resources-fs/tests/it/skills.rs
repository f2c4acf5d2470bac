//! The skills provider against a real directory: which directories are skills (and why others
//! are skipped), their manifests and digests, reads and directory reads under `skill://`, the
//! sandbox, and live changes.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::change::Change;
use mcp_resources_core::engine::Engine;
use mcp_resources_core::pagination::CursorKey;
use mcp_resources_core::policy::Principal;
use mcp_resources_core::provider::{ListRequest, Provider, ReadRequest};
use mcp_resources_core::resource::{Body, Resource};
use mcp_resources_core::skill::{Skill, SkillFiles};
use mcp_resources_core::uri::ResourceUri;
use mcp_resources_fs::{FsConfig, SkillsProvider};
use sha2::{Digest, Sha256};
use tempfile::TempDir;

fn skill_md(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\nmetadata:\n  version: 1\n---\n# {name}\n"
    )
}

/// A skills directory: three valid skills (one nested in another, one under a prefix), and
/// directories that break a rule.
fn skills_dir() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, String)] = &[
        (
            "pdf-tools/SKILL.md",
            skill_md("pdf-tools", "Fills PDF forms."),
        ),
        ("pdf-tools/reference.md", "see also".to_owned()),
        ("pdf-tools/scripts/fill.py", "print('fill')\n".to_owned()),
        ("pdf-tools/.env", "TOKEN=secret".to_owned()),
        (
            "pdf-tools/forms/SKILL.md",
            skill_md("forms", "Knows forms."),
        ),
        (
            "acme/billing/refunds/SKILL.md",
            skill_md("refunds", "Refunds orders."),
        ),
        ("wrong-name/SKILL.md", skill_md("other", "Named otherwise.")),
        ("Upper/SKILL.md", skill_md("Upper", "Not a valid name.")),
        ("bare/SKILL.md", "# No frontmatter\n".to_owned()),
        (
            "no-description/SKILL.md",
            "---\nname: no-description\n---\n".to_owned(),
        ),
        ("loose.txt", "in no skill".to_owned()),
    ];
    for (relative, text) in files {
        let path = dir.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let outside = dir.path().join("loose.txt");
    symlink(outside, dir.path().join("pdf-tools/linked.txt")).unwrap();
    dir
}

fn provider(dir: &Path, watch: bool) -> SkillsProvider {
    let mut config = FsConfig::new([dir]);
    config.watch = watch;
    SkillsProvider::new(config).unwrap()
}

fn engine(provider: &SkillsProvider) -> Engine {
    Engine::builder(CursorKey::new([3; 32]))
        .provider(Arc::new(provider.clone()))
        .build()
        .unwrap()
}

fn uri(text: &str) -> ResourceUri {
    ResourceUri::parse(text).unwrap()
}

async fn skills(engine: &Engine) -> Vec<Skill> {
    engine
        .list_skills(&Principal::anonymous(), None)
        .await
        .unwrap()
        .items
}

async fn read(provider: &SkillsProvider, text: &str) -> Option<(Body, Option<String>)> {
    let principal = Principal::anonymous();
    let uri = uri(text);
    let request = ReadRequest {
        inputs: mcp_resources_core::input::Inputs::none(),
        principal: &principal,
        uri: &uri,
        template: None,
        variables: None,
        range: None,
    };
    let mut contents = provider.read(request).await.unwrap()?;
    assert_eq!(contents.len(), 1);
    let part = contents.remove(0);
    assert_eq!(part.uri, uri, "read back under its skill:// URI");
    Some((part.body, part.mime_type))
}

#[tokio::test]
async fn valid_skills_are_listed_with_their_manifests_and_the_rest_skipped() {
    let dir = skills_dir();
    let provider = provider(dir.path(), false);
    let engine = engine(&provider);
    let listed = skills(&engine).await;
    let uris: Vec<&str> = listed.iter().map(|skill| skill.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/forms/SKILL.md",
        ],
        "a wrong name, an invalid name, no frontmatter and no description are skipped"
    );
    let pdf = &listed[1];
    assert_eq!(pdf.name(), Some("pdf-tools"));
    assert_eq!(pdf.description(), Some("Fills PDF forms."));
    let SkillFiles::Manifest(files) = &pdf.files else {
        panic!("a manifest");
    };
    let manifest: Vec<&str> = files.iter().map(|file| file.uri.as_str()).collect();
    assert_eq!(
        manifest,
        [
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/forms/SKILL.md",
            "skill://pdf-tools/reference.md",
            "skill://pdf-tools/scripts/fill.py",
        ],
        "nested skills' files count, secrets and symlinks do not"
    );
    let fill = &files[3];
    let bytes = fs::read(dir.path().join("pdf-tools/scripts/fill.py")).unwrap();
    assert_eq!(fill.size, bytes.len() as u64);
    let expected: [u8; 32] = Sha256::digest(&bytes).into();
    assert_eq!(fill.sha256, expected);

    // resources/list shows each SKILL.md, named and described as its frontmatter says.
    let principal = Principal::anonymous();
    let resources: Vec<Resource> = provider
        .list(ListRequest {
            principal: &principal,
            after: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert_eq!(resources.len(), 3);
    assert_eq!(resources[1].name, "pdf-tools");
    assert_eq!(
        resources[1].description.as_deref(),
        Some("Fills PDF forms.")
    );
    assert_eq!(resources[1].mime_type.as_deref(), Some("text/markdown"));

    let found = engine
        .get_skill(&principal, &uri("skill://pdf-tools/forms/SKILL.md"))
        .await
        .unwrap();
    assert_eq!(found.skill.name(), Some("forms"));
    assert!(
        engine
            .get_skill(&principal, &uri("skill://pdf-tools/reference.md"))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn only_files_of_valid_skills_are_read_and_their_bytes_match_the_digest() {
    let dir = skills_dir();
    let provider = provider(dir.path(), false);
    let (body, mime) = read(&provider, "skill://pdf-tools/SKILL.md").await.unwrap();
    assert_eq!(mime.as_deref(), Some("text/markdown"));
    let Body::Text(text) = body else {
        panic!("SKILL.md is text");
    };
    assert!(text.starts_with("---\nname: pdf-tools"));
    let (body, _) = read(&provider, "skill://pdf-tools/scripts/fill.py")
        .await
        .unwrap();
    let bytes = fs::read(dir.path().join("pdf-tools/scripts/fill.py")).unwrap();
    assert_eq!(body.len(), bytes.len() as u64);
    for hidden in [
        "skill://loose.txt",
        "skill://wrong-name/SKILL.md",
        "skill://pdf-tools/.env",
        "skill://pdf-tools/linked.txt",
        "skill://pdf-tools/../loose.txt",
        "skill://pdf-tools/scripts%2F..%2F..%2Floose.txt",
    ] {
        let Ok(parsed) = ResourceUri::parse(hidden) else {
            continue;
        };
        assert!(
            read(&provider, parsed.as_str()).await.is_none(),
            "{hidden} is served"
        );
    }
}

#[tokio::test]
async fn a_dot_authority_is_no_second_name_for_a_skill_file() {
    let dir = skills_dir();
    let provider = provider(dir.path(), false);
    let name = fs::canonicalize(dir.path()).unwrap();
    let name = name.file_name().unwrap().to_str().unwrap().to_owned();
    for alias in [
        format!("skill://../{name}/pdf-tools/scripts/fill.py"),
        format!("skill://%2E%2E/{name}/pdf-tools/scripts/fill.py"),
        "skill://./pdf-tools/SKILL.md".to_owned(),
    ] {
        let Ok(parsed) = ResourceUri::parse(&alias) else {
            continue;
        };
        assert!(
            read(&provider, parsed.as_str()).await.is_none(),
            "{alias} is served"
        );
    }
}

#[tokio::test]
async fn a_file_changed_under_its_manifest_is_refused_until_the_manifest_has_it() {
    let dir = skills_dir();
    let provider = provider(dir.path(), false);
    let engine = engine(&provider);
    let path = dir.path().join("pdf-tools/reference.md");
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    // The same size and modification time, other bytes (as `cp -p` or a coarse clock leave).
    fs::write(&path, "SEE ALSO").unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let principal = Principal::anonymous();
    let file = uri("skill://pdf-tools/reference.md");
    let request = ReadRequest {
        inputs: mcp_resources_core::input::Inputs::none(),
        principal: &principal,
        uri: &file,
        template: None,
        variables: None,
        range: None,
    };
    let refused = provider.read(request).await.unwrap_err();
    assert!(refused.is_public(), "{refused}");
    assert!(refused.message().contains("skills/get"), "{refused}");
    // The manifest now has the new bytes, and the read serves them under it.
    let found = engine
        .get_skill(&principal, &uri("skill://pdf-tools/SKILL.md"))
        .await
        .unwrap();
    let SkillFiles::Manifest(files) = found.skill.files else {
        panic!("a manifest");
    };
    let expected: [u8; 32] = Sha256::digest(b"SEE ALSO").into();
    let entry = files.iter().find(|entry| entry.uri == file).unwrap();
    assert_eq!(entry.sha256, expected);
    let (body, _) = read(&provider, file.as_str()).await.unwrap();
    assert_eq!(body, Body::Text("SEE ALSO".into()));
}

#[tokio::test]
async fn skill_directories_are_directory_resources() {
    let dir = skills_dir();
    let provider = provider(dir.path(), false);
    let engine = engine(&provider);
    let principal = Principal::anonymous();
    let children = |text: &'static str| {
        let engine = &engine;
        let principal = &principal;
        async move {
            engine
                .list_directory(principal, &uri(text), None)
                .await
                .map(|page| {
                    page.items
                        .into_iter()
                        .map(|child| (child.uri.as_str().to_owned(), child.is_directory()))
                        .collect::<Vec<_>>()
                })
        }
    };
    assert_eq!(
        children("skill://pdf-tools").await.unwrap(),
        [
            ("skill://pdf-tools/SKILL.md".to_owned(), false),
            ("skill://pdf-tools/forms".to_owned(), true),
            ("skill://pdf-tools/reference.md".to_owned(), false),
            ("skill://pdf-tools/scripts".to_owned(), true),
        ]
    );
    assert_eq!(
        children("skill://pdf-tools/scripts").await.unwrap(),
        [("skill://pdf-tools/scripts/fill.py".to_owned(), false)]
    );
    for not_one in [
        "skill://acme",
        "skill://wrong-name",
        "skill://pdf-tools/SKILL.md",
        "skill://pdf-tools/missing",
    ] {
        assert!(children(not_one).await.is_err(), "{not_one}");
    }
}

#[tokio::test]
async fn a_new_skill_and_a_changed_file_are_reported() {
    let dir = skills_dir();
    let provider = provider(dir.path(), true);
    let mut watcher = provider.watch().unwrap();
    fs::create_dir_all(dir.path().join("new-skill")).unwrap();
    fs::write(
        dir.path().join("new-skill/SKILL.md"),
        skill_md("new-skill", "Arrived late."),
    )
    .unwrap();
    let created = uri("skill://new-skill/SKILL.md");
    wait_for(&mut watcher, |change| {
        matches!(change, Change::ListChanged { created: uris, .. } if uris.contains(&created))
    })
    .await;
    assert_eq!(provider.len(), 4);

    fs::write(dir.path().join("pdf-tools/reference.md"), "changed").unwrap();
    let file = uri("skill://pdf-tools/reference.md");
    let skill = uri("skill://pdf-tools/SKILL.md");
    let mut seen = Vec::new();
    while !(seen.contains(&Change::Updated(file.clone()))
        && seen.contains(&Change::Updated(skill.clone())))
    {
        seen.push(next(&mut watcher).await);
    }
    let engine = engine(&provider);
    let found = engine
        .get_skill(&Principal::anonymous(), &skill)
        .await
        .unwrap();
    let SkillFiles::Manifest(files) = found.skill.files else {
        panic!("a manifest");
    };
    let reference = files.iter().find(|entry| entry.uri == file).unwrap();
    let expected: [u8; 32] = Sha256::digest(b"changed").into();
    assert_eq!(
        reference.sha256, expected,
        "the manifest has the new digest"
    );
}

async fn next(watcher: &mut mcp_resources_fs::SkillsWatcher) -> Change {
    tokio::time::timeout(Duration::from_secs(10), watcher.recv())
        .await
        .expect("a change within 10 s")
        .expect("the watcher runs")
}

async fn wait_for(watcher: &mut mcp_resources_fs::SkillsWatcher, wanted: impl Fn(&Change) -> bool) {
    for _ in 0..20 {
        if wanted(&next(watcher).await) {
            return;
        }
    }
    panic!("the change never came");
}

/// The content rules reach what a skill's author wrote in its frontmatter: a token in a
/// description or a metadata value is masked in skills/list, skills/get and the resource list,
/// and in a ranged read of a skill file that cuts it.
#[tokio::test]
async fn content_rules_mask_frontmatter_and_skill_file_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let token = "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";
    fs::create_dir_all(dir.path().join("deploy")).unwrap();
    fs::write(
        dir.path().join("deploy/SKILL.md"),
        format!(
            "---\nname: deploy\ndescription: Deploys with {token}\nmetadata:\n  api_key: AKIAIOSFODNN7EXAMPLE\n---\n# deploy\n"
        ),
    )
    .unwrap();
    let body = format!("export GITHUB_TOKEN={token}\n");
    fs::write(dir.path().join("deploy/notes.txt"), &body).unwrap();
    let mut config = FsConfig::new([dir.path()]);
    config.watch = false;
    let rules = mcp_resources_core::redact::Redactor::credentials();
    let provider = SkillsProvider::with_content_rules(config, rules.clone()).unwrap();
    let engine = Engine::builder(CursorKey::new([3; 32]))
        .provider(Arc::new(provider.clone()))
        .redactor(rules)
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let listed = format!(
        "{:?}",
        engine.list_skills(&anyone, None).await.unwrap().items
    );
    let got = format!(
        "{:?}",
        engine
            .get_skill(&anyone, &uri("skill://deploy/SKILL.md"))
            .await
            .unwrap()
            .skill
    );
    let resources = format!(
        "{:?}",
        engine.list_resources(&anyone, None).await.unwrap().items
    );
    for text in [&listed, &got, &resources] {
        assert!(text.contains("Deploys with"), "{text}");
        assert!(
            !text.contains("wWPw5k4a") && !text.contains("AKIAIOSF"),
            "{text}"
        );
    }
    let at = body.find(token).unwrap();
    let part = engine
        .read(
            &anyone,
            &uri(&format!(
                "skill://deploy/notes.txt?offset={}&length=10",
                at + 10
            )),
        )
        .await
        .unwrap();
    assert_eq!(part.contents[0].body, Body::Text("**********".into()));
    // The manifest's digest is of the file as a read serves it, masked: a digest of the
    // file as written would let anyone guess a short secret against it.
    let whole = engine
        .read(&anyone, &uri("skill://deploy/notes.txt"))
        .await
        .unwrap();
    let Body::Text(served) = &whole.contents[0].body else {
        panic!("text");
    };
    assert!(!served.contains("wWPw5k4a"), "{served}");
    let skill = engine
        .get_skill(&anyone, &uri("skill://deploy/SKILL.md"))
        .await
        .unwrap()
        .skill;
    let SkillFiles::Manifest(files) = &skill.files else {
        panic!("a manifest");
    };
    let notes = files
        .iter()
        .find(|file| file.uri.as_str() == "skill://deploy/notes.txt")
        .unwrap();
    assert_eq!(
        notes.sha256,
        <[u8; 32]>::from(Sha256::digest(served.as_bytes()))
    );
}
