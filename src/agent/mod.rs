//! The agent, in the order a command passes through it: `understand` reads the words,
//! `plan` decides what to do (HomeClaw's own reading, Home Assistant's recogniser, a read or a
//! question back), `act` makes a call real (validation, guards, approval, dispatch,
//! verification), `say` words the reply; `model` is the language model's room, for what the
//! first two leave to it. `run` ties them together for one command; `state` is what a run
//! keeps; `home` is the edge to Home Assistant.

pub mod act;
pub mod capability;
#[cfg(test)]
mod here_tests;
pub mod home;
pub mod model;
pub mod plan;
pub mod run;
pub mod say;
pub mod selfcheck;
pub mod state;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod understand;

pub use crate::config::AgentConfig;
pub use act::tools::ToolRegistry;
pub use home::{Home, LiveHome};
pub use state::{Agent, CompactionPolicy, RunResult, RunStatus, Stats};
