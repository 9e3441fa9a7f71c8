//! Compaction: when the history outgrows the model's context, the older part is summarised by
//! the model (a tool-less call) and replaced by the summary, followed by a context refresh.
//!
//! Invariants:
//! - The split falls on a user message, so no tool call is separated from its result.
//! - Nothing is replaced until the summary exists: a failing summarisation leaves the history
//!   exactly as it was and returns a clear error.
//! - The refresh note restates the tools, the domains of the home, the entities this session
//!   used most, and the standing rules, so the model does not lose its footing.

use std::collections::HashMap;

use serde_json::Value;

use super::prompt::RULES;
use super::truncate::CHARS_PER_TOKEN;
use crate::agent::act::tools::ToolKind;
use crate::ha::registry::Registry;
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, ToolChoice};

pub const SUMMARY_PREFIX: &str = "[HomeClaw summary of the earlier conversation]";
/// Longest summary kept: four times the 400 tokens asked for.
const SUMMARY_MAX_CHARS: usize = 400 * 4 * 4;
pub const REFRESH_PREFIX: &str = "[HomeClaw context refresh]";

const SUMMARY_PROMPT: &str = "You summarise a conversation between a user and a smart-home \
assistant for the assistant's own memory. Keep: what the user asked for, which devices \
(entity ids) were involved, what was actually done and confirmed by tool results, what failed \
or is still open, and the user's preferences. Do not invent anything. Plain text, at most 200 \
words.";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactionError {
    /// Nothing older than the recent part to summarise. Not retryable.
    #[error("the conversation cannot be compacted further")]
    NothingToCompact,
    /// The model could not summarise; the history was kept as it was.
    #[error("compaction failed, history kept unchanged: {0}")]
    Summary(#[from] LlmError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompactionReport {
    pub summarised_messages: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

/// Estimated tokens of messages (JSON characters / 4).
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| serde_json::to_string(m).map_or(0, |s| s.chars().count()))
        .sum::<usize>()
        / CHARS_PER_TOKEN
}

/// Where the kept, recent part starts: the earliest user message such that the tail fits in
/// `keep_tokens`, always leaving something older to summarise. `None` when there is nothing
/// to split.
pub fn split_point(history: &[Message], keep_tokens: usize) -> Option<usize> {
    let mut tail_tokens = 0;
    let mut best = None;
    for index in (1..history.len()).rev() {
        tail_tokens += estimate_tokens(&history[index..=index]);
        if tail_tokens > keep_tokens && best.is_some() {
            break;
        }
        if matches!(history[index], Message::User { .. }) {
            best = Some(index);
        }
    }
    // The last user message always stays: it is the command being answered.
    best.or_else(|| {
        history
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .filter(|&i| i > 0)
    })
}

fn render_for_summary(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        let line = match m {
            Message::System { content } => format!("system: {content}"),
            Message::User { content } => format!("user: {content}"),
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|c| format!("{}({})", c.name, c.arguments))
                    .collect();
                if calls.is_empty() {
                    format!("assistant: {content}")
                } else {
                    format!("assistant: {content} [calls: {}]", calls.join(", "))
                }
            }
            Message::Tool { name, content, .. } => {
                let short: String = content.chars().take(600).collect();
                format!("tool {name} result: {short}")
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The entities this history used most (from tool arguments), most used first.
pub fn most_used_entities(history: &[Message], limit: usize) -> Vec<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut note = |id: &str| {
        if id.contains('.') {
            let id = id.trim().to_lowercase();
            if !counts.contains_key(&id) {
                order.push(id.clone());
            }
            *counts.entry(id).or_insert(0) += 1;
        }
    };
    for m in history {
        if let Message::Assistant { tool_calls, .. } = m {
            for c in tool_calls {
                match c.arguments.get("entity_id") {
                    Some(Value::String(id)) => note(id),
                    Some(Value::Array(ids)) => {
                        ids.iter().filter_map(Value::as_str).for_each(&mut note)
                    }
                    _ => {}
                }
            }
        }
    }
    order.sort_by(|a, b| counts[b].cmp(&counts[a]));
    order.truncate(limit);
    order
}

/// The note injected right after a compaction.
pub fn refresh_note(registry: &Registry, history: &[Message]) -> String {
    let tools: Vec<String> = ToolKind::ALL
        .iter()
        .map(|k| format!("{} ({})", k.name(), k.purpose()))
        .collect();
    let domains: Vec<&str> = registry.domains().keys().map(String::as_str).collect();
    let used: Vec<String> = most_used_entities(history, 10)
        .into_iter()
        .map(|id| match registry.get(&id) {
            Some(e) => format!("{id} ({})", serde_json::Value::from(e.name.as_str())),
            None => id,
        })
        .collect();
    format!(
        "{REFRESH_PREFIX} The conversation above was compacted.\nTools: {}.\nDomains in this \
         home: {}.\nEntities used most in this conversation: {}.\n{RULES}",
        tools.join("; "),
        domains.join(", "),
        if used.is_empty() {
            "none yet".to_owned()
        } else {
            used.join(", ")
        }
    )
}

/// Summarises the older part of `history` and replaces it. On error `history` is unchanged.
pub async fn compact(
    model: &dyn ChatModel,
    registry_note: impl FnOnce(&[Message]) -> String,
    history: &mut Vec<Message>,
    keep_tokens: usize,
) -> Result<CompactionReport, CompactionError> {
    let split = split_point(history, keep_tokens).ok_or(CompactionError::NothingToCompact)?;
    let tokens_before = estimate_tokens(history);
    let request = ChatRequest {
        system: Some(SUMMARY_PROMPT.to_owned()),
        messages: vec![Message::user(render_for_summary(&history[..split]))],
        tools: Vec::new().into(),
        tool_choice: ToolChoice::None,
        max_tokens: Some(400),
        temperature: Some(0.0),
        reply_schema: None,
        context: None,
    };
    // A model may ignore max_tokens (or echo its input): the summary is cut to what a summary
    // can reasonably be, so it can never crowd out the conversation it replaces.
    let summary =
        super::truncate::truncate(model.chat(&request).await?.text.trim(), SUMMARY_MAX_CHARS);
    let note = registry_note(history);
    let mut replaced = vec![
        Message::user(format!("{SUMMARY_PREFIX}\n{}", summary.trim())),
        Message::system(note),
    ];
    replaced.extend(history.drain(split..));
    let summarised = history.len();
    *history = replaced;
    Ok(CompactionReport {
        summarised_messages: summarised,
        tokens_before,
        tokens_after: estimate_tokens(history),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::selfcheck::home::synthetic_home;
    use crate::agent::testkit::{ScriptedModel, text_reply};
    use crate::llm::ToolCall;
    use serde_json::json;

    fn call(id: &str, entity: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "get_state".into(),
            arguments: json!({"entity_id": entity}),
            provider_data: None,
        }
    }

    fn long_history(turns: usize) -> Vec<Message> {
        let mut h = Vec::new();
        for t in 0..turns {
            let c = call(
                &format!("c{t}"),
                if t % 3 == 0 {
                    "light.bed_light"
                } else {
                    "light.kitchen_lights"
                },
            );
            h.push(Message::user(format!("question {t} {}", "x".repeat(400))));
            h.push(Message::assistant_calls("", vec![c.clone()]));
            h.push(Message::tool_result(&c, "y".repeat(400), false));
            h.push(Message::assistant(format!("answer {t}")));
        }
        h
    }

    #[test]
    fn the_split_falls_on_a_user_message_and_keeps_the_last_command() {
        let h = long_history(10);
        let split = split_point(&h, 600).unwrap();
        assert!(matches!(h[split], Message::User { .. }));
        assert!(split > 0 && split < h.len());
        // Even a tiny budget keeps the last user message.
        let tiny = split_point(&h, 0).unwrap();
        assert_eq!(tiny, h.len() - 4);
        assert_eq!(split_point(&[Message::user("only")], 10), None);
    }

    #[test]
    fn most_used_entities_are_counted_from_tool_arguments() {
        let h = long_history(6);
        assert_eq!(
            most_used_entities(&h, 10),
            vec![
                "light.kitchen_lights".to_string(),
                "light.bed_light".to_string()
            ]
        );
    }

    #[tokio::test]
    async fn compaction_replaces_the_old_part_with_a_summary_and_a_refresh() {
        let mut h = long_history(10);
        let original_tail = h[h.len() - 4..].to_vec();
        let model = ScriptedModel::new(vec![text_reply("The user asked about two lights.")]);
        let registry = synthetic_home(20);
        let report = compact(&model, |hist| refresh_note(&registry, hist), &mut h, 600)
            .await
            .unwrap();
        assert!(report.tokens_after < report.tokens_before);
        assert!(matches!(&h[0], Message::User { content } if content.starts_with(SUMMARY_PREFIX)));
        match &h[1] {
            Message::System { content } => {
                assert!(content.starts_with(REFRESH_PREFIX));
                assert!(content.contains("search_entities"));
                assert!(
                    content.contains("light.kitchen_lights (\"Kitchen Lights\")"),
                    "{content}"
                );
                assert!(content.contains("Never say you did"));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(&h[h.len() - 4..], &original_tail[..]);
        let sent = &model.requests()[0];
        assert!(sent.tools.is_empty());
        assert_eq!(sent.tool_choice, ToolChoice::None);
    }

    /// Found by the soak: a model that echoes its input wrote a summary over the session's
    /// message cap, and every later command of that session failed to store.
    #[tokio::test]
    async fn an_overlong_summary_is_cut() {
        let mut h = long_history(10);
        let huge = "x".repeat(200_000);
        let model = ScriptedModel::new(vec![text_reply(&huge)]);
        let registry = synthetic_home(20);
        compact(&model, |hist| refresh_note(&registry, hist), &mut h, 600)
            .await
            .unwrap();
        match &h[0] {
            Message::User { content } => {
                assert!(content.chars().count() <= SUMMARY_MAX_CHARS + SUMMARY_PREFIX.len() + 1)
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_failing_summarisation_loses_nothing() {
        let mut h = long_history(10);
        let before = h.clone();
        let model = ScriptedModel::default();
        model.push(Err(LlmError::Exhausted { attempts: vec![] }));
        let registry = synthetic_home(20);
        let err = compact(&model, |hist| refresh_note(&registry, hist), &mut h, 600)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("history kept unchanged"), "{err}");
        assert_eq!(h, before);
    }
}
