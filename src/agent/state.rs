//! The agent and the state of one run: the parts a run works with, what it keeps track of while
//! it runs, and what it returns. The loop (`run`) and the execution of calls (`execute`) both
//! build on this, and on nothing of each other.

use serde::{Deserialize, Serialize};

use crate::agent::act::approval::{ApprovalStore, PendingAction};
use crate::agent::act::guards::{CircuitBreaker, LoopDetector};
use crate::agent::act::tools::ToolRegistry;
use crate::agent::act::verify::ActionReport;
use crate::agent::home::Home;
use crate::config::AgentConfig;
use crate::ha::registry::Hidden;
use crate::llm::{ChatModel, Message};

/// Longest trace line, and most trace lines per run.
const TRACE_LINE_MAX: usize = 240;
const TRACE_LINES_MAX: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    Done,
    /// The run needs the user to say more; the reply is the question. The next message in the
    /// same session continues.
    ClarificationRequired,
    /// A high-risk action waits for approval ([`RunResult::approval`]).
    ApprovalRequired,
    /// The request could not be carried out; the reason says why.
    Failed(String),
    /// No model answered (every model and retry failed).
    ModelUnavailable(String),
}

impl RunStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::ClarificationRequired => "clarification_required",
            Self::ApprovalRequired => "approval_required",
            Self::Failed(_) | Self::ModelUnavailable(_) => "failed",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Stats {
    pub rounds: u32,
    pub tool_calls: u32,
    /// `call_service` calls the model made, whether they ran or not.
    pub service_calls: u32,
    pub empty_tool_results: u32,
    pub rejected_tool_calls: u32,
    pub repaired_messages: u32,
    pub breaker_hits: u32,
    pub loop_warnings: u32,
    pub loop_blocks: u32,
    pub hallucination_retries: u32,
    pub compactions: u32,
    pub verified_actions: u32,
    pub unverified_actions: u32,
    pub max_iterations_reached: bool,
    pub model_used: Option<String>,
    pub fallbacks_used: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub status: RunStatus,
    pub reply: String,
    pub trace: Vec<String>,
    pub stats: Stats,
    /// Service calls Home Assistant accepted, in order, each verified or not.
    pub actions: Vec<ActionReport>,
    /// The recorded high-risk action waiting for approval.
    pub approval: Option<PendingAction>,
    /// The history was compacted: earlier messages were replaced, not only appended to.
    pub compacted: bool,
    /// The history was reset after the provider kept rejecting it.
    pub reset: bool,
}

/// A bounded trace: each line cut to a maximum, and the whole trace capped.
#[derive(Debug, Default)]
pub struct Trace {
    lines: Vec<String>,
    dropped: usize,
    secrets: Vec<String>,
}

impl Trace {
    pub fn new(secrets: Vec<String>) -> Self {
        Self {
            secrets,
            ..Self::default()
        }
    }

    pub fn push(&mut self, line: impl Into<String>) {
        let line = crate::secret::redact(&line.into(), &self.secrets);
        if self.lines.len() >= TRACE_LINES_MAX {
            self.dropped += 1;
            return;
        }
        let line: String = line
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .take(TRACE_LINE_MAX)
            .collect();
        self.lines.push(line);
    }

    pub fn finish(mut self) -> Vec<String> {
        if self.dropped > 0 {
            self.lines
                .push(format!("… {} more trace lines dropped", self.dropped));
        }
        self.lines
    }
}

/// When and how far to compact the history during a run.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPolicy {
    /// Estimated tokens of history above which it is compacted before sampling.
    pub limit_tokens: usize,
    /// Reported input tokens above which it is compacted before the next iteration.
    pub usage_ceiling_tokens: usize,
    /// How much recent history to keep verbatim.
    pub keep_tokens: usize,
}

impl CompactionPolicy {
    pub fn for_window(context_tokens: usize) -> Self {
        Self {
            limit_tokens: context_tokens,
            usage_ceiling_tokens: context_tokens,
            keep_tokens: context_tokens / 4,
        }
    }
}

pub struct Agent<'a> {
    pub model: &'a dyn ChatModel,
    pub home: &'a dyn Home,
    pub tools: &'a ToolRegistry,
    pub cfg: &'a AgentConfig,
    pub approvals: &'a ApprovalStore,
    pub session_id: Option<String>,
    /// Plan and validate only: no service is called.
    pub dry_run: bool,
    /// The language the person speaks, a checked language tag; the reply is written in it.
    pub language: Option<String>,
    /// The Home Assistant device the person spoke to (a voice satellite): "the light" without
    /// a room means the one in its room.
    pub device_id: Option<String>,
    /// Values to redact from the trace (tokens, API keys).
    pub secrets: Vec<String>,
    /// Compaction during the run; `None` never compacts.
    pub compaction: Option<CompactionPolicy>,
    /// Input that arrived for this session while the run is in progress: drained before each
    /// sampling after the first, it joins the turn.
    pub inbox: Option<&'a (dyn Fn() -> Vec<String> + Send + Sync)>,
}

pub(crate) enum CallEnd {
    Continue,
    /// A guard stopped the run; this is why.
    Stop(String),
    /// A high-risk call was recorded for approval.
    Approval(Box<PendingAction>),
}

/// One entity as a `get_state` read showed it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Observed {
    pub(super) entity_id: String,
    pub(super) name: String,
    pub(super) state: String,
    pub(super) unit: Option<String>,
}

impl Observed {
    /// From a `get_state` result (`name`, `state`, `attributes.unit_of_measurement`).
    pub(super) fn from_result(content: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(content).ok()?;
        Some(Self {
            entity_id: value.get("entity_id")?.as_str()?.to_owned(),
            name: value.get("name")?.as_str()?.to_owned(),
            state: value.get("state")?.as_str()?.to_owned(),
            unit: value
                .pointer("/attributes/unit_of_measurement")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
        })
    }
}

pub(crate) struct RunState {
    /// Successful state reads (`get_state`): what lets a reply say how things are.
    pub(super) reads: u32,
    /// What those reads showed, so a reply that says otherwise is caught.
    pub(super) observed: Vec<Observed>,
    pub(super) detector: LoopDetector,
    pub(super) breaker: CircuitBreaker,
    pub(super) stats: Stats,
    pub(super) trace: Trace,
    pub(super) actions: Vec<ActionReport>,
    pub(super) approval: Option<PendingAction>,
    pub(super) compacted: bool,
    pub(super) reset: bool,
    /// What this run's requests share (reply schemas, system text, tools), built once.
    pub(super) shared: crate::agent::model::schema::Shared,
    /// The command this run answers, parsed once.
    pub(super) said: std::sync::Arc<crate::agent::understand::parsed::Parsed>,
    /// Who makes the calls now: the words (HomeClaw's own reading or Home Assistant's
    /// recogniser), then, once it is asked, the model, whose calls the words bound.
    pub(super) caller: Caller,
    /// A call named an entity Home Assistant has but HomeClaw may not see (its reason and
    /// name): an action that ends with nothing done says so.
    pub(super) hidden: Option<(Hidden, String)>,
    /// Calls that taught the run something new: a service call that ran, a read or a search
    /// that answered with something (not an error, a refusal, a repeat or an empty list). A
    /// round that adds none made no progress.
    pub(super) learned: u32,
    /// The domains Home Assistant's recogniser found the words to mean (its intent and domain
    /// slot, when it could not finish): a model's call on anything else is refused. Empty: no
    /// such constraint.
    pub(super) kinds: Vec<String>,
    /// The request's condition was read from the registry and holds: its calls may run.
    pub(super) condition_holds: bool,
    /// Home Assistant's recognition past its budget, still on its way: taken if it comes
    /// before the model's first answer.
    pub(super) late: Option<crate::agent::home::LateRecognition>,
}

impl RunState {
    /// A new run's state for `said`: empty guards, no record yet.
    pub(super) fn new(
        said: std::sync::Arc<crate::agent::understand::parsed::Parsed>,
        loop_detection: crate::config::LoopDetectionConfig,
        secrets: Vec<String>,
    ) -> Self {
        Self {
            reads: 0,
            observed: Vec::new(),
            detector: LoopDetector::new(loop_detection),
            breaker: CircuitBreaker::default(),
            stats: Stats::default(),
            trace: Trace::new(secrets),
            actions: Vec::new(),
            approval: None,
            compacted: false,
            reset: false,
            shared: Default::default(),
            said,
            caller: Caller::Words,
            hidden: None,
            learned: 0,
            kinds: Vec::new(),
            condition_holds: false,
            late: None,
        }
    }

    /// The language the person is answered in.
    pub(super) fn lang(&self) -> crate::agent::understand::Lang {
        self.said.lang
    }
}

impl<'a> Agent<'a> {
    pub fn new(
        model: &'a dyn ChatModel,
        home: &'a dyn Home,
        tools: &'a ToolRegistry,
        cfg: &'a AgentConfig,
        approvals: &'a ApprovalStore,
    ) -> Self {
        Self {
            model,
            home,
            tools,
            cfg,
            approvals,
            session_id: None,
            dry_run: false,
            language: None,
            device_id: None,
            secrets: Vec::new(),
            compaction: None,
            inbox: None,
        }
    }
}

/// The person's commands in `history`, newest first: HomeClaw's own notes to the model are
/// not commands. The one way every stage finds "the command" ("turn it off" names what the
/// command before it named).
pub(crate) fn commands(history: &[Message]) -> impl Iterator<Item = &str> {
    history.iter().rev().filter_map(command_in)
}

/// The person's command a message holds, if it holds one.
pub(crate) fn command_in(message: &Message) -> Option<&str> {
    match message {
        Message::User { content } if !content.starts_with("[HomeClaw]") => Some(content.as_str()),
        _ => None,
    }
}

/// What HomeClaw answered just before the newest command (its text, when the message right
/// before that command is HomeClaw's answer): the question the command may answer.
pub(crate) fn answered_before(history: &[Message]) -> Option<&str> {
    let newest = history.iter().rposition(|m| command_in(m).is_some())?;
    match history[..newest].last()? {
        Message::Assistant {
            content,
            tool_calls,
            ..
        } if tool_calls.is_empty() && !content.trim().is_empty() => Some(content.as_str()),
        _ => None,
    }
}

/// The newest of the person's commands in `history`.
pub(crate) fn newest_command(history: &[Message]) -> Option<&str> {
    commands(history).next()
}

/// Who makes a run's calls, and so which checks against the words they pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// The words' own plan: its targets and verb come from the words.
    Words,
    /// The model: the person's verb bounds its calls, and (`named`, `agent.named_targets`) they
    /// must be on something the person's recent commands point at.
    Model { named: bool },
}

impl Caller {
    /// Whether a call must be on something the words point at.
    pub(crate) fn checks_named(self) -> bool {
        matches!(self, Self::Model { named: true })
    }

    /// Whether the person's verb bounds a call.
    pub(crate) fn checks_verb(self) -> bool {
        matches!(self, Self::Model { .. })
    }
}
