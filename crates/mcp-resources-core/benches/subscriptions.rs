//! Benchmarks of the subscription hub: the fan-out of one change to many subscribers, and the
//! memory that many subscriptions take (counted by divan's allocation profiler).
//!
//! Run with `cargo bench -p mcp-resources-core --bench subscriptions`.

use divan::{AllocProfiler, Bencher, black_box};
use mcp_resources_core::subscription::{Change, SubscriptionHub, SubscriptionLimits};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

const HOT_URI: &str = "file:///project/src/main.rs";

fn uri(number: usize) -> String {
    format!("file:///project/src/module_{number:06}.rs")
}

/// A hub where `subscribers` subscribers all watch [`HOT_URI`] and nine other URIs of their own.
fn hub_with_hot_uri(subscribers: usize) -> SubscriptionHub {
    let mut hub = SubscriptionHub::new(SubscriptionLimits::default());
    for number in 0..subscribers {
        let id = hub.add_subscriber();
        hub.subscribe(id, HOT_URI).unwrap();
        for other in 0..9 {
            hub.subscribe(id, &uri(number * 9 + other)).unwrap();
        }
    }
    hub
}

/// One change of a URI watched by every subscriber, then the driver's whole delivery loop:
/// take the ready subscribers and drain each into one reused buffer.
#[divan::bench(args = [100, 1_000, 10_000])]
fn fan_out_mark_and_drain(bencher: Bencher<'_, '_>, subscribers: usize) {
    let mut hub = hub_with_hot_uri(subscribers);
    let mut changes: Vec<Change> = Vec::with_capacity(16);
    bencher
        .counter(divan::counter::ItemsCount::new(subscribers))
        .bench_local(|| {
            let marked = hub.resource_updated(black_box(HOT_URI));
            assert_eq!(marked, subscribers);
            for id in hub.take_ready() {
                changes.clear();
                hub.drain_into(id, &mut changes);
            }
            black_box(&changes);
        });
}

/// A change of a URI that is already pending for every subscriber: it coalesces.
#[divan::bench(args = [10_000])]
fn fan_out_coalesced(bencher: Bencher<'_, '_>, subscribers: usize) {
    let mut hub = hub_with_hot_uri(subscribers);
    hub.resource_updated(HOT_URI);
    bencher
        .counter(divan::counter::ItemsCount::new(subscribers))
        .bench_local(|| hub.resource_updated(black_box(HOT_URI)));
}

/// Memory: the hub is built inside the benchmark and returned, so its allocations are counted
/// and its drop is not. Every case holds 100,000 subscriptions.
mod memory_of_100_000_subscriptions {
    use super::*;

    /// The URIs, made outside the measured part.
    fn names() -> Vec<String> {
        (0..100_000).map(uri).collect()
    }

    fn build(
        names: &[String],
        subscribers: usize,
        uris_per_subscriber: usize,
        shared: bool,
    ) -> SubscriptionHub {
        let mut hub = SubscriptionHub::new(SubscriptionLimits::default());
        for number in 0..subscribers {
            let id = hub.add_subscriber();
            for other in 0..uris_per_subscriber {
                let index = if shared {
                    other
                } else {
                    number * uris_per_subscriber + other
                };
                hub.subscribe(id, &names[index]).unwrap();
            }
        }
        assert_eq!(hub.stats().subscriptions, 100_000);
        hub
    }

    /// 10,000 subscribers × 10 URIs, every URI distinct (100,000 index entries).
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn subscribers_10_000_x_10_distinct_uris(bencher: Bencher<'_, '_>) {
        bencher
            .with_inputs(names)
            .bench_local_refs(|names| build(names, 10_000, 10, false));
    }

    /// 10,000 subscribers × the same 10 URIs (10 index entries).
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn subscribers_10_000_x_10_shared_uris(bencher: Bencher<'_, '_>) {
        bencher
            .with_inputs(names)
            .bench_local_refs(|names| build(names, 10_000, 10, true));
    }

    /// 100,000 subscribers × 1 URI, every URI distinct.
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn subscribers_100_000_x_1_distinct_uri(bencher: Bencher<'_, '_>) {
        bencher
            .with_inputs(names)
            .bench_local_refs(|names| build(names, 100_000, 1, false));
    }

    /// 100,000 subscribers × the same URI.
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn subscribers_100_000_x_1_shared_uri(bencher: Bencher<'_, '_>) {
        bencher
            .with_inputs(names)
            .bench_local_refs(|names| build(names, 100_000, 1, true));
    }

    /// 100,000 subscribers × 1 distinct URI, all removed again: what the hub keeps afterwards
    /// (allocated minus freed bytes) is what removal fails to give back.
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn added_then_removed(bencher: Bencher<'_, '_>) {
        bencher.with_inputs(names).bench_local_refs(|names| {
            let mut hub = SubscriptionHub::new(SubscriptionLimits::default());
            let ids: Vec<_> = names
                .iter()
                .map(|name| {
                    let id = hub.add_subscriber();
                    hub.subscribe(id, name).unwrap();
                    id
                })
                .collect();
            hub.resource_updated(&names[0]);
            for id in ids {
                hub.remove_subscriber(id);
            }
            assert_eq!(hub.stats().subscriptions, 0);
            hub
        });
    }
}
