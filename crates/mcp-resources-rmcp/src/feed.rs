//! Change notifications through rmcp: a legacy session's feed and 2026-07-28 listen streams.
//!
//! **Layer:** the bridge's transport edge. Each is a subscriber of the server's hub
//! (`Server::subscriber`) with a task that waits for its wake-up, drains its changes and sends
//! them through rmcp: to the session's peer (`notifications/resources/updated`,
//! `notifications/resources/list_changed`), or on the listen stream's sink. The task ends when
//! the session or the stream does, or the server shuts down, and the subscriber goes with it.
//! This module never decides who may be told what: the hub only holds what the service
//! accepted.

use std::sync::Arc;

use mcp_resources_core::service::{Answer, Query};
use mcp_resources_core::subscription::{Change, SubscriberId};
use mcp_resources_server::Server;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{RoleServer, SubscriptionContext, SubscriptionSendError};
use rmcp::{ErrorData, Peer};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::Resources;

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
            loop {
                tokio::select! {
                    () = wake.notified() => {}
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
                        tracing::debug!(%error, "the session's client is gone: its feed stops");
                        return;
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
    let uris = accepted.resource_subscriptions.clone().unwrap_or_default();
    let list_changes = accepted.resources_list_changed == Some(true);
    let wake = Arc::new(Notify::new());
    let subscriber = resources.server.subscriber(Arc::clone(&wake));
    let listen = Query::Listen { uris, list_changes };
    if let Answer::Listening { uris, list_changes } =
        resources.ask(listen, Some(subscriber.id())).await
    {
        tracing::debug!(
            resources = uris.len(),
            list_changes,
            "a listen stream is subscribed"
        );
    }
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
