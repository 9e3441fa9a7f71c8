//! HomeClaw: a Home Assistant agent that answers only after the action really happened.
//!
//! Architecture (one folder per part): `ha` talks to Home Assistant and keeps the live registry
//! (its time zone included); `config` and `secret` hold settings; `text` folds and tokenises
//! words and says when two words are the same word; `lang` holds each language's words and
//! texts as data; `journal` keeps JSON lines on disk crash-safely; `telemetry` sets up tracing.
//! The LLM providers (`llm`), the agent loop (`agent`: one parse of a command, the fast path,
//! the model loop as named steps, one composer of what the person hears), sessions
//! (`session`), the command layer every entry point goes through (`command`: idempotency,
//! activity), the HTTP API (`api`), MQTT (`mqtt`), Wyoming (`wyoming`), the server that wires
//! them (`server`, `app`) and Home Assistant notifications for approvals (`notify`) build on
//! these.

pub mod agent;
pub mod api;
pub mod app;
pub mod backoff;
pub mod command;
pub mod config;
pub mod glob;
pub mod ha;
pub mod journal;
pub mod lang;
pub mod llm;
pub mod mqtt;
pub mod notify;
pub mod secret;
pub mod server;
pub mod session;
pub mod supervisor;
pub mod telemetry;
pub mod text;
pub mod tls;
pub mod wyoming;
