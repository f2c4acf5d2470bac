//! What one `cargo xtask bench` invocation measures, and with whom: the [`Plan`], the
//! [`Scenario`]s and the servers compared ([`Subject`]).
//!
//! **Layer:** tooling, inside [`bench`](super), at its bottom: plain values. It must never start
//! a process, measure anything or write the report.

use std::time::Duration;

use super::stats::thousands;

/// The fan-out: streams opened on one server, and streams to one HTTP/2 connection (the
/// server's default `max_streams_per_connection`).
pub(super) const FANOUT_STREAMS: usize = 10_000;
pub(super) const FANOUT_STREAMS_PER_CONNECTION: usize = 200;
/// The subscriptions scenario: legacy sessions, and subscriptions per session (the core's
/// default limit per subscriber).
pub(super) const SUBSCRIPTION_SESSIONS: usize = 100;
pub(super) const SUBSCRIPTIONS_PER_SESSION: usize = 1_000;
/// The list page size every server uses.
pub(super) const PAGE_SIZE: usize = 100;

/// How much work one invocation does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    /// Only the scenarios whose title contains this text (`--only`).
    pub(super) only: Option<String>,
    pub(super) rounds: usize,
    pub(super) warmup: usize,
    /// The most requests of one measured run, at concurrency 1 and 32.
    pub(super) count_c1: usize,
    pub(super) count_c32: usize,
    /// The longest measured run.
    pub(super) run_time: Duration,
    /// List walks per run.
    pub(super) walks: usize,
    /// Fan-out: runs (a fresh server and fresh streams each), and changes per run.
    pub(super) fanout_rounds: usize,
    pub(super) fanout_changes: usize,
    /// The in-process list page: divan samples per size.
    pub(super) page_samples: usize,
}

impl Plan {
    pub(super) fn new(quick: bool) -> Plan {
        let pick = |quick_value: usize, full: usize| if quick { quick_value } else { full };
        Plan {
            only: None,
            rounds: pick(3, 5),
            warmup: pick(300, 1_000),
            count_c1: pick(3_000, 20_000),
            count_c32: pick(20_000, 100_000),
            run_time: Duration::from_secs(pick(2, 5) as u64),
            walks: pick(30, 200),
            fanout_rounds: pick(1, 3),
            fanout_changes: pick(3, 5),
            page_samples: pick(50, 200),
        }
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Transport {
    Stdio,
    Http,
    /// Streamable HTTP with SSE replies: mcp-resources answers with SSE only when a
    /// notification precedes the response, so every read carries a `progressToken`.
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

/// How the fan-out driver's streams reach the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Wire {
    /// HTTP/1.1, a connection per stream.
    Http1,
    /// HTTP/2 with prior knowledge (h2c), [`FANOUT_STREAMS_PER_CONNECTION`] streams a connection.
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
    /// The floor, sent the requests of this era (the fan-out's floor serves modern streams).
    Floor(Era),
    /// The fan-out's floor over HTTP/2 with the `h2` crate directly, a task per connection.
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

/// Where mcp-resources takes the resources of a read from (rmcp and the floor: always memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Source {
    /// `[[resources]]` entries of the configuration (`mem:///r/0000`…).
    Config,
    /// 1,000 files through the filesystem provider (`file://…/r0000.txt`…).
    Files,
}

/// One section of the report. The derived order is the order of the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Scenario {
    /// `resources/read` of the 1 KiB resources, round robin.
    Read {
        source: Source,
        concurrency: usize,
        transport: Transport,
    },
    /// Whole `resources/list` walks, one request at a time.
    ListWalk(Transport),
    /// [`SUBSCRIPTION_SESSIONS`] legacy HTTP sessions of [`SUBSCRIPTIONS_PER_SESSION`]
    /// subscriptions each, on 32 connections.
    Subscriptions,
    /// One watched file rewritten, [`FANOUT_STREAMS`] streams subscribed to it.
    FanOut { era: Era, wire: Wire },
    /// One list page out of 1,000 / 100,000 / 1,000,000 resources, in-process.
    ListPage,
    /// The git provider in-process, beside the git command line on the same repositories.
    Git,
    /// The SQL provider in-process, beside `rusqlite` alone on the same databases.
    Sql,
    /// A 1 MiB text read in-process, content rules on against off.
    Redaction,
    /// Three instances with the Redis feed: the fan-out of a change to streams spread over
    /// them, and reads through HAProxy in front of three against one.
    Deployment,
}

impl Scenario {
    /// Every scenario of a whole run, in the order they run.
    pub(super) fn all() -> Vec<Scenario> {
        let mut all = Vec::new();
        for (source, transports) in [
            (Source::Config, &[Transport::Stdio, Transport::Http][..]),
            (Source::Files, &[Transport::Stdio, Transport::Http][..]),
            (Source::Config, &[Transport::HttpSse][..]),
        ] {
            for &transport in transports {
                for concurrency in [1, 32] {
                    all.push(Scenario::Read {
                        source,
                        concurrency,
                        transport,
                    });
                }
            }
        }
        all.push(Scenario::ListWalk(Transport::Stdio));
        all.push(Scenario::ListWalk(Transport::Http));
        all.push(Scenario::Subscriptions);
        for era in [Era::Modern, Era::Legacy] {
            for wire in [Wire::Http1, Wire::Http2] {
                all.push(Scenario::FanOut { era, wire });
            }
        }
        all.push(Scenario::ListPage);
        all.push(Scenario::Git);
        all.push(Scenario::Sql);
        all.push(Scenario::Redaction);
        all.push(Scenario::Deployment);
        all
    }

    /// Whether the scenario starts servers (ours, rmcp's, the floor's), which must be built:
    /// the in-process ones run the crates' own benches.
    pub(super) fn runs_servers(self) -> bool {
        !matches!(
            self,
            Scenario::ListPage | Scenario::Git | Scenario::Sql | Scenario::Redaction
        )
    }

    pub(super) fn transport(self) -> Transport {
        match self {
            Scenario::Read { transport, .. } | Scenario::ListWalk(transport) => transport,
            Scenario::Subscriptions | Scenario::FanOut { .. } | Scenario::Deployment => {
                Transport::Http
            }
            Scenario::ListPage | Scenario::Git | Scenario::Sql | Scenario::Redaction => {
                Transport::Stdio
            }
        }
    }

    pub(super) fn title(self) -> String {
        let transport = self.transport().label();
        match self {
            Scenario::Read {
                source: Source::Config,
                concurrency,
                ..
            } => format!("resources/read, {transport}, concurrency {concurrency}"),
            Scenario::Read {
                source: Source::Files,
                concurrency,
                ..
            } => format!(
                "resources/read of 1,000 files (mcp-resources: filesystem provider; rmcp and the \
                 floor: in memory), {transport}, concurrency {concurrency}"
            ),
            Scenario::ListWalk(_) => format!(
                "resources/list walk (1,000 resources, pages of {PAGE_SIZE}), {transport}, \
                 concurrency 1; figures per page"
            ),
            Scenario::Subscriptions => format!(
                "{} resources/subscribe over {SUBSCRIPTION_SESSIONS} legacy sessions ({} each), \
                 {transport}, concurrency 32; peak RSS with all of them held; figures per subscribe",
                thousands(SUBSCRIPTION_SESSIONS * SUBSCRIPTIONS_PER_SESSION),
                thousands(SUBSCRIPTIONS_PER_SESSION),
            ),
            Scenario::FanOut { era, wire } => format!(
                "fan-out of one file change to {} {}, Streamable HTTP over {}",
                thousands(FANOUT_STREAMS),
                match era {
                    Era::Modern => "subscriptions/listen streams (modern)",
                    Era::Legacy => "legacy sessions with a GET stream and resources/subscribe",
                },
                wire.label(),
            ),
            Scenario::ListPage => "one resources/list page of 100 out of 1,000 / 100,000 / \
                                   1,000,000 resources, and one directory page of 100 children \
                                   in trees of 1,000 / 10,000 / 100,000 files, in-process"
                .to_owned(),
            Scenario::Git => "the git provider in-process beside the git command line: a 1 KiB \
                              file at HEAD, list pages and walks in trees of 1,000 / 10,000 / \
                              100,000 files, a log page of 100 commits"
                .to_owned(),
            Scenario::Sql => "the sql provider in-process beside rusqlite alone: a page of 100 \
                              rows, the schema of 500 tables, pages and their peak RSS in tables \
                              of 10,000 / 100,000 / 1,000,000 rows"
                .to_owned(),
            Scenario::Redaction => "content rules on a 1 MiB text read, in-process: the \
                                    built-in credential rules on against off"
                .to_owned(),
            Scenario::Deployment => format!(
                "a deployment of 3 instances with the Redis feed: a change to {} listen streams \
                 spread over them, and reads through HAProxy in front of 3 against 1",
                thousands(FANOUT_STREAMS)
            ),
        }
    }

    /// The servers measured, in the order each round runs them.
    pub(super) fn subjects(self) -> Vec<Subject> {
        use Subject::{Floor, FloorPerConnection, Ours, Rmcp};
        match self {
            Scenario::Read { .. } | Scenario::ListWalk(_) => vec![
                Ours(Era::Legacy),
                Rmcp(Era::Legacy),
                Ours(Era::Modern),
                Rmcp(Era::Modern),
                Floor(Era::Legacy),
                Floor(Era::Modern),
            ],
            // rmcp keeps no subscriptions; the fan-out's floors serve modern streams only.
            Scenario::Subscriptions
            | Scenario::FanOut {
                era: Era::Legacy, ..
            } => {
                vec![Ours(Era::Legacy)]
            }
            Scenario::FanOut {
                era: Era::Modern,
                wire: Wire::Http1,
            } => vec![Ours(Era::Modern), Floor(Era::Modern)],
            Scenario::FanOut {
                era: Era::Modern,
                wire: Wire::Http2,
            } => vec![Ours(Era::Modern), Floor(Era::Modern), FloorPerConnection],
            Scenario::ListPage
            | Scenario::Git
            | Scenario::Sql
            | Scenario::Redaction
            | Scenario::Deployment => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_have_distinct_titles_and_their_servers() {
        let all = Scenario::all();
        let titles: std::collections::BTreeSet<String> =
            all.iter().map(|scenario| scenario.title()).collect();
        assert_eq!(titles.len(), all.len());
        let count = |text: &str| titles.iter().filter(|title| title.contains(text)).count();
        assert_eq!(count("1,000 files"), 4);
        assert_eq!(count("concurrency 32"), 6);
        assert_eq!(count("fan-out of one file change to 10,000"), 4);
        assert_eq!(count("HTTP/2"), 2);
        // `--only git` picks the git scenario alone, which starts no server.
        let git: Vec<_> = all
            .iter()
            .filter(|scenario| scenario.title().contains("git"))
            .collect();
        assert_eq!(git, [&Scenario::Git]);
        // `--only sql` picks the SQL scenario alone.
        let sql: Vec<_> = all
            .iter()
            .filter(|scenario| scenario.title().contains("sql"))
            .collect();
        assert_eq!(sql, [&Scenario::Sql]);
        let rules: Vec<_> = all
            .iter()
            .filter(|scenario| scenario.title().contains("content rules"))
            .collect();
        assert_eq!(rules, [&Scenario::Redaction]);
        assert!(!Scenario::Redaction.runs_servers());
        assert!(!Scenario::Git.runs_servers() && !Scenario::ListPage.runs_servers());
        assert!(!Scenario::Sql.runs_servers());
        assert!(Scenario::Subscriptions.runs_servers());
        let walk = Scenario::ListWalk(Transport::Stdio).subjects();
        assert!(walk.contains(&Subject::Rmcp(Era::Modern)));
        assert!(walk.contains(&Subject::Floor(Era::Legacy)));
        let fanout = |era, wire| Scenario::FanOut { era, wire }.subjects();
        assert_eq!(
            fanout(Era::Modern, Wire::Http2),
            vec![
                Subject::Ours(Era::Modern),
                Subject::Floor(Era::Modern),
                Subject::FloorPerConnection
            ]
        );
        assert_eq!(
            fanout(Era::Legacy, Wire::Http1),
            vec![Subject::Ours(Era::Legacy)]
        );
        assert_eq!(Plan::new(true).rounds, 3);
        assert!(Plan::new(false).count_c32 > Plan::new(true).count_c32);
    }
}
