//! `homeclaw-bench conformance`: Home Assistant's own intent tests, every language it ships,
//! asked of HomeClaw and of Home Assistant's agent in one run (issue 47).
//!
//! Per language: its test home ([`corpus`]) is loaded into a real Home Assistant through the
//! project's script, with a voice satellite in every area, and the real `homeclaw` binary is
//! started against it. Every sentence of every test block is said to the block's satellite
//! (its context area), in the language, to both agents at once:
//! - Home Assistant's agent through its recogniser (`conversation/agent/homeassistant/debug`):
//!   judged as HA's own tests judge it, the block's intent and slots, every slot matched.
//! - HomeClaw through `POST /api/command` as a dry run: everything up to the call (reading,
//!   recognition, validation, the model) runs, nothing is sent, and the report names every
//!   call it would make, with its data. Judged by [`judge`]: the block's effects on the
//!   entities its words name, and no call on any other.
//!
//! Dry runs leave the home as it is, so sentences run a few at a time and need no reset.
//! Questions are counted as answered (or not) without judging the words; intents whose effect
//! no home shows (timers, weather, the date) are counted apart.

mod corpus;
mod judge;
mod report;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use homeclaw::ha::HaClient;
use homeclaw::ha::protocol::Command as HaCommand;

use crate::assist::processes::{HaProcess, HomeClawProcess, Setup};
use corpus::{Case, Home, Kind};
pub use report::Row;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The intents repository's `tests/` folder (one folder per language).
    #[arg(long, default_value = "../shared/ha-intents/tests")]
    intents: PathBuf,
    /// Languages to run (comma-separated folder names); all when not given.
    #[arg(long, value_delimiter = ',')]
    lang: Vec<String>,
    /// HomeClaw's configuration (its model, or none reachable for "without the model").
    #[arg(long, required_unless_present = "rejudge")]
    config: Option<PathBuf>,
    /// Every n-th sentence of a language (1: all).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Sentences asked at once. More than one makes the run noisy, not faster: Home
    /// Assistant's recogniser runs concurrent sentences in threads that share its lazily built
    /// name index, and reads some of them differently; HomeClaw's 300 ms budget for it is
    /// missed more often.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Write the report (Markdown) here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write every case's result here as JSON Lines, as it is judged.
    #[arg(long)]
    json: Option<PathBuf>,
    #[command(flatten)]
    setup: Setup,
    /// Leave the last language's Home Assistant running (to look at a failure by hand).
    #[arg(long)]
    keep_home: bool,
    /// Judge the rows of an earlier run's JSON Lines again (nothing is asked), e.g. to
    /// compare a run before a change with one after under the same judge.
    #[arg(long)]
    rejudge: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(recorded) = &args.rejudge {
        return rejudged(&args, recorded);
    }
    let only = args.setup.only()?;
    let langs = languages(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut rows = Vec::new();
    let mut file = args
        .json
        .as_deref()
        .map(std::fs::File::create)
        .transpose()
        .context("cannot write the JSON Lines file")?;
    let outcome = runtime.block_on(async {
        let work = std::env::temp_dir().join(format!("homeclaw-conf-{:08x}", fastrand::u32(..)));
        let ha = args.setup.ha()?;
        for lang in &langs {
            let dir = args.intents.join(lang);
            let home = corpus::home(&dir)?;
            let cases: Vec<Case> = corpus::cases(&dir)?
                .into_iter()
                .filter(|c| {
                    only.as_ref()
                        .is_none_or(|re| re.is_match(&format!("{lang}/{}", c.id)))
                })
                .enumerate()
                .filter(|(i, _)| i % args.every.max(1) == 0)
                .map(|(_, c)| c)
                .collect();
            if cases.is_empty() {
                continue;
            }
            eprintln!(
                "[conformance] {lang}: {} sentences; {} entities of the fixtures left out \
                 (domains the loader does not build)",
                cases.len(),
                home.left_out.len()
            );
            let measured = run_language(&args, &ha, lang, &home, &cases, &work.join(lang)).await;
            let measured = measured.unwrap_or_else(|e| {
                let why = format!("the language could not be run: {e:#}");
                eprintln!("[conformance] {lang}: {why}");
                cases.iter().map(|c| Row::failed(lang, c, &why)).collect()
            });
            for row in measured {
                if let Some(f) = &mut file {
                    use std::io::Write;
                    writeln!(f, "{}", serde_json::to_string(&row)?)?;
                }
                rows.push(row);
            }
        }
        if args.keep_home {
            eprintln!(
                "[conformance] Home Assistant stays up on port {} (--keep-home)",
                args.setup.ha_port
            );
        } else {
            ha.stop();
            let _ = std::fs::remove_dir_all(&work);
        }
        anyhow::Ok(())
    });
    let table = report::render(&rows);
    println!("{table}");
    if let Some(out) = &args.out {
        std::fs::write(out, &table).with_context(|| format!("cannot write {}", out.display()))?;
    }
    outcome
}

/// An earlier run's rows judged again, written and reported as a run's are.
fn rejudged(args: &Args, recorded: &std::path::Path) -> anyhow::Result<()> {
    let rows = rejudge(args, recorded)?;
    if let Some(path) = &args.json {
        let lines: Vec<String> = rows
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        std::fs::write(path, lines.join("\n") + "\n")?;
    }
    let table = report::render(&rows);
    println!("{table}");
    if let Some(out) = &args.out {
        std::fs::write(out, &table)?;
    }
    Ok(())
}

/// The language folders to run: those with a `_fixtures.yaml`, of `--lang` when given.
fn languages(args: &Args) -> anyhow::Result<Vec<String>> {
    let mut langs: Vec<String> = std::fs::read_dir(&args.intents)
        .with_context(|| format!("cannot read {}", args.intents.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("_fixtures.yaml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|l| args.lang.is_empty() || args.lang.contains(l))
        .collect();
    langs.sort();
    if langs.is_empty() {
        bail!("no language folder in {} matches", args.intents.display());
    }
    Ok(langs)
}

/// One language: its home loaded, both agents asked every case.
async fn run_language(
    args: &Args,
    ha: &HaProcess,
    lang: &str,
    home: &Home,
    cases: &[Case],
    work: &std::path::Path,
) -> anyhow::Result<Vec<Row>> {
    std::fs::create_dir_all(work)?;
    let fixture = work.join("_fixtures.yaml");
    std::fs::write(&fixture, serde_json::to_string_pretty(&home.fixture())?)?;
    let endpoints = ha.start(&fixture)?;
    let client = args.setup.connect(&endpoints, Vec::new()).await?;
    let satellites = satellites(&client).await?;
    household_assistant(&client, lang).await?;
    exposed_as_loaded(&client, lang).await?;
    let bin = args.setup.homeclaw_bin()?;
    let config = args.config.as_deref().context("--config is required")?;
    let homeclaw = HomeClawProcess::start(&bin, config, &endpoints, work).await?;
    let http = homeclaw::tls::http_builder()
        .timeout(args.setup.command_timeout())
        .build()?;
    let asking = Asking {
        lang,
        home,
        client: &client,
        homeclaw: &homeclaw,
        http: &http,
        satellites: &satellites,
        timeout: args.setup.command_timeout(),
    };
    let rows: Vec<Row> = futures_util::stream::iter(cases)
        .map(|case| asking.case(case))
        .buffered(args.parallel.max(1))
        .collect()
        .await;
    homeclaw.stop();
    client.shutdown().await;
    Ok(rows)
}

/// Every entity of the home exposed to Assist, as the loader means to leave it: a home the
/// loader left half built (it stops at an entity it cannot find, and the rest keep no room and
/// no exposure) would judge both agents on another home than the file's.
async fn exposed_as_loaded(client: &HaClient, lang: &str) -> anyhow::Result<()> {
    let entries = client
        .request(HaCommand::new("config/entity_registry/list"))
        .await?;
    let unexposed: Vec<&str> = entries
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["platform"] == "fixture_home")
        .filter(|e| e["options"]["conversation"]["should_expose"] != true)
        .filter_map(|e| e["entity_id"].as_str())
        .filter(|id| !id.starts_with("assist_satellite."))
        .collect();
    anyhow::ensure!(
        unexposed.is_empty(),
        "the {lang} home is not loaded as its file says: not exposed to Assist: {}",
        unexposed.join(", ")
    );
    Ok(())
}

/// The assistant Home Assistant's onboarding makes in the home's language (its own agent), as
/// a household speaking `lang` has it: what HomeClaw hands to Home Assistant's agent goes
/// through it with the speaking device, as Home Assistant before 2026.11 takes a device only in
/// a pipeline run ("what is the temperature here" needs the satellite's room).
async fn household_assistant(client: &HaClient, lang: &str) -> anyhow::Result<()> {
    let created = client
        .request(homeclaw::ha::pipelines::create_text_pipeline(
            &format!("Home Assistant ({lang})"),
            lang,
            homeclaw::ha::pipelines::HOME_ASSISTANT_AGENT,
            false,
        ))
        .await
        .with_context(|| format!("cannot create the household's {lang} assistant"))?;
    anyhow::ensure!(
        created["id"].is_string(),
        "Home Assistant made no {lang} assistant: {created}"
    );
    Ok(())
}

/// Home Assistant's device id of each area's satellite, by the area's fixture id.
async fn satellites(client: &HaClient) -> anyhow::Result<BTreeMap<String, String>> {
    let devices = client
        .request(HaCommand::new("config/device_registry/list"))
        .await?;
    Ok(devices
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| {
            let ids = d["identifiers"].as_array()?;
            let fixture = ids
                .iter()
                .find_map(|i| (i.get(0)? == "fixture_home").then(|| i.get(1)?.as_str())?)?;
            let area = fixture.strip_prefix("satellite_")?;
            Some((area.to_owned(), d["id"].as_str()?.to_owned()))
        })
        .collect())
}

struct Asking<'a> {
    lang: &'a str,
    home: &'a Home,
    client: &'a HaClient,
    homeclaw: &'a HomeClawProcess,
    http: &'a reqwest::Client,
    satellites: &'a BTreeMap<String, String>,
    timeout: Duration,
}

impl Asking<'_> {
    async fn case(&self, case: &Case) -> Row {
        let device = case
            .context_area
            .as_deref()
            .and_then(|a| self.home.area_named(a))
            .and_then(|a| self.satellites.get(&a.id))
            .map(String::as_str);
        let language = self.home.language.as_str();
        let ha = async {
            let started = Instant::now();
            let pending = self
                .client
                .recognition(&case.sentence, language, device)
                .await;
            let result = match pending {
                Ok(mut p) => p.within(self.timeout).await.ok(),
                Err(_) => None,
            };
            (
                result
                    .as_ref()
                    .and_then(homeclaw::ha::recognise::parse_debug),
                started.elapsed(),
            )
        };
        let hc = self
            .homeclaw
            .ask(self.http, &case.sentence, language, device, true);
        let ((recognition, ha_took), answer) = tokio::join!(ha, hc);
        let mut row = Row::failed(self.lang, case, "");
        row.ha_pass = judge::ha(case, recognition.as_ref())
            && recognition.as_ref().is_some_and(|r| r.matched);
        row.ha_ms = ha_took.as_secs_f64() * 1000.0;
        row.ha_intent = recognition.map(|r| r.intent).unwrap_or_default();
        row.homeclaw_ms = answer.latency.as_secs_f64() * 1000.0;
        row.model = answer.llm_requests.unwrap_or(0) > 0;
        row.reply = answer.reply;
        row.status = answer.status;
        row.actions = answer.actions.clone();
        row.judge(case, self.home);
        if !row.homeclaw_pass {
            row.trace = answer.trace;
        }
        row
    }
}

impl Row {
    /// HomeClaw's verdict on this row's calls (or answer), by the case's reading in `home`.
    fn judge(&mut self, case: &Case, home: &Home) {
        self.kind = case.kind;
        self.reason.clear();
        match case.kind {
            Kind::Act => match best_reading(case, home, &self.actions) {
                Some(expected) => {
                    let (pass, wrong) = judge::homeclaw(&expected, &self.actions);
                    self.homeclaw_pass = pass;
                    self.narrower = !pass && judge::narrower(&expected, &self.actions);
                    self.wrong = wrong;
                    self.expected = expected
                        .iter()
                        .map(|(id, e)| format!("{id} {e:?}"))
                        .collect();
                }
                None => {
                    self.kind = Kind::Apart;
                    self.homeclaw_pass = false;
                    self.reason = "no device of the loaded home to judge a call by (none \
                                   named, or several and none said)"
                        .into();
                }
            },
            Kind::Question => {
                self.homeclaw_pass = self.status == "done" && self.actions.is_empty();
            }
            Kind::Apart => self.homeclaw_pass = false,
        }
    }
}

/// The block's reading the calls are judged by: of its readings (one per room a list names),
/// the first the calls satisfy, else the one they stray least from.
fn best_reading(case: &Case, home: &Home, actions: &[serde_json::Value]) -> Option<judge::Effects> {
    let readings: Vec<judge::Effects> = judge::alternatives(case, home)
        .iter()
        .filter_map(|c| judge::expected(c, home))
        .collect();
    readings
        .iter()
        .find(|e| judge::homeclaw(e, actions).0)
        .or_else(|| {
            readings
                .iter()
                .min_by_key(|e| judge::homeclaw(e, actions).1.len())
        })
        .cloned()
}

/// Judges a recorded run again with today's judge (its calls and answers as recorded): two
/// runs compare under one judge.
fn rejudge(args: &Args, recorded: &std::path::Path) -> anyhow::Result<Vec<Row>> {
    let text = std::fs::read_to_string(recorded)
        .with_context(|| format!("cannot read {}", recorded.display()))?;
    let mut homes: BTreeMap<String, (Home, BTreeMap<String, Case>)> = BTreeMap::new();
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut row: Row = serde_json::from_str(line)
            .with_context(|| format!("{}: line {} is not a row", recorded.display(), n + 1))?;
        if !homes.contains_key(&row.lang) {
            let dir = args.intents.join(&row.lang);
            let cases = corpus::cases(&dir)?
                .into_iter()
                .map(|c| (c.id.clone(), c))
                .collect();
            homes.insert(row.lang.clone(), (corpus::home(&dir)?, cases));
        }
        let (home, cases) = &homes[&row.lang];
        let case = cases
            .get(&row.id)
            .with_context(|| format!("{}: no case {} in the tests", row.lang, row.id))?;
        row.judge(case, home);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
