//! What every wire format parses a reply into, before the chain adds which model answered.

use serde_json::Value;

use super::message::ToolCall;
use super::types::{StopReason, Usage};

#[derive(Debug, Clone, PartialEq)]
pub struct WireReply {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub stop: StopReason,
    pub usage: Option<Usage>,
    pub provider_data: Option<Value>,
}
