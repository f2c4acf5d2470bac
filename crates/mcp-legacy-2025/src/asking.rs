//! Reads waiting for the client: the legacy era's plumbing of a read that needs input (the
//! user's confirmation of a sensitive resource, or a provider's question).
//!
//! **Layer:** adapter, part of the legacy session. It never knows a clock (the driver calls
//! [`Session::tick`](crate::Session::tick) about once a second while
//! [`Session::is_asking`](crate::Session::is_asking), and a read whose answers have not come
//! within [`ASK_TICKS`] ticks fails), an engine rule or a transport.
//!
//! When the core answers a read with `InputRequired`, the session sends the server's own
//! requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) to the client, each
//! with an id of its own (`mcp-resources/ask/N`), remembers the read, and reads again, with the
//! answers and the state, once every response has come. A response the session did not ask
//! for is ignored as before. A client error instead of a result counts as an unusable answer
//! (a confirmation it stands for is refused by the core, never taken as a yes).

use std::collections::{BTreeMap, HashMap};

use mcp_resources_core::input::{InputRequired, InputResponse, Inputs};
use mcp_resources_wire::input;
use mcp_types::RequestId;
use mcp_types::jsonrpc::{self, Outcome, RawValue, Request, Response};

/// How many ticks (about seconds) a read waits for the client's answers.
pub const ASK_TICKS: u32 = 120;

/// The most reads of one session waiting for the client at once.
pub(crate) const MAX_ASKING: usize = 16;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// One read waiting for the client; `O` is what the session needs to answer it.
#[derive(Debug)]
pub(crate) struct Ask<O> {
    /// The id of the client's read.
    pub(crate) id: RequestId,
    pub(crate) origin: O,
    /// The URI as the client sent it.
    pub(crate) uri: String,
    waiting: usize,
    responses: BTreeMap<String, InputResponse>,
    state: Option<String>,
    age: u32,
}

/// The reads of a session waiting for the client, and the requests sent for them.
#[derive(Debug)]
pub(crate) struct Asks<O> {
    next: u64,
    /// By the id of the client's read.
    reads: FastMap<RequestId, Ask<O>>,
    /// The server's request ids: the client's read each is for, and the key of its answer.
    sent: FastMap<RequestId, (RequestId, String)>,
}

impl<O> Default for Asks<O> {
    fn default() -> Asks<O> {
        Asks {
            next: 0,
            reads: FastMap::default(),
            sent: FastMap::default(),
        }
    }
}

impl<O> Asks<O> {
    /// Whether no read waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.reads.is_empty()
    }

    /// Whether another read may wait.
    pub(crate) fn has_room(&self) -> bool {
        self.reads.len() < MAX_ASKING
    }

    /// Remembers the read `id` (answered through `origin`) of `uri`, which needs `needed`, and
    /// returns the requests to send (`with_mode`: elicitations carry `mode: "form"`).
    pub(crate) fn start(
        &mut self,
        id: RequestId,
        origin: O,
        uri: String,
        needed: InputRequired,
        with_mode: bool,
    ) -> Vec<Vec<u8>> {
        let mut messages = Vec::with_capacity(needed.requests.len());
        for (key, request) in &needed.requests {
            let sent = RequestId::from(format!("mcp-resources/ask/{}", self.next));
            self.next += 1;
            let (method, params) = input::request(request, with_mode);
            if let Ok(bytes) = jsonrpc::to_vec(&Request::new(sent.clone(), method, params)) {
                messages.push(bytes);
                self.sent.insert(sent, (id.clone(), key.clone()));
            }
        }
        let ask = Ask {
            waiting: messages.len(),
            id,
            origin,
            uri,
            responses: BTreeMap::new(),
            state: needed.state,
            age: 0,
        };
        self.reads.insert(ask.id.clone(), ask);
        messages
    }

    /// Takes the client's `response`: the read it completes, with the answers to read it
    /// again with, once the last one is in; `None` otherwise (and for a response to nothing
    /// the session asked).
    pub(crate) fn answer(
        &mut self,
        response: &Response<Box<RawValue>>,
    ) -> Option<(Ask<O>, Inputs)> {
        let (read, key) = self.sent.remove(response.id.as_ref()?)?;
        let ask = self.reads.get_mut(&read)?;
        let answer = match &response.outcome {
            Outcome::Success(result) => serde_json::from_str(result.get())
                .map_or(InputResponse::Unusable, |value| input::response(&value)),
            Outcome::Failure(_) => InputResponse::Unusable,
        };
        ask.responses.insert(key, answer);
        ask.waiting = ask.waiting.saturating_sub(1);
        if ask.waiting > 0 {
            return None;
        }
        let mut ask = self.reads.remove(&read)?;
        let inputs = Inputs {
            responses: std::mem::take(&mut ask.responses),
            state: ask.state.take(),
        };
        Some((ask, inputs))
    }

    /// Forgets the read `id` (the client cancelled it); its later answers are ignored.
    pub(crate) fn cancel(&mut self, id: &RequestId) -> Option<Ask<O>> {
        let ask = self.reads.remove(id)?;
        self.sent.retain(|_, (read, _)| read != id);
        Some(ask)
    }

    /// Forgets every waiting read.
    pub(crate) fn take_all(&mut self) -> Vec<Ask<O>> {
        self.sent.clear();
        self.reads.drain().map(|(_, ask)| ask).collect()
    }

    /// One tick: the reads that have waited too long, forgotten.
    pub(crate) fn tick(&mut self) -> Vec<Ask<O>> {
        let mut expired = Vec::new();
        for ask in self.reads.values_mut() {
            ask.age += 1;
        }
        let old: Vec<RequestId> = self
            .reads
            .iter()
            .filter(|(_, ask)| ask.age >= ASK_TICKS)
            .map(|(id, _)| id.clone())
            .collect();
        for id in old {
            if let Some(ask) = self.cancel(&id) {
                expired.push(ask);
            }
        }
        expired
    }
}
