mod agent_live;
mod api;
mod cli;
mod ha_client;
mod ha_live;
mod llm;
mod mqtt;
mod wyoming;
