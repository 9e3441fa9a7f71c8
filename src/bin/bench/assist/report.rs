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

fn agent_label<S: serde::Serializer>(agent: &Agent, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(agent.label())
}

/// Published scores (reports/README.md of the task sets' repository, the commit named in the
/// task sets' SOURCE.md): model, assist-mini %, assist %.
const PUBLISHED: [(&str, Option<f64>, Option<f64>); 10] = [
    ("HA built-in NLP agent", Some(63.3), Some(37.5)),
    ("llama3.2-1b (Q4)", Some(4.1), Some(7.5)),
    ("xlam-1b", Some(27.1), None),
    ("home-llm (fine-tuned 1–3B)", Some(34.7), Some(45.0)),
    ("llama3.2-3b", Some(81.6), Some(62.5)),
    ("llama3.1 8b", Some(83.7), Some(66.2)),
    ("qwen2.5 7b", Some(85.7), Some(81.2)),
    ("gpt-4o-mini", Some(98.0), Some(90.0)),
    ("gemini-1.5-flash", Some(98.0), Some(91.2)),
    ("claude-3-5-sonnet", Some(95.9), None),
];

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

pub fn render(sets: &[TaskSet], agents: &[Agent], rows: &[Row], count: usize) -> String {
    let mut out = String::new();
    for set in sets {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.task_set == set.name).collect();
        let _ = writeln!(
            out,
            "### {} ({} tasks from {} homes, {count} run(s) each)\n",
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
    out.push_str("### Published scores (Home LLM Leaderboard, through HA's LLM API)\n\n| model | assist-mini | assist |\n|---|---|---|\n");
    for (model, mini, full) in PUBLISHED {
        let pct = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.1}%"));
        let _ = writeln!(out, "| {model} | {} | {} |", pct(mini), pct(full));
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
