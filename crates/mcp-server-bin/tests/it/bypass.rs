//! Other ways to a sensitive resource, each refused: an empty query or empty pairs after its
//! URI, another percent-encoding of its name, a range without content rules under `grant =
//! true`, its skill's frontmatter and digests, its `skill://` name for a `file://` rule, and a
//! cache hint that would let a gateway share a confirmed read (found by a hostile review).

use std::ffi::OsStr;
use std::path::Path;

use serde_json::{Value, json};

use crate::stdio::{Spawned, with_meta};

pub(crate) const SALARY: &str = "alice,120000";

fn setup(extra: &str) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::write(
        root.join("hr/salaries.csv"),
        format!("name,salary\n{SALARY}\n"),
    )
    .unwrap();
    std::fs::write(root.join("hr/a+b.csv"), format!("name,salary\n{SALARY}\n")).unwrap();
    std::fs::write(root.join("readme.txt"), "read me").unwrap();
    let config = format!(
        "audit_log = \"audit.jsonl\"\n{extra}\n\
         [[sensitive]]\nname = \"hr\"\nuris = [\"file://{root}/hr/salaries.csv\", \"file://{root}/hr/a+b.csv\"]\n\
         confirm = true\n",
        root = root.display()
    );
    (dir, root, config)
}

pub(crate) fn spawn(dir: &Path, root: &Path, config: &str) -> Spawned {
    let file = dir.join("stdio.toml");
    std::fs::write(&file, config).unwrap();
    Spawned::start_with(&[OsStr::new("--config"), file.as_os_str(), root.as_os_str()])
}

pub(crate) fn legacy_without_elicitation(server: &mut Spawned) {
    handshake(server, "2025-06-18");
}

/// A legacy session of `version` whose client declares no capability.
pub(crate) fn handshake(server: &mut Spawned, version: &str) {
    let init = server.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], version, "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

pub(crate) fn text_of(value: &Value) -> String {
    value["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[test]
fn a_plain_read_without_elicitation_is_refused() {
    let (dir, root, config) = setup("");
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let uri = format!("file://{}/hr/salaries.csv", root.display());
    let r = server.request(json!(2), "resources/read", json!({"uri": uri}));
    assert!(!text_of(&r).contains(SALARY), "{r}");
}

#[test]
fn an_empty_query_is_no_other_name() {
    let (dir, root, config) = setup("");
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let mut leaks = Vec::new();
    for (i, suffix) in ["?", "?&", "?&&"].iter().enumerate() {
        let uri = format!("file://{}/hr/salaries.csv{suffix}", root.display());
        let r = server.request(json!(10 + i), "resources/read", json!({"uri": uri}));
        if text_of(&r).contains(SALARY) {
            leaks.push(uri.clone());
        }
        // modern, no elicitation capability
        let r = server.request(
            json!(20 + i),
            "resources/read",
            with_meta(json!({"uri": uri})),
        );
        if text_of(&r).contains(SALARY) {
            leaks.push(format!("modern {uri}"));
        }
    }
    server.close_stdin();
    server.wait_exit();
    let log = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap_or_default();
    assert!(
        leaks.is_empty(),
        "served without confirmation: {leaks:#?}\naudit log:\n{log}"
    );
}

#[test]
fn another_percent_encoding_is_no_other_name() {
    let (dir, root, config) = setup("");
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let uri = format!("file://{}/hr/a%2Bb.csv", root.display());
    let r = server.request(json!(2), "resources/read", json!({"uri": uri}));
    assert!(
        !text_of(&r).contains(SALARY),
        "served without confirmation: {r}"
    );
}

#[test]
fn grant_true_without_grants_serves_no_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::write(
        root.join("hr/salaries.csv"),
        format!("name,salary\n{SALARY}\n"),
    )
    .unwrap();
    let config = format!(
        "audit_log = \"audit.jsonl\"\n[[sensitive]]\nname = \"hr\"\nuris = [\"file://{root}/hr/salaries.csv\"]\ngrant = true\n",
        root = root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let mut leaks = Vec::new();
    for (i, suffix) in ["", "?", "?offset=0"].iter().enumerate() {
        let uri = format!("file://{}/hr/salaries.csv{suffix}", root.display());
        let r = server.request(json!(10 + i), "resources/read", json!({"uri": uri}));
        if text_of(&r).contains(SALARY) {
            leaks.push(uri);
        }
    }
    assert!(
        leaks.is_empty(),
        "served to a principal without a grant: {leaks:#?}"
    );
}

#[test]
fn grant_true_without_grants_serves_no_range_without_content_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("hr")).unwrap();
    std::fs::write(
        root.join("hr/salaries.csv"),
        format!("name,salary\n{SALARY}\n"),
    )
    .unwrap();
    let config = format!(
        "redact_content = false\naudit_log = \"audit.jsonl\"\n[[sensitive]]\nname = \"hr\"\nuris = [\"file://{root}/hr/salaries.csv\"]\ngrant = true\nconfirm = true\n",
        root = root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let mut leaks = Vec::new();
    for (i, suffix) in ["", "?offset=0", "?offset=0&length=100"].iter().enumerate() {
        let uri = format!("file://{}/hr/salaries.csv{suffix}", root.display());
        let r = server.request(json!(10 + i), "resources/read", json!({"uri": uri}));
        if text_of(&r).contains(SALARY) {
            leaks.push(uri);
        }
    }
    assert!(
        leaks.is_empty(),
        "served without grant or confirmation: {leaks:#?}"
    );
}

pub(crate) fn skill_tree() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    let skills = root.join("skills");
    let skill = skills.join("payroll");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        format!(
            "---\nname: payroll\ndescription: Pays {SALARY}.\nbank_pin: \"4711\"\n---\n# {SALARY}\n"
        ),
    )
    .unwrap();
    std::fs::write(skill.join("pin.txt"), "4711").unwrap();
    (dir, root, skills)
}

#[test]
fn a_confirmed_skill_is_not_described_and_an_audited_one_is_recorded() {
    for confirm in [true, false] {
        let (dir, root, skills) = skill_tree();
        let config = format!(
            "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
             [[sensitive]]\nname = \"payroll\"\nuris = [\"skill://payroll/**\"]\n\
             confirm = {confirm}\n",
        );
        let mut server = spawn(dir.path(), &root, &config);
        legacy_without_elicitation(&mut server);
        let listed = server.request(json!(3), "skills/list", json!({}));
        let got = server.request(
            json!(4),
            "skills/get",
            json!({"uri": "skill://payroll/SKILL.md"}),
        );
        server.close_stdin();
        server.wait_exit();
        let log = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap_or_default();
        let skill_lines = log
            .lines()
            .filter(|line| line.contains("\"action\":\"skill\""))
            .count();
        if confirm {
            // Hidden: its frontmatter and the digest of a 4-byte file would tell too much.
            let both = format!("{listed} {got}");
            assert!(!both.contains(SALARY) && !both.contains("4711"), "{both}");
            assert!(got.get("error").is_some(), "{got}");
            assert_eq!(skill_lines, 0, "{log}");
        } else {
            // Described, and recorded once by each method.
            assert!(listed.to_string().contains("payroll"), "{listed}");
            assert!(got.get("result").is_some(), "{got}");
            assert_eq!(skill_lines, 2, "{log}");
        }
    }
}

#[test]
fn a_skill_name_of_a_confirmed_file_is_confirmed_too() {
    let (dir, root, skills) = skill_tree();
    let config = format!(
        "audit_log = \"audit.jsonl\"\nskills = {skills:?}\n\
         [[sensitive]]\nname = \"payroll\"\nuris = [\"file://{root}/skills/**\"]\nconfirm = true\n",
        root = root.display()
    );
    let mut server = spawn(dir.path(), &root, &config);
    legacy_without_elicitation(&mut server);
    let file = format!("file://{}/skills/payroll/pin.txt", root.display());
    let read = server.request(json!(2), "resources/read", json!({"uri": file}));
    assert!(!text_of(&read).contains("4711"), "baseline {read}");
    let read = server.request(
        json!(3),
        "resources/read",
        json!({"uri": "skill://payroll/pin.txt"}),
    );
    assert!(
        !text_of(&read).contains("4711"),
        "served as skill:// without confirmation: {read}"
    );
}

#[test]
fn a_confirmed_read_is_private_and_never_cached() {
    let (dir, root, config) = setup("");
    let mut server = spawn(dir.path(), &root, &config);
    let uri = format!("file://{}/hr/salaries.csv", root.display());
    let mut params = with_meta(json!({"uri": uri}));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let first = server.request(json!(1), "resources/read", params.clone());
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    params["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    params["requestState"] = first["result"]["requestState"].clone();
    let served = server.request(json!(2), "resources/read", params);
    assert!(text_of(&served).contains(SALARY));
    let text = served.to_string();
    assert!(
        !text.contains("\"public\""),
        "a confirmed sensitive read marked shareable: {served}"
    );
}
