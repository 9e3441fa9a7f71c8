//! Per-session workers: one task per session id with a bounded queue, so sessions run
//! concurrently and one session's commands run in order.
//!
//! Invariants:
//! - A full queue is a clear [`SessionError::Busy`], never a silent drop.
//! - The user's message is on disk before its run starts; the run's messages are on disk
//!   before anyone gets the reply ("acknowledged" means durable).
//! - Input arriving during a run is drained before the next sampling and joins the turn; every
//!   joined command gets the same final result.
//! - Idle workers exit; their state stays on disk and the next command reloads it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};
use tracing::{Instrument, info_span};

use super::store::{SessionStore, validate_id};
pub use super::turn::{AgentDeps, Approved, SessionError, TurnOutcome, TurnRequest};
use super::worker::{Job, Shared, WorkerHandle};
use crate::agent::act::approval::ExecuteError;
use crate::config::SessionConfig;
use crate::llm::Message;

#[derive(Clone)]
pub struct SessionManager {
    inner: Arc<Shared>,
}

impl SessionManager {
    pub fn new(deps: AgentDeps, store: SessionStore, cfg: SessionConfig) -> Self {
        Self {
            inner: Arc::new(Shared {
                deps,
                store,
                cfg,
                workers: Mutex::new(HashMap::new()),
                next_generation: Mutex::new(0),
                tasks: Mutex::new(Vec::new()),
                closed: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    pub fn store(&self) -> &SessionStore {
        &self.inner.store
    }

    pub fn active_workers(&self) -> usize {
        self.inner
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Runs a command in its session, after the commands queued before it.
    pub async fn submit(
        &self,
        session_id: &str,
        request: TurnRequest,
    ) -> Result<TurnOutcome, SessionError> {
        validate_id(session_id)?;
        let len = request.text.chars().count();
        if len > self.inner.cfg.max_message_chars {
            return Err(SessionError::TooLong {
                len,
                max: self.inner.cfg.max_message_chars,
            });
        }
        let (reply, rx) = oneshot::channel();
        self.send(session_id, Job::Command { request, reply })
            .await?;
        rx.await.map_err(|_| SessionError::Closed)?
    }

    /// Runs the action recorded under `approval_id` in this session's worker, after the
    /// commands queued before it, and records in the history that it ran. The outer error is
    /// the session's; the inner one says why the action itself did not run.
    pub async fn approve(
        &self,
        session_id: &str,
        approval_id: &str,
    ) -> Result<Result<Approved, ExecuteError>, SessionError> {
        validate_id(session_id)?;
        let (reply, rx) = oneshot::channel();
        let job = Job::Approve {
            approval_id: approval_id.to_owned(),
            reply,
        };
        self.send(session_id, job).await?;
        rx.await.map_err(|_| SessionError::Closed)
    }

    /// Queues a job for the session's worker, starting one if needed.
    async fn send(&self, session_id: &str, mut job: Job) -> Result<(), SessionError> {
        // A worker may exit between lookup and send: then start a fresh one, once.
        for _ in 0..2 {
            if self.inner.closed.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(SessionError::Closed);
            }
            let tx = self.worker(session_id);
            match tx.try_send(job) {
                Ok(()) => return Ok(()),
                Err(mpsc::error::TrySendError::Full(_)) => {
                    return Err(SessionError::Busy {
                        session_id: session_id.to_owned(),
                        capacity: self.inner.cfg.queue_capacity,
                    });
                }
                Err(mpsc::error::TrySendError::Closed(back)) => {
                    self.inner.forget(session_id, None);
                    job = back;
                }
            }
        }
        Err(SessionError::Closed)
    }

    /// The stored history of a session, read without repairing anything.
    pub fn history(&self, session_id: &str) -> Result<Vec<Message>, SessionError> {
        Ok(self.view(session_id)?.messages)
    }

    /// The stored history and what is wrong with the file, read without repairing anything:
    /// a viewer must not set a file aside before the conversation's worker can tell the user.
    pub fn view(&self, session_id: &str) -> Result<super::store::Loaded, SessionError> {
        Ok(self.inner.store.peek(session_id)?)
    }

    /// Stops taking commands, lets running ones finish and their sessions flush.
    pub async fn shutdown(&self) {
        self.inner
            .closed
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.inner
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        let tasks: Vec<_> = std::mem::take(
            &mut *self
                .inner
                .tasks
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for task in tasks {
            let _ = task.await;
        }
    }

    fn worker(&self, session_id: &str) -> mpsc::Sender<Job> {
        let mut workers = self
            .inner
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = workers.get(session_id)
            && !w.tx.is_closed()
        {
            return w.tx.clone();
        }
        let generation = {
            let mut g = self
                .inner
                .next_generation
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *g += 1;
            *g
        };
        let (tx, rx) = mpsc::channel(self.inner.cfg.queue_capacity.max(1));
        workers.insert(
            session_id.to_owned(),
            WorkerHandle {
                tx: tx.clone(),
                generation,
            },
        );
        let shared = self.inner.clone();
        let id = session_id.to_owned();
        let span = info_span!("session", session = %id);
        let task = tokio::spawn(
            async move { shared.run_worker(id, generation, rx).await }.instrument(span),
        );
        let mut tasks = self
            .inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
        tx
    }
}

#[cfg(test)]
#[path = "manager_tests.rs"]
mod tests;
