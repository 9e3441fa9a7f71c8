//! HTTP to the providers: one [`ModelClient`] per configured model, and the [`LlmChain`] that
//! retries each model and falls back along the chain.
//!
//! Invariants:
//! - Tool calls come from the provider's structured response. Only a model configured with
//!   `native_tools: false` has its reply parsed as text, through [`super::fallback`], against
//!   the request's own tool whitelist.
//! - A retry never repeats a streamed text silently: a [`StreamDelta::Restart`] tells the
//!   consumer to discard what it showed.
//! - API keys go only into request headers; error bodies are cut short and scrubbed of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde_json::Value;
use tracing::{Instrument, debug, info, info_span, warn};

use super::fallback::{self, TextCall};
use super::health::{HealthBook, ModelHealth};
use super::retry::{Decision, RetryPolicy, parse_retry_after};
use super::sse::SseParser;
use super::types::{ChatRequest, ChatResponse, LlmError, ModelAttempts};
use super::wire::WireReply;
use super::{anthropic, gemini, openai};
use crate::config::{LlmConfig, ModelConfig, Provider, StructuredOutput};

/// Longest error body kept in an error message.
const MAX_ERROR_BODY: usize = 400;

/// Anything that answers chat requests: the real chain, or a scripted model in tests.
pub trait ChatModel: Send + Sync {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>>;

    /// Each model's state, for `/api/health`; a scripted model has none.
    fn health(&self) -> Vec<ModelHealth> {
        Vec::new()
    }

    /// Whether a request's `reply_schema` is of use to this model (a text model asked for
    /// structured output): the agent builds the schema only then, as it costs more than the
    /// rest of a request's building. A test model says yes, to be shown what a real one gets.
    fn uses_reply_schema(&self) -> bool {
        false
    }

    /// Sends `request` once to every model that warms up (`llm.models[].warm_up`), so that a
    /// server's prompt cache holds its fixed part before the first command. Never fails: a
    /// cold cache is only slower, so an error is logged and shown in the health report.
    fn warm_up<'a>(&'a self, _request: &'a ChatRequest) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

#[derive(Debug, Clone)]
struct Timeouts {
    request: Duration,
    stream_idle: Duration,
}

pub struct ModelClient {
    cfg: ModelConfig,
    http: reqwest::Client,
    timeouts: Timeouts,
    /// The server refused `response_format` once (`structured_output: auto`): not asked again.
    structured_refused: AtomicBool,
}

/// A provider's error body, shortened, with our key and anything shaped like a credential
/// (some providers quote what they were sent) replaced.
fn scrub(body: &str, key: Option<&str>) -> String {
    let text: String = body.chars().take(MAX_ERROR_BODY).collect();
    let keys: Vec<String> = key.map(str::to_owned).into_iter().collect();
    crate::secret::redact(&text, &keys)
}

impl ModelClient {
    pub fn new(cfg: ModelConfig, http: reqwest::Client, llm: &LlmConfig) -> Self {
        Self {
            cfg,
            http,
            timeouts: Timeouts {
                request: Duration::from_millis(llm.request_timeout_ms),
                stream_idle: Duration::from_millis(llm.stream_idle_timeout_ms),
            },
            structured_refused: AtomicBool::new(false),
        }
    }

    pub fn label(&self) -> &str {
        self.cfg.label()
    }

    fn key(&self) -> Option<&str> {
        self.cfg.api_key.as_ref().map(|k| k.expose())
    }

    /// Streamed when the model's `stream` is on and it speaks the OpenAI format natively (the
    /// others answer whole): a stalled provider is then noticed after the stream idle timeout
    /// rather than the whole request timeout.
    fn streams(&self) -> bool {
        self.cfg.stream && self.cfg.provider == Provider::Openai && self.cfg.native_tools
    }

    /// Whether any request of this model may go out with `response_format`.
    fn may_structure(&self) -> bool {
        !self.cfg.native_tools
            && self.cfg.provider == Provider::Openai
            && self.cfg.structured_output != StructuredOutput::Off
    }

    /// Whether this request goes out with `response_format`: a text model of the OpenAI
    /// format, a reply schema to hold it to, and (with `auto`) a server that has not refused it.
    fn structured(&self, request: &ChatRequest) -> bool {
        let refused = self.cfg.structured_output == StructuredOutput::Auto
            && self.structured_refused.load(Ordering::Relaxed);
        self.may_structure() && !refused && request.reply_schema.is_some()
    }

    fn build(&self, request: &ChatRequest, stream: bool, structured: bool) -> (String, Value) {
        let base = self.cfg.base_url();
        let mut request = request.clone();
        if request.max_tokens.is_none() {
            request.max_tokens = self.cfg.max_tokens;
        }
        if request.temperature.is_none() {
            request.temperature = self.cfg.temperature;
        }
        if self.cfg.max_tools.is_some() || self.cfg.short_descriptions {
            let query = request
                .messages
                .iter()
                .rev()
                .find_map(|m| match m {
                    super::message::Message::User { content } => Some(content.as_str()),
                    _ => None,
                })
                .unwrap_or_default()
                .to_owned();
            request.tools = select_tools(
                &request.tools,
                self.cfg.max_tools,
                self.cfg.short_descriptions,
                &query,
            )
            .into();
        }
        let request = if self.cfg.native_tools {
            ChatRequest {
                reply_schema: None,
                ..request
            }
        } else {
            fallback::render_for_text_model(&request, structured)
        };
        match self.cfg.provider {
            Provider::Openai => (
                format!("{base}/chat/completions"),
                openai::render(&request, &self.cfg.model, stream),
            ),
            Provider::Anthropic => (
                format!("{base}/v1/messages"),
                anthropic::render(&request, &self.cfg.model),
            ),
            Provider::Gemini => (
                format!("{base}/v1beta/models/{}:generateContent", self.cfg.model),
                gemini::render(&request),
            ),
        }
    }

    fn post(&self, url: &str, body: &Value) -> reqwest::RequestBuilder {
        let mut builder = self.http.post(url).json(body);
        let key = self.key().unwrap_or_default();
        builder = match self.cfg.provider {
            Provider::Openai if !key.is_empty() => builder.bearer_auth(key),
            Provider::Openai => builder,
            Provider::Anthropic => builder
                .header("x-api-key", key)
                .header("anthropic-version", anthropic::API_VERSION),
            Provider::Gemini => builder.header("x-goog-api-key", key),
        };
        builder
    }

    fn transport_error(&self, e: &reqwest::Error, what: &str) -> LlmError {
        let model = self.label().to_owned();
        if e.is_timeout() {
            LlmError::Timeout {
                model,
                what: what.to_owned(),
            }
        } else {
            LlmError::Connect {
                model,
                reason: scrub(&e.to_string(), self.key()),
            }
        }
    }

    async fn status_error(&self, response: reqwest::Response) -> LlmError {
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let body = response.text().await.unwrap_or_default();
        LlmError::Http {
            model: self.label().to_owned(),
            status,
            body: scrub(&body, self.key()),
            retry_after,
        }
    }

    fn invalid(&self, reason: impl Into<String>) -> LlmError {
        LlmError::InvalidResponse {
            model: self.label().to_owned(),
            reason: scrub(&reason.into(), self.key()),
        }
    }

    /// One HTTP attempt, and whether its reply was constrained. With `structured_output:
    /// auto`, a server that refuses `response_format` (HTTP 400/422/501) is asked again at once
    /// without it, and from then on never with it.
    async fn attempt(&self, request: &ChatRequest) -> Result<(WireReply, bool), LlmError> {
        let structured = self.structured(request);
        match self.attempt_once(request, structured).await {
            Err(LlmError::Http { status, body, .. })
                if structured
                    && self.cfg.structured_output == StructuredOutput::Auto
                    && matches!(status, 400 | 422 | 501) =>
            {
                self.structured_refused.store(true, Ordering::Relaxed);
                warn!(
                    model = self.label(),
                    status,
                    %body,
                    "the server refused structured output; asking without it from now on"
                );
                Ok((self.attempt_once(request, false).await?, false))
            }
            other => Ok((other?, structured)),
        }
    }

    async fn attempt_once(
        &self,
        request: &ChatRequest,
        structured: bool,
    ) -> Result<WireReply, LlmError> {
        let stream = self.streams();
        let (url, body) = self.build(request, stream, structured);
        let send = self.post(&url, &body);
        let response = if stream {
            match tokio::time::timeout(self.timeouts.request, send.send()).await {
                Ok(r) => r.map_err(|e| self.transport_error(&e, "request"))?,
                Err(_) => {
                    return Err(LlmError::Timeout {
                        model: self.label().to_owned(),
                        what: format!("no response headers within {:?}", self.timeouts.request),
                    });
                }
            }
        } else {
            send.timeout(self.timeouts.request)
                .send()
                .await
                .map_err(|e| self.transport_error(&e, "request"))?
        };
        if !response.status().is_success() {
            return Err(self.status_error(response).await);
        }
        let reply = if stream {
            self.read_stream(response).await?
        } else {
            let bytes = response
                .bytes()
                .await
                .map_err(|e| self.transport_error(&e, "reading the body"))?;
            let value: Value = serde_json::from_slice(&bytes)
                .map_err(|e| self.invalid(format!("body is not JSON: {e}")))?;
            match self.cfg.provider {
                Provider::Openai => openai::parse(&value),
                Provider::Anthropic => anthropic::parse(&value),
                Provider::Gemini => gemini::parse(&value),
            }
            .map_err(|e| self.invalid(e))?
        };
        Ok(reply)
    }

    /// Assembles a streamed reply; a cut stream is an error (retried as a whole), never a
    /// partial answer.
    async fn read_stream(&self, response: reqwest::Response) -> Result<WireReply, LlmError> {
        let cut = |reason: String| LlmError::StreamCut {
            model: self.label().to_owned(),
            reason,
        };
        let mut body = response.bytes_stream();
        let mut parser = SseParser::new();
        let mut acc = openai::StreamAccumulator::default();
        loop {
            let next = tokio::time::timeout(self.timeouts.stream_idle, body.next()).await;
            let chunk = match next {
                Err(_) => {
                    return Err(LlmError::Timeout {
                        model: self.label().to_owned(),
                        what: format!("stream idle for {:?}", self.timeouts.stream_idle),
                    });
                }
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(cut(e.to_string())),
                Ok(Some(Ok(chunk))) => chunk,
            };
            for event in parser.feed(&chunk) {
                if event.data.is_empty() {
                    continue;
                }
                acc.feed(&event.data).map_err(&cut)?;
            }
            if acc.is_done() {
                break;
            }
        }
        acc.finish().map_err(cut)
    }

    /// Applies the text fallback to a reply from a model without native tools; a constrained
    /// reply's `{"answer": ...}` is its text.
    fn interpret(
        &self,
        mut reply: WireReply,
        request: &ChatRequest,
        structured: bool,
    ) -> ChatResponse {
        let mut rejected = Vec::new();
        if structured && let Some(answer) = fallback::structured_answer(&reply.text) {
            reply.text = answer;
        } else if !self.cfg.native_tools && reply.tool_calls.is_empty() && !request.tools.is_empty()
        {
            for parsed in fallback::parse_text_calls(&reply.text, &request.tool_names()) {
                match parsed {
                    TextCall::Call { name, arguments } => {
                        reply
                            .tool_calls
                            .push(fallback::to_tool_call(name, arguments));
                    }
                    TextCall::Rejected(r) => rejected.push(r),
                    TextCall::NotACall => {}
                }
            }
            if !reply.tool_calls.is_empty() {
                reply.text.clear();
                reply.stop = super::types::StopReason::ToolCalls;
            }
        }
        ChatResponse {
            text: reply.text,
            tool_calls: reply.tool_calls,
            rejected,
            stop: reply.stop,
            usage: reply.usage,
            provider_data: reply.provider_data,
            model: self.label().to_owned(),
            attempts: Vec::new(),
        }
    }
}

/// Tool selection for weak models: every core tool, then the others that best match the
/// command by shared words, up to `max`; with `short`, one-line descriptions. The rest of the
/// request is unchanged.
pub fn select_tools(
    tools: &[super::types::ToolDef],
    max: Option<usize>,
    short: bool,
    query: &str,
) -> Vec<super::types::ToolDef> {
    let words: Vec<String> = crate::text::tokens(query);
    let overlap = |t: &super::types::ToolDef| {
        let text = crate::text::tokens(&format!("{} {}", t.name.replace('_', " "), t.description));
        words.iter().filter(|w| text.contains(w)).count()
    };
    let mut chosen: Vec<super::types::ToolDef> = tools.iter().filter(|t| t.core).cloned().collect();
    let mut others: Vec<(usize, usize, &super::types::ToolDef)> = tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.core)
        .map(|(i, t)| (overlap(t), i, t))
        .collect();
    others.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let room = max.map_or(usize::MAX, |m| m.saturating_sub(chosen.len()));
    chosen.extend(others.into_iter().take(room).map(|(_, _, t)| t.clone()));
    // Keep the caller's order.
    chosen.sort_by_key(|t| tools.iter().position(|o| o.name == t.name));
    if short {
        for t in &mut chosen {
            if let Some(s) = t.short_description.clone() {
                t.description = s;
            }
        }
    }
    chosen
}

/// The primary model and its fallbacks, with the retry policy.
pub struct LlmChain {
    models: Vec<ModelClient>,
    policy: RetryPolicy,
    health: HealthBook,
}

impl LlmChain {
    pub fn from_config(cfg: &LlmConfig) -> Result<Self, LlmError> {
        if cfg.models.is_empty() {
            return Err(LlmError::Config(
                "no LLM configured: add at least one entry to llm.models".into(),
            ));
        }
        let http = crate::tls::http_builder()
            .connect_timeout(Duration::from_millis(cfg.connect_timeout_ms))
            .user_agent(concat!("homeclaw/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("HTTP client: {e}")))?;
        Ok(Self {
            models: cfg
                .models
                .iter()
                .map(|m| ModelClient::new(m.clone(), http.clone(), cfg))
                .collect(),
            policy: RetryPolicy::from_config(cfg),
            health: HealthBook::new(cfg.models.len()),
        })
    }

    pub fn model_names(&self) -> Vec<&str> {
        self.models.iter().map(ModelClient::label).collect()
    }

    async fn warm(&self, request: &ChatRequest) {
        let request = ChatRequest {
            max_tokens: Some(1),
            ..request.clone()
        };
        for (index, model) in self.models.iter().enumerate() {
            if !model.cfg.warms_up() {
                continue;
            }
            self.health.prompt_cache(index, "warming");
            let started = Instant::now();
            match model.attempt(&request).await {
                Ok(_) => {
                    info!(
                        model = model.label(),
                        elapsed_ms = started.elapsed().as_millis() as u64,
                        "prompt cache warmed: the fixed part of the prompt is read"
                    );
                    self.health.prompt_cache(index, "warm");
                }
                Err(error) => {
                    warn!(model = model.label(), %error, "prompt cache warm-up failed");
                    self.health.prompt_cache(index, "failed");
                }
            }
        }
    }

    async fn run(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut history: Vec<ModelAttempts> = Vec::new();
        // Models cooling down after a 4xx are asked last: only when every other model failed.
        let now = Instant::now();
        let mut order: Vec<usize> = (0..self.models.len())
            .filter(|&i| !self.health.cooling(i, now))
            .collect();
        order.extend((0..self.models.len()).filter(|&i| self.health.cooling(i, now)));
        for index in order {
            let model = &self.models[index];
            let span = info_span!("llm", model = model.label());
            let mut attempt = 0;
            let outcome = async {
                loop {
                    attempt += 1;
                    match model.attempt(request).await {
                        Ok(reply) => return Ok(reply),
                        Err(error) => match self.policy.decide(&error, attempt, fastrand::f64()) {
                            Decision::RetryIn(delay) => {
                                warn!(%error, attempt, ?delay, "LLM attempt failed; retrying");
                                tokio::time::sleep(delay).await;
                            }
                            Decision::NextModel => return Err(error),
                        },
                    }
                }
            }
            .instrument(span)
            .await;
            match outcome {
                Ok((reply, structured)) => {
                    self.health.succeeded(index);
                    history.push(ModelAttempts {
                        model: model.label().to_owned(),
                        attempts: attempt,
                        error: None,
                        http_status: None,
                    });
                    let mut response = model.interpret(reply, request, structured);
                    response.attempts = history;
                    debug!(model = %response.model, "LLM answered");
                    return Ok(response);
                }
                Err(error) => {
                    self.health.failed(index, &error, Instant::now());
                    warn!(model = model.label(), %error, attempts = attempt, "Model failed; next in chain");
                    history.push(ModelAttempts {
                        model: model.label().to_owned(),
                        attempts: attempt,
                        error: Some(error.to_string()),
                        http_status: match &error {
                            LlmError::Http { status, .. } => Some(*status),
                            _ => None,
                        },
                    });
                }
            }
        }
        Err(LlmError::Exhausted { attempts: history })
    }
}

impl ChatModel for LlmChain {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(self.run(request))
    }

    fn health(&self) -> Vec<ModelHealth> {
        self.health.report(&self.model_names(), Instant::now())
    }

    fn warm_up<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, ()> {
        Box::pin(self.warm(request))
    }

    fn uses_reply_schema(&self) -> bool {
        self.models.iter().any(ModelClient::may_structure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str, core: bool) -> crate::llm::ToolDef {
        crate::llm::ToolDef {
            name: name.into(),
            description: description.into(),
            parameters: serde_json::json!({}),
            short_description: Some(format!("{name} short")),
            core,
        }
    }

    #[test]
    fn weak_models_get_core_tools_plus_the_best_matches_with_short_descriptions() {
        let tools = vec![
            tool("search_entities", "Find entities.", true),
            tool("list_areas", "List the areas (rooms) of the home.", false),
            tool("get_weather", "Weather forecast.", false),
            tool("call_service", "Act.", true),
        ];
        let got = select_tools(&tools, Some(3), true, "which rooms are there?");
        let names: Vec<&str> = got.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["search_entities", "list_areas", "call_service"]);
        assert_eq!(got[1].description, "list_areas short");
        let all = select_tools(&tools, None, false, "x");
        assert_eq!(all, tools);
        let tight = select_tools(&tools, Some(1), false, "rooms");
        assert_eq!(tight.len(), 2, "core tools are always sent");
    }

    #[test]
    fn error_bodies_are_cut_and_scrubbed_of_the_key() {
        let body = format!("bad key sk-123 {}", "x".repeat(1000));
        let got = scrub(&body, Some("sk-123"));
        assert!(got.starts_with("bad key *** x"));
        assert!(got.chars().count() <= MAX_ERROR_BODY);
    }
}
