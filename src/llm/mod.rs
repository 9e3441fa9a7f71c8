//! LLM providers: one message model, one request/response shape, three wire formats
//! (OpenAI-compatible Chat Completions, Anthropic Messages, Gemini generateContent), retries with
//! backoff and `Retry-After`, a fallback chain, and a validated text fallback for models without
//! native tool calling.

pub mod anthropic;
pub mod client;
pub mod fallback;
pub mod gemini;
pub mod health;
pub mod message;
pub mod openai;
pub mod retry;
pub mod sse;
pub mod types;
pub mod wire;

pub use client::{ChatModel, LlmChain};
pub use message::{Message, ToolCall};
pub use types::{
    ChatRequest, ChatResponse, LlmError, ModelAttempts, StopReason, ToolChoice, ToolDef, Usage,
};
