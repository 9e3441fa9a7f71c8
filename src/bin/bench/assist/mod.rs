//! `homeclaw-bench assist`: the Home LLM Leaderboard task sets (`assist-mini`, `assist`,
//! `questions`) run against HomeClaw and Home Assistant's own conversation agent, scored as
//! upstream scores them. A home that cannot be loaded, or a task whose set-up fails, is a failed
//! row naming the reason, and the run goes on; the report is written whatever happened.
//!
//! Per home: a real Home Assistant is (re)started with that home loaded (`scripts/ha-dev.sh`
//! with `HA_HOME`, the test-only `fixture_home` integration) and the real `homeclaw` binary is
//! started with the user's own configuration (only its Home Assistant connection, listen
//! address, token and session folder are replaced). Per task and agent: the home is reset to
//! its fixture state, the task's set-up applied, states left to settle (a quiet period with no
//! `state_changed` event, never a fixed sleep), a snapshot taken; the sentence is sent in the
//! home's language (its fixture's `language`, English when it says none) — HomeClaw through
//! `POST /api/command` in a fresh session, Home Assistant through `conversation/process`, or,
//! for a task said to a device (`context_device`), through an Assist pipeline run that carries
//! the device, as a satellite's does (HomeClaw gets it as `device_id`); a HomeClaw action held
//! for approval is approved through `POST /api/approve`, as the person would; states settle
//! again and the diff is scored.

pub(crate) mod dataset;
mod pipeline;
pub(crate) mod processes;
mod report;
mod score;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use homeclaw::ha::protocol::Command as HaCommand;
use homeclaw::ha::{ClientEvent, HaClient};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use processes::{Answer, HaProcess, HomeClawProcess};
pub use report::Row;
use score::Snapshot;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A task set folder (`.../datasets/assist-mini`); repeat for several.
    #[arg(long, required = true)]
    dataset: Vec<PathBuf>,
    /// homeclaw, ha, or both.
    #[arg(long, default_value = "both")]
    agent: String,
    /// HomeClaw's configuration (its models are what is measured); required for homeclaw.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Runs of each sentence: a number, or `card` for what each task set's
    /// `dataset_card.yaml` says (upstream: 4 for assist-mini, 5 for assist, 10 for questions).
    #[arg(long, default_value = "1", value_parser = parse_count)]
    count: Count,
    /// Write the report (Markdown) here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write every task's result here as JSON Lines, each as soon as it is scored (an
    /// interrupted run keeps what it measured).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Quiet period that counts as "states settled".
    #[arg(long, default_value_t = 300)]
    quiet_ms: u64,
    #[command(flatten)]
    setup: processes::Setup,
}

/// How many times each sentence runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Fixed(usize),
    /// As the task set's card says (1 where it says nothing).
    Card,
}

fn parse_count(text: &str) -> Result<Count, String> {
    match text {
        "card" | "upstream" => Ok(Count::Card),
        n => match n.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => Ok(Count::Fixed(n)),
            _ => Err(format!("{n:?}: a number of runs from 1 to 100, or `card`")),
        },
    }
}

impl Count {
    /// The runs for `set` and where that number comes from, for the report.
    pub fn for_set(self, set: &dataset::TaskSet) -> (usize, &'static str) {
        match (self, set.card_count) {
            (Count::Fixed(n), _) => (n, "--count"),
            (Count::Card, Some(n)) => (n, "dataset_card.yaml, as upstream runs it"),
            (Count::Card, None) => (1, "no count in dataset_card.yaml"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Agent {
    HomeClaw,
    Ha,
}

impl Agent {
    pub fn label(self) -> &'static str {
        match self {
            Self::HomeClaw => "HomeClaw",
            Self::Ha => "HA built-in",
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let agents = match args.agent.as_str() {
        "homeclaw" => vec![Agent::HomeClaw],
        "ha" => vec![Agent::Ha],
        "both" => vec![Agent::HomeClaw, Agent::Ha],
        other => bail!("--agent is homeclaw, ha or both, not {other:?}"),
    };
    if agents.contains(&Agent::HomeClaw) && args.config.is_none() {
        bail!("--config (HomeClaw's configuration, with its models) is needed to run HomeClaw");
    }
    let only = args.setup.only()?;
    let mut sets = Vec::new();
    for dir in &args.dataset {
        let mut set = dataset::load(dir)?;
        if let Some(re) = &only {
            for home in &mut set.homes {
                home.tasks.retain(|t| re.is_match(&t.id));
            }
            set.homes.retain(|h| !h.tasks.is_empty());
        }
        sets.push(set);
    }
    let total: usize = sets.iter().map(dataset::TaskSet::task_count).sum();
    if total == 0 {
        bail!("no task matches");
    }
    let runs: usize = sets
        .iter()
        .map(|s| s.task_count() * args.count.for_set(s).0)
        .sum();
    eprintln!(
        "[assist] {total} tasks, {runs} runs x {} agent(s)",
        agents.len()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut results = Results::create(args.json.as_deref())?;
    // The report is written whatever happened: what was measured stays measured.
    let outcome = runtime.block_on(run_sets(&args, &agents, &sets, &mut results));
    let counts: Vec<(usize, &str)> = sets.iter().map(|s| args.count.for_set(s)).collect();
    let table = report::render(&sets, &agents, &results.rows, &counts);
    println!("{table}");
    if let Some(out) = &args.out {
        std::fs::write(out, &table).with_context(|| format!("cannot write {}", out.display()))?;
    }
    outcome
}

/// Scored rows, each also appended to the JSON Lines file the moment it is scored.
struct Results {
    rows: Vec<Row>,
    file: Option<(PathBuf, std::fs::File)>,
}

impl Results {
    fn create(path: Option<&Path>) -> anyhow::Result<Self> {
        let file = path
            .map(|p| {
                std::fs::File::create(p)
                    .map(|f| (p.to_owned(), f))
                    .with_context(|| format!("cannot write {}", p.display()))
            })
            .transpose()?;
        Ok(Self {
            rows: Vec::new(),
            file,
        })
    }

    fn push(&mut self, row: Row) -> anyhow::Result<()> {
        if let Some((path, file)) = &mut self.file {
            use std::io::Write;
            let line = serde_json::to_string(&row)?;
            writeln!(file, "{line}")
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        self.rows.push(row);
        Ok(())
    }
}

async fn run_sets(
    args: &Args,
    agents: &[Agent],
    sets: &[dataset::TaskSet],
    results: &mut Results,
) -> anyhow::Result<()> {
    let work = std::env::temp_dir().join(format!("homeclaw-assist-{:08x}", fastrand::u32(..)));
    std::fs::create_dir_all(&work)?;
    let ha = args.setup.ha()?;
    let result = async {
        for set in sets {
            let (count, _) = args.count.for_set(set);
            for home in &set.homes {
                match HomeBench::start(args, agents, &ha, home, &work).await {
                    Ok(mut bench) => {
                        bench
                            .run_tasks(args, agents, &set.name, home, count, results)
                            .await?;
                        bench.stop().await;
                    }
                    Err(e) => {
                        let reason = format!("the home could not be loaded: {e:#}");
                        eprintln!("[assist] home {}: {reason}", home.name);
                        for task in &home.tasks {
                            for run in 0..count {
                                for &agent in agents {
                                    results
                                        .push(Row::failed(&set.name, task, run, agent, &reason))?;
                                }
                            }
                        }
                    }
                }
            }
        }
        anyhow::Ok(())
    }
    .await;
    ha.stop();
    result?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// One home loaded: its Home Assistant connection and, when measured, a HomeClaw server.
struct HomeBench {
    client: HaClient,
    /// Where and how to reach Home Assistant for a pipeline run of its own.
    ws_url: String,
    token: String,
    command_timeout: Duration,
    events: broadcast::Receiver<ClientEvent>,
    homeclaw: Option<HomeClawProcess>,
    http: reqwest::Client,
}

impl HomeBench {
    async fn start(
        args: &Args,
        agents: &[Agent],
        ha: &HaProcess,
        home: &dataset::Home,
        work: &Path,
    ) -> anyhow::Result<Self> {
        eprintln!("[assist] loading home {}", home.name);
        let endpoints = ha.start(&home.fixture)?;
        let client = args
            .setup
            .connect(&endpoints, vec!["state_changed".into()])
            .await?;
        let events = client.events();
        let bench = Self {
            client,
            ws_url: endpoints.ws_url.clone(),
            token: endpoints.token.clone(),
            command_timeout: args.setup.command_timeout(),
            events,
            homeclaw: None,
            http: homeclaw::tls::http_builder()
                .timeout(args.setup.command_timeout())
                .build()?,
        };
        bench.check_loaded(home).await?;
        let homeclaw = if agents.contains(&Agent::HomeClaw) {
            let config = args.config.as_deref().context("--config is required")?;
            let bin = args.setup.homeclaw_bin()?;
            Some(HomeClawProcess::start(&bin, config, &endpoints, &work.join(&home.name)).await?)
        } else {
            None
        };
        Ok(Self { homeclaw, ..bench })
    }

    /// Every entity of the fixture must exist: a home that did not load fully is an error
    /// naming what is missing (and why, when Home Assistant says).
    async fn check_loaded(&self, home: &dataset::Home) -> anyhow::Result<()> {
        let snapshot = self.snapshot(&home.entities).await?;
        let missing: Vec<&String> = home
            .entities
            .iter()
            .filter(|e| !snapshot.contains_key(*e))
            .collect();
        if !missing.is_empty() {
            let entries = self
                .client
                .request(HaCommand::new("config_entries/get").with("domain", json!("fixture_home")))
                .await
                .unwrap_or_default();
            bail!(
                "home {}: entities not loaded: {missing:?}; fixture_home entry: {entries}",
                home.name
            );
        }
        Ok(())
    }

    async fn stop(self) {
        if let Some(hc) = self.homeclaw {
            hc.stop();
        }
        self.client.shutdown().await;
    }

    async fn snapshot(&self, entities: &[String]) -> anyhow::Result<Snapshot> {
        let states = self.client.request(HaCommand::new("get_states")).await?;
        let wanted: BTreeSet<&str> = entities.iter().map(String::as_str).collect();
        Ok(states
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| {
                let id = s["entity_id"].as_str()?;
                wanted
                    .contains(id)
                    .then(|| (id.to_owned(), score::flatten(s)))
            })
            .collect())
    }

    /// Home Assistant's id of a fixture device (the loader registers each under
    /// `("fixture_home", id)`).
    async fn device_id(&self, fixture_device: &str) -> anyhow::Result<String> {
        let devices = self
            .client
            .request(HaCommand::new("config/device_registry/list"))
            .await?;
        devices
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| {
                d["identifiers"]
                    .as_array()
                    .is_some_and(|ids| ids.contains(&json!(["fixture_home", fixture_device])))
            })
            .and_then(|d| d["id"].as_str())
            .map(str::to_owned)
            .with_context(|| format!("context device {fixture_device} is not a device of the home"))
    }

    async fn service(&self, service: &str, data: Value) -> anyhow::Result<()> {
        self.client
            .request(
                HaCommand::new("call_service")
                    .with("domain", json!("fixture_home"))
                    .with("service", json!(service))
                    .with("service_data", data),
            )
            .await
            .with_context(|| format!("fixture_home.{service}"))?;
        Ok(())
    }

    /// Waits until no `state_changed` event has arrived for `quiet` (at most 10 s).
    async fn settle(&mut self, quiet: Duration) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            match tokio::time::timeout(quiet, self.events.recv()).await {
                Err(_) | Ok(Err(broadcast::error::RecvError::Closed)) => return,
                Ok(_) => {}
            }
        }
    }

    async fn prepare(&mut self, task: &dataset::Task, quiet: Duration) -> anyhow::Result<()> {
        self.service("reset", json!({})).await?;
        for (entity, state) in &task.setup {
            let mut data = json!({"entity_id": entity});
            if let Some(now) = &task.context_now {
                data["context_now"] = json!(now);
            }
            if let Some(s) = &state.state {
                data["state"] = json!(s);
            }
            if !state.attributes.is_empty() {
                data["attributes"] = Value::Object(state.attributes.clone());
            }
            self.service("set_state", data)
                .await
                .with_context(|| format!("set-up of {}", task.id))?;
        }
        self.settle(quiet).await;
        Ok(())
    }

    /// Runs every task of the home; a task that cannot be set up or read is a failed row
    /// with the reason, and the next one runs. Only a results file that cannot be written
    /// stops the run.
    async fn run_tasks(
        &mut self,
        args: &Args,
        agents: &[Agent],
        set: &str,
        home: &dataset::Home,
        count: usize,
        results: &mut Results,
    ) -> anyhow::Result<()> {
        let quiet = Duration::from_millis(args.quiet_ms);
        for task in &home.tasks {
            // The home's devices stay as loaded: looked up once per task.
            let device = match &task.context_device {
                Some(d) => self.device_id(d).await.map(Some),
                None => Ok(None),
            };
            for run in 0..count {
                for &agent in agents {
                    let row = match &device {
                        Ok(device) => self
                            .run_task(agent, set, task, run, device.as_deref(), quiet, home)
                            .await
                            .unwrap_or_else(|e| {
                                Row::failed(set, task, run, agent, &format!("{e:#}"))
                            }),
                        Err(e) => Row::failed(set, task, run, agent, &format!("{e:#}")),
                    };
                    eprintln!(
                        "[assist] {:<11} {:<44} {} {:>5.1}s {}",
                        agent.label(),
                        row.task,
                        if row.pass { "PASS" } else { "fail" },
                        row.latency_s,
                        if row.pass { &row.reply } else { &row.reason }
                            .chars()
                            .take(100)
                            .collect::<String>()
                    );
                    results.push(row)?;
                }
            }
        }
        Ok(())
    }

    /// One run of one task by one agent: set up, ask, settle, score.
    #[allow(clippy::too_many_arguments)]
    async fn run_task(
        &mut self,
        agent: Agent,
        set: &str,
        task: &dataset::Task,
        run: usize,
        device: Option<&str>,
        quiet: Duration,
        home: &dataset::Home,
    ) -> anyhow::Result<Row> {
        self.prepare(task, quiet).await?;
        let before = self.snapshot(&home.entities).await?;
        let answer = self
            .ask(agent, &task.sentence, &home.language, device)
            .await;
        self.settle(quiet).await;
        let after = self.snapshot(&home.entities).await?;
        let diffs = score::differences(task, &before, &after);
        let verdict = score::judge(task, &diffs, &answer.reply);
        Ok(Row {
            pass: verdict.pass,
            reason: match &answer.error {
                Some(e) => format!("{e}; {}", verdict.reason),
                None => verdict.reason,
            },
            reply: answer.reply,
            status: answer.status,
            latency_s: answer.latency.as_secs_f64(),
            llm_requests: answer.llm_requests,
            prompt_tokens: answer.prompt_tokens,
            needed_approval: answer.needed_approval,
            trace: answer.trace,
            ..Row::failed(set, task, run, agent, "")
        })
    }

    /// `device`: Home Assistant's id of the device the sentence is spoken to: given to HomeClaw
    /// as `device_id`, and to Home Assistant's agent through an Assist pipeline run (its
    /// `conversation/process` takes no device). Both are asked in the home's language.
    async fn ask(
        &self,
        agent: Agent,
        sentence: &str,
        language: &str,
        device: Option<&str>,
    ) -> Answer {
        match agent {
            Agent::HomeClaw => match &self.homeclaw {
                Some(hc) => hc.ask(&self.http, sentence, language, device, false).await,
                None => Answer::error("HomeClaw is not running".into()),
            },
            Agent::Ha if device.is_some() => {
                let started = Instant::now();
                let result = pipeline::run(
                    &self.ws_url,
                    &self.token,
                    language,
                    sentence,
                    device.unwrap_or_default(),
                    self.command_timeout,
                )
                .await;
                let latency = started.elapsed();
                match result {
                    Ok(spoken) => Answer {
                        reply: spoken.speech,
                        status: spoken.response_type,
                        latency,
                        ..Answer::default()
                    },
                    Err(e) => Answer {
                        latency,
                        ..Answer::error(format!("assist_pipeline/run failed: {e:#}"))
                    },
                }
            }
            Agent::Ha => {
                let started = Instant::now();
                let process = HaCommand::new("conversation/process")
                    .with("text", json!(sentence))
                    .with("language", json!(language))
                    .with("agent_id", json!("conversation.home_assistant"));
                let result = self.client.request(process).await;
                let latency = started.elapsed();
                match result {
                    Ok(r) => Answer {
                        reply: r["response"]["speech"]["plain"]["speech"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                        status: r["response"]["response_type"]
                            .as_str()
                            .unwrap_or("error")
                            .to_owned(),
                        latency,
                        ..Answer::default()
                    },
                    Err(e) => Answer {
                        latency,
                        ..Answer::error(format!("conversation/process failed: {e}"))
                    },
                }
            }
        }
    }
}
