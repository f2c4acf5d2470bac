//! Transcript tests: `tests/transcripts/<version>/<name>.txt` run through a session over the
//! fixture service, with a fixed `Instant`; the produced transcript is an insta snapshot, and
//! every server message is validated against `<version>`'s schema.
//!
//! Input lines:
//! - `> {json}`: a client message (or batch, or malformed bytes) fed to the session;
//! - `< {json}`: optional; the messages produced by the step above, exactly (JSON-equal);
//! - `! offer subscribe=false list_changed=false completions=false directories=false`: the
//!   service's offer (first line only);
//! - `! hold` / `! release`: from `hold` on, queries are kept unanswered; `release` answers the
//!   kept ones in reverse order;
//! - `! updated <uri>`, `! list_changed`: a change reported to the service;
//! - `! log <level> <logger or -> <json>`: `Session::log`;
//! - `#` comments and blank lines.
//!
//! The snapshot echoes each `>`/`!` line followed by what the session produced: `< {json}` for a
//! message, `~ cancel` for a query the session told the driver to drop.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_legacy_2025::{Output, Ticket};
use mcp_resources_core::service::{Offer, Query};
use mcp_types::ProtocolVersion;
use mcp_types::jsonrpc::decode_str;
use mcp_types::logging::LoggingLevel;
use serde_json::Value;

use crate::fixture::Driver;
use crate::schema::{self, Methods};

static VALIDATIONS: AtomicUsize = AtomicUsize::new(0);
static MESSAGES: AtomicUsize = AtomicUsize::new(0);

struct Runner {
    version: ProtocolVersion,
    driver: Option<Driver>,
    offer: Offer,
    hold: bool,
    held: Vec<(Ticket, Query)>,
    methods: Methods,
    transcript: String,
    /// Messages produced by the last step, for `<` lines.
    last: Vec<Value>,
    checked: usize,
    validate: bool,
    /// The last `nextCursor` the server sent, substituted for `$next` in `>` lines.
    next_cursor: Option<String>,
}

impl Runner {
    fn new(version: ProtocolVersion) -> Runner {
        Runner {
            version,
            driver: None,
            offer: Offer::default(),
            hold: false,
            held: Vec::new(),
            methods: Methods::new(),
            transcript: String::new(),
            last: Vec::new(),
            checked: 0,
            validate: schema::available(),
            next_cursor: None,
        }
    }

    fn driver(&mut self) -> &mut Driver {
        let offer = self.offer;
        self.driver.get_or_insert_with(|| Driver::new(offer))
    }

    fn step(&mut self, line: &str) {
        self.transcript.push_str(line);
        self.transcript.push('\n');
        self.last.clear();
        self.checked = 0;
        if let Some(message) = line.strip_prefix("> ") {
            let message = match &self.next_cursor {
                Some(cursor) => message.replace("$next", cursor),
                None => message.to_owned(),
            };
            self.remember_methods(&message);
            self.driver().session.handle_incoming(decode_str(&message));
        } else if let Some(directive) = line.strip_prefix("! ") {
            self.directive(directive);
        } else {
            panic!("unknown transcript line {line:?}");
        }
        self.drain();
    }

    fn remember_methods(&mut self, message: &str) {
        let Ok(value) = serde_json::from_str::<Value>(message) else {
            return;
        };
        let elements = match value {
            Value::Array(elements) => elements,
            single => vec![single],
        };
        for element in elements {
            if let (Some(id), Some(method)) = (element.get("id"), element.get("method")) {
                if let Some(method) = method.as_str() {
                    self.methods.insert(id.to_string(), method.to_owned());
                }
            }
        }
    }

    fn directive(&mut self, directive: &str) {
        let mut words = directive.splitn(4, ' ');
        match words.next() {
            Some("offer") => {
                assert!(
                    self.driver.is_none(),
                    "`! offer` must come before the first message"
                );
                for setting in directive.split(' ').skip(1) {
                    let (key, value) = setting.split_once('=').expect("offer key=value");
                    let value: bool = value.parse().expect("offer value is a bool");
                    match key {
                        "subscribe" => self.offer.subscribe = value,
                        "list_changed" => self.offer.list_changed = value,
                        "completions" => self.offer.completions = value,
                        "directories" => self.offer.directories = value,
                        _ => panic!("unknown offer key {key}"),
                    }
                }
            }
            Some("hold") => self.hold = true,
            Some("release") => {
                self.hold = false;
                while let Some((ticket, query)) = self.held.pop() {
                    self.driver().answer(ticket, query);
                    self.drain();
                }
            }
            Some("updated") => {
                let uri = words.next().expect("`! updated <uri>`").to_owned();
                self.driver().resource_updated(&uri);
            }
            Some("list_changed") => self.driver().list_changed(),
            Some("log") => {
                let level: LoggingLevel =
                    serde_json::from_value(Value::from(words.next().expect("a level")))
                        .expect("a log level");
                let logger = words
                    .next()
                    .filter(|logger| *logger != "-")
                    .map(str::to_owned);
                let data: Value = serde_json::from_str(words.next().expect("json data"))
                    .expect("log data is json");
                let driver = self.driver();
                driver.session.log(level, logger.as_deref(), data);
            }
            other => panic!("unknown directive {other:?}"),
        }
    }

    fn drain(&mut self) {
        loop {
            let Some(output) = self.driver().session.poll_output() else {
                return;
            };
            match output {
                Output::Send(outgoing) => {
                    let text = String::from_utf8(outgoing.bytes).expect("utf-8");
                    let value: Value = serde_json::from_str(&text).expect("the server sends json");
                    assert!(
                        !text.contains('\n'),
                        "compact json without newlines: {text}"
                    );
                    if self.validate {
                        let count = schema::validate(&self.version, &value, &self.methods)
                            .unwrap_or_else(|violation| panic!("schema violation: {violation}"));
                        VALIDATIONS.fetch_add(count, Ordering::Relaxed);
                    }
                    MESSAGES.fetch_add(1, Ordering::Relaxed);
                    if let Some(cursor) =
                        value.pointer("/result/nextCursor").and_then(Value::as_str)
                    {
                        self.next_cursor = Some(cursor.to_owned());
                    }
                    self.transcript.push_str(&format!("< {text}\n"));
                    self.last.push(value);
                }
                Output::Query { ticket, query } => {
                    if self.hold {
                        self.held.push((ticket, query));
                    } else {
                        self.driver().answer(ticket, query);
                    }
                }
                Output::Cancel { ticket } => {
                    self.held.retain(|(held, _)| *held != ticket);
                    self.transcript.push_str("~ cancel\n");
                }
            }
        }
    }

    fn expect(&mut self, line: &str, expected: &str) {
        let expected: Value = serde_json::from_str(expected)
            .unwrap_or_else(|error| panic!("`<` line is not json ({error}): {line}"));
        let produced = self.last.get(self.checked);
        assert_eq!(
            produced,
            Some(&expected),
            "expected {line}\nproduced so far:\n{}",
            self.transcript
        );
        self.checked += 1;
    }
}

fn run(path: &Path) -> String {
    let version = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .map(ProtocolVersion::new)
        .expect("transcripts live in a folder named after their version");
    assert!(version.is_known(), "unknown version folder {version}");
    let input = std::fs::read_to_string(path).expect("readable transcript");
    let mut runner = Runner::new(version);
    for line in input.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(expected) = line.strip_prefix("< ") {
            runner.expect(line, expected);
        } else {
            runner.step(line);
        }
    }
    runner.transcript
}

#[test]
fn transcripts() {
    let mut files = HashMap::new();
    insta::glob!("../transcripts", "*/*.txt", |path| {
        let transcript = run(path);
        files.insert(path.to_path_buf(), transcript.lines().count());
        insta::assert_snapshot!(transcript);
    });
    assert!(
        files.len() >= 4,
        "transcripts of every version are found: {files:?}"
    );
    if schema::available() {
        let validations = VALIDATIONS.load(Ordering::Relaxed);
        let messages = MESSAGES.load(Ordering::Relaxed);
        assert!(
            validations >= messages,
            "every message is validated: {validations} validations of {messages} messages"
        );
        eprintln!(
            "transcripts: {} files, {messages} server messages, {validations} schema validations",
            files.len()
        );
    }
}
