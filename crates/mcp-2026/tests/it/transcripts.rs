//! Transcript tests: every file under `tests/transcripts/` is run through the handler against
//! the fixture service with a fixed clock, and what the server said must be exactly the file's
//! `<` lines; the whole rendered transcript is also an insta snapshot.
//!
//! Format, one item per line:
//! - `> {json}`: a client request, started as a new exchange and driven until it waits;
//! - `< {json}`: an expected server message (compact, byte for byte);
//! - `= http 404` / `= query cancelled`: an expected non-200 status of the response just
//!   before, or an `Output::Cancel`;
//! - `! offer subscribe=false list_changed=true completions=false directories=false`,
//!   `! access restricted`
//!   (before the first request): the fixture's configuration;
//! - `! headers {"Name": "value", ...}`: the next request comes over HTTP with these headers;
//! - `! update <uri>`, `! list_changed`: a change reaches the service, which wakes listen
//!   streams;
//! - `! cancel <id>`, `! close <id>`: the client cancels / the server closes an exchange;
//! - `#`: a comment.
//!
//! Run with `MCP_BLESS=1` to rewrite the `<` and `=` lines from what the server says (then
//! review the diff).

use std::path::{Path, PathBuf};

use mcp_2026::{Handler, RequestHeaders};
use mcp_resources_core::service::{Offer, Service};
use mcp_types::jsonrpc::RequestId;

use crate::support::{self, Access, Driven};

struct Run {
    offer: Offer,
    access: Access,
    started: Option<(Service, Handler)>,
    exchanges: Vec<Driven>,
    headers: Option<Vec<(String, String)>>,
    lines: Vec<String>,
}

impl Run {
    fn started(&mut self) -> &(Service, Handler) {
        let (offer, access) = (self.offer, self.access);
        self.started
            .get_or_insert_with(|| support::setup(access, offer))
    }

    fn find(&mut self, id: &str) -> usize {
        let id: RequestId = serde_json::from_str(id).expect("directive id is a json id");
        self.exchanges
            .iter()
            .position(|driven| driven.id == id)
            .unwrap_or_else(|| panic!("no exchange with id {id}"))
    }

    fn pump_all(&mut self) {
        let (service, _) = self.started.as_ref().expect("started");
        for driven in &mut self.exchanges {
            support::pump(service, driven, &mut self.lines);
        }
    }

    fn wake(&mut self, woken: Vec<mcp_resources_core::subscription::SubscriberId>) {
        let (service, _) = self.started.as_ref().expect("started");
        for driven in &mut self.exchanges {
            if let Some(subscriber) = driven.subscriber {
                if woken.contains(&subscriber) {
                    let changes = service.drain_changes(subscriber);
                    driven.exchange.handle_changes(changes);
                }
            }
        }
        self.pump_all();
    }

    fn step(&mut self, line: &str) {
        if let Some(json) = line.strip_prefix("> ") {
            self.lines.push(line.to_owned());
            let request = support::request(json);
            let headers = self.headers.take();
            let (_, handler) = self.started();
            let exchange = match &headers {
                Some(pairs) => {
                    let view: RequestHeaders<'_> = pairs
                        .iter()
                        .map(|(name, value)| (name.as_str(), value.as_bytes()))
                        .collect();
                    handler.start_http(request.clone(), &view)
                }
                None => handler.start(request.clone()),
            };
            self.exchanges.push(Driven {
                id: request.id,
                method: request.method,
                exchange,
                subscriber: None,
                sent: 0,
            });
            self.pump_all();
            return;
        }
        let Some(directive) = line.strip_prefix("! ") else {
            panic!("unknown transcript line: {line}");
        };
        self.lines.push(line.to_owned());
        let (word, rest) = directive.split_once(' ').unwrap_or((directive, ""));
        match word {
            "offer" => {
                for setting in rest.split_whitespace() {
                    let (name, value) = setting.split_once('=').expect("name=value");
                    let value = value == "true";
                    match name {
                        "subscribe" => self.offer.subscribe = value,
                        "list_changed" => self.offer.list_changed = value,
                        "completions" => self.offer.completions = value,
                        "directories" => self.offer.directories = value,
                        other => panic!("unknown offer {other}"),
                    }
                }
            }
            "access" => {
                assert_eq!(rest, "restricted", "the only access setting");
                self.access = Access::Restricted;
            }
            "headers" => {
                let map: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(rest).expect("headers object");
                let pairs = map
                    .into_iter()
                    .map(|(name, value)| (name, value.as_str().expect("string value").to_owned()))
                    .collect();
                self.headers = Some(pairs);
            }
            "update" => {
                let woken = self.started().0.resource_updated(rest);
                self.wake(woken);
            }
            "list_changed" => {
                let woken = self.started().0.list_changed();
                self.wake(woken);
            }
            "cancel" => {
                let index = self.find(rest);
                self.exchanges[index].exchange.cancel();
                self.pump_all();
            }
            "close" => {
                let index = self.find(rest);
                self.exchanges[index].exchange.close();
                self.pump_all();
            }
            other => panic!("unknown directive {other}"),
        }
    }
}

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

/// Runs one transcript; returns the rendered transcript (inputs and what the server said).
fn run(text: &str) -> String {
    let mut run = Run {
        offer: Offer::default(),
        access: Access::Open,
        started: None,
        exchanges: Vec::new(),
        headers: None,
        lines: Vec::new(),
    };
    for line in text.lines() {
        if line.starts_with('<') || line.starts_with('=') {
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            run.lines.push(line.to_owned());
            continue;
        }
        run.step(line);
    }
    let mut rendered = run.lines.join("\n");
    rendered.push('\n');
    rendered
}

#[test]
fn transcripts() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("tests/transcripts exists")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "the transcripts are there");
    let bless = std::env::var("MCP_BLESS").is_ok_and(|value| value == "1");
    let mut stale = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable transcript");
        let rendered = run(&text);
        let name = path
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        if rendered != text {
            if bless {
                std::fs::write(path, &rendered).expect("rewrite transcript");
            } else {
                stale.push(format!("{name}:\n{rendered}"));
            }
        }
        insta::assert_snapshot!(name, rendered);
    }
    assert!(
        stale.is_empty(),
        "transcripts whose server lines differ (MCP_BLESS=1 rewrites them):\n{}",
        stale.join("\n")
    );
}
