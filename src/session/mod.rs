//! Sessions: crash-safe JSONL persistence, compaction with context refresh, and the
//! per-session workers that run commands in order.

pub mod compaction;
pub mod manager;
pub mod store;
