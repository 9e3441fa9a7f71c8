//! Sessions: crash-safe JSONL persistence and the per-session workers that run commands in
//! order (compaction is the agent's: it needs the prompt and the tool registry).

mod answer;
pub mod manager;
pub mod store;
mod turn;
mod worker;
