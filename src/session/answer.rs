//! A yes or no to the action this session holds, said in the conversation itself
//! (`agent.approval.confirm_in_conversation`): the one way a voice user can approve.
//!
//! Invariants: only the action held by this very session is answered; the words are never
//! stored or logged (they may carry the PIN) — the history records what was decided, in
//! HomeClaw's words; anything that is not a yes or a no runs as a command as usual.

use super::turn::{SessionError, TurnOutcome, TurnRequest};
use super::worker::{Saved, Shared};
use crate::agent::act::approval::PendingAction;
use crate::agent::act::confirm::{self, Verdict};
use crate::agent::say::reply::{self, Answered};
use crate::agent::understand::Lang;
use crate::agent::{RunResult, RunStatus, Stats};
use crate::llm::Message;

impl Shared {
    /// `None` when the request is not an answer to a held action (or answering in
    /// conversation is off): it then runs as a command.
    pub(super) async fn answer_held(
        &self,
        id: &str,
        request: &TurnRequest,
        history: &mut Vec<Message>,
        saved: &mut Saved,
        warnings: &mut Vec<String>,
    ) -> Option<Result<TurnOutcome, SessionError>> {
        let approval = &self.deps.cfg.approval;
        if !approval.confirm_in_conversation || request.dry_run {
            return None;
        }
        let held = self.deps.approvals.waiting_in(id)?;
        let verdict = confirm::judge(&request.text, approval.pin.as_ref(), request.shared_session);
        let lang = match &request.language {
            Some(tag) => Lang::from_tag(tag),
            None => confirm::answer_lang(&request.text),
        };
        let approvals = &self.deps.approvals;
        let answered = match verdict {
            Verdict::NotAnAnswer => return None,
            Verdict::Approve => {
                return Some(
                    self.approve_held(id, &held, history, saved, warnings, lang)
                        .await,
                );
            }
            Verdict::Decline => {
                // Already gone (expired, or approved over HTTP a moment ago): said as declined
                // all the same, since nothing more will run.
                let _ = approvals.decline(&held.id);
                Answered::Declined
            }
            Verdict::PinMissing => Answered::PinMissing,
            Verdict::WrongPin => Answered::WrongPin {
                left: approvals.wrong_pin(&held.id),
            },
            Verdict::PinRequiredHere => Answered::PinRequiredHere {
                phone: approval.notify_service.is_some(),
            },
        };
        let text = reply::answered(&held, answered, lang);
        let (status, still_waiting) = match answered {
            Answered::Declined => (RunStatus::Done, false),
            Answered::WrongPin { left: 0 } => (
                RunStatus::Failed("wrong PIN too many times: the action is cancelled".into()),
                false,
            ),
            _ => (RunStatus::ApprovalRequired, true),
        };
        let note = format!(
            "[HomeClaw] The user answered the request to approve {} ({}): {answered:?}.",
            reply::describe_call(&held),
            held.id
        );
        let result = RunResult {
            status,
            reply: text.clone(),
            trace: vec![format!(
                "approval {} answered in conversation: {answered:?}",
                held.id
            )],
            stats: Stats::default(),
            actions: Vec::new(),
            approval: still_waiting.then_some(held),
            compacted: false,
            reset: false,
        };
        let notes = self.record(id, history, saved, warnings, note, text);
        Some(Ok(TurnOutcome {
            session_id: id.to_owned(),
            result,
            warnings: notes,
        }))
    }

    async fn approve_held(
        &self,
        id: &str,
        held: &PendingAction,
        history: &mut Vec<Message>,
        saved: &mut Saved,
        warnings: &mut Vec<String>,
        lang: Lang,
    ) -> Result<TurnOutcome, SessionError> {
        let (status, text, actions, notes) = match self
            .run_approved(id, &held.id, history, saved, warnings, Some(lang))
            .await
        {
            Ok(done) => {
                let status = if done.report.verified {
                    RunStatus::Done
                } else {
                    RunStatus::Failed("the approved action was not confirmed".into())
                };
                (status, done.reply, vec![done.report], done.warnings)
            }
            Err(e) => {
                let text = reply::not_run(&e, lang).to_owned();
                let note = format!(
                    "[HomeClaw] The user approved {} ({}), but it could not run: {e}.",
                    reply::describe_call(held),
                    held.id
                );
                let notes = self.record(id, history, saved, warnings, note, text.clone());
                (RunStatus::Failed(e.to_string()), text, Vec::new(), notes)
            }
        };
        Ok(TurnOutcome {
            session_id: id.to_owned(),
            result: RunResult {
                status,
                reply: text,
                trace: vec![format!("approval {} approved in conversation", held.id)],
                stats: Stats::default(),
                actions,
                approval: None,
                compacted: false,
                reset: false,
            },
            warnings: notes,
        })
    }

    /// Appends what was decided (never the person's words) and the reply, and saves them.
    pub(super) fn record(
        &self,
        id: &str,
        history: &mut Vec<Message>,
        saved: &mut Saved,
        warnings: &mut Vec<String>,
        note: String,
        reply: String,
    ) -> Vec<String> {
        history.push(Message::user(note));
        history.push(Message::assistant(reply));
        let mut notes = std::mem::take(warnings);
        if let Err(e) = self.save(id, history, saved) {
            tracing::warn!(error = %e, "Cannot store an approval");
            notes.push(format!(
                "this approval could not be saved yet ({e}); it is kept in memory and saved with \
                 the next exchange"
            ));
        }
        notes
    }
}
