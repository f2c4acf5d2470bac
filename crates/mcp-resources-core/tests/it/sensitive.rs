//! Tests of sensitive resources: the confirmation's round trip and its state (forged, foreign,
//! expired, replayed), the audit records of every operation, a failing audit log, a template
//! asking the client for input, and confirmations shared by the instances of a deployment.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mcp_resources_core::engine::{Engine, FunctionTemplate};
use mcp_resources_core::error::{ListError, ReadError};
use mcp_resources_core::input::{
    ElicitAction, FieldKind, FieldValue, InputRequest, InputRequired, InputResponse, Inputs,
};
use mcp_resources_core::policy::{Principal, UriPattern};
use mcp_resources_core::provider::ProviderError;
use mcp_resources_core::redact::Redactor;
use mcp_resources_core::resource::{Body, Contents, ResourceTemplate};
use mcp_resources_core::sensitive::{
    AuditAction, AuditError, AuditOutcome, AuditRecord, AuditSink, CONFIRM_KEY, CONFIRM_TTL_SECS,
    SensitiveRule, Sensitivity,
};
use mcp_resources_core::service::{Answer, Query, QueryContext, Service};
use mcp_resources_core::store::{StoreError, TicketStore};
use mcp_resources_core::template::UriTemplate;

use crate::fixtures::{key, run, text_resource, uri};

/// An audit sink keeping its records, failing while `fail` is set.
#[derive(Default)]
struct Records {
    lines: Mutex<Vec<AuditRecord>>,
    fail: std::sync::atomic::AtomicBool,
}

#[async_trait::async_trait]
impl AuditSink for Records {
    async fn record(&self, record: AuditRecord) -> Result<(), AuditError> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(AuditError("disk full".to_owned()));
        }
        self.lines.lock().unwrap().push(record);
        Ok(())
    }
}

impl Records {
    fn take(&self) -> Vec<AuditRecord> {
        std::mem::take(&mut *self.lines.lock().unwrap())
    }
}

struct Fixture {
    engine: Engine,
    records: Arc<Records>,
    now: Arc<AtomicU64>,
}

/// `hr://` needs confirmation, `pay://` is audited only, `docs://` is neither; a key and a
/// token sit in the confirmed file.
fn fixture() -> Fixture {
    let records = Arc::new(Records::default());
    let now = Arc::new(AtomicU64::new(1_000_000));
    let clock = Arc::clone(&now);
    let sensitivity = Sensitivity::new([9; 32], Arc::new(move || clock.load(Ordering::SeqCst)))
        .rule(SensitiveRule {
            name: "hr".to_owned(),
            uris: vec![UriPattern::parse("hr://**").unwrap()],
            confirm: true,
            reason: Some("Salaries.".to_owned()),
        })
        .rule(SensitiveRule {
            name: "pay".to_owned(),
            uris: vec![UriPattern::parse("pay://**").unwrap()],
            confirm: false,
            reason: None,
        })
        .audit(Arc::clone(&records) as Arc<dyn AuditSink>);
    let (hr, hr_contents) = text_resource(
        "hr://salaries",
        "alice 100\ntoken = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n",
    );
    let (pay, pay_contents) = text_resource("pay://runs", "march");
    let (docs, docs_contents) = text_resource("docs://readme", "read me");
    let engine = Engine::builder(key())
        .redactor(Redactor::credentials())
        .sensitivity(sensitivity)
        .static_resource(hr, hr_contents)
        .static_resource(pay, pay_contents)
        .static_resource(docs, docs_contents)
        .build()
        .unwrap();
    Fixture {
        engine,
        records,
        now,
    }
}

fn asked(result: Result<impl std::fmt::Debug, ReadError>) -> InputRequired {
    match result {
        Err(ReadError::InputRequired { input, .. }) => *input,
        other => panic!("expected a confirmation request, got {other:?}"),
    }
}

fn answer(state: Option<String>, response: Option<InputResponse>) -> Inputs {
    Inputs {
        responses: response
            .map(|response| BTreeMap::from([(CONFIRM_KEY.to_owned(), response)]))
            .unwrap_or_default(),
        state,
    }
}

fn yes() -> InputResponse {
    InputResponse::Elicit {
        action: ElicitAction::Accept,
        content: BTreeMap::from([(CONFIRM_KEY.to_owned(), FieldValue::Boolean(true))]),
    }
}

#[test]
fn a_confirmed_read_serves_the_contents_once_and_every_bad_state_is_refused() {
    let fixture = fixture();
    let engine = &fixture.engine;
    let alice = Principal::subject("alice").with_claim("iss", "https://id.example");
    let salaries = uri("hr://salaries");
    let read = |principal: &Principal, inputs: &Inputs| {
        run(engine.read_with(principal, &salaries, inputs))
    };

    // First read: a yes/no form naming the resource and the reason, and a state.
    let input = asked(read(&alice, &Inputs::default()));
    let InputRequest::Elicit(form) = &input.requests[CONFIRM_KEY] else {
        panic!("{input:?}");
    };
    assert!(form.message.contains("hr://salaries") && form.message.contains("Salaries."));
    assert!(matches!(form.fields[0].kind, FieldKind::Boolean { .. }));
    let state = input.state.clone().unwrap();

    // A retry with the state but no answer is asked again (a new state).
    let again = asked(read(&alice, &answer(Some(state.clone()), None)));
    assert_ne!(again.state.as_ref(), Some(&state));

    // Another principal, another issuer, another URI, a changed byte: refused.
    let refused = |result: Result<_, ReadError>| {
        assert!(
            matches!(result, Err(ReadError::InvalidInput { .. })),
            "{result:?}"
        );
    };
    refused(read(
        &Principal::subject("bob"),
        &answer(Some(state.clone()), Some(yes())),
    ));
    refused(read(
        &Principal::subject("alice").with_claim("iss", "https://evil.example"),
        &answer(Some(state.clone()), Some(yes())),
    ));
    refused(run(engine.read_with(
        &alice,
        &uri("hr://other"),
        &answer(Some(state.clone()), Some(yes())),
    )));
    let mut tampered = state.clone().into_bytes();
    let last = tampered.len() - 3;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    refused(read(
        &alice,
        &answer(Some(String::from_utf8(tampered).unwrap()), Some(yes())),
    ));
    refused(read(
        &alice,
        &answer(Some("not base64!".to_owned()), Some(yes())),
    ));

    // The right answer: the contents, masked as any read's.
    let output = read(&alice, &answer(Some(state.clone()), Some(yes()))).unwrap();
    let Body::Text(text) = &output.contents[0].body else {
        panic!("{output:?}");
    };
    assert!(
        text.starts_with("alice 100") && !text.contains("ghp_"),
        "{text}"
    );

    // Replayed: refused.
    refused(read(&alice, &answer(Some(state), Some(yes()))));

    // Declined, dismissed, or `confirm: false`: not served.
    for response in [
        InputResponse::Elicit {
            action: ElicitAction::Decline,
            content: BTreeMap::new(),
        },
        InputResponse::Elicit {
            action: ElicitAction::Cancel,
            content: BTreeMap::new(),
        },
        InputResponse::Elicit {
            action: ElicitAction::Accept,
            content: BTreeMap::from([(CONFIRM_KEY.to_owned(), FieldValue::Boolean(false))]),
        },
        InputResponse::Elicit {
            action: ElicitAction::Accept,
            content: BTreeMap::from([(CONFIRM_KEY.to_owned(), FieldValue::Text("true".into()))]),
        },
        InputResponse::Unusable,
    ] {
        let state = asked(read(&alice, &Inputs::default())).state;
        let result = read(&alice, &answer(state, Some(response)));
        assert!(
            matches!(result, Err(ReadError::NotConfirmed { .. })),
            "{result:?}"
        );
    }

    // Expired: refused.
    let state = asked(read(&alice, &Inputs::default())).state;
    fixture
        .now
        .fetch_add(CONFIRM_TTL_SECS + 1, Ordering::SeqCst);
    refused(read(&alice, &answer(state, Some(yes()))));

    // A ranged read asks too.
    asked(run(engine.read_range(
        &alice,
        &salaries,
        mcp_resources_core::resource::ByteRange {
            offset: 0,
            length: 5,
        },
    )));

    // Every step is in the audit log, with who and how it went; the served read with its
    // bytes and what the content rules masked.
    let records = fixture.records.take();
    assert!(
        records
            .iter()
            .all(|record| record.rule == "hr" && record.action == AuditAction::Read)
    );
    let served: Vec<&AuditRecord> = records
        .iter()
        .filter(|record| record.outcome == AuditOutcome::Served)
        .collect();
    assert_eq!(served.len(), 1, "{records:#?}");
    assert_eq!(served[0].subject.as_deref(), Some("alice"));
    assert_eq!(served[0].issuer.as_deref(), Some("https://id.example"));
    assert_eq!(served[0].bytes, Some(text.len() as u64));
    assert!(
        served[0].masked.contains(&("github-token".to_owned(), 1)),
        "{:?}",
        served[0].masked
    );
    for outcome in [
        AuditOutcome::ConfirmationAsked,
        AuditOutcome::InvalidConfirmation,
        AuditOutcome::Declined,
    ] {
        assert!(
            records.iter().any(|record| record.outcome == outcome),
            "{outcome:?}"
        );
    }
}

#[test]
fn audit_records_lists_reads_subscriptions_and_a_failing_log_refuses_them() {
    let fixture = fixture();
    let anyone = Principal::anonymous();
    let page = run(fixture.engine.list_resources(&anyone, None)).unwrap();
    assert_eq!(page.items.len(), 3);
    let listed = fixture.records.take();
    let mut uris: Vec<&str> = listed.iter().map(|record| record.uri.as_str()).collect();
    uris.sort_unstable();
    assert_eq!(
        uris,
        ["hr://salaries", "pay://runs"],
        "docs are not sensitive"
    );
    assert!(
        listed
            .iter()
            .all(|record| record.action == AuditAction::List)
    );

    let read = run(fixture.engine.read(&anyone, &uri("pay://runs"))).unwrap();
    assert_eq!(read.contents.len(), 1);
    let records = fixture.records.take();
    assert_eq!(records.len(), 1);
    assert_eq!(
        (
            records[0].subject.clone(),
            records[0].bytes,
            records[0].outcome
        ),
        (None, Some(5), AuditOutcome::Served)
    );
    run(fixture.engine.read(&anyone, &uri("docs://readme"))).unwrap();
    run(fixture.engine.read(&anyone, &uri("pay://missing"))).unwrap_err();
    let records = fixture.records.take();
    assert_eq!(records.len(), 1, "only the sensitive URI: {records:?}");
    assert_eq!(records[0].outcome, AuditOutcome::Refused);

    let service = Service::new(fixture.engine);
    let subscriber = service.add_subscriber();
    let context = QueryContext {
        principal: &anyone,
        subscriber: Some(subscriber),
    };
    let subscribed = run(service.answer(
        context,
        Query::Subscribe {
            uri: uri("pay://runs"),
        },
    ));
    assert!(
        matches!(subscribed, Answer::Subscribed(Ok(()))),
        "{subscribed:?}"
    );
    let records = fixture.records.take();
    assert_eq!(records[0].action, AuditAction::Subscribe);

    // The log fails: nothing sensitive is served, listed or subscribed to; the rest is.
    fixture.records.fail.store(true, Ordering::SeqCst);
    let read = run(service.engine().read(&anyone, &uri("pay://runs")));
    assert!(matches!(read, Err(ReadError::Audit(_))), "{read:?}");
    let listed = run(service.engine().list_resources(&anyone, None));
    assert!(matches!(listed, Err(ListError::Audit(_))), "{listed:?}");
    run(service.engine().read(&anyone, &uri("docs://readme"))).unwrap();
    let other = service.add_subscriber();
    let context = QueryContext {
        principal: &anyone,
        subscriber: Some(other),
    };
    let subscribed = run(service.answer(
        context,
        Query::Subscribe {
            uri: uri("pay://runs"),
        },
    ));
    assert!(
        matches!(subscribed, Answer::Subscribed(Err(_))),
        "{subscribed:?}"
    );
    let listening = run(service.answer(
        context,
        Query::Listen {
            uris: vec!["pay://runs".to_owned(), "docs://readme".to_owned()],
            list_changes: false,
        },
    ));
    let Answer::Listening { uris, .. } = listening else {
        panic!("{listening:?}");
    };
    assert_eq!(uris, ["docs://readme"]);
    assert_eq!(service.resource_updated("pay://runs"), [subscriber]);
}

#[test]
fn a_template_asks_the_client_for_its_roots_and_reads_with_the_answer() {
    let template = ResourceTemplate::new(UriTemplate::parse("roots://{name}").unwrap(), "roots");
    let engine = Engine::builder(key())
        .template(FunctionTemplate::with_inputs(template, |uri, _, inputs| {
            let answer = inputs.responses.get("roots").cloned();
            let uri = uri.clone();
            async move {
                match answer {
                    Some(InputResponse::Roots(roots)) => {
                        Ok(vec![Contents::text(uri, roots.join("\n"))])
                    }
                    _ => Err(ProviderError::input_required(InputRequired::one(
                        "roots",
                        InputRequest::ListRoots,
                    ))),
                }
            }
        }))
        .build()
        .unwrap();
    let anyone = Principal::anonymous();
    let list = uri("roots://mine");
    let input = asked(run(engine.read(&anyone, &list)));
    assert_eq!(input.requests["roots"], InputRequest::ListRoots);
    assert_eq!(input.requests["roots"].capability(), "roots");
    let inputs = Inputs {
        responses: BTreeMap::from([(
            "roots".to_owned(),
            InputResponse::Roots(vec!["file:///a".to_owned(), "file:///b".to_owned()]),
        )]),
        state: None,
    };
    let output = run(engine.read_with(&anyone, &list, &inputs)).unwrap();
    assert_eq!(
        output.contents[0].body,
        Body::Text("file:///a\nfile:///b".into())
    );
}

#[test]
fn one_principal_at_its_limit_of_used_confirmations_locks_out_no_other() {
    let now = Arc::new(AtomicU64::new(1_000_000));
    let clock = Arc::clone(&now);
    let sensitivity = Sensitivity::new([7; 32], Arc::new(move || clock.load(Ordering::SeqCst)))
        .rule(SensitiveRule {
            name: "hr".to_owned(),
            uris: vec![UriPattern::parse("hr://**").unwrap()],
            confirm: true,
            reason: None,
        });
    let (hr, contents) = text_resource("hr://salaries", "alice 100");
    let engine = Engine::builder(key())
        .sensitivity(sensitivity)
        .static_resource(hr, contents)
        .build()
        .unwrap();
    let salaries = uri("hr://salaries");
    let state_of = |principal: &Principal| {
        asked(run(engine.read_with(
            principal,
            &salaries,
            &Inputs::default(),
        )))
        .state
    };
    let no = || InputResponse::Elicit {
        action: ElicitAction::Decline,
        content: BTreeMap::new(),
    };
    // Mallory asks and declines past her limit of used states.
    let mallory = Principal::subject("mallory");
    let mut refused = 0;
    for _ in 0..10_010 {
        let result =
            run(engine.read_with(&mallory, &salaries, &answer(state_of(&mallory), Some(no()))));
        if matches!(result, Err(ReadError::InvalidInput { .. })) {
            refused += 1;
        }
    }
    assert_eq!(
        refused, 10,
        "her own confirmations beyond the limit are refused"
    );
    // Alice is not locked out; nor is Mallory once her states expire.
    let alice = Principal::subject("alice");
    let read = run(engine.read_with(&alice, &salaries, &answer(state_of(&alice), Some(yes()))));
    assert!(read.is_ok(), "{read:?}");
    now.fetch_add(CONFIRM_TTL_SECS + 1, Ordering::SeqCst);
    let read = run(engine.read_with(
        &mallory,
        &salaries,
        &answer(state_of(&mallory), Some(yes())),
    ));
    assert!(read.is_ok(), "{read:?}");
}

/// A ticket store of the test's own: the tickets issued, with the lifetime each was issued
/// for (they never expire here), failing while `fail` is set.
#[derive(Default)]
struct Tickets {
    issued: Mutex<BTreeMap<String, std::time::Duration>>,
    fail: std::sync::atomic::AtomicBool,
}

impl Tickets {
    fn failing(&self, fail: bool) {
        self.fail.store(fail, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl TicketStore for Tickets {
    async fn issue(&self, key: &str, lasting: std::time::Duration) -> Result<(), StoreError> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(StoreError("connection refused".to_owned()));
        }
        self.issued.lock().unwrap().insert(key.to_owned(), lasting);
        Ok(())
    }

    async fn redeem(&self, key: &str) -> Result<bool, StoreError> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(StoreError("connection refused".to_owned()));
        }
        Ok(self.issued.lock().unwrap().remove(key).is_some())
    }
}

#[test]
fn instances_sharing_confirmations_serve_a_state_once_wherever_it_comes_back() {
    let now = Arc::new(AtomicU64::new(1_000_000));
    let tickets = Arc::new(Tickets::default());
    let records = Arc::new(Records::default());
    // One instance of a deployment: the shared key, the shared clock and tickets, its serials
    // from `first_serial`.
    let instance = |first_serial: u64| {
        let clock = Arc::clone(&now);
        let sensitivity = Sensitivity::new([4; 32], Arc::new(move || clock.load(Ordering::SeqCst)))
            .shared(Arc::clone(&tickets) as Arc<dyn TicketStore>, first_serial)
            .rule(SensitiveRule {
                name: "hr".to_owned(),
                uris: vec![UriPattern::parse("hr://**").unwrap()],
                confirm: true,
                reason: None,
            })
            .audit(Arc::clone(&records) as Arc<dyn AuditSink>);
        let (hr, contents) = text_resource("hr://salaries", "alice 100");
        Engine::builder(key())
            .sensitivity(sensitivity)
            .static_resource(hr, contents)
            .build()
            .unwrap()
    };
    let (one, two) = (instance(0), instance(1 << 63));
    let alice = Principal::subject("alice");
    let salaries = uri("hr://salaries");
    let read = |engine: &Engine, inputs: &Inputs| run(engine.read_with(&alice, &salaries, inputs));
    let state_from = |engine: &Engine| asked(read(engine, &Inputs::default())).state;
    let refused = |result: Result<_, ReadError>| {
        assert!(
            matches!(&result, Err(ReadError::InvalidInput { reason, .. }) if reason.contains("used already")),
            "{result:?}"
        );
    };

    // Asked by one, at the same second as by the other: two different states, each with a
    // ticket good for a state's lifetime.
    let state = state_from(&one);
    assert_ne!(state, state_from(&two), "two instances made the same state");
    let lifetimes: Vec<_> = tickets.issued.lock().unwrap().values().copied().collect();
    assert_eq!(
        lifetimes,
        [std::time::Duration::from_secs(CONFIRM_TTL_SECS); 2]
    );
    // Answered 100 s later to the other instance: served there; replayed to either instance,
    // the one that made it included: refused.
    now.fetch_add(100, Ordering::SeqCst);
    let served = read(&two, &answer(state.clone(), Some(yes())));
    assert!(served.is_ok(), "{served:?}");
    for engine in [&one, &two] {
        refused(read(engine, &answer(state.clone(), Some(yes()))));
    }

    // The store away: asking and answering are refused (never served unredeemed), audited as
    // refused; back, the same answer is served (its ticket was never redeemed).
    let state = state_from(&one);
    tickets.failing(true);
    records.take();
    let unasked = read(&one, &Inputs::default());
    assert!(
        matches!(unasked, Err(ReadError::Unavailable { .. })),
        "{unasked:?}"
    );
    let unredeemed = read(&two, &answer(state.clone(), Some(yes())));
    assert!(
        matches!(unredeemed, Err(ReadError::Unavailable { .. })),
        "{unredeemed:?}"
    );
    let outcomes: Vec<_> = records.take().iter().map(|line| line.outcome).collect();
    assert_eq!(outcomes, [AuditOutcome::Refused, AuditOutcome::Refused]);
    tickets.failing(false);
    let served = read(&two, &answer(state.clone(), Some(yes())));
    assert!(served.is_ok(), "{served:?}");

    // The store lost its tickets (a restart without persistence): the states asked before
    // are refused, not served (the user is asked anew).
    let state = state_from(&two);
    tickets.issued.lock().unwrap().clear();
    refused(read(&one, &answer(state, Some(yes()))));
    // A declined answer redeems the ticket too: the state cannot be answered again.
    let state = state_from(&one);
    let no = InputResponse::Elicit {
        action: ElicitAction::Decline,
        content: BTreeMap::new(),
    };
    let declined = read(&two, &answer(state.clone(), Some(no)));
    assert!(
        matches!(declined, Err(ReadError::NotConfirmed { .. })),
        "{declined:?}"
    );
    refused(read(&one, &answer(state, Some(yes()))));
}
