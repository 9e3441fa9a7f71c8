//! The agent: one tool registry, argument normalisation, the circuit breaker and loop
//! detection, transcript repair, truncation, compaction with context refresh, and the sampling loop that ties them together.

pub mod approval;
mod ask;
pub mod compaction;
pub mod confirm;
mod direct;
mod execute;
pub mod fastpath;
pub mod guards;
#[cfg(test)]
mod here_tests;
pub mod home;
pub mod honesty;
mod naming;
pub mod normalize;
mod parsed;
pub mod prompt;
pub mod reading;
mod recognised;
#[cfg(test)]
mod recognised_tests;
pub mod repair;
pub mod reply;
pub mod run;
pub mod schema;
pub mod selfcheck;
pub mod sim;
mod speak;
pub mod state;
pub mod tools;
pub mod truncate;
pub mod verify;

pub use crate::config::AgentConfig;
pub use home::{Home, LiveHome};
pub use state::{Agent, CompactionPolicy, RunResult, RunStatus, Stats};
pub use tools::ToolRegistry;
