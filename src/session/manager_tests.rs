//! Sessions driven with scripted and gated models: order, queues, joins, restarts, idle
//! workers, approvals, compaction and resets.

use super::*;
use crate::agent::act::approval::ApprovalStore;
use crate::agent::model::compaction::REFRESH_PREFIX;
use crate::agent::selfcheck::home::{MemoryHome, synthetic_home};
use crate::agent::testkit::{EchoModel, ScriptedModel, text_reply};
use crate::agent::{AgentConfig, RunStatus, ToolRegistry};
use crate::llm::ChatModel;
use crate::llm::{ChatRequest, ChatResponse, LlmError};
use futures_util::future::BoxFuture;
use std::time::Duration;
use tokio::sync::Semaphore;

fn manager(
    dir: &std::path::Path,
    model: Arc<dyn ChatModel>,
    cfg: SessionConfig,
    agent: AgentConfig,
) -> SessionManager {
    let deps = AgentDeps {
        model,
        home: Arc::new(MemoryHome::new(synthetic_home(30))),
        tools: ToolRegistry,
        cfg: agent,
        approvals: Arc::new(ApprovalStore::new(Duration::from_secs(60))),
        secrets: vec![],
    };
    SessionManager::new(deps, SessionStore::new(dir, 20_000, 100_000), cfg)
}

fn cfg() -> SessionConfig {
    SessionConfig {
        dir: "unused".into(),
        ..SessionConfig::default()
    }
}

fn ask(text: &str) -> TurnRequest {
    TurnRequest {
        text: text.into(),
        language: None,
        device_id: None,
        dry_run: false,
        shared_session: false,
    }
}

/// Holds every reply until the test releases a permit, then answers from a script.
struct GateModel {
    gate: Semaphore,
    entered: Semaphore,
    script: ScriptedModel,
}

impl ChatModel for GateModel {
    fn chat<'a>(
        &'a self,
        request: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            self.entered.add_permits(1);
            let permit = self
                .gate
                .acquire()
                .await
                .map_err(|_| LlmError::Config("closed".into()))?;
            permit.forget();
            self.script.chat(request).await
        })
    }
}

/// Polls a future once (so a submit enqueues its command) and hands it back.
async fn poll_once<F: std::future::Future + Unpin>(fut: &mut F) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut *fut).poll(cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_sessions_keep_their_replies_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(
        dir.path(),
        Arc::new(EchoModel),
        cfg(),
        AgentConfig::default(),
    );
    let mut tasks = Vec::new();
    for s in 0..50 {
        let m = m.clone();
        tasks.push(tokio::spawn(async move {
            let id = format!("s{s}");
            let mut replies = Vec::new();
            for n in 0..5 {
                let out = m
                    .submit(&id, ask(&format!("{id} message {n}")))
                    .await
                    .unwrap();
                replies.push(out.result.reply);
            }
            (id, replies)
        }));
    }
    for task in tasks {
        let (id, replies) = task.await.unwrap();
        let expected: Vec<String> = (0..5).map(|n| format!("echo: {id} message {n}")).collect();
        assert_eq!(replies, expected);
        let stored: Vec<String> = m
            .history(&id)
            .unwrap()
            .into_iter()
            .filter_map(|msg| match msg {
                Message::User { content } => Some(content),
                _ => None,
            })
            .collect();
        let asked: Vec<String> = (0..5).map(|n| format!("{id} message {n}")).collect();
        assert_eq!(stored, asked, "session {id} on disk");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_is_a_clear_busy_error_and_waiting_input_joins_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(GateModel {
        gate: Semaphore::new(0),
        entered: Semaphore::new(0),
        script: ScriptedModel::new(vec![
            crate::agent::testkit::calls_reply("1", &[("list_areas", serde_json::json!({}))]),
            text_reply("Both done."),
        ]),
    });
    let m = manager(
        dir.path(),
        model.clone(),
        SessionConfig {
            queue_capacity: 2,
            ..cfg()
        },
        AgentConfig::default(),
    );
    let first = tokio::spawn({
        let m = m.clone();
        async move { m.submit("s1", ask("first")).await }
    });
    // The first run is inside the model now.
    model.entered.acquire().await.unwrap().forget();
    let mut second = Box::pin(m.submit("s1", ask("second")));
    let mut third = Box::pin(m.submit("s1", ask("second")));
    assert!(poll_once(&mut second).await.is_none(), "queued");
    assert!(poll_once(&mut third).await.is_none(), "queued");
    let mut fourth = Box::pin(m.submit("s1", ask("fourth")));
    let busy = poll_once(&mut fourth)
        .await
        .expect("answered at once")
        .unwrap_err();
    assert!(
        matches!(busy, SessionError::Busy { capacity: 2, .. }),
        "{busy}"
    );

    // Release both samplings: the queued input joins the turn before the second one.
    model.gate.add_permits(2);
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.result.reply, "Both done.");
    let second = second.await.unwrap();
    let third = third.await.unwrap();
    assert_eq!(second.result.reply, "Both done.");
    assert_eq!(third.result.reply, "Both done.");
    let users: Vec<String> = m
        .history("s1")
        .unwrap()
        .into_iter()
        .filter_map(|msg| match msg {
            Message::User { content } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(
        users,
        vec!["first".to_string(), "second".to_string()],
        "the duplicate joined once"
    );
}

#[tokio::test]
async fn a_restarted_manager_continues_the_session_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(
        dir.path(),
        Arc::new(EchoModel),
        cfg(),
        AgentConfig::default(),
    );
    m.submit("s1", ask("one")).await.unwrap();
    m.shutdown().await;
    assert!(matches!(
        m.submit("s1", ask("late")).await,
        Err(SessionError::Closed)
    ));
    let again = manager(
        dir.path(),
        Arc::new(EchoModel),
        cfg(),
        AgentConfig::default(),
    );
    again.submit("s1", ask("two")).await.unwrap();
    let history = again.history("s1").unwrap();
    assert_eq!(history.len(), 4);
    assert_eq!(history[2], Message::user("two"));
}

#[tokio::test]
async fn an_approval_runs_in_its_session_and_the_history_records_it() {
    use crate::agent::testkit::calls_reply;
    let dir = tempfile::tempdir().unwrap();
    let home = Arc::new(MemoryHome::new(synthetic_home(30)));
    let model = Arc::new(ScriptedModel::new(vec![
        calls_reply(
            "1",
            &[(
                "call_service",
                serde_json::json!({"domain": "lock", "service": "unlock",
                    "entity_id": "lock.front_door"}),
            )],
        ),
        text_reply("It is unlocked."),
    ]));
    let approvals = Arc::new(ApprovalStore::new(Duration::from_secs(60)));
    let deps = AgentDeps {
        model: model.clone(),
        home: home.clone(),
        tools: ToolRegistry,
        cfg: AgentConfig::default(),
        approvals: approvals.clone(),
        secrets: vec![],
    };
    let m = SessionManager::new(deps, SessionStore::new(dir.path(), 20_000, 100_000), cfg());
    let held = m.submit("s1", ask("unlock the front door")).await.unwrap();
    assert_eq!(held.result.status, RunStatus::ApprovalRequired);
    let id = held.result.approval.unwrap().id;
    assert_eq!(approvals.session_of(&id).as_deref(), Some("s1"));
    assert_eq!(home.state("lock.front_door").as_deref(), Some("locked"));

    let done = m.approve("s1", &id).await.unwrap().unwrap();
    assert!(done.report.verified);
    assert_eq!(home.state("lock.front_door").as_deref(), Some("unlocked"));
    let history = m.history("s1").unwrap();
    let n = history.len();
    assert_eq!(
        history[n - 2],
        Message::user(format!(
            "[HomeClaw] The user approved lock.unlock on lock.front_door ({id})."
        ))
    );
    assert_eq!(history[n - 1], Message::assistant("Unlocked Front Door."));
    // Used once: a second approval is refused and runs nothing.
    let again = m.approve("s1", &id).await.unwrap();
    assert!(matches!(again, Err(ExecuteError::Approval(_))), "{again:?}");
    assert_eq!(home.calls().len(), 1);
    // The next command of the session sees what ran.
    m.submit("s1", ask("is it open?")).await.unwrap();
    let seen = model.requests();
    let last = seen.last().unwrap();
    assert!(
        last.messages
            .iter()
            .any(|msg| *msg == Message::assistant("Unlocked Front Door.")),
        "the model was not told the approved action ran"
    );
}

#[tokio::test]
async fn idle_workers_are_reaped_and_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(
        dir.path(),
        Arc::new(EchoModel),
        SessionConfig {
            idle_timeout_secs: 1,
            ..cfg()
        },
        AgentConfig::default(),
    );
    m.submit("s1", ask("one")).await.unwrap();
    assert_eq!(m.active_workers(), 1);
    tokio::time::pause();
    tokio::time::advance(Duration::from_secs(2)).await;
    // Let the worker observe its timeout (bounded yields, no sleeping).
    for _ in 0..1000 {
        if m.active_workers() == 0 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(m.active_workers(), 0, "the idle worker was reaped");
    tokio::time::resume();
    // The next command starts a new worker from the file.
    let out = m.submit("s1", ask("two")).await.unwrap();
    assert_eq!(out.result.reply, "echo: two");
    assert_eq!(m.history("s1").unwrap().len(), 4);
}

#[tokio::test]
async fn bad_ids_and_oversized_messages_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let m = manager(
        dir.path(),
        Arc::new(EchoModel),
        cfg(),
        AgentConfig::default(),
    );
    assert!(matches!(
        m.submit("../x", ask("hi")).await,
        Err(SessionError::InvalidId(_))
    ));
    let long = "x".repeat(20_001);
    assert!(matches!(
        m.submit("s1", ask(&long)).await,
        Err(SessionError::TooLong { .. })
    ));
    assert_eq!(m.active_workers(), 0);
}

/// A manager with a 1,000-token window and a session already past it.
async fn long_session(dir: &std::path::Path) -> (SessionManager, Arc<ScriptedModel>) {
    let model = Arc::new(ScriptedModel::default());
    let agent = AgentConfig {
        context_window_tokens: 1_000,
        ..AgentConfig::default()
    };
    let m = manager(dir, model.clone(), cfg(), agent);
    for n in 0..6 {
        model.push(Ok(text_reply(&format!("answer {n} {}", "z".repeat(300)))));
        m.submit("s1", ask(&format!("hello {n} {}", "y".repeat(300))))
            .await
            .unwrap();
    }
    (m, model)
}

#[tokio::test]
async fn compaction_triggers_at_the_limit_and_the_next_request_carries_the_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let (m, model) = long_session(dir.path()).await;
    // Next run: the history is over 1,000 tokens, so it is summarised first.
    model.clear_requests();
    model.push(Ok(text_reply("summary of the earlier talk")));
    model.push(Ok(text_reply("fine")));
    let out = m.submit("s1", ask("and now?")).await.unwrap();
    assert_eq!(out.result.stats.compactions, 1);
    let requests = model.requests();
    assert!(
        requests[0].tools.is_empty(),
        "the summary call is tool-less"
    );
    let refreshed = requests[1].messages.iter().any(
        |msg| matches!(msg, Message::System { content } if content.starts_with(REFRESH_PREFIX)),
    );
    assert!(refreshed, "{:?}", requests[1].messages);
    // The file was rewritten to the compacted history.
    let stored = m.history("s1").unwrap();
    assert!(
        matches!(&stored[0], Message::User { content } if content.contains("summary of the earlier talk"))
    );
}

#[tokio::test]
async fn a_failing_summarisation_fails_the_run_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (m, model) = long_session(dir.path()).await;
    let before = m.history("s1").unwrap();
    model.push(Err(LlmError::Exhausted { attempts: vec![] }));
    let out = m.submit("s1", ask("and now?")).await.unwrap();
    assert!(matches!(&out.result.status, RunStatus::Failed(r) if r.contains("compaction failed")));
    let after = m.history("s1").unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(after.last(), Some(&Message::user("and now?")));
}

#[tokio::test]
async fn a_history_the_provider_rejects_is_summarised_then_reset() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(ScriptedModel::default());
    let m = manager(dir.path(), model.clone(), cfg(), AgentConfig::default());
    model.push(Ok(text_reply("first answer")));
    m.submit("s1", ask("first")).await.unwrap();
    let rejected = || {
        Err(LlmError::Exhausted {
            attempts: vec![crate::llm::ModelAttempts {
                model: "m".into(),
                attempts: 1,
                error: Some("HTTP 400: bad role order".into()),
                http_status: Some(400),
            }],
        })
    };
    // Rejected; summarised (ok); rejected again: reset with a note.
    model.push(rejected());
    model.push(Ok(text_reply("summary")));
    model.push(rejected());
    let out = m.submit("s1", ask("second")).await.unwrap();
    assert!(out.result.reset);
    assert!(matches!(out.result.status, RunStatus::Failed(_)));
    let stored = m.history("s1").unwrap();
    assert!(matches!(&stored[0], Message::System { content } if content.contains("reset")));
    assert_eq!(stored.last(), Some(&Message::user("second")));
}
