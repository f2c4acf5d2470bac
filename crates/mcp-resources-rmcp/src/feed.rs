//! Change notifications through rmcp: a legacy session's feed and 2026-07-28 listen streams.
//!
//! **Layer:** the bridge's transport edge. Each is a subscriber of the server's hub
//! (`Server::subscriber`) with a task that waits for its wake-up, drains its changes and sends
//! them through rmcp: to the session's peer (`notifications/resources/updated`,
//! `notifications/resources/list_changed`), or on the listen stream's sink. The task ends when
//! the session or the stream does, or the server shuts down, and the subscriber goes with it.
//! This module never decides who may be told what: the hub only holds what the service
//! accepted.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use mcp_resources_core::service::{Answer, Query};
use mcp_resources_core::subscription::{Change, SubscriberId};
use mcp_resources_server::Server;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{RoleServer, SubscriptionContext, SubscriptionSendError};
use rmcp::{ErrorData, Peer};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::Resources;

/// How often a session's feed looks whether its client is gone, when nothing changes.
const CLOSED_CHECK: Duration = Duration::from_secs(10);

/// A legacy session's subscriber and the task telling its client; the task stops when this is
/// dropped (with the handler serving the session).
#[derive(Debug)]
pub(crate) struct Feed {
    subscriber: SubscriberId,
    task: JoinHandle<()>,
}

impl Feed {
    /// A new subscriber of `server`, whose changes are sent to `peer`. Spawns its task on the
    /// current runtime.
    pub(crate) fn start(server: &Server, peer: Peer<RoleServer>) -> Feed {
        let wake = Arc::new(Notify::new());
        let subscriber = server.subscriber(Arc::clone(&wake));
        let id = subscriber.id();
        let server = server.clone();
        let task = tokio::spawn(async move {
            let mut check = tokio::time::interval(CLOSED_CHECK);
            loop {
                tokio::select! {
                    () = wake.notified() => {}
                    _ = check.tick() => {
                        if peer.is_transport_closed() {
                            return;
                        }
                        continue;
                    }
                    () = server.shut_down() => return,
                }
                for change in subscriber.drain() {
                    let sent = match change {
                        Change::ResourceUpdated(uri) => {
                            let params = ResourceUpdatedNotificationParam::new(uri.as_ref());
                            peer.notify_resource_updated(params).await
                        }
                        Change::ListChanged => peer.notify_resource_list_changed().await,
                    };
                    if let Err(error) = sent {
                        if peer.is_transport_closed() {
                            tracing::debug!(%error, "the session's client is gone: its feed stops");
                            return;
                        }
                        // One notification lost, the session's subscriptions kept.
                        tracing::warn!(%error, "a change notification could not be sent");
                    }
                }
            }
        });
        Feed {
            subscriber: id,
            task,
        }
    }

    /// The session's subscriber in the hub.
    pub(crate) fn subscriber(&self) -> SubscriberId {
        self.subscriber
    }

    /// Whether the task has stopped (its client is gone), and its subscriber with it.
    pub(crate) fn is_finished(&self) -> bool {
        self.task.is_finished()
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Runs one listen stream: subscribes a new subscriber to what rmcp acknowledged (the filter
/// [`Resources::accepted_subscription_filter`] gave), then sends each change on the stream's
/// sink until the client cancels the stream or the server shuts down (then rmcp sends the
/// stream's final result).
pub(crate) async fn listen(
    resources: &Resources,
    context: SubscriptionContext,
) -> Result<(), ErrorData> {
    let accepted = context.accepted();
    // rmcp's acknowledgment keeps a URI asked twice twice; the hub holds it once.
    let mut seen = HashSet::new();
    let uris: Vec<String> = accepted
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|uri| seen.insert(uri.as_str()))
        .cloned()
        .collect();
    let list_changes = accepted.resources_list_changed == Some(true);
    let wake = Arc::new(Notify::new());
    let subscriber = resources.server.subscriber(Arc::clone(&wake));
    let listen = Query::Listen {
        uris: uris.clone(),
        list_changes,
    };
    let Answer::Listening {
        uris: subscribed,
        list_changes: watching,
    } = resources.ask(listen, Some(subscriber.id())).await
    else {
        return Err(crate::convert::mismatched());
    };
    // The acknowledgment (sent by rmcp already) promised these: a stream that cannot keep the
    // promise ends, so that the client listens again rather than waits for what never comes.
    if subscribed != uris || watching != list_changes {
        let missing: Vec<&String> = uris
            .iter()
            .filter(|uri| !subscribed.contains(uri))
            .collect();
        tracing::warn!(
            ?missing,
            "a listen stream could not subscribe to all it acknowledged"
        );
        return Err(ErrorData::internal_error(
            "the server could not subscribe to everything this stream acknowledged; listen again",
            None,
        ));
    }
    tracing::debug!(
        resources = subscribed.len(),
        list_changes,
        "a listen stream is subscribed"
    );
    let sink = context.sink();
    loop {
        tokio::select! {
            () = wake.notified() => {}
            () = context.cancelled() => return Ok(()),
            () = resources.server.shut_down() => return Ok(()),
        }
        for change in subscriber.drain() {
            let sent = match change {
                Change::ResourceUpdated(uri) => sink.notify_resource_updated(uri.as_ref()).await,
                Change::ListChanged => sink.notify_resource_list_changed().await,
            };
            match sent {
                Ok(()) | Err(SubscriptionSendError::NotificationNotAccepted(_)) => {}
                Err(error) => {
                    tracing::debug!(%error, "a listen stream ended");
                    return Ok(());
                }
            }
        }
    }
}
