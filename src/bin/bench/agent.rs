//! `homeclaw-bench agent` (the agent's own time per loop iteration) and `tokens` (the size of
//! the first model request as the home grows).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::bail;
use futures_util::future::BoxFuture;
use homeclaw::agent::act::approval::ApprovalStore;
use homeclaw::agent::model::truncate::CHARS_PER_TOKEN;
use homeclaw::agent::selfcheck::home::{MemoryHome, synthetic_home};
use homeclaw::agent::testkit::{ScriptedModel, calls_reply, text_reply};
use homeclaw::agent::{Agent, AgentConfig, RunStatus, ToolRegistry};
use homeclaw::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, Message, ToolChoice};
use serde_json::json;

use crate::{percentile, print_quantiles};

/// Records when each sampling starts and when the model has answered; the gaps between an
/// answer and the next sampling are the agent's own time (the model answers at once, and what
/// the scripted model does with a request — keeping a copy for tests — is not the agent's).
struct TimedModel {
    inner: ScriptedModel,
    stamps: Mutex<Vec<(Instant, Instant)>>,
}

impl ChatModel for TimedModel {
    /// The agent's time as a text model with structured output costs it: the reply schema
    /// is built for every request.
    fn uses_reply_schema(&self) -> bool {
        true
    }

    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        let asked = Instant::now();
        let answer = self.inner.chat(request);
        self.stamps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((asked, Instant::now()));
        answer
    }
}

pub fn run(entities: usize, runs: usize) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let home = MemoryHome::new(synthetic_home(entities));
    let model = TimedModel {
        inner: ScriptedModel::default(),
        stamps: Mutex::new(Vec::new()),
    };
    let tools = ToolRegistry;
    let cfg = AgentConfig {
        fast_path: false,
        answer_from_verification: false,
        ..AgentConfig::default()
    };
    let approvals = ApprovalStore::new(Duration::from_secs(60));
    let mut iterations: Vec<Duration> = Vec::with_capacity(runs * 3);
    // Each gap on its own: where a change moved the time (the p50 above sits between them).
    let mut steps: [Vec<Duration>; 4] = Default::default();
    for i in 0..runs {
        // One agent per command, as a session worker builds it: nothing a run computed is
        // there for the next.
        let agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
        model.inner.push(Ok(calls_reply(
            &format!("s{i}"),
            &[("search_entities", json!({"query": "kitchen light"}))],
        )));
        model.inner.push(Ok(calls_reply(
            &format!("c{i}"),
            &[(
                "call_service",
                json!({"domain": "light", "service": "toggle", "entity_id": "light.kitchen_lights"}),
            )],
        )));
        model.inner.push(Ok(text_reply("Done.")));
        model.inner.clear_requests();
        let start = Instant::now();
        let mut history = vec![Message::user("toggle the kitchen light")];
        let result = runtime.block_on(agent.run(&mut history));
        let end = Instant::now();
        if result.status != RunStatus::Done {
            bail!("run {i} ended {:?}", result.status);
        }
        let samplings =
            std::mem::take(&mut *model.stamps.lock().unwrap_or_else(PoisonError::into_inner));
        // From the start (or the model's last answer) to the next sampling (or the end).
        let resumed = std::iter::once(start).chain(samplings.iter().map(|&(_, answered)| answered));
        let paused = samplings
            .iter()
            .map(|&(asked, _)| asked)
            .chain(std::iter::once(end));
        let gaps: Vec<Duration> = resumed.zip(paused).map(|(from, to)| to - from).collect();
        for (step, gap) in steps.iter_mut().zip(&gaps) {
            step.push(*gap);
        }
        iterations.extend(gaps);
    }
    iterations.sort();
    println!(
        "agent loop: {entities} entities, {runs} runs x 3 samplings (search, call, answer), \
         zero-latency model"
    );
    println!("{:<34} {:>12}", "metric", "value");
    println!("{:<34} {:>12}", "iterations measured", iterations.len());
    print_quantiles(
        "agent time",
        &iterations,
        &[("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("max", 1.0)],
        "us",
        1e6,
    );
    let names = [
        "prepare + 1st request",
        "search + 2nd request",
        "call + 3rd request",
        "answer",
    ];
    for (name, mut step) in names.into_iter().zip(steps) {
        step.sort();
        print_quantiles(
            &format!("  {name}"),
            &step,
            &[("p50", 0.50), ("p99", 0.99)],
            "us",
            1e6,
        );
    }
    let verdict = |met: bool| if met { "PASS" } else { "MISS" };
    println!(
        "target: p50 <= 100 us: {}; p99 < 2 ms: {}",
        verdict(percentile(&iterations, 0.50) <= Duration::from_micros(100)),
        verdict(percentile(&iterations, 0.99) < Duration::from_millis(2)),
    );
    Ok(())
}

pub fn tokens() -> anyhow::Result<()> {
    println!(
        "first request for \"turn on the kitchen light\" (OpenAI wire JSON, 4 chars/token); \
         the reply schema (response_format, not part of the prompt) counted apart"
    );
    println!(
        "{:<10} {:>10} {:>14} {:>14}",
        "entities", "chars", "est. tokens", "schema bytes"
    );
    let mut worst = 0;
    let mut schemas = Vec::new();
    for entities in [116, 500, 1_000, 2_000] {
        let home = MemoryHome::new(synthetic_home(entities));
        let model = ScriptedModel::default();
        let tools = ToolRegistry;
        let cfg = AgentConfig {
            fast_path: false,
            ..AgentConfig::default()
        };
        let approvals = ApprovalStore::new(Duration::from_secs(60));
        let agent = Agent::new(&model, &home, &tools, &cfg, &approvals);
        let request = agent.build_request(
            &[Message::user("turn on the kitchen light")],
            ToolChoice::Auto,
        );
        let mut body = homeclaw::llm::openai::render(&request, "model", false);
        let schema = body
            .as_object_mut()
            .and_then(|b| b.remove("response_format"))
            .map_or(0, |s| s.to_string().len());
        let chars = body.to_string().chars().count();
        let est = chars / CHARS_PER_TOKEN;
        worst = worst.max(est);
        schemas.push(schema);
        println!("{entities:<10} {chars:>10} {est:>14} {schema:>14}");
    }
    println!(
        "target: at most 3000 tokens, flat in the entity count: {}",
        if worst <= 3000 { "PASS" } else { "MISS" }
    );
    // The domains of the home are named once each: a few bytes more as domains appear.
    let (least, most) = (
        schemas.iter().copied().min().unwrap_or(0),
        schemas.iter().copied().max().unwrap_or(0),
    );
    let flat = most * 10 <= least * 11;
    println!(
        "target: the schema stays within 10% as the home grows 17-fold: {}",
        if flat { "PASS" } else { "MISS" }
    );
    Ok(())
}
