//! Test support: real Home Assistant instances and a scripted websocket server.

pub mod ha;
pub mod homeclaw;
pub mod mosquitto;
pub mod scripted_ha;
pub mod scripted_llm;
