//! One session's worker: takes its jobs in order, keeps the history in memory and on disk, and
//! runs the agent (or an approved action) for each.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tracing::{info, warn};

use super::store::{SessionStore, StoreError};
use super::turn::{AgentDeps, Approved, SessionError, TurnOutcome, TurnRequest};
use crate::agent::Agent;
use crate::agent::CompactionPolicy;
use crate::agent::act::approval::{ExecuteError, Ran, execute_approved};
use crate::agent::say::reply;
use crate::agent::understand::Lang;
use crate::config::SessionConfig;
use crate::llm::Message;

pub(super) enum Job {
    Command {
        request: TurnRequest,
        reply: Reply,
    },
    Approve {
        approval_id: String,
        reply: oneshot::Sender<Result<Approved, ExecuteError>>,
    },
}

type Reply = oneshot::Sender<Result<TurnOutcome, SessionError>>;

/// How far the session file matches the history in memory.
#[derive(Debug, Clone, Copy)]
pub(super) enum Saved {
    /// The file holds exactly `history[..n]`.
    Upto(usize),
    /// The file does not match any prefix (a compaction or reset rewrote the history).
    Stale,
}

/// A worker's queue, and the replies owed to commands that joined the running turn.
struct Queue {
    rx: mpsc::Receiver<Job>,
    joined: Vec<Reply>,
    /// Approvals that arrived during a run: they run after it, in order.
    deferred: std::collections::VecDeque<Job>,
}

pub(super) struct WorkerHandle {
    pub(super) tx: mpsc::Sender<Job>,
    pub(super) generation: u64,
}

/// What the manager and its workers share.
pub(super) struct Shared {
    pub(super) deps: AgentDeps,
    pub(super) store: SessionStore,
    pub(super) cfg: SessionConfig,
    pub(super) workers: Mutex<HashMap<String, WorkerHandle>>,
    pub(super) next_generation: Mutex<u64>,
    pub(super) tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    pub(super) closed: std::sync::atomic::AtomicBool,
}

impl Shared {
    pub(super) fn forget(&self, session_id: &str, generation: Option<u64>) {
        let mut workers = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        if workers
            .get(session_id)
            .is_some_and(|w| generation.is_none_or(|g| w.generation == g))
        {
            workers.remove(session_id);
        }
    }

    pub(super) async fn run_worker(
        self: Arc<Self>,
        id: String,
        generation: u64,
        rx: mpsc::Receiver<Job>,
    ) {
        let inner = &self;
        let (mut history, mut warnings) = match inner.store.load(&id) {
            Ok(loaded) => (loaded.messages, loaded.warnings),
            Err(e) => (Vec::new(), vec![e.to_string()]),
        };
        let mut saved = Saved::Upto(history.len());
        if !warnings.is_empty() {
            // Say so in the history too, so the model knows why it remembers nothing.
            for w in &warnings {
                history.push(Message::system(format!("[HomeClaw] {w}")));
            }
            saved = Saved::Stale;
            if let Err(e) = self.save(&id, &history, &mut saved) {
                warnings.push(e.to_string());
            }
        }
        let queue = tokio::sync::Mutex::new(Queue {
            rx,
            joined: Vec::new(),
            deferred: std::collections::VecDeque::new(),
        });
        let idle = Duration::from_secs(inner.cfg.idle_timeout_secs);
        // Jobs that raced in while the worker was retiring: still answered, then it ends.
        let mut late: Option<std::collections::VecDeque<Job>> = None;
        loop {
            let job = match late.as_mut() {
                Some(jobs) => match jobs.pop_front() {
                    Some(job) => job,
                    None => break,
                },
                None => {
                    let received = {
                        let mut q = queue.lock().await;
                        match q.deferred.pop_front() {
                            Some(job) => Ok(Some(job)),
                            None => tokio::time::timeout(idle, q.rx.recv()).await,
                        }
                    };
                    match received {
                        Ok(Some(job)) => job,
                        Ok(None) => break,
                        Err(_) => {
                            info!("Idle session worker exits");
                            self.forget(&id, Some(generation));
                            let mut q = queue.lock().await;
                            q.rx.close();
                            late = Some(std::iter::from_fn(|| q.rx.try_recv().ok()).collect());
                            continue;
                        }
                    }
                }
            };
            match job {
                Job::Command { request, reply } => {
                    let outcome = self
                        .process(
                            &id,
                            request,
                            &mut history,
                            &mut saved,
                            &mut warnings,
                            &queue,
                        )
                        .await;
                    let joined: Vec<_> = std::mem::take(&mut queue.lock().await.joined);
                    for other in joined {
                        let _ = other.send(outcome.clone());
                    }
                    let _ = reply.send(outcome);
                }
                Job::Approve { approval_id, reply } => {
                    let done = self
                        .run_approved(
                            &id,
                            &approval_id,
                            &mut history,
                            &mut saved,
                            &mut warnings,
                            None,
                        )
                        .await;
                    let _ = reply.send(done);
                }
            }
        }
    }

    /// Brings the file up to `history`: appends what is not saved yet, or rewrites the whole
    /// file when it no longer matches (after a compaction, or a rewrite that failed). A failed
    /// save leaves `saved` as it was, so the next one catches up and nothing is dropped.
    pub(super) fn save(
        &self,
        id: &str,
        history: &[Message],
        saved: &mut Saved,
    ) -> Result<(), StoreError> {
        let store = &self.store;
        let write = || match *saved {
            Saved::Upto(n) if n <= history.len() => store.append(id, &history[..n], &history[n..]),
            _ => store.rewrite(id, history),
        };
        // The write ends with an fsync: on a multi-threaded runtime the thread says it
        // blocks, so the other sessions' work moves on meanwhile.
        let multi = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if multi {
            tokio::task::block_in_place(write)?;
        } else {
            write()?;
        }
        *saved = Saved::Upto(history.len());
        Ok(())
    }

    async fn process(
        &self,
        id: &str,
        request: TurnRequest,
        history: &mut Vec<Message>,
        saved: &mut Saved,
        warnings: &mut Vec<String>,
        queue: &tokio::sync::Mutex<Queue>,
    ) -> Result<TurnOutcome, SessionError> {
        if let Some(answered) = self
            .answer_held(id, &request, history, saved, warnings)
            .await
        {
            return answered;
        }
        let mut request = request;
        if let Some(pin) = &self.deps.cfg.approval.pin {
            // A PIN said outside an answer (nothing was waiting) is still never stored.
            request.text = crate::secret::redact(&request.text, &[pin.expose().to_owned()]);
        }
        let inner = self;
        let duplicate =
            matches!(history.last(), Some(Message::User { content }) if *content == request.text);
        if !duplicate {
            history.push(Message::user(request.text.clone()));
            if let Err(e) = self.save(id, history, saved) {
                // Not accepted: nothing runs for a message that could not be kept.
                history.pop();
                warn!(error = %e, "Cannot store the user's message");
                return Err(e.into());
            }
        }
        let deps = &inner.deps;
        // The worker does not hold the queue while a run is in progress, so this never waits.
        let drain = || -> Vec<String> {
            let mut texts = Vec::new();
            if let Ok(mut q) = queue.try_lock() {
                while let Ok(job) = q.rx.try_recv() {
                    match job {
                        Job::Command { request, reply } => {
                            texts.push(request.text);
                            q.joined.push(reply);
                        }
                        approval @ Job::Approve { .. } => q.deferred.push_back(approval),
                    }
                }
            }
            texts
        };
        let mut agent = Agent::new(
            deps.model.as_ref(),
            deps.home.as_ref(),
            &deps.tools,
            &deps.cfg,
            &deps.approvals,
        );
        agent.session_id = Some(id.to_owned());
        agent.dry_run = request.dry_run;
        agent.language = request.language.clone();
        agent.device_id = request.device_id.clone();
        agent.secrets = deps.secrets.clone();
        agent.compaction = Some(CompactionPolicy::for_window(deps.cfg.context_window_tokens));
        agent.inbox = Some(&drain);
        let result = agent.run(history).await;
        let mut notes = std::mem::take(warnings);
        if result.compacted || result.reset {
            *saved = Saved::Stale;
        }
        if let Err(e) = self.save(id, history, saved) {
            warn!(error = %e, "Cannot store the run's messages");
            notes.push(format!(
                "this exchange could not be saved yet ({e}); it is kept in memory and saved with \
                 the next one"
            ));
        }
        let outcome = TurnOutcome {
            session_id: id.to_owned(),
            result,
            warnings: notes,
        };
        Ok(outcome)
    }

    /// Runs an approved action and records it in the history: the user's approval, then what
    /// Home Assistant shows, so the next command knows it ran.
    pub(super) async fn run_approved(
        &self,
        id: &str,
        approval_id: &str,
        history: &mut Vec<Message>,
        saved: &mut Saved,
        warnings: &mut Vec<String>,
        lang: Option<Lang>,
    ) -> Result<Approved, ExecuteError> {
        let deps = &self.deps;
        let timeout = Duration::from_millis(deps.cfg.verify_timeout_ms);
        let Ran { action, report } =
            execute_approved(deps.home.as_ref(), &deps.approvals, approval_id, timeout).await?;
        let note = format!(
            "[HomeClaw] The user approved {} ({approval_id}).",
            report.call.describe()
        );
        // Said in the language of the "yes", else in the one the action was asked in.
        let text = reply::approved(&report, &action, lang.unwrap_or(action.lang));
        let notes = self.record(id, history, saved, warnings, note, text.clone());
        Ok(Approved {
            report,
            reply: text,
            warnings: notes,
        })
    }
}
