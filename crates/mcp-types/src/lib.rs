//! Wire types of every Model Context Protocol version a resources server speaks.
//!
//! **Layer:** wire types, the bottom of the stack. Plain data with `serde` and `schemars`
//! derives. It must never know async, I/O, the resources engine or either adapter.
