//! The report: per task set and category, success with a 95% interval, latency, LLM requests
//! and prompt tokens per task, for each agent measured in the same run, with the leaderboard's
//! published scores beside them.

use std::fmt::Write;

use serde::Serialize;

use super::Agent;
use super::dataset::TaskSet;
use super::score::wilson;
use crate::percentile;

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub task_set: String,
    pub task: String,
    pub run: usize,
    pub category: String,
    #[serde(serialize_with = "agent_label")]
    pub agent: Agent,
    pub sentence: String,
    pub pass: bool,
    /// Why the task failed (the differences that name each entity, an apology, an error).
    pub reason: String,
    pub reply: String,
    pub status: String,
    pub latency_s: f64,
    pub llm_requests: Option<u64>,
    pub prompt_tokens: Option<u64>,
    pub needed_approval: bool,
    pub trace: Vec<String>,
}

impl Row {
    /// A run that could not happen (the home did not load, the set-up failed): failed, with
    /// the reason, so that the report counts it.
    pub fn failed(
        set: &str,
        task: &super::dataset::Task,
        run: usize,
        agent: Agent,
        reason: &str,
    ) -> Self {
        Self {
            task_set: set.to_owned(),
            task: task.id.clone(),
            run,
            category: task.category.clone(),
            agent,
            sentence: task.sentence.clone(),
            pass: false,
            reason: reason.to_owned(),
            reply: String::new(),
            status: "error".into(),
            latency_s: 0.0,
            llm_requests: None,
            prompt_tokens: None,
            needed_approval: false,
            trace: Vec::new(),
        }
    }
}

fn agent_label<S: serde::Serializer>(agent: &Agent, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(agent.label())
}

/// The current leaderboard (reports/README.md of the task sets' repository at the commit named
/// in the task sets' SOURCE.md, updated 2026-07-30; through HA's LLM API, each sentence run as
/// `dataset_card.yaml` says): model, assist-mini %, assist %, questions %.
/// A published row: model, assist-mini %, assist %, questions %.
type Published = (&'static str, Option<f64>, Option<f64>, Option<f64>);

const PUBLISHED: [Published; 10] = [
    ("gemini-2.5-pro", Some(98.5), Some(91.3), Some(83.2)),
    ("claude-3-7-sonnet", Some(100.0), Some(89.4), Some(84.1)),
    ("gemini-3.1-flash-lite", Some(98.0), Some(87.0), Some(100.0)),
    ("gemma4-12b", Some(97.4), Some(83.5), Some(100.0)),
    ("gpt-4o-mini", Some(98.5), Some(85.9), Some(75.1)),
    ("qwen3.5-4b", Some(88.3), Some(81.1), Some(93.8)),
    ("ministral-3-3b", Some(81.6), Some(72.0), Some(90.3)),
    ("qwen3-4b-instruct", Some(86.7), Some(71.7), Some(74.1)),
    ("gemma4-e2b", Some(61.2), Some(45.2), Some(73.5)),
    ("qwen3-1.7b", Some(60.2), Some(35.9), Some(59.5)),
];

/// The one published row for Home Assistant's own agent (the leaderboard's archive).
const ARCHIVED_HA: Published = (
    "HA built-in NLP agent (archived results)",
    Some(63.3),
    Some(37.5),
    None,
);

struct Summary {
    n: usize,
    passed: usize,
    approvals: usize,
    p50: f64,
    p95: f64,
    requests: Option<f64>,
    tokens: Option<f64>,
}

fn summarise(rows: &[&Row]) -> Summary {
    let mut latencies: Vec<f64> = rows.iter().map(|r| r.latency_s).collect();
    latencies.sort_by(f64::total_cmp);
    let mean = |f: fn(&Row) -> Option<u64>| {
        let values: Vec<u64> = rows.iter().filter_map(|r| f(r)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<u64>() as f64 / values.len() as f64)
    };
    Summary {
        n: rows.len(),
        passed: rows.iter().filter(|r| r.pass).count(),
        approvals: rows.iter().filter(|r| r.needed_approval).count(),
        p50: percentile(&latencies, 0.5),
        p95: percentile(&latencies, 0.95),
        requests: mean(|r| r.llm_requests),
        tokens: mean(|r| r.prompt_tokens),
    }
}

fn line(out: &mut String, label: &str, agent: Agent, s: &Summary) {
    let (lo, hi) = wilson(s.passed, s.n);
    let opt = |v: Option<f64>, prec: usize| v.map_or("–".to_owned(), |v| format!("{v:.prec$}"));
    let _ = writeln!(
        out,
        "| {label} | {} | {} | {:.1}% | {lo:.0}–{hi:.0}% | {} | {:.2} | {:.2} | {} | {} |",
        agent.label(),
        s.n,
        100.0 * s.passed as f64 / s.n.max(1) as f64,
        s.approvals,
        s.p50,
        s.p95,
        opt(s.requests, 2),
        opt(s.tokens, 0),
    );
}

/// One line per agent, a column per task set: the leaderboard's own shape.
fn summary(out: &mut String, sets: &[TaskSet], agents: &[Agent], rows: &[Row]) {
    out.push_str("### Summary\n\n| agent |");
    for set in sets {
        let _ = write!(out, " {} |", set.name);
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(sets.len()));
    out.push('\n');
    for &agent in agents {
        let _ = write!(out, "| {} |", agent.label());
        for set in sets {
            let sel: Vec<&Row> = rows
                .iter()
                .filter(|r| r.task_set == set.name && r.agent == agent)
                .collect();
            if sel.is_empty() {
                out.push_str(" – |");
            } else {
                let s = summarise(&sel);
                let _ = write!(
                    out,
                    " {:.1}% (n={}) |",
                    100.0 * s.passed as f64 / s.n as f64,
                    s.n
                );
            }
        }
        out.push('\n');
    }
}

/// `counts`: for each set, the runs per sentence and where that number comes from.
pub fn render(
    sets: &[TaskSet],
    agents: &[Agent],
    rows: &[Row],
    counts: &[(usize, &str)],
) -> String {
    let mut out = String::new();
    summary(&mut out, sets, agents, rows);
    out.push('\n');
    for (set, (count, source)) in sets.iter().zip(counts) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.task_set == set.name).collect();
        let _ = writeln!(
            out,
            "### {} ({} tasks from {} homes, {count} run(s) each: {source})\n",
            set.name,
            set.task_count(),
            set.homes.len()
        );
        out.push_str("| category | agent | runs | success | 95% interval | needed approval | p50 s | p95 s | LLM requests/task | prompt tokens/task |\n|---|---|---|---|---|---|---|---|---|---|\n");
        let mut categories: Vec<&str> = mine.iter().map(|r| r.category.as_str()).collect();
        categories.sort_unstable();
        categories.dedup();
        for category in &categories {
            for &agent in agents {
                let sel: Vec<&Row> = mine
                    .iter()
                    .copied()
                    .filter(|r| r.category == *category && r.agent == agent)
                    .collect();
                if !sel.is_empty() {
                    line(&mut out, category, agent, &summarise(&sel));
                }
            }
        }
        for &agent in agents {
            let sel: Vec<&Row> = mine.iter().copied().filter(|r| r.agent == agent).collect();
            if !sel.is_empty() {
                line(&mut out, "**all**", agent, &summarise(&sel));
            }
        }
        out.push('\n');
    }
    out.push_str("### Published scores (Home LLM Leaderboard, current, through HA's LLM API)\n\n| model | assist-mini | assist | questions |\n|---|---|---|---|\n");
    for (model, mini, full, questions) in PUBLISHED.iter().chain([&ARCHIVED_HA]) {
        let pct = |v: &Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.1}%"));
        let _ = writeln!(
            out,
            "| {model} | {} | {} | {} |",
            pct(mini),
            pct(full),
            pct(questions)
        );
    }
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.pass).collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>Failed tasks ({})</summary>\n\n| task | agent | sentence | why | reply |\n|---|---|---|---|---|",
            failed.len()
        );
        for r in failed {
            let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                r.task,
                r.agent.label(),
                cell(&r.sentence),
                cell(&r.reason),
                cell(&r.reply.chars().take(160).collect::<String>())
            );
        }
        out.push_str("\n</details>\n");
    }
    out
}
