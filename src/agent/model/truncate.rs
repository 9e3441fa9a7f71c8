//! Bounds on tool results: per result (a share of the context window, under a hard ceiling),
//! when persisted, and for all historical results together.
//!
//! Invariants: a cut keeps head and tail at line boundaries and says how much was cut; a
//! result is never cut below the floor (2,000 characters); the newest results keep their text
//! first when the history budget runs out.

use crate::llm::Message;

pub use crate::config::{CHARS_PER_TOKEN, TruncationConfig};

/// Cuts `text` to at most about `max_chars`, keeping head and tail at line boundaries.
pub fn truncate(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars.saturating_sub(80);
    let head_len = keep * 2 / 3;
    let tail_len = keep - head_len;
    let chars: Vec<char> = text.chars().collect();
    let mut head_end = head_len;
    if let Some(nl) = chars[..head_end].iter().rposition(|&c| c == '\n')
        && nl > head_len / 2
    {
        head_end = nl + 1;
    }
    let mut tail_start = total - tail_len;
    if let Some(nl) = chars[tail_start..].iter().position(|&c| c == '\n')
        && nl < tail_len / 2
    {
        tail_start += nl + 1;
    }
    let head: String = chars[..head_end].iter().collect();
    let tail: String = chars[tail_start..].iter().collect();
    let cut = total - head_end - (total - tail_start);
    let sep = if head.ends_with('\n') { "" } else { "\n" };
    format!("{head}{sep}[… {cut} of {total} characters cut …]\n{tail}")
}

/// Applies the history budget to a request's messages: older tool results beyond the budget are
/// replaced by a short stub. The session history itself is not changed.
pub fn budget_history(messages: &[Message], budget_chars: usize) -> Vec<Message> {
    let mut remaining = budget_chars;
    let mut out: Vec<Message> = messages.to_vec();
    for message in out.iter_mut().rev() {
        if let Message::Tool { content, .. } = message {
            let len = content.chars().count();
            if len <= remaining {
                remaining -= len;
            } else {
                *content = format!("[older tool result omitted: {len} characters]");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;
    use serde_json::json;

    #[test]
    fn short_results_pass_untouched() {
        assert_eq!(truncate("abc", 10), "abc");
        let exact = "x".repeat(2000);
        assert_eq!(truncate(&exact, 2000), exact);
    }

    #[test]
    fn long_results_keep_head_and_tail_at_line_boundaries() {
        let text: String = (0..2000).map(|i| format!("line {i:04}\n")).collect();
        let cut = truncate(&text, 3000);
        assert!(cut.chars().count() <= 3000, "{}", cut.chars().count());
        assert!(cut.starts_with("line 0000\n"));
        assert!(cut.ends_with("line 1999\n"));
        let marker = cut.lines().find(|l| l.starts_with("[…")).unwrap();
        assert!(
            marker.contains(&format!("of {} characters cut", text.len())),
            "{marker}"
        );
        // Every kept line is whole.
        for line in cut.lines().filter(|l| !l.starts_with("[…")) {
            assert!(line.len() == 9 && line.starts_with("line "), "{line:?}");
        }
    }

    #[test]
    fn one_huge_line_is_cut_mid_line_and_multibyte_text_is_safe() {
        let text = "ż".repeat(10_000);
        let cut = truncate(&text, 2_000);
        assert!(cut.chars().count() <= 2_000);
        assert!(cut.contains("characters cut"));
    }

    #[test]
    fn limits_follow_the_window_within_floor_and_ceiling() {
        let cfg = TruncationConfig::default();
        assert_eq!(cfg.result_limit(10_000), 12_000);
        assert_eq!(cfg.result_limit(1_000_000), 60_000);
        assert_eq!(cfg.result_limit(100), 2_000);
    }

    #[test]
    fn the_history_budget_stubs_the_oldest_results_first() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "get_state".into(),
            arguments: json!({}),
            provider_data: None,
        };
        let messages = vec![
            Message::tool_result(&call("a"), "x".repeat(100), false),
            Message::tool_result(&call("b"), "y".repeat(100), false),
            Message::tool_result(&call("c"), "z".repeat(100), false),
        ];
        let got = budget_history(&messages, 250);
        let contents: Vec<String> = got
            .iter()
            .map(|m| match m {
                Message::Tool { content, .. } => content.clone(),
                _ => String::new(),
            })
            .collect();
        assert_eq!(contents[0], "[older tool result omitted: 100 characters]");
        assert_eq!(contents[1], "y".repeat(100));
        assert_eq!(contents[2], "z".repeat(100));
    }
}
