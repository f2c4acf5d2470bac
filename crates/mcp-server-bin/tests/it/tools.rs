//! The resources-as-tools bridge end to end (`--tools`): clients of both eras over stdio, and a
//! modern one over HTTP, list the five tools and call each; every answer is checked against
//! its version's schema; a missing file and a bad argument are tool errors; content rules hold
//! in tool answers; without `--tools` nothing of it is offered.

use std::ffi::OsStr;

use mcp_types::ProtocolVersion;
use serde_json::{Value, json};

use crate::bypass::handshake;
use crate::http::HttpServer;
use crate::stdio::{Spawned, with_meta};

/// Checks `value` against the schema type `name` of `version` (skipped loudly without the
/// spec data, failing under `CI=true`).
fn valid(version: &ProtocolVersion, name: &str, value: &Value) {
    if mcp_types::testing::spec_dir().is_none() {
        return;
    }
    if let Err(error) = mcp_types::testing::validate(version, name, value) {
        panic!("{name} of {version:?} is not valid: {error}\n{value}");
    }
}

fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/guide.md"), "# Guide\nstep one\n").unwrap();
    std::fs::write(
        root.join("config.py"),
        "TOKEN = \"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\"\n",
    )
    .unwrap();
    (dir, root)
}

fn call(server: &mut Spawned, id: u64, modern: bool, name: &str, arguments: Value) -> Value {
    let params = json!({"name": name, "arguments": arguments});
    let params = if modern { with_meta(params) } else { params };
    server.request(json!(id), "tools/call", params)
}

#[test]
fn both_eras_list_and_call_the_tools_over_stdio() {
    let (_dir, root) = tree();
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    let init = server.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let guide = format!("file://{}/docs/guide.md", root.display());
    let docs = format!("file://{}/docs", root.display());
    let mut id = 10;
    for (modern, version) in [
        (false, ProtocolVersion::V2025_06_18),
        (true, ProtocolVersion::V2026_07_28),
    ] {
        id += 100;
        let params = if modern {
            with_meta(json!({}))
        } else {
            json!({})
        };
        let listed = server.request(json!(id), "tools/list", params);
        valid(&version, "ListToolsResult", &listed["result"]);
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 5, "{listed}");

        let mut check = |id: u64, name: &str, arguments: Value| -> Value {
            let answer = call(&mut server, id, modern, name, arguments);
            valid(&version, "CallToolResult", &answer["result"]);
            answer["result"].clone()
        };
        let read = check(id + 1, "read_resource", json!({"uri": guide}));
        assert_eq!(read["content"][0]["type"], "resource", "{read}");
        assert_eq!(
            read["content"][0]["resource"]["text"],
            "# Guide\nstep one\n"
        );
        let part = check(
            id + 2,
            "read_resource",
            json!({"uri": guide, "offset": 2, "length": 5}),
        );
        assert_eq!(part["content"][0]["resource"]["text"], "Guide");
        let masked = check(
            id + 3,
            "read_resource",
            json!({"uri": format!("file://{}/config.py", root.display())}),
        );
        assert!(!masked.to_string().contains("ghp_wWPw"), "{masked}");
        let missing = check(
            id + 4,
            "read_resource",
            json!({"uri": format!("file://{}/nope.md", root.display())}),
        );
        assert_eq!(missing["isError"], true, "{missing}");
        let bad = check(
            id + 5,
            "read_resource",
            json!({"uri": guide, "offset": "x"}),
        );
        assert_eq!(bad["isError"], true, "{bad}");
        let listed = check(
            id + 6,
            "list_resources",
            json!({"prefix": format!("file://{}/docs/", root.display())}),
        );
        let page: Value =
            serde_json::from_str(listed["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(page["resources"].as_array().unwrap().len(), 1, "{page}");
        assert_eq!(listed["structuredContent"], page);
        let children = check(id + 7, "read_directory", json!({"uri": docs}));
        assert!(children.to_string().contains("guide.md"), "{children}");
        let templates = check(id + 8, "list_resource_templates", json!({}));
        let templates: Value =
            serde_json::from_str(templates["content"][0]["text"].as_str().unwrap()).unwrap();
        let template = templates["resourceTemplates"][0]["uriTemplate"]
            .as_str()
            .unwrap()
            .to_owned();
        let completed = check(
            id + 9,
            "complete_template_variable",
            json!({"template": template, "variable": "path", "prefix": "docs/g"}),
        );
        assert!(completed.get("isError").is_none(), "{completed}");
    }
}

#[test]
fn without_the_flag_there_are_no_tools_and_over_http_the_name_header_is_checked() {
    let (_dir, root) = tree();
    let mut server = Spawned::start_with(&[root.as_os_str()]);
    let listed = server.request(json!(1), "tools/list", with_meta(json!({})));
    assert_eq!(listed["error"]["code"], -32601, "{listed}");

    let (dir, root) = tree();
    let http = HttpServer::start_with(dir.path(), "tools = true\n", &[root.as_os_str()]);
    let guide = format!("file://{}/docs/guide.md", root.display());
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": with_meta(json!({"name": "read_resource", "arguments": {"uri": guide}}))});
    let headers = |name: &'static str| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };
    let (status, _, answer) = http.post(&headers("read_resource"), &body);
    assert_eq!(status, 200, "{answer}");
    valid(
        &ProtocolVersion::V2026_07_28,
        "CallToolResult",
        &answer["result"],
    );
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_eq!(answer["result"]["content"][0]["resource"]["uri"], guide);
    let (status, _, refused) = http.post(&headers("list_resources"), &body);
    assert_eq!((status, &refused["error"]["code"]), (400, &json!(-32020)));
}

#[test]
fn the_oldest_version_gets_the_tools_in_its_own_shape() {
    let (_dir, root) = tree();
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    let version = ProtocolVersion::V2024_11_05;
    let init = server.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    valid(&version, "InitializeResult", &init["result"]);
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let listed = server.request(json!(2), "tools/list", json!({}));
    valid(&version, "ListToolsResult", &listed["result"]);
    assert!(
        listed["result"]["tools"][0].get("title").is_none(),
        "{listed}"
    );
    let guide = format!("file://{}/docs/guide.md", root.display());
    for (id, name, arguments) in [
        (3, "read_resource", json!({"uri": guide})),
        (4, "list_resources", json!({})),
        (5, "read_resource", json!({})),
    ] {
        let answer = call(&mut server, id, false, name, arguments);
        valid(&version, "CallToolResult", &answer["result"]);
        assert!(
            answer["result"].get("structuredContent").is_none(),
            "{answer}"
        );
    }
}

// What a hostile review of the bridge found (each fixed).

const TOKEN: &str = "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";

fn review_tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("served");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/guide.md"), "# Guide\nstep one\n").unwrap();
    std::fs::write(root.join("config.py"), format!("TOKEN = \"{TOKEN}\"\n")).unwrap();
    std::fs::write(
        root.join("people.csv"),
        "name,email\nbob,bob.secret@corp.example\n",
    )
    .unwrap();
    (dir, root)
}

fn tool(server: &mut Spawned, id: u64, name: &str, arguments: Value) -> Value {
    server.request(
        json!(id),
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// resources/read of a range URI masks a secret the range cuts; read_resource of the same
/// URI with offset 0 must too.
#[test]
fn a_range_of_a_range_uri_is_masked_as_the_file() {
    let (_dir, root) = review_tree();
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    handshake(&mut server, "2025-06-18");
    let uri = format!("file://{}/config.py?offset=12", root.display());
    neither_read_shows(&mut server, &uri, &TOKEN[3..]);
}

/// Neither `resources/read` of `uri` nor the `read_resource` tool shows `secret`.
fn neither_read_shows(server: &mut Spawned, uri: &str, secret: &str) {
    let read = server.request(json!(2), "resources/read", json!({"uri": uri}));
    assert!(
        !read.to_string().contains(secret),
        "resources/read leaks: {read}"
    );
    let via_tool = tool(server, 3, "read_resource", json!({"uri": uri, "offset": 0}));
    assert!(
        !via_tool.to_string().contains(secret),
        "read_resource leaks: {via_tool}"
    );
}

/// A [[redact]] rule scoped to *.csv holds for resources/read of a range URI, and must for the tool.
#[test]
fn a_scoped_rule_holds_for_a_range_of_a_range_uri() {
    let (dir, root) = review_tree();
    let config = format!(
        "[[redact]]\nname = \"emails\"\nkind = \"email\"\nuris = [\"file://{}/*.csv\"]\n",
        root.display()
    );
    let file = dir.path().join("c.toml");
    std::fs::write(&file, config).unwrap();
    let mut server = Spawned::start_with(&[
        OsStr::new("--tools"),
        OsStr::new("--config"),
        file.as_os_str(),
        root.as_os_str(),
    ]);
    handshake(&mut server, "2025-06-18");
    let uri = format!("file://{}/people.csv?offset=0", root.display());
    neither_read_shows(&mut server, &uri, "bob.secret");
}

/// offset without length reads to the end, as `?offset=` does.
#[test]
fn an_offset_without_length_reads_to_the_end() {
    let (_dir, root) = review_tree();
    let mut server = Spawned::start_with(&[
        OsStr::new("--tools"),
        OsStr::new("--no-redact"),
        root.as_os_str(),
    ]);
    handshake(&mut server, "2025-06-18");
    let guide = format!("file://{}/docs/guide.md", root.display());
    let read = server.request(
        json!(2),
        "resources/read",
        json!({"uri": format!("{guide}?offset=2")}),
    );
    assert_eq!(
        read["result"]["contents"][0]["text"], "Guide\nstep one\n",
        "{read}"
    );
    let via_tool = tool(
        &mut server,
        3,
        "read_resource",
        json!({"uri": guide, "offset": 2}),
    );
    assert_eq!(
        via_tool["result"]["content"][0]["resource"]["text"], "Guide\nstep one\n",
        "{via_tool}"
    );
}

/// Every version's tools/list and tools/call answers validate.
#[test]
fn every_legacy_version_validates() {
    let (_dir, root) = review_tree();
    let guide = format!("file://{}/docs/guide.md", root.display());
    for (text, version) in [
        ("2024-11-05", ProtocolVersion::V2024_11_05),
        ("2025-03-26", ProtocolVersion::V2025_03_26),
        ("2025-06-18", ProtocolVersion::V2025_06_18),
        ("2025-11-25", ProtocolVersion::V2025_11_25),
    ] {
        let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
        handshake(&mut server, text);
        let init_caps = server.request(json!(50), "tools/list", json!({}));
        valid(&version, "ListToolsResult", &init_caps["result"]);
        for (id, name, args) in [
            (2, "read_resource", json!({"uri": guide})),
            (3, "list_resources", json!({})),
            (4, "list_resource_templates", json!({})),
            (
                5,
                "read_directory",
                json!({"uri": format!("file://{}/docs", root.display())}),
            ),
            (6, "read_resource", json!({"uri": "file:///nope"})),
            (7, "nope", json!({})),
        ] {
            let answer = tool(&mut server, id, name, args);
            if name != "nope" {
                valid(&version, "CallToolResult", &answer["result"]);
            }
        }
    }
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    let listed = server.request(json!(1), "tools/list", with_meta(json!({})));
    valid(
        &ProtocolVersion::V2026_07_28,
        "ListToolsResult",
        &listed["result"],
    );
}

/// Spec (2025-06-18 and 2025-11-25, server/tools "Error Handling"): an unknown tool is a
/// JSON-RPC protocol error (-32602), not a tool result.
#[test]
fn an_unknown_tool_is_a_protocol_error() {
    let (_dir, root) = review_tree();
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    handshake(&mut server, "2025-06-18");
    let answer = tool(&mut server, 2, "delete_everything", json!({}));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

/// A client value an error quotes is echoed (bounded), as resources/* and completion/complete do.
#[test]
fn a_tool_error_quotes_client_values_bounded() {
    let (_dir, root) = review_tree();
    let mut server = Spawned::start_with(&[OsStr::new("--tools"), root.as_os_str()]);
    handshake(&mut server, "2025-06-18");
    let long = format!("file:///{}{{x}}", "a".repeat(200_000));
    let complete = server.request(
        json!(2),
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": long}, "argument": {"name": "x", "value": ""}}),
    );
    let via_tool = tool(
        &mut server,
        3,
        "complete_template_variable",
        json!({"template": long, "variable": "x"}),
    );
    assert!(complete.to_string().len() < 10_000);
    let t = via_tool.to_string().len();
    assert!(
        t < 10_000,
        "tool error is {t} bytes: {}",
        &via_tool.to_string()[..300]
    );
}
