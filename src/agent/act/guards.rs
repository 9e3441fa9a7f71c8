//! Guards that keep a run from repeating itself: the per-run circuit breaker and the loop
//! detector (settings and defaults of OpenClaw's `tools.loopDetection` block).
//!
//! Invariants:
//! - History is scoped per run: a new user command starts with empty guards.
//! - Escalation is ordered: a warning is injected for the model first, then the tool cycle is
//!   blocked (not executed), and a critical verdict stops the run with its reason.
//! - Calls are compared by (tool, normalised-args hash); results by a hash that ignores
//!   volatile fields, so polling an unchanged entity is "no progress".

use std::collections::{HashMap, HashSet, VecDeque};

use crate::config::LoopDetectionConfig;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Run the call, and append this warning to its result.
    Warn(String),
    /// Do not run the call; this text is its result.
    Block(String),
    /// Stop the run with this reason.
    Critical(String),
}

impl Verdict {
    fn rank(&self) -> u8 {
        match self {
            Self::Allow => 0,
            Self::Warn(_) => 1,
            Self::Block(_) => 2,
            Self::Critical(_) => 3,
        }
    }

    /// The more severe of two verdicts.
    pub fn max(self, other: Verdict) -> Verdict {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Signature {
    tool_hash: u64,
    args_hash: u64,
}

#[derive(Debug, Clone)]
struct Record {
    tool: String,
    signature: Signature,
    result_hash: Option<u64>,
    poll: bool,
}

type Triple = (Signature, u64);

#[derive(Debug)]
pub struct LoopDetector {
    cfg: LoopDetectionConfig,
    window: VecDeque<Record>,
    unknown_tools: usize,
    no_progress: usize,
    seen: HashSet<Triple>,
    post_compaction: Option<(usize, HashSet<Triple>)>,
}

fn tool_hash(tool: &str) -> u64 {
    super::normalize::call_hash(tool, &serde_json::Value::Null)
}

impl LoopDetector {
    pub fn new(cfg: LoopDetectionConfig) -> Self {
        Self {
            cfg,
            window: VecDeque::new(),
            unknown_tools: 0,
            no_progress: 0,
            seen: HashSet::new(),
            post_compaction: None,
        }
    }

    fn level(&self, count: usize, what: impl FnOnce() -> String) -> Verdict {
        if count >= self.cfg.critical_threshold {
            Verdict::Block(format!(
                "Blocked: {} ({count} times). Stop repeating it: use what you already have, \
                 or ask the user.",
                what()
            ))
        } else if count >= self.cfg.warning_threshold {
            Verdict::Warn(format!(
                "Warning: {} ({count} times) without progress. Do not repeat it again.",
                what()
            ))
        } else {
            Verdict::Allow
        }
    }

    fn global_check(&self) -> Verdict {
        if self.no_progress >= self.cfg.global_circuit_breaker_threshold {
            Verdict::Critical(format!(
                "stopped: {} tool calls made no progress (limit {})",
                self.no_progress, self.cfg.global_circuit_breaker_threshold
            ))
        } else {
            Verdict::Allow
        }
    }

    /// Called before a call runs. `poll` marks read-only tools.
    pub fn before_call(&mut self, tool: &str, args_hash: u64, poll: bool) -> Verdict {
        if !self.cfg.enabled {
            return Verdict::Allow;
        }
        let signature = Signature {
            tool_hash: tool_hash(tool),
            args_hash,
        };
        self.window.push_back(Record {
            tool: tool.to_owned(),
            signature,
            result_hash: None,
            poll,
        });
        while self.window.len() > self.cfg.history_size {
            self.window.pop_front();
        }
        let mut verdict = self.global_check();
        if self.cfg.detectors.generic_repeat {
            let count = self
                .window
                .iter()
                .filter(|r| r.signature == signature)
                .count();
            verdict = verdict.max(self.level(count, || {
                format!("{tool} was called with the same arguments")
            }));
        }
        if self.cfg.detectors.ping_pong {
            let alternation = self.ping_pong_length();
            if alternation >= 4 {
                let names = self.ping_pong_names();
                verdict = verdict.max(self.level(alternation, || {
                    format!("the calls alternate between {names}")
                }));
            }
        }
        verdict
    }

    /// Length of the A,B,A,B… tail of the window (0 when the tail does not alternate).
    fn ping_pong_length(&self) -> usize {
        let sigs: Vec<Signature> = self.window.iter().map(|r| r.signature).collect();
        let n = sigs.len();
        if n < 2 || sigs[n - 1] == sigs[n - 2] {
            return 0;
        }
        let mut len = 2;
        while len < n && sigs[n - 1 - len] == sigs[n - 1 - len + 2] {
            len += 1;
        }
        len
    }

    fn ping_pong_names(&self) -> String {
        let n = self.window.len();
        format!(
            "{} and {}",
            self.window[n - 2].tool,
            self.window[n - 1].tool
        )
    }

    /// Called after a call ran (or was answered from the breaker).
    pub fn after_call(&mut self, result_hash: u64) -> Verdict {
        if !self.cfg.enabled {
            return Verdict::Allow;
        }
        let Some(last) = self.window.back_mut() else {
            return Verdict::Allow;
        };
        last.result_hash = Some(result_hash);
        let triple = (last.signature, result_hash);
        let mut verdict = Verdict::Allow;
        if !self.seen.insert(triple) {
            self.no_progress += 1;
        }
        if self.cfg.detectors.known_poll_no_progress && last_is_poll(&self.window) {
            let streak = self
                .window
                .iter()
                .rev()
                .take_while(|r| {
                    r.poll && (r.signature, r.result_hash) == (triple.0, Some(triple.1))
                })
                .count();
            let tool = self
                .window
                .back()
                .map(|r| r.tool.clone())
                .unwrap_or_default();
            verdict = verdict.max(
                match self.level(streak, || format!("{tool} keeps returning the same result")) {
                    Verdict::Block(reason) => {
                        Verdict::Critical(format!("stopped: polling without progress. {reason}"))
                    }
                    other => other,
                },
            );
        }
        if let Some((remaining, before)) = &mut self.post_compaction {
            if before.contains(&triple) {
                let tool = self
                    .window
                    .back()
                    .map(|r| r.tool.clone())
                    .unwrap_or_default();
                self.post_compaction = None;
                return Verdict::Critical(format!(
                    "stopped: after compaction the run repeated {tool} with the same arguments \
                     and result it had before"
                ));
            }
            *remaining = remaining.saturating_sub(1);
            if *remaining == 0 {
                self.post_compaction = None;
            }
        }
        verdict.max(self.global_check())
    }

    /// A call that was blocked or refused counts as no progress.
    pub fn record_no_progress(&mut self) -> Verdict {
        if !self.cfg.enabled {
            return Verdict::Allow;
        }
        self.no_progress += 1;
        self.global_check()
    }

    pub fn unknown_tool(&mut self, name: &str) -> Verdict {
        if !self.cfg.enabled {
            return Verdict::Allow;
        }
        self.unknown_tools += 1;
        self.no_progress += 1;
        if self.unknown_tools >= self.cfg.unknown_tool_threshold {
            Verdict::Critical(format!(
                "stopped: {} calls to tools that do not exist (last: {name:?})",
                self.unknown_tools
            ))
        } else {
            self.global_check()
        }
    }

    /// Arms the post-compaction guard: the next `window_size` calls may not repeat a
    /// (tool, args, result) seen before the compaction.
    pub fn arm_post_compaction(&mut self) {
        let guard = &self.cfg.detectors.post_compaction_guard;
        if self.cfg.enabled && guard.enabled && guard.window_size > 0 {
            self.post_compaction = Some((guard.window_size, self.seen.clone()));
        }
    }
}

fn last_is_poll(window: &VecDeque<Record>) -> bool {
    window.back().is_some_and(|r| r.poll)
}

/// The per-run circuit breaker: an identical normalised call runs once per run; a repeat gets
/// the first result back with a note.
#[derive(Debug, Default)]
pub struct CircuitBreaker {
    results: HashMap<u64, String>,
}

impl CircuitBreaker {
    /// The first result of this call, as it was.
    pub fn raw(&self, call_hash: u64) -> Option<&str> {
        self.results.get(&call_hash).map(String::as_str)
    }

    /// The first result of this call, with the note for the model.
    pub fn earlier_result(&self, call_hash: u64) -> Option<String> {
        self.results.get(&call_hash).map(|r| {
            format!(
                "{r}\n[Note: you already made this exact call in this turn; this is its earlier \
                 result. Do not call it again.]"
            )
        })
    }

    pub fn record(&mut self, call_hash: u64, result: &str) {
        self.results
            .entry(call_hash)
            .or_insert_with(|| result.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Detectors;

    fn detector() -> LoopDetector {
        LoopDetector::new(LoopDetectionConfig::default())
    }

    #[test]
    fn defaults_match_the_openclaw_block_but_stop_unknown_tools_inside_the_round_budget() {
        let cfg = LoopDetectionConfig::default();
        assert_eq!(
            (
                cfg.enabled,
                cfg.history_size,
                cfg.warning_threshold,
                cfg.critical_threshold,
                cfg.unknown_tool_threshold,
                cfg.global_circuit_breaker_threshold,
                cfg.detectors.post_compaction_guard.window_size
            ),
            (true, 30, 10, 20, 3, 30, 3)
        );
    }

    #[test]
    fn generic_repeat_warns_at_ten_and_blocks_at_twenty() {
        let mut d = LoopDetector::new(LoopDetectionConfig {
            global_circuit_breaker_threshold: 1000,
            ..Default::default()
        });
        let mut verdicts = Vec::new();
        for i in 0..20 {
            // Results differ so only the repeat detector speaks.
            let v = d.before_call("call_service", 7, false);
            d.after_call(i);
            verdicts.push(v);
        }
        assert!(verdicts[..9].iter().all(|v| *v == Verdict::Allow));
        assert!(matches!(&verdicts[9], Verdict::Warn(w) if w.contains("10 times")));
        assert!(matches!(&verdicts[18], Verdict::Warn(_)));
        assert!(matches!(&verdicts[19], Verdict::Block(b) if b.contains("20 times")));
    }

    #[test]
    fn polling_the_same_unchanged_result_escalates_to_a_stop() {
        let mut d = LoopDetector::new(LoopDetectionConfig {
            global_circuit_breaker_threshold: 1000,
            detectors: Detectors {
                generic_repeat: false,
                ..Default::default()
            },
            ..Default::default()
        });
        let mut last = Verdict::Allow;
        for n in 1..=20 {
            assert_eq!(d.before_call("get_state", 1, true), Verdict::Allow);
            last = d.after_call(99);
            if n == 10 {
                assert!(matches!(&last, Verdict::Warn(w) if w.contains("same result")));
            }
        }
        assert!(matches!(&last, Verdict::Critical(c) if c.contains("polling without progress")));
        // A changed result resets the streak.
        let mut d = detector();
        for _ in 0..9 {
            d.before_call("get_state", 1, true);
            d.after_call(99);
        }
        d.before_call("get_state", 1, true);
        assert_eq!(d.after_call(100), Verdict::Allow);
    }

    #[test]
    fn ping_pong_alternation_is_detected() {
        let mut d = LoopDetector::new(LoopDetectionConfig {
            global_circuit_breaker_threshold: 1000,
            detectors: Detectors {
                generic_repeat: false,
                known_poll_no_progress: false,
                ..Default::default()
            },
            ..Default::default()
        });
        let mut verdicts = Vec::new();
        for i in 0..20 {
            let (tool, args) = if i % 2 == 0 {
                ("get_state", 1)
            } else {
                ("search_entities", 2)
            };
            verdicts.push(d.before_call(tool, args, true));
            d.after_call(i);
        }
        assert!(verdicts[..9].iter().all(|v| *v == Verdict::Allow));
        assert!(matches!(&verdicts[9], Verdict::Warn(w) if w.contains("alternate")));
        assert!(matches!(&verdicts[19], Verdict::Block(_)));
    }

    #[test]
    fn the_global_breaker_stops_after_thirty_calls_without_progress() {
        let mut d = detector();
        let mut last = Verdict::Allow;
        for i in 0..40 {
            // Varying args keep the per-call detectors quiet; same result = no progress.
            d.before_call("get_state", i % 2, false);
            last = d.after_call(5);
            if let Verdict::Critical(_) = last {
                assert!(i >= 29, "stopped too early at {i}");
                break;
            }
        }
        assert!(matches!(&last, Verdict::Critical(c) if c.contains("made no progress")));
    }

    #[test]
    fn unknown_tools_stop_the_run_at_the_threshold() {
        let mut d = detector();
        for _ in 0..2 {
            assert_eq!(d.unknown_tool("hack"), Verdict::Allow);
        }
        assert!(matches!(d.unknown_tool("hack"), Verdict::Critical(c) if c.contains("3 calls")));
    }

    #[test]
    fn post_compaction_repeats_abort() {
        let mut d = detector();
        d.before_call("get_state", 1, true);
        d.after_call(42);
        d.arm_post_compaction();
        d.before_call("get_state", 2, true);
        assert_eq!(d.after_call(43), Verdict::Allow);
        d.before_call("get_state", 1, true);
        assert!(matches!(d.after_call(42), Verdict::Critical(c) if c.contains("after compaction")));
        // Outside the window the guard is disarmed.
        let mut d = detector();
        d.before_call("get_state", 1, true);
        d.after_call(42);
        d.arm_post_compaction();
        for args in 10..13 {
            d.before_call("get_state", args, true);
            d.after_call(args);
        }
        d.before_call("get_state", 1, true);
        assert_eq!(d.after_call(42), Verdict::Allow);
    }

    #[test]
    fn disabled_detection_allows_everything() {
        let mut d = LoopDetector::new(LoopDetectionConfig {
            enabled: false,
            ..Default::default()
        });
        for _ in 0..50 {
            assert_eq!(d.before_call("x", 1, true), Verdict::Allow);
            assert_eq!(d.after_call(1), Verdict::Allow);
        }
    }

    #[test]
    fn the_breaker_returns_the_first_result_with_a_note() {
        let mut b = CircuitBreaker::default();
        assert_eq!(b.earlier_result(1), None);
        b.record(1, "on");
        b.record(1, "off");
        let again = b.earlier_result(1).unwrap();
        assert!(again.starts_with("on\n[Note: you already made this exact call"));
    }
}
