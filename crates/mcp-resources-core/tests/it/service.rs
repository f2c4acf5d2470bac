//! Tests of the service: queries answered through the engine, and subscription queries through
//! the shared hub, under the policy.

use std::sync::Arc;

use mcp_resources_core::engine::Engine;
use mcp_resources_core::input::Inputs;
use mcp_resources_core::policy::{
    Action, ActionSet, Grantee, PatternPolicy, Principal, UriPattern,
};
use mcp_resources_core::service::{Answer, Offer, Query, QueryContext, Service, SubscriptionError};
use mcp_resources_core::subscription::{Change, SubscriptionLimits};

use crate::fixtures::{key, run, text_resource, uri};

/// A service over two static resources, where only `alice` may touch `secret://`.
fn service(offer: Offer, limits: SubscriptionLimits) -> Service {
    let (public, public_contents) = text_resource("docs://readme", "read me");
    let (secret, secret_contents) = text_resource("secret://plan", "the plan");
    let everything = ActionSet::of(&[
        Action::List,
        Action::Read,
        Action::Subscribe,
        Action::Complete,
    ]);
    let policy = PatternPolicy::new()
        .grant(
            Grantee::Anyone,
            everything,
            UriPattern::parse("docs://**").unwrap(),
        )
        .grant(
            Grantee::Subject("alice".into()),
            everything,
            UriPattern::parse("secret://**").unwrap(),
        );
    let engine = Engine::builder(key())
        .policy(Arc::new(policy))
        .static_resource(public, public_contents)
        .static_resource(secret, secret_contents)
        .build()
        .unwrap();
    Service::with_offer(engine, offer, limits)
}

fn ask(service: &Service, principal: &Principal, subscriber: Option<u64>, query: Query) -> Answer {
    let subscriber = subscriber.map(|_| service.add_subscriber());
    run(service.answer(
        QueryContext {
            principal,
            subscriber,
        },
        query,
    ))
}

#[test]
fn reads_and_lists_go_through_the_engine_and_its_policy() {
    let service = service(Offer::default(), SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let Answer::Resources(Ok(page)) = ask(
        &service,
        &anyone,
        None,
        Query::ListResources { cursor: None },
    ) else {
        panic!("a page");
    };
    assert_eq!(crate::fixtures::uris(&page.items), ["docs://readme"]);

    let read = ask(
        &service,
        &anyone,
        None,
        Query::Read {
            uri: uri("secret://plan"),
            inputs: Inputs::default(),
        },
    );
    assert!(matches!(read, Answer::Read(Err(_))), "{read:?}");
    let alice = Principal::subject("alice");
    let read = ask(
        &service,
        &alice,
        None,
        Query::Read {
            uri: uri("secret://plan"),
            inputs: Inputs::default(),
        },
    );
    assert!(matches!(read, Answer::Read(Ok(_))), "{read:?}");
}

#[test]
fn subscribe_records_in_the_hub_and_changes_reach_only_subscribers() {
    let service = service(Offer::default(), SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let session = service.add_subscriber();
    let other = service.add_subscriber();
    let context = QueryContext {
        principal: &anyone,
        subscriber: Some(session),
    };
    let answer = run(service.answer(
        context,
        Query::Subscribe {
            uri: uri("docs://readme"),
        },
    ));
    assert!(matches!(answer, Answer::Subscribed(Ok(()))), "{answer:?}");

    assert_eq!(service.resource_updated("docs://readme"), [session]);
    assert_eq!(service.resource_updated("docs://readme"), []);
    assert_eq!(
        service.drain_changes(session),
        [Change::ResourceUpdated("docs://readme".into())]
    );
    assert_eq!(service.drain_changes(other), []);

    let answer = run(service.answer(
        context,
        Query::Unsubscribe {
            uri: uri("docs://readme"),
        },
    ));
    assert!(matches!(answer, Answer::Unsubscribed), "{answer:?}");
    assert_eq!(service.resource_updated("docs://readme"), []);
}

#[test]
fn a_denied_subscription_looks_like_not_found() {
    let service = service(Offer::default(), SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let answer = ask(
        &service,
        &anyone,
        Some(1),
        Query::Subscribe {
            uri: uri("secret://plan"),
        },
    );
    let Answer::Subscribed(Err(error)) = answer else {
        panic!("refused: {answer:?}");
    };
    assert_eq!(
        error,
        SubscriptionError::NotFound {
            uri: "secret://plan".into()
        }
    );
    assert_eq!(error.to_string(), "resource secret://plan not found");
}

#[test]
fn subscription_queries_respect_the_offer_and_need_a_subscriber() {
    let offer = Offer {
        subscribe: false,
        list_changed: false,
        completions: false,
        directories: false,
        tools: false,
    };
    let service = service(offer, SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let answer = ask(
        &service,
        &anyone,
        Some(1),
        Query::Subscribe {
            uri: uri("docs://readme"),
        },
    );
    assert!(
        matches!(
            answer,
            Answer::Subscribed(Err(SubscriptionError::NotOffered(_)))
        ),
        "{answer:?}"
    );
    let answer = ask(
        &service,
        &anyone,
        Some(1),
        Query::WatchListChanges { enabled: true },
    );
    assert!(
        matches!(
            answer,
            Answer::WatchingListChanges(Err(SubscriptionError::NotOffered(_)))
        ),
        "{answer:?}"
    );

    let service = self::service(Offer::default(), SubscriptionLimits::default());
    let answer = ask(
        &service,
        &anyone,
        None,
        Query::Subscribe {
            uri: uri("docs://readme"),
        },
    );
    assert!(
        matches!(
            answer,
            Answer::Subscribed(Err(SubscriptionError::NoSubscriber))
        ),
        "{answer:?}"
    );
}

#[test]
fn the_hub_limit_surfaces_as_a_clear_error() {
    let limits = SubscriptionLimits {
        max_subscriptions_per_subscriber: 1,
    };
    let service = service(Offer::default(), limits);
    let alice = Principal::subject("alice");
    let subscriber = Some(service.add_subscriber());
    let context = QueryContext {
        principal: &alice,
        subscriber,
    };
    let first = run(service.answer(
        context,
        Query::Subscribe {
            uri: uri("docs://readme"),
        },
    ));
    assert!(matches!(first, Answer::Subscribed(Ok(()))), "{first:?}");
    let second = run(service.answer(
        context,
        Query::Subscribe {
            uri: uri("secret://plan"),
        },
    ));
    let Answer::Subscribed(Err(error)) = second else {
        panic!("refused: {second:?}");
    };
    assert!(matches!(error, SubscriptionError::Hub(_)), "{error:?}");
    assert!(error.to_string().contains("1 subscriptions"), "{error}");
}

#[test]
fn listen_accepts_only_what_it_can_honour() {
    let service = service(Offer::default(), SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let stream = service.add_subscriber();
    let context = QueryContext {
        principal: &anyone,
        subscriber: Some(stream),
    };
    let query = Query::Listen {
        uris: vec![
            "docs://readme".into(),
            "secret://plan".into(),
            "not a uri".into(),
            "docs://readme".into(),
        ],
        list_changes: true,
    };
    let Answer::Listening { uris, list_changes } = run(service.answer(context, query)) else {
        panic!("listening");
    };
    assert_eq!(uris, ["docs://readme"]);
    assert!(list_changes);

    assert_eq!(service.list_changed(), [stream]);
    assert_eq!(service.resource_updated("secret://plan"), []);
    assert_eq!(service.resource_updated("docs://readme"), [stream]);
    assert_eq!(
        service.drain_changes(stream),
        [
            Change::ListChanged,
            Change::ResourceUpdated("docs://readme".into())
        ]
    );

    service.remove_subscriber(stream);
    assert_eq!(service.list_changed(), []);
}

#[test]
fn listen_without_the_offer_accepts_nothing() {
    let offer = Offer {
        subscribe: false,
        list_changed: false,
        completions: true,
        directories: true,
        tools: false,
    };
    let service = service(offer, SubscriptionLimits::default());
    let anyone = Principal::anonymous();
    let query = Query::Listen {
        uris: vec!["docs://readme".into()],
        list_changes: true,
    };
    let Answer::Listening { uris, list_changes } = ask(&service, &anyone, Some(1), query) else {
        panic!("listening");
    };
    assert!(uris.is_empty());
    assert!(!list_changes);
}

/// A list change naming its resources reaches the watchers who may list one of them, in both
/// ways of watching (a legacy session's, a listen stream's), and no one else.
#[test]
fn list_changes_reach_only_those_who_may_see_what_changed() {
    let service = service(Offer::default(), SubscriptionLimits::default());
    let alice = Principal::subject("alice");
    let anyone = Principal::anonymous();
    let watch = |principal: &Principal, legacy: bool| {
        let subscriber = service.add_subscriber();
        let context = QueryContext {
            principal,
            subscriber: Some(subscriber),
        };
        let query = if legacy {
            Query::WatchListChanges { enabled: true }
        } else {
            Query::Listen {
                uris: Vec::new(),
                list_changes: true,
            }
        };
        run(service.answer(context, query));
        subscriber
    };
    let (alice_legacy, alice_listen) = (watch(&alice, true), watch(&alice, false));
    let (anyone_legacy, anyone_listen) = (watch(&anyone, true), watch(&anyone, false));
    let sorted = |mut ids: Vec<_>| {
        ids.sort();
        ids
    };

    let secret = [uri("secret://new-plan")];
    assert_eq!(
        sorted(service.list_changed_for(&secret)),
        sorted(vec![alice_legacy, alice_listen]),
        "only alice may list secret://"
    );
    for subscriber in [alice_legacy, alice_listen] {
        assert_eq!(service.drain_changes(subscriber), [Change::ListChanged]);
    }
    assert!(service.drain_changes(anyone_legacy).is_empty());

    let both = [uri("secret://gone"), uri("docs://new")];
    assert_eq!(service.list_changed_for(&both).len(), 4);
    // Without the resources, everyone watching is told.
    for subscriber in [alice_legacy, alice_listen, anyone_legacy, anyone_listen] {
        service.drain_changes(subscriber);
    }
    assert_eq!(service.list_changed().len(), 4);
    // A watcher that turned list changes off, or went away, is not told.
    for subscriber in [alice_legacy, alice_listen, anyone_legacy, anyone_listen] {
        service.drain_changes(subscriber);
    }
    run(service.answer(
        QueryContext {
            principal: &alice,
            subscriber: Some(alice_legacy),
        },
        Query::WatchListChanges { enabled: false },
    ));
    service.remove_subscriber(alice_listen);
    assert!(service.list_changed_for(&secret).is_empty());
}
