//! Home Assistant: the websocket protocol, the connection actor, typed commands, exposure
//! policy and the live registry the agent's tools are built from.

pub mod commands;
pub mod connection;
pub mod exposure;
pub mod pipelines;
pub mod protocol;
pub mod recognise;
pub mod registry;
pub mod search;
pub mod services;
pub mod summary;
pub mod sync;

pub use commands::Target;
pub use connection::{ClientEvent, ClientSettings, ConnectionState, HaClient, HaError};
pub use exposure::ExposurePolicy;
pub use registry::{Registry, normalise_entity_id};
pub use sync::LiveRegistry;
