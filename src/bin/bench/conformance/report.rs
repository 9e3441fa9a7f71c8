//! A case's result, and the table per language that `docs/benchmarks.md` carries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::corpus::{Case, Kind};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub lang: String,
    pub id: String,
    pub sentence: String,
    pub intent: String,
    pub kind: Kind,
    pub ha_pass: bool,
    /// The intent Home Assistant recognised (empty: none).
    pub ha_intent: String,
    pub ha_ms: f64,
    pub homeclaw_pass: bool,
    /// HomeClaw asked its model.
    pub model: bool,
    pub homeclaw_ms: f64,
    /// Entities HomeClaw would have acted on that the words did not name.
    pub wrong: Vec<String>,
    /// Only some of what the block asks, and nothing else ([`super::judge::narrower`]).
    #[serde(default)]
    pub narrower: bool,
    pub expected: Vec<String>,
    pub actions: Vec<Value>,
    pub reply: String,
    pub status: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<String>,
}

impl Row {
    pub fn failed(lang: &str, case: &Case, reason: &str) -> Self {
        Self {
            lang: lang.to_owned(),
            id: case.id.clone(),
            sentence: case.sentence.clone(),
            intent: case.intent.clone(),
            kind: case.kind,
            ha_pass: false,
            ha_intent: String::new(),
            ha_ms: 0.0,
            homeclaw_pass: false,
            model: false,
            homeclaw_ms: 0.0,
            wrong: Vec::new(),
            narrower: false,
            expected: Vec::new(),
            actions: Vec::new(),
            reply: String::new(),
            status: String::new(),
            reason: reason.to_owned(),
            trace: Vec::new(),
        }
    }
}

#[derive(Default)]
struct Tally {
    acts: usize,
    ha: usize,
    homeclaw: usize,
    without_model: usize,
    wrong: usize,
    narrower: usize,
    questions: usize,
    ha_questions: usize,
    answered: usize,
    apart: usize,
    homeclaw_ms: Vec<f64>,
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / of as f64)
    }
}

fn median(mut v: Vec<f64>) -> String {
    if v.is_empty() {
        return "–".into();
    }
    v.sort_by(f64::total_cmp);
    format!("{:.0}", v[v.len() / 2])
}

/// One line per language and a total: the changes asked (judged by the calls), the questions
/// (answered or not) and what was counted apart.
pub fn render(rows: &[Row]) -> String {
    let mut by_lang: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for row in rows {
        for t in [by_lang.entry(row.lang.as_str()).or_default(), &mut total] {
            match row.kind {
                Kind::Act => {
                    t.acts += 1;
                    t.ha += usize::from(row.ha_pass);
                    t.homeclaw += usize::from(row.homeclaw_pass);
                    t.without_model += usize::from(row.homeclaw_pass && !row.model);
                    t.wrong += usize::from(!row.wrong.is_empty());
                    t.narrower += usize::from(row.narrower);
                    t.homeclaw_ms.push(row.homeclaw_ms);
                }
                Kind::Question => {
                    t.questions += 1;
                    t.ha_questions += usize::from(row.ha_pass);
                    t.answered += usize::from(row.homeclaw_pass);
                }
                Kind::Apart => t.apart += 1,
            }
        }
    }
    let mut out = String::from(
        "| language | changes | HA's agent | HomeClaw | without the model | wrong device | \
         narrower | HomeClaw p50 ms | questions | HA recognised | HomeClaw answered | apart |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let line = |name: &str, t: Tally| {
        format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            t.acts,
            pct(t.ha, t.acts),
            pct(t.homeclaw, t.acts),
            pct(t.without_model, t.acts),
            t.wrong,
            t.narrower,
            median(t.homeclaw_ms),
            t.questions,
            pct(t.ha_questions, t.questions),
            pct(t.answered, t.questions),
            t.apart,
        )
    };
    for (lang, t) in by_lang {
        out.push_str(&line(lang, t));
    }
    out.push_str(&line("**all**", total));
    out
}
