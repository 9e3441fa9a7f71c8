//! The model's room: what a request to the language model holds (the system prompt, the
//! command's candidates, the reply's schema), the history it reads (repaired, truncated,
//! compacted), for the commands the own reading and Home Assistant's recogniser leave to it.

pub mod compaction;
pub mod notes;
pub mod prompt;
pub mod repair;
pub mod request;
pub mod schema;
pub mod truncate;
