mod agent_live;
mod cli;
mod ha_client;
mod ha_live;
mod llm;
