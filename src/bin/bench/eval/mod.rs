//! `homeclaw-bench eval`: `eval/cases.yaml` against a running HomeClaw and Home Assistant's own
//! agent on the demo home (scripts/eval.sh), with its own Home Assistant REST and websocket
//! client.

use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::json;

use crate::percentile;

mod judge;
use judge::judge;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long, default_value = "eval/cases.yaml")]
    cases: std::path::PathBuf,
    /// homeclaw, ha, or both.
    #[arg(long, default_value = "both")]
    agent: String,
    #[arg(long, default_value = "http://127.0.0.1:8099")]
    homeclaw_url: String,
    #[arg(long, default_value = "http://127.0.0.1:8123")]
    ha_url: String,
    #[arg(long)]
    ha_token_file: std::path::PathBuf,
    /// Also write the table as Markdown here.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Only the first N cases.
    #[arg(long)]
    limit: Option<usize>,
    /// Only the cases whose id matches this regular expression.
    #[arg(long)]
    only: Option<String>,
    /// Also write HomeClaw's whole answer to each case (trace, stats) here, one JSON per line.
    #[arg(long)]
    traces: Option<std::path::PathBuf>,
}

#[derive(serde::Deserialize)]
struct EvalCases {
    cases: Vec<EvalCase>,
}

#[derive(serde::Deserialize, Clone)]
struct EvalCase {
    id: String,
    language: String,
    kind: String,
    text: String,
    #[serde(default)]
    setup: Vec<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    expect_states: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    expect_status: Option<String>,
    #[serde(default)]
    expect_reply_any: Vec<String>,
    #[serde(default)]
    expect_reply_state: Option<String>,
    /// Every word must be in the reply (a list answer names each item).
    #[serde(default)]
    expect_reply_all: Vec<String>,
    /// Attribute values after the run (numbers within 1%), for requests that change no state:
    /// a colour, a volume, a set temperature.
    #[serde(default)]
    expect_attributes:
        std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// No word may be in the reply (a chat reply that is a refusal).
    #[serde(default)]
    expect_reply_none: Vec<String>,
    /// The language the request carries, when it is not the words' own (a pipeline set to
    /// English hearing Polish).
    #[serde(default)]
    request_language: Option<String>,
    /// Entities an action may touch besides those the expectations name.
    #[serde(default)]
    may_touch: Vec<String>,
    /// States (and attribute values) that must stay as the setup left them, on entities no
    /// action may touch: the garage door when the windows are closed.
    #[serde(default)]
    expect_unchanged: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    expect_unchanged_attributes:
        std::collections::BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// What the person says next, in the same conversation, while the agent asks a question
    /// back ("Which one do you mean …?" → "the kitchen one"): the case is judged after the last
    /// answer, on every action of every turn.
    #[serde(default)]
    answers: Vec<String>,
}

impl EvalCase {
    /// HomeClaw's actions (and a hold for approval) on anything the words did not ask for: for
    /// a question, a chat, a device the home lacks or an ambiguous request, any action; else
    /// any entity the expectations do not name.
    fn wrong_actions(&self, body: &serde_json::Value) -> Vec<String> {
        let acting = matches!(self.kind.as_str(), "action");
        let allowed = |id: &str| {
            acting
                && !self.expect_unchanged.contains_key(id)
                && !self.expect_unchanged_attributes.contains_key(id)
                && (self.expect_states.contains_key(id)
                    || self.expect_attributes.contains_key(id)
                    || self.may_touch.iter().any(|m| m == id))
        };
        let mut wrong = Vec::new();
        for action in body["actions"].as_array().into_iter().flatten() {
            let service = format!(
                "{}.{}",
                action["domain"].as_str().unwrap_or_default(),
                action["service"].as_str().unwrap_or_default()
            );
            for id in action["entity_ids"].as_array().into_iter().flatten() {
                let id = id.as_str().unwrap_or_default();
                if !allowed(id) {
                    wrong.push(format!("{service} {id}"));
                }
            }
        }
        let held = body["status"] == "approval_required";
        if held && self.expect_status.as_deref() != Some("approval_required") {
            wrong.push(format!(
                "held for approval: {}",
                body["reply"].as_str().unwrap_or_default()
            ));
        }
        wrong
    }
}

struct EvalRow {
    agent: &'static str,
    id: String,
    language: String,
    pass: bool,
    honest: bool,
    status: String,
    tool_calls: u64,
    guard_events: u64,
    latency: Duration,
    prompt_tokens: u64,
    reply: String,
    /// Actions on what the words did not ask for (HomeClaw only).
    wrong: Vec<String>,
}

struct Ha {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl Ha {
    async fn service(
        &self,
        call: &serde_json::Map<String, serde_json::Value>,
    ) -> anyhow::Result<()> {
        let mut body = call.clone();
        let service = body
            .remove("service")
            .and_then(|v| v.as_str().map(str::to_owned))
            .context("setup step without service")?;
        let (domain, name) = service.split_once('.').context("service is domain.name")?;
        self.http
            .post(format!("{}/api/services/{domain}/{name}", self.url))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await?
            .error_for_status()?;
        Ok(())
    }

    /// Waits (30 s at most) until no entity a setup step touched is still moving: a demo cover
    /// takes seconds to open, and a command sent meanwhile meets a device that ignores it
    /// (a close while the cover starts opening from 0 does nothing), which measures the
    /// harness, not the agent.
    async fn settle(&self, setup: &[serde_json::Map<String, serde_json::Value>]) {
        let entities: Vec<&str> = setup
            .iter()
            .filter_map(|step| step.get("entity_id").and_then(|v| v.as_str()))
            .collect();
        let deadline = Instant::now() + Duration::from_secs(30);
        for entity in entities {
            while ["opening", "closing"].contains(&self.state(entity).await.as_str())
                && Instant::now() < deadline
            {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }

    async fn state(&self, entity: &str) -> String {
        self.entity(entity).await["state"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The entity's state object (`Null` when HA does not answer).
    async fn entity(&self, entity: &str) -> serde_json::Value {
        let response = self
            .http
            .get(format!("{}/api/states/{entity}", self.url))
            .bearer_auth(&self.token)
            .send()
            .await;
        match response {
            Ok(r) => r.json().await.unwrap_or_default(),
            Err(_) => serde_json::Value::Null,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.cases)?;
    let mut cases: EvalCases = config::Config::builder()
        .add_source(config::File::from_str(&text, config::FileFormat::Yaml))
        .build()?
        .try_deserialize()?;
    if let Some(pattern) = &args.only {
        let only = regex::Regex::new(pattern).context("--only")?;
        cases.cases.retain(|c| only.is_match(&c.id));
    }
    if let Some(n) = args.limit {
        cases.cases.truncate(n);
    }
    let mut traces = match &args.traces {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("--traces {}", path.display()))?,
        )),
        None => None,
    };
    let token = std::fs::read_to_string(&args.ha_token_file)?
        .trim()
        .to_owned();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let ha = Ha {
            http: homeclaw::tls::http_builder()
                .timeout(Duration::from_secs(600))
                .build()?,
            url: args.ha_url.clone(),
            token: token.clone(),
        };
        let agents: Vec<&'static str> = match args.agent.as_str() {
            "homeclaw" => vec!["homeclaw"],
            "ha" => vec!["ha"],
            _ => vec!["homeclaw", "ha"],
        };
        // HA's own agent over the websocket (conversation/process).
        let client = homeclaw::ha::HaClient::spawn(homeclaw::ha::ClientSettings {
            url: format!("{}/api/websocket", args.ha_url.replacen("http", "ws", 1)),
            token: homeclaw::secret::Secret::new(token),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(30),
            heartbeat_timeout: Duration::from_secs(10),
            backoff: homeclaw::backoff::Backoff {
                initial: Duration::from_millis(200),
                max: Duration::from_secs(2),
            },
            subscriptions: vec![],
        });
        client.wait_connected(Duration::from_secs(30)).await?;
        let mut rows = Vec::new();
        for case in &cases.cases {
            for agent in &agents {
                for step in &case.setup {
                    ha.service(step).await?;
                }
                ha.settle(&case.setup).await;
                let started = Instant::now();
                let row = if *agent == "homeclaw" {
                    ask_homeclaw(&ha, &args.homeclaw_url, case, traces.as_mut(), started).await?
                } else {
                    ask_ha(&ha, &client, case, started).await
                };
                eprintln!(
                    "{:<9} {:<24} {} {}",
                    row.agent,
                    row.id,
                    if row.pass { "PASS" } else { "fail" },
                    row.reply.chars().take(80).collect::<String>()
                );
                rows.push(row);
            }
        }
        let table = render(&rows, &agents);
        println!("{table}");
        if let Some(out) = args.out {
            std::fs::write(out, table)?;
        }
        anyhow::Ok(())
    })
}

/// One case asked of HomeClaw over its HTTP API, judged against the home afterwards.
async fn ask_homeclaw(
    ha: &Ha,
    homeclaw_url: &str,
    case: &EvalCase,
    traces: Option<&mut std::io::BufWriter<std::fs::File>>,
    started: Instant,
) -> anyhow::Result<EvalRow> {
    let session = format!("eval-{}-{}", case.id, fastrand::u32(..));
    let language = case.request_language.as_ref().unwrap_or(&case.language);
    let mut turns: Vec<serde_json::Value> = Vec::new();
    for text in std::iter::once(&case.text).chain(&case.answers) {
        let asked = turns
            .last()
            .is_none_or(|b| b["status"] == "clarification_required");
        if !asked {
            break;
        }
        let body: serde_json::Value = ha
            .http
            .post(format!("{homeclaw_url}/api/command"))
            .json(&json!({"text": text, "session_id": session, "language": language}))
            .send()
            .await?
            .json()
            .await?;
        turns.push(body);
    }
    let body = conversation(&turns);
    let latency = started.elapsed();
    if let Some(out) = traces {
        use std::io::Write as _;
        let mut line = json!({"id": case.id, "latency_s": latency.as_secs_f64(), "body": body});
        if turns.len() > 1 {
            line["turns"] = json!(turns);
        }
        writeln!(out, "{line}")?;
    }
    let status = body["status"].as_str().unwrap_or("error").to_owned();
    let reply = body["reply"].as_str().unwrap_or_default().to_owned();
    // A claim of success (the unverified-action note is HomeClaw saying it is not).
    let claimed = status == "done"
        && homeclaw::agent::say::honesty::claims_action_or_observation(&reply)
        && !reply.contains("could not confirm");
    let acted =
        body["actions"].as_array().is_some_and(|a| !a.is_empty()) || status == "approval_required";
    let (pass, honest) = judge(ha, case, &status, &reply, claimed, acted).await;
    let stats = &body["stats"];
    let n = |k: &str| stats[k].as_u64().unwrap_or(0);
    Ok(EvalRow {
        agent: "homeclaw",
        id: case.id.clone(),
        language: case.language.clone(),
        pass,
        honest,
        status,
        tool_calls: n("tool_calls"),
        guard_events: n("rejected_tool_calls")
            + n("breaker_hits")
            + n("loop_warnings")
            + n("loop_blocks")
            + n("hallucination_retries")
            + n("unverified_actions"),
        latency,
        prompt_tokens: n("input_tokens"),
        wrong: case.wrong_actions(&body),
        reply,
    })
}

/// A conversation's answers as one: the last turn's status and reply, every turn's actions,
/// and the turns' counts added up.
fn conversation(turns: &[serde_json::Value]) -> serde_json::Value {
    let mut whole = turns.last().cloned().unwrap_or_default();
    if turns.len() < 2 {
        return whole;
    }
    let actions: Vec<serde_json::Value> = turns
        .iter()
        .flat_map(|t| t["actions"].as_array().cloned().unwrap_or_default())
        .collect();
    whole["actions"] = json!(actions);
    let mut stats = serde_json::Map::new();
    for turn in turns {
        for (key, value) in turn["stats"].as_object().into_iter().flatten() {
            if let Some(n) = value.as_u64() {
                let sum = stats
                    .get(key)
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0)
                    + n;
                stats.insert(key.clone(), json!(sum));
            }
        }
    }
    whole["stats"] = json!(stats);
    whole
}

/// One case asked of Home Assistant's own agent (`conversation/process`), judged the same way.
async fn ask_ha(
    ha: &Ha,
    client: &homeclaw::ha::HaClient,
    case: &EvalCase,
    started: Instant,
) -> EvalRow {
    let language = case.request_language.as_ref().unwrap_or(&case.language);
    let mut result = serde_json::Value::Null;
    // The answers go on in the same conversation until Home Assistant acts or answers.
    for text in std::iter::once(&case.text).chain(&case.answers) {
        let settled = ["action_done", "query_answer"].contains(
            &result["response"]["response_type"]
                .as_str()
                .unwrap_or_default(),
        );
        if settled {
            break;
        }
        let mut command = homeclaw::ha::protocol::Command::new("conversation/process")
            .with("text", json!(text))
            .with("language", json!(language))
            .with("agent_id", json!("conversation.home_assistant"));
        if let Some(id) = result["conversation_id"].as_str() {
            command = command.with("conversation_id", json!(id));
        }
        result = client
            .request_with_timeout(command, Duration::from_secs(60))
            .await
            .unwrap_or_default();
    }
    let latency = started.elapsed();
    let kind = result["response"]["response_type"]
        .as_str()
        .unwrap_or("error")
        .to_owned();
    let reply = result["response"]["speech"]["plain"]["speech"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let status = match kind.as_str() {
        "action_done" | "query_answer" => "done",
        _ => "failed",
    }
    .to_owned();
    let claimed = kind == "action_done";
    let (pass, honest) = judge(ha, case, &status, &reply, claimed, claimed).await;
    EvalRow {
        agent: "ha",
        id: case.id.clone(),
        language: case.language.clone(),
        pass,
        honest,
        status: kind,
        tool_calls: 0,
        guard_events: 0,
        latency,
        prompt_tokens: 0,
        wrong: Vec::new(),
        reply,
    }
}

/// The report: every case, then per agent, the model path alone, per language, and every
/// action on something the words did not ask for.
fn render(rows: &[EvalRow], agents: &[&str]) -> String {
    let mut table = String::new();
    table.push_str("| case | agent | result | honest | status | tool calls | guard events | latency s | prompt tokens | reply |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {} | {} |\n",
            r.id,
            r.agent,
            if r.pass { "pass" } else { "FAIL" },
            if r.honest { "yes" } else { "NO" },
            r.status,
            r.tool_calls,
            r.guard_events,
            r.latency.as_secs_f64(),
            r.prompt_tokens,
            r.reply.replace('|', "\\|").replace('\n', " ")
        ));
    }
    table.push_str("\n| agent | cases | success rate | honesty rate | p50 latency s | p95 latency s | mean prompt tokens |\n|---|---|---|---|---|---|---|\n");
    for agent in agents {
        let mine: Vec<&EvalRow> = rows.iter().filter(|r| r.agent == *agent).collect();
        let n = mine.len().max(1) as f64;
        let mut lat: Vec<Duration> = mine.iter().map(|r| r.latency).collect();
        lat.sort();
        table.push_str(&format!(
            "| {} | {} | {:.0}% | {:.0}% | {:.1} | {:.1} | {:.0} |\n",
            agent,
            mine.len(),
            100.0 * mine.iter().filter(|r| r.pass).count() as f64 / n,
            100.0 * mine.iter().filter(|r| r.honest).count() as f64 / n,
            percentile(&lat, 0.5).as_secs_f64(),
            percentile(&lat, 0.95).as_secs_f64(),
            mine.iter().map(|r| r.prompt_tokens as f64).sum::<f64>() / n,
        ));
    }
    // The model path alone (issue 27's latency target): the cases the model was asked about.
    table.push_str("\n| agent | model-path cases | p50 latency s | p95 latency s | max s |\n|---|---|---|---|---|\n");
    for agent in agents {
        let mut lat: Vec<Duration> = rows
            .iter()
            .filter(|r| r.agent == *agent && r.prompt_tokens > 0)
            .map(|r| r.latency)
            .collect();
        lat.sort();
        table.push_str(&format!(
            "| {agent} | {} | {:.1} | {:.1} | {:.1} |\n",
            lat.len(),
            percentile(&lat, 0.5).as_secs_f64(),
            percentile(&lat, 0.95).as_secs_f64(),
            lat.last().copied().unwrap_or_default().as_secs_f64(),
        ));
    }
    // Per language, and how much of it the model never saw (no prompt tokens).
    table.push_str("\n| agent | language | cases | success rate | without the model | right without the model |\n|---|---|---|---|---|---|\n");
    for agent in agents {
        let mut languages: Vec<&str> = rows.iter().map(|r| r.language.as_str()).collect();
        languages.sort_unstable();
        languages.dedup();
        for language in languages {
            let mine: Vec<&EvalRow> = rows
                .iter()
                .filter(|r| r.agent == *agent && r.language == language)
                .collect();
            let fast: Vec<&&EvalRow> = mine.iter().filter(|r| r.prompt_tokens == 0).collect();
            table.push_str(&format!(
                "| {agent} | {language} | {} | {:.0}% | {} | {} |\n",
                mine.len(),
                100.0 * mine.iter().filter(|r| r.pass).count() as f64 / mine.len().max(1) as f64,
                fast.len(),
                fast.iter().filter(|r| r.pass).count(),
            ));
        }
    }
    // Every action on something the words did not ask for, listed.
    let wrong: Vec<&EvalRow> = rows.iter().filter(|r| !r.wrong.is_empty()).collect();
    table.push_str(&format!(
        "\nActions on what the words did not ask for (HomeClaw): {} cases\n",
        wrong.len()
    ));
    for r in wrong {
        table.push_str(&format!("- {}: {}\n", r.id, r.wrong.join("; ")));
    }
    table
}
