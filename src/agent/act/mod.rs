//! Acting: a planned call made real. Its arguments normalised and validated against the one
//! tool registry, the guards that stop repeats, approval for what must be approved (and the
//! answer to it said in the conversation), dispatch to Home Assistant, and verification that
//! the home shows what was asked.

pub mod approval;
pub mod call;
pub mod confirm;
pub mod execute;
pub mod guards;
pub mod normalize;
pub mod tools;
pub mod verify;
