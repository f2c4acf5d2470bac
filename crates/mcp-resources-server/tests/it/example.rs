//! The `docs_server` example, built by `cargo test`, served over stdio.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// `target/<profile>/examples/docs_server`, next to this test binary's `deps` folder.
fn example_path() -> PathBuf {
    let test_binary = std::env::current_exe().expect("the test binary has a path");
    let profile_dir = test_binary
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary is in target/<profile>/deps");
    profile_dir
        .join("examples")
        .join(format!("docs_server{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn docs_server_serves_static_pages_and_its_template() {
    let path = example_path();
    assert!(
        path.exists(),
        "cargo test builds the examples: {}",
        path.display()
    );
    let mut child = Command::new(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the example starts");
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let input = format!(
        "{}\n{}\n{}\n",
        format_args!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{{{meta}}}}}"#),
        format_args!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"docs://releases/2.0",{meta}}}}}"#
        ),
        format_args!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{{{meta}}}}}"#
        ),
    );
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input.as_bytes()).expect("write");
    drop(stdin);
    // The input is closed, so the example answers and exits: the wait is bounded by that.
    let output = child.wait_with_output().expect("the example exits");
    assert!(output.status.success());
    let responses: Vec<Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|response| response["id"] == id)
            .unwrap_or_else(|| panic!("no response {id}: {responses:?}"))
    };
    let listed: Vec<&str> = by_id(1)["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|resource| resource["uri"].as_str().expect("uri"))
        .collect();
    assert_eq!(listed, ["docs://pages/faq", "docs://pages/intro"]);
    assert_eq!(
        by_id(2)["result"]["contents"][0]["text"],
        "Release 2.0: everything is faster."
    );
    assert_eq!(
        by_id(3)["result"]["resourceTemplates"][0]["uriTemplate"],
        "docs://releases/{version}"
    );
}
