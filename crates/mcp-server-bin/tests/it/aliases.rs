//! Every name of a sensitive resource is judged alike (found by a second hostile review): a
//! rule on `skill://` covers the file's `file://` name and the reverse, for reads, lists,
//! `skills/list`, subscriptions, completion and audit lines; `grant = true` on one name denies
//! the other; a rule written with a file's name as it is on disk (a space, an accent) covers the
//! URI the server lists; odd file names are listed and read back by the URI listed.

use std::path::Path;

use serde_json::{Value, json};

use crate::bypass::{SALARY, legacy_without_elicitation as legacy, skill_tree, spawn, text_of};
use crate::stdio::{Spawned, with_meta};

fn list_all(server: &mut Spawned, id0: u64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0..50 {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = server.request(json!(id0 + i), "resources/list", params);
        out.extend(
            r["result"]["resources"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    out
}

fn audit(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("audit.jsonl")).unwrap_or_default()
}

/// A confirm rule written on `skill://` holds for the `file://` name of the same file.
#[test]
fn a_skill_rule_covers_the_file_name() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"skill://payroll/**\"]\nconfirm = true\n",
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let skill = server.request(
        json!(2),
        "resources/read",
        json!({"uri": "skill://payroll/pin.txt"}),
    );
    assert!(!text_of(&skill).contains("4711"), "baseline {skill}");
    let file = format!("file://{}/skills/payroll/pin.txt", root.display());
    let read = server.request(json!(3), "resources/read", json!({"uri": file}));
    server.close_stdin();
    server.wait_exit();
    assert!(
        !text_of(&read).contains("4711"),
        "file:// name served without confirmation: {read}\naudit:\n{}",
        audit(dir.path())
    );
}

/// `resources/list` does not describe a confirmed skill (its description is frontmatter).
#[test]
fn resources_list_does_not_describe_a_confirmed_skill() {
    for rule in [
        "file://ROOT/skills/**".to_owned(),
        "skill://payroll/**".to_owned(),
    ] {
        let (dir, root, skills) = skill_tree();
        let rule = rule.replace("ROOT", &root.display().to_string());
        let config = format!(
            "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
             [[sensitive]]\nname = \"payroll\"\nuris = [\"{rule}\"]\nconfirm = true\n",
        );
        let mut server = spawn(dir.path(), &root, &config);
        legacy(&mut server);
        let skills_list = server.request(json!(2), "skills/list", json!({}));
        let listed = list_all(&mut server, 10);
        server.close_stdin();
        server.wait_exit();
        let text = serde_json::to_string(&listed).unwrap();
        assert!(!skills_list.to_string().contains(SALARY), "{skills_list}");
        assert!(
            !text.contains(SALARY),
            "rule {rule}: resources/list describes a confirmed skill: {text}\naudit:\n{}",
            audit(dir.path())
        );
    }
}

/// `grant = true` on the `file://` names of a skill: `skills/list` and `skills/get` hide it.
#[test]
fn grant_true_on_file_names_hides_the_skill() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"file://{}/skills/**\"]\ngrant = true\n",
        root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let listed = server.request(json!(2), "skills/list", json!({}));
    let got = server.request(
        json!(3),
        "skills/get",
        json!({"uri": "skill://payroll/SKILL.md"}),
    );
    let all = list_all(&mut server, 10);
    let read = server.request(
        json!(4),
        "resources/read",
        json!({"uri": "skill://payroll/SKILL.md"}),
    );
    server.close_stdin();
    server.wait_exit();
    let text = format!(
        "{listed}\n{got}\n{}\n{read}",
        serde_json::to_string(&all).unwrap()
    );
    assert!(
        !text.contains(SALARY),
        "grant = true without grants, still described: {text}\naudit:\n{}",
        audit(dir.path())
    );
}

/// Audit completeness: a list or subscription of the `skill://` name of an audited `file://` rule.
#[test]
fn audit_lines_for_every_name() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"file://{}/skills/payroll/SKILL.md\"]\n",
        root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let listed = list_all(&mut server, 10);
    let sub = server.request(
        json!(100),
        "resources/subscribe",
        json!({"uri": "skill://payroll/SKILL.md"}),
    );
    let sub2 = server.request(
        json!(101),
        "resources/subscribe",
        json!({"uri": format!("file://{}/skills/payroll/SKILL.md?offset=0", root.display())}),
    );
    let read = server.request(
        json!(102),
        "resources/read",
        json!({"uri": "skill://payroll/SKILL.md"}),
    );
    assert!(read.get("result").is_some(), "audited only: {read}");
    server.close_stdin();
    server.wait_exit();
    let log = audit(dir.path());
    let skill_listed = listed
        .iter()
        .any(|r| r["uri"] == "skill://payroll/SKILL.md");
    let mut missing = Vec::new();
    if skill_listed
        && !log
            .lines()
            .any(|l| l.contains("\"list\"") && l.contains("skill://payroll/SKILL.md"))
    {
        missing.push("list of skill://payroll/SKILL.md");
    }
    if sub.get("result").is_some()
        && !log
            .lines()
            .any(|l| l.contains("\"subscribe\"") && l.contains("skill://"))
    {
        missing.push("subscribe skill://payroll/SKILL.md");
    }
    if sub2.get("result").is_some()
        && !log
            .lines()
            .any(|l| l.contains("\"subscribe\"") && l.contains("offset=0"))
    {
        missing.push("subscribe ?offset=0");
    }
    assert!(missing.is_empty(), "not audited: {missing:?}\n{log}");
}

/// Odd file names, listed then read by the URI listed, in both eras.
#[test]
fn odd_file_names_are_read_by_the_uri_listed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("d ir")).unwrap();
    let names = [
        "a b.txt",
        "ü.txt",
        "e\u{301}.txt",
        "a+b.txt",
        "a&b.txt",
        "100%.txt",
        "a#b.txt",
        "a?b.txt",
        "a=b.txt",
        "a;b.txt",
        "a'b.txt",
        "a(b).txt",
        "a*b.txt",
        "a:b.txt",
        "a@b.txt",
        "a!b.txt",
        "a$b.txt",
        "a~b.txt",
        "[x].txt",
        "a,b.txt",
        "a%2Fb.txt",
        "%41.txt",
        "a\\b.txt",
        "a\"b.txt",
        "a{b}.txt",
        "a|b.txt",
        "a^b.txt",
        "a`b.txt",
        "a<b>.txt",
        "d ir/x y.txt",
        "-a.txt",
        "a..txt",
        "....txt",
        "a\tb.txt",
        "\u{7f}.txt",
        "a\u{200b}b.txt",
    ];
    for name in names {
        std::fs::write(root.join(name), format!("content of {name}")).unwrap();
    }
    std::fs::write(dir.path().join("c.toml"), "").unwrap();
    let mut server = Spawned::start_with(&[root.as_os_str()]);
    legacy(&mut server);
    let listed = list_all(&mut server, 10);
    let mut failures = Vec::new();
    let mut seen = 0;
    for (i, r) in listed.iter().enumerate() {
        let uri = r["uri"].as_str().unwrap().to_owned();
        let read = server.request(json!(1000 + i), "resources/read", json!({"uri": uri}));
        let modern = server.request(
            json!(5000 + i),
            "resources/read",
            with_meta(json!({"uri": uri})),
        );
        seen += 1;
        if !text_of(&read).starts_with("content of") {
            failures.push(format!("legacy {uri}: {read}"));
        }
        if !text_of(&modern).starts_with("content of") {
            failures.push(format!("modern {uri}: {modern}"));
        }
    }
    let listed_uris: Vec<&str> = listed.iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(seen >= names.len() - 3, "not all listed: {listed_uris:#?}");
}

/// A rule written with the file's name as it is on disk (a space, an accent) covers it.
#[test]
fn a_rule_written_as_on_disk_covers_the_listed_uri() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::write(root.join("hr/my salaries.csv"), SALARY).unwrap();
    std::fs::write(root.join("hr/salarié.csv"), SALARY).unwrap();
    let config = format!(
        "audit_log = \"audit.jsonl\"\n[[sensitive]]\nname = \"hr\"\n\
         uris = [\"file://{r}/hr/my salaries.csv\", \"file://{r}/hr/salarié.csv\"]\nconfirm = true\n",
        r = root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let listed = list_all(&mut server, 10);
    let mut leaks = Vec::new();
    for (i, r) in listed.iter().enumerate() {
        let uri = r["uri"].as_str().unwrap().to_owned();
        let read = server.request(json!(100 + i), "resources/read", json!({"uri": uri}));
        if text_of(&read).contains(SALARY) {
            leaks.push(uri);
        }
    }
    server.close_stdin();
    server.wait_exit();
    assert!(
        leaks.is_empty(),
        "config accepted, rules match nothing: {leaks:#?}\naudit:\n{}",
        audit(dir.path())
    );
}

/// Subscriptions (legacy subscribe, modern listen) and completion to other names of a
/// grant = true / audited resource.
#[test]
fn subscribe_listen_and_complete_judge_every_name() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"file://{}/skills/**\"]\ngrant = true\n",
        root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let sub = server.request(
        json!(2),
        "resources/subscribe",
        json!({"uri": "skill://payroll/pin.txt"}),
    );
    let templates = server.request(json!(3), "resources/templates/list", json!({}));
    let mut completions = Vec::new();
    for (i, t) in templates["result"]["resourceTemplates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let text = t["uriTemplate"].as_str().unwrap().to_owned();
        for (j, var) in ["skill", "name", "path", "file"].iter().enumerate() {
            let c = server.request(
                json!(10 + i * 10 + j),
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": text}, "argument": {"name": var, "value": ""}}),
            );
            if c["result"]["completion"]["values"]
                .as_array()
                .is_some_and(|v| !v.is_empty())
            {
                completions.push(format!(
                    "{text} {var}: {}",
                    c["result"]["completion"]["values"]
                ));
            }
        }
    }
    server.close_stdin();
    server.wait_exit();
    assert!(
        sub.get("error").is_some(),
        "grant = true, no grants: subscription accepted: {sub}"
    );
}

/// `grant = true` on `skill://` names: the `file://` name is served to no one.
#[test]
fn grant_true_on_the_skill_name_denies_the_file_name() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"skill://payroll/**\"]\ngrant = true\n",
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let skill = server.request(
        json!(2),
        "resources/read",
        json!({"uri": "skill://payroll/pin.txt"}),
    );
    let file = format!("file://{}/skills/payroll/pin.txt", root.display());
    let read = server.request(json!(3), "resources/read", json!({"uri": file}));
    server.close_stdin();
    server.wait_exit();
    assert!(!text_of(&skill).contains("4711"), "baseline {skill}");
    assert!(
        !text_of(&read).contains("4711"),
        "grant = true, no grants, file:// served: {read}\naudit:\n{}",
        audit(dir.path())
    );
}

/// A principal without the grant cannot subscribe to the `skill://` name and hear of changes.
#[test]
fn no_update_of_a_denied_file_through_its_skill_name() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"file://{}/skills/**\"]\ngrant = true\n",
        root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy(&mut server);
    let file = format!("file://{}/skills/payroll/pin.txt", root.display());
    let refused = server.request(json!(2), "resources/subscribe", json!({"uri": file}));
    let sub = server.request(
        json!(3),
        "resources/subscribe",
        json!({"uri": "skill://payroll/pin.txt"}),
    );
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    assert_eq!(
        sub["error"]["code"], -32002,
        "the skill name is denied too: {sub}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(skills.join("payroll/pin.txt"), "9999").unwrap();
    let heard = server.unclaimed_after(std::time::Duration::from_millis(1500));
    assert!(
        !heard
            .iter()
            .any(|message| message.to_string().contains("pin.txt")),
        "{heard:?}"
    );
}
