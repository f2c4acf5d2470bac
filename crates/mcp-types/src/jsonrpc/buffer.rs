//! The buffer a message is written into, kept per thread from one message to the next.
//!
//! **Layer:** wire types. An adapter writes each reply into a buffer of its own, which a stdio
//! transport copies into its output and drops. A read's reply (a resource's text and its
//! envelope) is often larger than what the allocator keeps at hand per thread, so allocating
//! and freeing it takes the allocator's slow paths, whose code is cold at every request. A
//! transport done with a message's bytes gives them back ([`give_back`]); the next message
//! written on that thread starts in that buffer ([`with_capacity`]). A transport that keeps
//! the bytes for a while (an HTTP body) gives them back when it drops them; one that gives
//! nothing back has a buffer of its own for each message, as without this module. This module
//! must never know what a message holds.

use std::cell::Cell;

/// Buffers with more room than this are not kept: a rare large message does not hold its
/// memory for the rest of the thread's life.
pub const KEPT_CAPACITY: usize = 64 * 1024;

thread_local! {
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// An empty buffer with room for at least `capacity` bytes: the one last given back on this
/// thread, if any, grown when it is too small.
pub fn with_capacity(capacity: usize) -> Vec<u8> {
    let mut bytes = SPARE.with(Cell::take);
    bytes.clear();
    bytes.reserve(capacity);
    bytes
}

/// Keeps the buffer of `bytes` (a message written and sent) for the next message written on
/// this thread, unless it has more room than [`KEPT_CAPACITY`].
pub fn give_back(bytes: Vec<u8>) {
    if bytes.capacity() <= KEPT_CAPACITY {
        SPARE.with(|spare| spare.set(bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_the_next_one_taken_empty() {
        let mut first = with_capacity(1000);
        first.extend_from_slice(b"a message");
        let place = first.as_ptr();
        give_back(first);
        let second = with_capacity(100);
        assert!(second.is_empty());
        assert_eq!(second.as_ptr(), place, "the same buffer");
        assert!(second.capacity() >= 1000);
        // Taken: the next one is new, and grown when asked for more.
        let third = with_capacity(2000);
        assert_ne!(third.as_ptr(), place);
        assert!(third.capacity() >= 2000);
    }

    #[test]
    fn a_large_buffer_is_not_kept() {
        drop(with_capacity(0));
        give_back(with_capacity(KEPT_CAPACITY + 1));
        assert!(with_capacity(10).capacity() < KEPT_CAPACITY);
    }
}
