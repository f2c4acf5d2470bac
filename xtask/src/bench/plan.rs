//! What one `cargo xtask bench` invocation measures, and with whom: the [`Plan`] (rounds, run
//! lengths, which scenarios and servers), the protocol [`Era`], the [`Transport`], the fan-out's
//! [`Wire`] and the servers compared ([`Subject`]).
//!
//! **Layer:** tooling, inside [`bench`](super), at its bottom: plain values that the scenarios,
//! the server processes and the fan-out and list-page measurements all read. It must never start
//! a process, measure anything or write the report.

use std::time::Duration;

/// The fan-out scenario: streams opened on one server.
pub(super) const FANOUT_STREAMS: usize = 10_000;
pub(super) const FANOUT_STREAMS_TEXT: &str = "10,000";
/// The fan-out scenario over HTTP/2: streams to one connection (the server's default
/// `HttpOptions::max_streams_per_connection`).
pub(super) const FANOUT_STREAMS_PER_CONNECTION: usize = 200;

/// How much work one invocation does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) quick: bool,
    /// Only the scenarios whose title contains this text.
    pub(super) only: Option<String>,
    /// Only the subjects whose label contains this text.
    pub(super) subject: Option<String>,
    pub(super) rounds: usize,
    pub(super) warmup: usize,
    /// The most requests of one measured run, by concurrency 1 and 32.
    pub(super) count_c1: usize,
    pub(super) count_c32: usize,
    /// The longest measured run.
    pub(super) run_time: Duration,
    /// List walks per run.
    pub(super) walks: usize,
    /// Fan-out: runs (a fresh server and 10,000 fresh streams each) and changes per run.
    pub(super) fanout_rounds: usize,
    pub(super) fanout_changes: usize,
    /// The in-process list page: divan samples per size.
    pub(super) page_samples: usize,
}

impl Plan {
    pub(super) fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                quick,
                only: None,
                subject: None,
                rounds: 3,
                warmup: 300,
                count_c1: 3_000,
                count_c32: 20_000,
                run_time: Duration::from_secs(2),
                walks: 30,
                fanout_rounds: 1,
                fanout_changes: 3,
                page_samples: 50,
            }
        } else {
            Plan {
                quick,
                only: None,
                subject: None,
                rounds: 5,
                warmup: 1_000,
                count_c1: 20_000,
                count_c32: 100_000,
                run_time: Duration::from_secs(5),
                walks: 200,
                fanout_rounds: 3,
                fanout_changes: 5,
                page_samples: 200,
            }
        }
    }
}

impl Plan {
    /// Whether this run measures only part of the plan (and so leaves `BENCHMARKS.md` alone).
    pub(super) fn is_partial(&self) -> bool {
        self.only.is_some() || self.subject.is_some()
    }
}

/// The protocol era of a request on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Era {
    /// `initialize` first (a session on HTTP), then bare requests.
    Legacy,
    /// No handshake; every request carries `_meta` (and, on HTTP, the routing headers).
    Modern,
}

/// How the fan-out driver's streams reach the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Wire {
    /// HTTP/1.1, a connection per stream.
    Http1,
    /// HTTP/2 with prior knowledge (h2c), [`FANOUT_STREAMS_PER_CONNECTION`] streams to a
    /// connection.
    Http2,
}

impl Wire {
    pub(super) fn label(self) -> String {
        match self {
            Wire::Http1 => "HTTP/1.1, a connection per stream".to_owned(),
            Wire::Http2 => {
                format!("HTTP/2 (h2c), {FANOUT_STREAMS_PER_CONNECTION} streams per connection")
            }
        }
    }
}

/// Who serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Subject {
    Ours(Era),
    Rmcp(Era),
    /// The floor, sent the requests of this era: the same bytes as the servers of that era
    /// (which it reads the same way; a modern request's `_meta` is skipped as it is parsed).
    /// The fan-out's floor serves modern listen streams.
    Floor(Era),
    /// The fan-out's floor of another design, over HTTP/2 only: the `h2` crate served directly,
    /// one task per connection writing to all of its streams, no task per stream.
    FloorPerConnection,
}

impl Subject {
    pub(super) fn label(self) -> &'static str {
        match self {
            Subject::Ours(Era::Legacy) => "mcp-resources, legacy (2025-11-25)",
            Subject::Ours(Era::Modern) => "mcp-resources, modern (2026-07-28)",
            Subject::Rmcp(Era::Legacy) => "rmcp 3.11, legacy (2025-11-25)",
            Subject::Rmcp(Era::Modern) => "rmcp 3.11, modern (2026-07-28)",
            Subject::Floor(Era::Legacy) => {
                "floor, legacy requests (bare pipe / bare hyper, typed serde)"
            }
            Subject::Floor(Era::Modern) => {
                "floor, modern requests (bare pipe / bare hyper, typed serde)"
            }
            Subject::FloorPerConnection => {
                "floor with a task per connection (h2 directly, typed serde)"
            }
        }
    }

    pub(super) fn era(self) -> Era {
        match self {
            Subject::Ours(era) | Subject::Rmcp(era) | Subject::Floor(era) => era,
            Subject::FloorPerConnection => Era::Modern,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Transport {
    Stdio,
    Http,
    /// Streamable HTTP where every reply is an SSE body: rmcp and the floor in their SSE mode;
    /// mcp-resources answers with SSE when a notification precedes the response, so each read
    /// carries a `progressToken` (its reply: the progress notification, then the result).
    HttpSse,
}

impl Transport {
    pub(super) fn label(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "Streamable HTTP (JSON replies)",
            Transport::HttpSse => "Streamable HTTP (SSE replies)",
        }
    }
}
