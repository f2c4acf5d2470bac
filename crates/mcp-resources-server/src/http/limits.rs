//! What clients of the HTTP endpoint may hold at once: connections, response bytes in flight,
//! live streams and sessions, each bounded in all and for each client, so that no client, and
//! no crowd of anonymous connections, can take what the others need.
//!
//! **Layer:** server, HTTP transport. Bookkeeping only: counters under a lock, and guards that
//! give back what they hold when dropped. This module never knows either era, JSON-RPC or the
//! service; the transport asks it before it opens, answers or keeps something.
//!
//! A client is who the request runs as: the subject of its bearer token when authorization is
//! on, else the address of the peer it came from, an IPv6 peer by its /64 (one host's share of
//! addresses) ([`Client`]). Quotas are per client so that one client at its limit is refused
//! (`503`) while others go on, and the last quarter of each total is kept for clients holding
//! little ([`reserve_starts`]), so that a few clients at their full shares cannot take all
//! there is; nothing is ever taken from one client to make room for another. Loopback
//! addresses are each a client: a local user who binds many of them can share out more of the
//! totals among themselves, as a local user can load the machine in other ways.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_resources_core::policy::Principal;

/// Who a quota counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    /// The subject of an authorized request.
    Subject(String),
    /// The address of an anonymous request's peer.
    Peer(IpAddr),
    /// A request whose peer is not known (a [`Router`](axum::Router) served without connect
    /// info): all of them count as one client.
    Unknown,
}

impl Client {
    /// The client of an anonymous peer: its IPv4 address (an IPv4-mapped IPv6 one counts as
    /// that), or the /64 network of its IPv6 address.
    pub(crate) fn peer(address: IpAddr) -> Client {
        let address = match address {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let bits = u128::from(v6) & !((1_u128 << 64) - 1);
                    IpAddr::V6(std::net::Ipv6Addr::from(bits))
                }
            },
            v4 => v4,
        };
        Client::Peer(address)
    }

    /// The client of a request running as `principal`, from `peer`.
    pub(crate) fn of(principal: &Principal, peer: Option<SocketAddr>) -> Client {
        match (&principal.subject, peer) {
            (Some(subject), _) => Client::Subject(subject.clone()),
            (None, Some(peer)) => Client::peer(peer.ip()),
            (None, None) => Client::Unknown,
        }
    }
}

/// A bounded amount (connections, bytes, streams), in all and for each client.
#[derive(Debug)]
pub(crate) struct Quota {
    /// What it counts, for the log.
    what: &'static str,
    total: usize,
    each: usize,
    state: Mutex<Usage>,
}

#[derive(Debug, Default)]
struct Usage {
    total: usize,
    by_client: HashMap<Client, usize>,
}

/// Why a quota refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The client holds its share already.
    Client,
    /// Every client together holds all there is.
    Total,
}

impl Quota {
    /// A quota of `total` in all and `each` for one client.
    pub(crate) fn new(what: &'static str, total: usize, each: usize) -> Arc<Quota> {
        Arc::new(Quota {
            what,
            total,
            each: each.min(total),
            state: Mutex::default(),
        })
    }

    /// Takes `amount` for `client`, held until the guard is dropped; refused (and logged at
    /// debug level) when it would go over the client's share or the total.
    pub(crate) fn take(self: &Arc<Self>, client: &Client, amount: usize) -> Result<Held, Refused> {
        self.reserve(client, amount)?;
        Ok(Held {
            quota: Arc::clone(self),
            client: client.clone(),
            amount,
        })
    }

    /// Counts `amount` more for `client`, or refuses (see [`Quota::take`]); the caller owns
    /// giving it back.
    fn reserve(&self, client: &Client, amount: usize) -> Result<(), Refused> {
        let mut usage = self.lock();
        let held = usage.by_client.get(client).copied().unwrap_or(0);
        let after = usage.total.saturating_add(amount);
        let refused = if held.saturating_add(amount) > self.each {
            Some(Refused::Client)
        } else if after > self.total
            || (after > reserve_starts(self.total, self.each)
                && held.saturating_add(amount) > (self.each / 4).max(1))
        {
            Some(Refused::Total)
        } else {
            None
        };
        if let Some(refused) = refused {
            drop(usage);
            tracing::debug!(what = self.what, ?client, amount, ?refused, "over a quota");
            return Err(refused);
        }
        usage.total += amount;
        *usage.by_client.entry(client.clone()).or_insert(0) += amount;
        Ok(())
    }

    /// What `client` holds now.
    #[cfg(test)]
    pub(crate) fn held_by(&self, client: &Client) -> usize {
        self.lock().by_client.get(client).copied().unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Usage> {
        // Every update leaves the counts whole, so a poisoned lock holds consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where the last quarter of `total` starts when clients have shares of `each`: that quarter is
/// kept for clients holding at most a quarter of a share (at least one), so that a few clients at their full
/// shares cannot take all there is from everyone else. A share as large as the total (one
/// client may take everything) keeps nothing back.
pub(crate) fn reserve_starts(total: usize, each: usize) -> usize {
    if each >= total {
        total
    } else {
        total - total / 4
    }
}

/// Part of a [`Quota`], given back when dropped.
#[derive(Debug)]
pub(crate) struct Held {
    quota: Arc<Quota>,
    client: Client,
    amount: usize,
}

impl Held {
    /// Holds `amount` in all from now on (more than before: the difference is taken), or, when
    /// that would go over a share, holds what it held and says why.
    pub(crate) fn grow_to(&mut self, amount: usize) -> Result<(), Refused> {
        if amount <= self.amount {
            return Ok(());
        }
        self.quota.reserve(&self.client, amount - self.amount)?;
        self.amount = amount;
        Ok(())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut usage = self.quota.lock();
        usage.total -= self.amount;
        if let Some(held) = usage.by_client.get_mut(&self.client) {
            *held -= self.amount;
            if *held == 0 {
                usage.by_client.remove(&self.client);
            }
        }
    }
}

/// The most connections this process can keep open: `wanted`, lowered to leave room below the
/// open-files limit for the listener, the files being read and the log (a server out of file
/// descriptors can accept no one, not even to refuse them).
pub(crate) fn connection_cap(wanted: usize) -> usize {
    /// Descriptors kept for everything but connections.
    const RESERVED: u64 = 64;
    #[cfg(unix)]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        if let Some(soft) = limit.current {
            let room = usize::try_from(soft.saturating_sub(RESERVED)).unwrap_or(usize::MAX);
            if room < wanted {
                tracing::warn!(
                    wanted,
                    open_files_limit = soft,
                    max_connections = room.max(1),
                    "max_connections lowered below the open-files limit (raise it with ulimit -n)"
                );
                return room.max(1);
            }
        }
    }
    wanted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_at_its_share_is_refused_while_others_go_on() {
        // Shares of 40 of 100; the last 25 are kept for clients holding at most 10.
        let quota = Quota::new("things", 100, 40);
        let alice = Client::Subject("alice".into());
        let bob = Client::Peer("127.0.0.2".parse().unwrap());
        let carol = Client::Peer("127.0.0.3".parse().unwrap());
        let first = quota.take(&alice, 30).unwrap();
        let second = quota.take(&alice, 10).unwrap();
        assert_eq!(quota.take(&alice, 1).unwrap_err(), Refused::Client);
        let bobs = quota.take(&bob, 35).unwrap();
        assert_eq!(
            quota.take(&bob, 1).unwrap_err(),
            Refused::Total,
            "kept back"
        );
        let carols = quota.take(&carol, 10).unwrap();
        assert_eq!(quota.take(&carol, 1).unwrap_err(), Refused::Total);
        drop(first);
        assert_eq!(quota.held_by(&alice), 10);
        let more = quota.take(&bob, 5).unwrap();
        drop((second, bobs, carols, more));
        assert_eq!(quota.held_by(&alice) + quota.held_by(&bob), 0);
        assert!(
            quota.lock().by_client.is_empty(),
            "no client is remembered at zero"
        );
        assert_eq!(quota.lock().total, 0);
        // A share under four still lets a newcomer into the reserve, one at a time.
        let small = Quota::new("things", 8, 3);
        let (two, three) = (carol.clone(), Client::Unknown);
        let held: Vec<Held> = [&alice, &bob]
            .into_iter()
            .flat_map(|client| {
                (0..3)
                    .map(|_| small.take(client, 1).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect();
        let newcomer = small.take(&two, 1).unwrap();
        assert_eq!(small.take(&two, 1).unwrap_err(), Refused::Total);
        let another = small.take(&three, 1).unwrap();
        drop((held, newcomer, another));
        // A share as large as the total keeps nothing back.
        let whole = Quota::new("things", 4, 4);
        let all = whole.take(&alice, 4).unwrap();
        drop(all);
    }

    #[test]
    fn a_hold_grows_within_its_share() {
        let quota = Quota::new("bytes", 100, 10);
        let mut held = quota.take(&Client::Unknown, 0).unwrap();
        held.grow_to(6).unwrap();
        held.grow_to(4).unwrap();
        assert_eq!(quota.held_by(&Client::Unknown), 6, "never shrinks");
        assert_eq!(held.grow_to(11).unwrap_err(), Refused::Client);
        held.grow_to(10).unwrap();
        drop(held);
        assert_eq!(quota.held_by(&Client::Unknown), 0);
    }

    #[test]
    fn an_ipv6_peer_is_its_network_and_a_mapped_one_its_ipv4_address() {
        let peer = |text: &str| Client::peer(text.parse().unwrap());
        assert_eq!(peer("2001:db8:1:2::5"), peer("2001:db8:1:2:ffff::9"));
        assert_ne!(peer("2001:db8:1:2::5"), peer("2001:db8:1:3::5"));
        assert_eq!(peer("::ffff:192.0.2.7"), peer("192.0.2.7"));
        assert_ne!(peer("127.0.0.1"), peer("127.0.0.2"));
    }
}
