//! The subscription hub: scripted table tests through one `check` helper, a model-based
//! state-machine property test against a naive model, and named regression tests.

use std::collections::{BTreeMap, BTreeSet};

use mcp_resources_core::subscription::{
    Change, HubStats, SubscribeError, SubscriberId, SubscriptionHub, SubscriptionLimits,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Table tests: a script of operations, each line `operation => expected result`.
//
// Operations (subscribers are named by one word; `add` binds the name):
//   add NAME | remove NAME | sub NAME URI | unsub NAME URI | list NAME on|off
//   update URI | update-with-ancestors URI | list-changed | everything-changed | drain NAME | ready | peek-ready | subs NAME | pending NAME
//   subscribers-of URI | stats
// A line `limit N` (no `=>`) sets the per-subscriber limit; it must come first.
// ---------------------------------------------------------------------------------------------

fn check(script: &str) {
    let mut limits = SubscriptionLimits::default();
    let mut hub: Option<SubscriptionHub> = None;
    let mut names: BTreeMap<String, SubscriberId> = BTreeMap::new();
    for (line_number, line) in script.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(limit) = line.strip_prefix("limit ") {
            assert!(
                hub.is_none(),
                "`limit` must come before the first operation"
            );
            limits.max_subscriptions_per_subscriber = limit.parse().expect("a number");
            continue;
        }
        let (operation, expected) = line
            .split_once("=>")
            .unwrap_or_else(|| panic!("line {}: no `=>` in {line:?}", line_number + 1));
        let hub = hub.get_or_insert_with(|| SubscriptionHub::new(limits.clone()));
        let actual = run_line(hub, &mut names, operation.trim());
        assert_eq!(
            actual,
            expected.trim(),
            "line {}: {}",
            line_number + 1,
            operation.trim()
        );
    }
}

fn run_line(
    hub: &mut SubscriptionHub,
    names: &mut BTreeMap<String, SubscriberId>,
    operation: &str,
) -> String {
    let words: Vec<&str> = operation.split_whitespace().collect();
    let id = |name: &str| -> SubscriberId {
        *names
            .get(name)
            .unwrap_or_else(|| panic!("no subscriber named {name:?}"))
    };
    let name_of = |names: &BTreeMap<String, SubscriberId>, id: SubscriberId| -> String {
        names
            .iter()
            .find(|(_, named)| **named == id)
            .map_or_else(|| id.to_string(), |(name, _)| name.clone())
    };
    match words.as_slice() {
        ["add", name] => {
            let id = hub.add_subscriber();
            names.insert((*name).to_owned(), id);
            format!("id {id}")
        }
        ["remove", name] => hub.remove_subscriber(id(name)).to_string(),
        ["sub", name, uri] => match hub.subscribe(id(name), uri) {
            Ok(true) => "new".to_owned(),
            Ok(false) => "already".to_owned(),
            Err(error) => format!("error: {error}"),
        },
        ["unsub", name, uri] => hub.unsubscribe(id(name), uri).to_string(),
        ["list", name, on] => match hub.set_list_changes(id(name), *on == "on") {
            Ok(()) => "ok".to_owned(),
            Err(error) => format!("error: {error}"),
        },
        ["update", uri] => hub.resource_updated(uri).to_string(),
        ["update-with-ancestors", uri] => hub.resource_updated_with_ancestors(uri).to_string(),
        ["list-changed"] => hub.list_changed().to_string(),
        ["everything-changed"] => hub.everything_changed().to_string(),
        ["update-for", name, uri] => hub.resource_updated_for(id(name), uri).to_string(),
        ["drain", name] => {
            let changes: Vec<String> = hub
                .drain(id(name))
                .into_iter()
                .map(|change| match change {
                    Change::ListChanged => "list".to_owned(),
                    Change::ResourceUpdated(uri) => uri.to_string(),
                })
                .collect();
            format!("[{}]", changes.join(", "))
        }
        ["ready"] => {
            let ready: Vec<String> = hub
                .take_ready()
                .into_iter()
                .map(|id| name_of(names, id))
                .collect();
            format!("[{}]", ready.join(", "))
        }
        ["peek-ready"] => {
            let ready: Vec<String> = hub.ready().map(|id| name_of(names, id)).collect();
            format!("[{}]", ready.join(", "))
        }
        ["subs", name] => {
            let uris = hub.subscriptions(id(name));
            format!(
                "[{}] list={}",
                uris.join(", "),
                if hub.list_changes(id(name)) {
                    "on"
                } else {
                    "off"
                }
            )
        }
        ["pending", name] => hub.pending_count(id(name)).to_string(),
        ["subscribers-of", uri] => hub.subscriber_count_of(uri).to_string(),
        ["stats"] => {
            let HubStats {
                subscribers,
                subscriptions,
                uris,
                list_subscribers,
                pending,
                ready,
            } = hub.stats();
            format!(
                "subscribers={subscribers} subscriptions={subscriptions} uris={uris} \
                 list={list_subscribers} pending={pending} ready={ready}"
            )
        }
        _ => panic!("unknown operation {operation:?}"),
    }
}

#[test]
fn one_subscriber_one_uri() {
    check(
        "
        add a                 => id 1
        sub a file:///x       => new
        update file:///x      => 1
        pending a             => 1
        drain a               => [file:///x]
        drain a               => []
        pending a             => 0
        ",
    );
}

#[test]
fn repeated_changes_coalesce_until_drained() {
    check(
        "
        add a                 => id 1
        sub a file:///x       => new
        update file:///x      => 1
        update file:///x      => 0
        update file:///x      => 0
        drain a               => [file:///x]
        update file:///x      => 1
        drain a               => [file:///x]
        ",
    );
}

#[test]
fn changes_reach_exact_uris_only() {
    check(
        "
        add a                 => id 1
        sub a file:///a/      => new
        update file:///a/b    => 0
        update file:///a      => 0
        update file:///A/     => 0
        update file:///a/     => 1
        drain a               => [file:///a/]
        ",
    );
}

#[test]
fn fan_out_marks_every_subscriber_and_slow_ones_do_not_block() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        add c                 => id 3
        sub a file:///x       => new
        sub b file:///x       => new
        sub c file:///y       => new
        subscribers-of file:///x => 2
        update file:///x      => 2
        ready                 => [a, b]
        drain a               => [file:///x]
        # b is slow: it has not drained, the next change coalesces for b only.
        update file:///x      => 1
        ready                 => [a]
        drain a               => [file:///x]
        drain b               => [file:///x]
        drain c               => []
        ",
    );
}

#[test]
fn drain_order_is_list_first_then_uri_order() {
    check(
        "
        add a                 => id 1
        sub a file:///c       => new
        sub a file:///a       => new
        sub a file:///b       => new
        list a on             => ok
        update file:///c      => 1
        update file:///a      => 1
        list-changed          => 1
        drain a               => [list, file:///a, file:///c]
        subs a                => [file:///a, file:///b, file:///c] list=on
        ",
    );
}

#[test]
fn list_changes_reach_list_subscribers_only_and_coalesce() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        list a on             => ok
        list-changed          => 1
        list-changed          => 0
        drain b               => []
        drain a               => [list]
        list-changed          => 1
        list a off            => ok
        pending a             => 0
        ready                 => []
        drain a               => []
        list-changed          => 0
        ",
    );
}

#[test]
fn everything_changed_marks_every_subscription_and_list_once() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        add c                 => id 3
        sub a file:///x       => new
        sub a file:///y       => new
        list a on             => ok
        sub b file:///y       => new
        update file:///y      => 2
        everything-changed    => 2
        everything-changed    => 0
        ready                 => [a, b]
        drain a               => [list, file:///x, file:///y]
        drain b               => [file:///y]
        drain c               => []
        stats                 => subscribers=3 subscriptions=3 uris=2 list=1 pending=0 ready=0
        ",
    );
}

#[test]
fn an_update_for_one_subscriber_reaches_no_other() {
    check(
        "
        add a                    => id 1
        add b                    => id 2
        sub a file:///x          => new
        sub b file:///x          => new
        update-for a file:///x   => true
        update-for a file:///x   => false
        update-for b file:///y   => false
        ready                    => [a]
        drain a                  => [file:///x]
        drain b                  => []
        ",
    );
}

#[test]
fn updates_with_ancestors_reach_subscribers_of_enclosing_directories() {
    check(
        "
        add a                                  => id 1
        add b                                  => id 2
        add c                                  => id 3
        sub a file:///a/                       => new
        sub b file:///a/b/c.txt                => new
        sub c file:///                         => new
        sub c file:///a/b/                     => new
        update-with-ancestors file:///a/b/c.txt => 4
        drain a                                => [file:///a/]
        drain b                                => [file:///a/b/c.txt]
        drain c                                => [file:///, file:///a/b/]
        # a prefix that does not end at a slash is no ancestor
        sub a file:///a/b                      => new
        update-with-ancestors file:///a/bc     => 2
        drain a                                => [file:///a/]
        drain c                                => [file:///]
        # the URI itself, ending in a slash, is marked once
        update-with-ancestors file:///a/       => 2
        drain a                                => [file:///a/]
        drain c                                => [file:///]
        ",
    );
}

#[test]
fn ancestors_stop_at_the_query_and_need_a_hierarchical_uri() {
    check(
        "
        add a                                    => id 1
        sub a db://t/                            => new
        sub a db://t/?q=a/                       => new
        sub a urn:x/                             => new
        sub a http://h?x=/                       => new
        update-with-ancestors db://t/?q=a/b      => 1
        drain a                                  => [db://t/]
        update-with-ancestors urn:x/y            => 0
        update-with-ancestors http://h?x=/y      => 0
        update-with-ancestors x?y://h/a/b        => 0
        ",
    );
}

#[test]
fn subscribe_twice_is_one_subscription() {
    check(
        "
        add a                 => id 1
        sub a file:///x       => new
        sub a file:///x       => already
        update file:///x      => 1
        stats                 => subscribers=1 subscriptions=1 uris=1 list=0 pending=1 ready=1
        unsub a file:///x     => true
        unsub a file:///x     => false
        update file:///x      => 0
        stats                 => subscribers=1 subscriptions=0 uris=0 list=0 pending=0 ready=0
        ",
    );
}

#[test]
fn unsubscribe_drops_the_pending_item() {
    check(
        "
        add a                 => id 1
        sub a file:///x       => new
        sub a file:///y       => new
        update file:///x      => 1
        update file:///y      => 1
        unsub a file:///x     => true
        peek-ready            => [a]
        drain a               => [file:///y]
        update file:///y      => 1
        unsub a file:///y     => true
        peek-ready            => []
        drain a               => []
        ",
    );
}

#[test]
fn limit_on_subscriptions_per_subscriber() {
    check(
        "
        limit 2
        add a                 => id 1
        add b                 => id 2
        sub a file:///1       => new
        sub a file:///2       => new
        sub a file:///3       => error: subscriber 1 already has 2 subscriptions, the most allowed
        sub a file:///2       => already
        sub b file:///3       => new
        unsub a file:///1     => true
        sub a file:///3       => new
        subs a                => [file:///2, file:///3] list=off
        ",
    );
}

#[test]
fn a_zero_limit_refuses_every_subscription_but_not_list_changes() {
    check(
        "
        limit 0
        add a                 => id 1
        sub a file:///x       => error: subscriber 1 already has 0 subscriptions, the most allowed
        list a on             => ok
        list-changed          => 1
        ",
    );
}

#[test]
fn unknown_and_removed_subscribers() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        sub a file:///x       => new
        remove a              => true
        remove a              => false
        sub a file:///x       => error: unknown subscriber 1
        list a on             => error: unknown subscriber 1
        unsub a file:///x     => false
        drain a               => []
        pending a             => 0
        subs a                => [] list=off
        update file:///x      => 0
        # identifiers are never reused
        add c                 => id 3
        ",
    );
}

#[test]
fn removal_frees_everything() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        sub a file:///x       => new
        sub a file:///y       => new
        sub b file:///y       => new
        list a on             => ok
        list b on             => ok
        update file:///x      => 1
        update file:///y      => 2
        list-changed          => 2
        stats                 => subscribers=2 subscriptions=3 uris=2 list=2 pending=5 ready=2
        remove a              => true
        stats                 => subscribers=1 subscriptions=1 uris=1 list=1 pending=2 ready=1
        ready                 => [b]
        remove b              => true
        stats                 => subscribers=0 subscriptions=0 uris=0 list=0 pending=0 ready=0
        ",
    );
}

#[test]
fn ready_reports_new_items_only_once() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        sub a file:///x       => new
        sub a file:///y       => new
        sub b file:///y       => new
        update file:///x      => 1
        ready                 => [a]
        ready                 => []
        # coalesced: a is not reported again
        update file:///x      => 0
        ready                 => []
        # a new item for a, which has not drained yet: reported again
        update file:///y      => 2
        ready                 => [a, b]
        drain a               => [file:///x, file:///y]
        drain b               => [file:///y]
        ready                 => []
        ",
    );
}

#[test]
fn draining_takes_a_subscriber_off_the_ready_set() {
    check(
        "
        add a                 => id 1
        add b                 => id 2
        sub a file:///x       => new
        sub b file:///x       => new
        update file:///x      => 2
        drain b               => [file:///x]
        ready                 => [a]
        ",
    );
}

#[test]
fn drain_into_appends_and_counts() {
    let mut hub = SubscriptionHub::default();
    let a = hub.add_subscriber();
    hub.subscribe(a, "file:///x").unwrap();
    hub.set_list_changes(a, true).unwrap();
    hub.resource_updated("file:///x");
    hub.list_changed();
    let mut buffer = vec![Change::ListChanged];
    assert_eq!(hub.drain_into(a, &mut buffer), 2);
    assert_eq!(
        buffer,
        [
            Change::ListChanged,
            Change::ListChanged,
            Change::ResourceUpdated("file:///x".into())
        ]
    );
    assert_eq!(hub.drain_into(a, &mut buffer), 0);
    assert_eq!(buffer.len(), 3);
}

#[test]
fn the_uri_string_is_shared_between_subscribers() {
    let mut hub = SubscriptionHub::default();
    let a = hub.add_subscriber();
    let b = hub.add_subscriber();
    hub.subscribe(a, "file:///shared").unwrap();
    hub.subscribe(b, "file:///shared").unwrap();
    hub.resource_updated("file:///shared");
    let (Change::ResourceUpdated(from_a), Change::ResourceUpdated(from_b)) =
        (hub.drain(a).remove(0), hub.drain(b).remove(0))
    else {
        panic!("expected two resource updates");
    };
    assert!(std::sync::Arc::ptr_eq(&from_a, &from_b));
}

#[test]
fn a_popular_uri_fans_out_to_all_and_shrinks_back() {
    let mut hub = SubscriptionHub::default();
    let ids: Vec<SubscriberId> = (0..40).map(|_| hub.add_subscriber()).collect();
    for &id in &ids {
        assert_eq!(hub.subscribe(id, "file:///hot"), Ok(true));
    }
    assert_eq!(hub.subscriber_count_of("file:///hot"), 40);
    assert_eq!(hub.resource_updated("file:///hot"), 40);
    let mut ready = hub.take_ready();
    ready.sort_unstable();
    assert_eq!(ready, ids);
    for &id in &ids[..30] {
        assert!(hub.remove_subscriber(id));
    }
    assert_eq!(hub.subscriber_count_of("file:///hot"), 10);
    assert_eq!(hub.stats().pending, 10);
    for &id in &ids[30..] {
        assert_eq!(
            hub.drain(id),
            [Change::ResourceUpdated("file:///hot".into())]
        );
    }
    assert_eq!(hub.resource_updated("file:///hot"), 10);
    for &id in &ids[30..] {
        assert!(hub.unsubscribe(id, "file:///hot"));
    }
    assert_eq!(hub.subscriber_count_of("file:///hot"), 0);
    assert_eq!(hub.resource_updated("file:///hot"), 0);
    assert_eq!(
        hub.stats(),
        HubStats {
            subscribers: 10,
            ..HubStats::default()
        }
    );
}

#[test]
fn removing_ready_subscribers_without_taking_them_leaves_nothing_ready() {
    let mut hub = SubscriptionHub::default();
    for round in 0..100 {
        let id = hub.add_subscriber();
        hub.subscribe(id, "file:///x").unwrap();
        assert_eq!(hub.resource_updated("file:///x"), 1, "round {round}");
        assert!(hub.remove_subscriber(id));
    }
    assert_eq!(hub.stats(), HubStats::default());
    assert_eq!(hub.take_ready(), []);
}

#[test]
fn the_hub_and_its_changes_can_cross_threads() {
    fn assert_send_and_sync<T: Send + Sync>() {}
    assert_send_and_sync::<SubscriptionHub>();
    assert_send_and_sync::<Change>();
    assert_send_and_sync::<SubscribeError>();
}

#[test]
fn errors_say_what_is_wrong() {
    let mut hub = SubscriptionHub::new(SubscriptionLimits {
        max_subscriptions_per_subscriber: 0,
    });
    let a = hub.add_subscriber();
    assert_eq!(
        hub.subscribe(a, "file:///x"),
        Err(SubscribeError::TooManySubscriptions {
            subscriber: a,
            limit: 0
        })
    );
    hub.remove_subscriber(a);
    assert_eq!(
        hub.subscribe(a, "file:///x"),
        Err(SubscribeError::UnknownSubscriber(a))
    );
    assert_eq!(a.as_u64(), 1);
}

// ---------------------------------------------------------------------------------------------
// Model-based state-machine test: the hub against a naive model under random operations.
// ---------------------------------------------------------------------------------------------

/// URIs drawn from a small pool so that subscribers share them and changes hit.
const URIS: [&str; 9] = [
    "file:///",
    "file:///a",
    "file:///a/",
    "file:///a/b",
    "file:///a/b/c",
    "git://repo/HEAD",
    "db://t/",
    "db://t/?q=a/",
    "db://t/?q=a/b",
];
const LIMIT: usize = 3;

#[derive(Clone, Debug)]
enum Operation {
    Add,
    /// Adds `count` subscribers, each subscribed to one URI, so that popular URIs occur.
    AddMany(usize, usize),
    /// Subscribers are named by an index into the identifiers handed out so far (modulo), so
    /// removed subscribers are exercised too.
    Remove(usize),
    Subscribe(usize, usize),
    Unsubscribe(usize, usize),
    SetListChanges(usize, bool),
    Update(usize),
    UpdateFor(usize, usize),
    UpdateWithAncestors(usize),
    ListChanged,
    EverythingChanged,
    Drain(usize),
    TakeReady,
}

fn operation() -> impl Strategy<Value = Operation> {
    let subscriber = 0..40usize;
    let uri = 0..URIS.len();
    prop_oneof![
        2 => Just(Operation::Add),
        1 => (1..12usize, uri.clone()).prop_map(|(count, u)| Operation::AddMany(count, u)),
        1 => subscriber.clone().prop_map(Operation::Remove),
        4 => (subscriber.clone(), uri.clone()).prop_map(|(s, u)| Operation::Subscribe(s, u)),
        2 => (subscriber.clone(), uri.clone()).prop_map(|(s, u)| Operation::Unsubscribe(s, u)),
        1 => (subscriber.clone(), any::<bool>()).prop_map(|(s, on)| Operation::SetListChanges(s, on)),
        4 => uri.clone().prop_map(Operation::Update),
        1 => (subscriber.clone(), uri.clone()).prop_map(|(s, u)| Operation::UpdateFor(s, u)),
        2 => uri.prop_map(Operation::UpdateWithAncestors),
        1 => Just(Operation::ListChanged),
        1 => Just(Operation::EverythingChanged),
        3 => subscriber.prop_map(Operation::Drain),
        1 => Just(Operation::TakeReady),
    ]
}

/// The model's reading of "ancestor": a shorter prefix of `uri` that ends in `/`, has a scheme
/// and a path, and no query.
fn is_ancestor(candidate: &str, uri: &str) -> bool {
    let Some((scheme, rest)) = candidate.split_once("://") else {
        return false;
    };
    candidate.len() < uri.len()
        && uri.starts_with(candidate)
        && candidate.ends_with('/')
        && !candidate.contains('?')
        && rest.contains('/')
        && !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// What the model keeps per subscriber.
#[derive(Debug, Default)]
struct ModelSubscriber {
    uris: BTreeSet<String>,
    list_changes: bool,
    pending_uris: BTreeSet<String>,
    list_pending: bool,
}

impl ModelSubscriber {
    fn pending(&self) -> usize {
        self.pending_uris.len() + usize::from(self.list_pending)
    }
}

/// The naive model: plain maps, every change scans all subscribers.
#[derive(Debug, Default)]
struct Model {
    subscribers: BTreeMap<SubscriberId, ModelSubscriber>,
    /// Subscribers that got a new pending item since the last take of the ready set.
    newly_pending: BTreeSet<SubscriberId>,
}

impl Model {
    fn ready(&self) -> BTreeSet<SubscriberId> {
        self.newly_pending
            .iter()
            .copied()
            .filter(|id| self.subscribers.get(id).is_some_and(|s| s.pending() > 0))
            .collect()
    }

    fn stats(&self) -> HubStats {
        let uris: BTreeSet<&String> = self.subscribers.values().flat_map(|s| &s.uris).collect();
        HubStats {
            subscribers: self.subscribers.len(),
            subscriptions: self.subscribers.values().map(|s| s.uris.len()).sum(),
            uris: uris.len(),
            list_subscribers: self.subscribers.values().filter(|s| s.list_changes).count(),
            pending: self
                .subscribers
                .values()
                .map(ModelSubscriber::pending)
                .sum(),
            ready: self.ready().len(),
        }
    }
}

/// Applies `operation` to both and asserts they agree on the result and on every observable.
fn step(
    hub: &mut SubscriptionHub,
    model: &mut Model,
    handed_out: &mut Vec<SubscriberId>,
    operation: &Operation,
) -> Result<(), TestCaseError> {
    let pick = |index: usize| -> Option<SubscriberId> {
        (!handed_out.is_empty()).then(|| handed_out[index % handed_out.len()])
    };
    match *operation {
        Operation::Add => {
            let id = hub.add_subscriber();
            prop_assert!(handed_out.last().is_none_or(|last| *last < id));
            handed_out.push(id);
            model.subscribers.insert(id, ModelSubscriber::default());
        }
        Operation::AddMany(count, uri) => {
            for _ in 0..count {
                step(hub, model, handed_out, &Operation::Add)?;
                let newest = handed_out.len() - 1;
                step(hub, model, handed_out, &Operation::Subscribe(newest, uri))?;
            }
        }
        Operation::Remove(index) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let expected = model.subscribers.remove(&id).is_some();
            model.newly_pending.remove(&id);
            prop_assert_eq!(hub.remove_subscriber(id), expected);
        }
        Operation::Subscribe(index, uri) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let uri = URIS[uri];
            let expected = match model.subscribers.get_mut(&id) {
                None => Err(SubscribeError::UnknownSubscriber(id)),
                Some(s) if s.uris.contains(uri) => Ok(false),
                Some(s) if s.uris.len() >= LIMIT => Err(SubscribeError::TooManySubscriptions {
                    subscriber: id,
                    limit: LIMIT,
                }),
                Some(s) => Ok(s.uris.insert(uri.to_owned())),
            };
            prop_assert_eq!(hub.subscribe(id, uri), expected);
        }
        Operation::Unsubscribe(index, uri) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let uri = URIS[uri];
            let expected = model.subscribers.get_mut(&id).is_some_and(|s| {
                s.pending_uris.remove(uri);
                s.uris.remove(uri)
            });
            prop_assert_eq!(hub.unsubscribe(id, uri), expected);
        }
        Operation::SetListChanges(index, on) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let expected = match model.subscribers.get_mut(&id) {
                None => Err(SubscribeError::UnknownSubscriber(id)),
                Some(s) => {
                    s.list_changes = on;
                    s.list_pending &= on;
                    Ok(())
                }
            };
            prop_assert_eq!(hub.set_list_changes(id, on), expected);
        }
        Operation::Update(uri) => {
            let uri = URIS[uri];
            let mut expected = 0;
            for (id, s) in &mut model.subscribers {
                if s.uris.contains(uri) && s.pending_uris.insert(uri.to_owned()) {
                    expected += 1;
                    model.newly_pending.insert(*id);
                }
            }
            prop_assert_eq!(hub.resource_updated(uri), expected);
        }
        Operation::UpdateFor(index, uri) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let uri = URIS[uri];
            let expected = model
                .subscribers
                .get_mut(&id)
                .is_some_and(|s| s.uris.contains(uri) && s.pending_uris.insert(uri.to_owned()));
            if expected {
                model.newly_pending.insert(id);
            }
            prop_assert_eq!(hub.resource_updated_for(id, uri), expected);
        }
        Operation::UpdateWithAncestors(uri) => {
            let uri = URIS[uri];
            let mut expected = 0;
            for (id, s) in &mut model.subscribers {
                for subscribed in &s.uris {
                    let hit = subscribed == uri || is_ancestor(subscribed, uri);
                    if hit && s.pending_uris.insert(subscribed.clone()) {
                        expected += 1;
                        model.newly_pending.insert(*id);
                    }
                }
            }
            prop_assert_eq!(hub.resource_updated_with_ancestors(uri), expected);
        }
        Operation::ListChanged => {
            let mut expected = 0;
            for (id, s) in &mut model.subscribers {
                if s.list_changes && !s.list_pending {
                    s.list_pending = true;
                    expected += 1;
                    model.newly_pending.insert(*id);
                }
            }
            prop_assert_eq!(hub.list_changed(), expected);
        }
        Operation::EverythingChanged => {
            let mut expected = 0;
            for (id, s) in &mut model.subscribers {
                let before = s.pending();
                s.pending_uris.extend(s.uris.iter().cloned());
                s.list_pending |= s.list_changes;
                if s.pending() > before {
                    expected += s.pending() - before;
                    model.newly_pending.insert(*id);
                }
            }
            prop_assert_eq!(hub.everything_changed(), expected);
        }
        Operation::Drain(index) => {
            let Some(id) = pick(index) else { return Ok(()) };
            let mut expected = Vec::new();
            if let Some(s) = model.subscribers.get_mut(&id) {
                if std::mem::take(&mut s.list_pending) {
                    expected.push(Change::ListChanged);
                }
                expected.extend(
                    std::mem::take(&mut s.pending_uris)
                        .into_iter()
                        .map(|uri| Change::ResourceUpdated(uri.into())),
                );
            }
            prop_assert_eq!(hub.drain(id), expected);
        }
        Operation::TakeReady => {
            let expected: Vec<SubscriberId> = model.ready().into_iter().collect();
            model.newly_pending.clear();
            let mut actual = hub.take_ready();
            actual.sort_unstable();
            prop_assert_eq!(actual, expected);
        }
    }
    // The totals agree after every step; `run_against_model` compares the subscribers.
    prop_assert_eq!(hub.stats(), model.stats());
    prop_assert_eq!(hub.ready().collect::<BTreeSet<_>>(), model.ready());
    for uri in URIS {
        let expected = model
            .subscribers
            .values()
            .filter(|s| s.uris.contains(uri))
            .count();
        prop_assert_eq!(hub.subscriber_count_of(uri), expected);
    }
    Ok(())
}

/// The subscriber an operation names, if any.
fn named(handed_out: &[SubscriberId], operation: &Operation) -> Option<SubscriberId> {
    let index = match *operation {
        Operation::Remove(index)
        | Operation::Subscribe(index, _)
        | Operation::Unsubscribe(index, _)
        | Operation::SetListChanges(index, _)
        | Operation::Drain(index) => index,
        _ => return None,
    };
    (!handed_out.is_empty()).then(|| handed_out[index % handed_out.len()])
}

/// Asserts that the hub and the model agree on everything they say about each of `ids`.
fn observe(
    hub: &SubscriptionHub,
    model: &Model,
    ids: impl IntoIterator<Item = SubscriberId>,
) -> Result<(), TestCaseError> {
    for id in ids {
        let model_subscriber = model.subscribers.get(&id);
        prop_assert_eq!(hub.contains(id), model_subscriber.is_some());
        prop_assert_eq!(
            hub.subscriptions(id),
            model_subscriber.map_or_else(Vec::new, |s| s.uris.iter().map(String::as_str).collect())
        );
        prop_assert_eq!(
            hub.list_changes(id),
            model_subscriber.is_some_and(|s| s.list_changes)
        );
        prop_assert_eq!(
            hub.pending_count(id),
            model_subscriber.map_or(0, ModelSubscriber::pending)
        );
    }
    Ok(())
}

/// Runs `operations` against the hub and the model, comparing the subscriber an operation names
/// after it and every subscriber at the end, then removes every subscriber and checks that the
/// hub is empty again.
fn run_against_model(operations: &[Operation]) -> Result<(), TestCaseError> {
    let mut hub = SubscriptionHub::new(SubscriptionLimits {
        max_subscriptions_per_subscriber: LIMIT,
    });
    let mut model = Model::default();
    let mut handed_out = Vec::new();
    for operation in operations {
        step(&mut hub, &mut model, &mut handed_out, operation)?;
        observe(&hub, &model, named(&handed_out, operation))?;
    }
    observe(&hub, &model, handed_out.iter().copied())?;
    for id in handed_out {
        let expected = model.subscribers.remove(&id).is_some();
        model.newly_pending.remove(&id);
        prop_assert_eq!(hub.remove_subscriber(id), expected);
        prop_assert_eq!(hub.stats(), model.stats());
    }
    prop_assert_eq!(hub.stats(), HubStats::default());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn hub_behaves_like_the_model(operations in prop::collection::vec(operation(), 0..80)) {
        run_against_model(&operations)?;
    }
}

// Named regressions. The property test has not failed on the delivered code; these replay
// sequences that went wrong in drafts or in review.

/// A draft of `resource_updated_with_ancestors` looked for the path at the first `/` after
/// `scheme://`, which for `http://h?x=/y` lies in the query, and so marked `http://h?x=/`.
#[test]
fn regression_a_uri_with_a_query_and_no_path_has_no_ancestor() {
    check(
        "
        add a                                  => id 1
        sub a http://h?x=/                     => new
        update-with-ancestors http://h?x=/y    => 0
        sub a http://h/                        => new
        update-with-ancestors http://h/?x=/y   => 1
        drain a                                => [http://h/]
        ",
    );
}

/// Drained subscribers stay in the ready queue until it is taken; one that gets a new change
/// after draining must be reported once, and one removed meanwhile never.
#[test]
fn regression_drained_then_changed_again_is_ready_once() {
    run_against_model(&[
        Operation::Add,
        Operation::Add,
        Operation::Subscribe(0, 1),
        Operation::Subscribe(1, 1),
        Operation::Update(1),
        Operation::Drain(0),
        Operation::Update(1),
        Operation::Remove(1),
        Operation::TakeReady,
        Operation::TakeReady,
    ])
    .unwrap();
}
