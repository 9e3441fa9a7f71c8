//! Approving a held action in the conversation itself, as a voice user does: against the real
//! `homeclaw serve` and a real Home Assistant. `lock.kitchen_door` belongs to these tests.

use serde_json::{Value, json};

use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{Homeclaw, config_for};
use crate::common::scripted_llm::{ScriptedLlm, openai_text};

pub(crate) const DOOR: &str = "lock.kitchen_door";
/// The tests here take turns with the door (and the panel's with the bed light).
pub(crate) static DOOR_TAKEN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A server with the fast path on (so "unlock the kitchen door" needs no model) and answers in
/// conversation allowed, with `approval` as the rest of `agent.approval`.
async fn server(
    ha: &HaInstance,
    llm: &ScriptedLlm,
    dir: &std::path::Path,
    approval: &str,
) -> Homeclaw {
    let config = config_for(ha, &llm.openai_url(), &dir.join("sessions")).replace(
        "agent:\n  fast_path: false\n  answer_from_verification: false\n",
        &format!(
            "agent:\n  fast_path: true\n  answer_from_verification: true\n  approval:\n    \
             confirm_in_conversation: true\n{approval}"
        ),
    );
    assert!(config.contains("confirm_in_conversation"), "{config}");
    let server = Homeclaw::spawn(dir, &config);
    server.ready().await;
    server
}

pub(crate) async fn door(ha: &HaInstance) -> String {
    let (_, state) = ha.rest("GET", &format!("/api/states/{DOOR}"), None).await;
    state["state"].as_str().unwrap_or_default().to_owned()
}

pub(crate) async fn lock_door(ha: &HaInstance) {
    let (status, _) = ha
        .rest(
            "POST",
            "/api/services/lock/lock",
            Some(json!({"entity_id": DOOR})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(door(ha).await, "locked");
}

/// The approval can no longer run, and the door stayed locked.
async fn spent_and_locked(server: &Homeclaw, ha: &HaInstance, id: &str) {
    let (status, _) = server
        .post_json("/api/approve", &json!({"approval_id": id}))
        .await;
    assert_eq!(status, 409);
    assert_eq!(door(ha).await, "locked");
}

async fn say(server: &Homeclaw, session: &str, text: &str) -> Value {
    let (status, body) = server
        .post_json(
            "/api/command",
            &json!({"text": text, "session_id": session}),
        )
        .await;
    assert_eq!(status, 200, "{text}: {body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pin_approves_in_the_same_conversation_and_nowhere_else() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let server = server(ha, &llm, dir.path(), "    pin: \"4711\"\n").await;
    lock_door(ha).await;

    let asked = say(&server, "conf-a", "unlock the kitchen door").await;
    assert_eq!(asked["status"], "approval_required", "{asked}");
    let id = asked["approval_id"].as_str().unwrap().to_owned();

    // Another conversation cannot answer it, even with the right PIN: there it is a command
    // like any other (the model gets it, without the PIN).
    llm.push(openai_text(
        "There is nothing waiting for your approval here.",
    ));
    let elsewhere = say(&server, "conf-b", "yes 4711").await;
    assert!(
        elsewhere["actions"].as_array().unwrap().is_empty(),
        "{elsewhere}"
    );
    assert_eq!(door(ha).await, "locked");
    let seen = serde_json::to_string(&llm.requests()[0].body).unwrap();
    assert!(!seen.contains("4711"), "the PIN reached the model: {seen}");

    // A yes without the PIN, then a wrong PIN: still waiting, still locked.
    let bare = say(&server, "conf-a", "yes").await;
    assert_eq!(bare["status"], "approval_required", "{bare}");
    assert!(bare["reply"].as_str().unwrap().contains("PIN"), "{bare}");
    let wrong = say(&server, "conf-a", "yes, 1234").await;
    assert_eq!(wrong["status"], "approval_required", "{wrong}");
    assert!(
        wrong["reply"].as_str().unwrap().contains("2 attempts left"),
        "{wrong}"
    );
    assert_eq!(door(ha).await, "locked");

    // The right PIN, spoken as words: it runs, once.
    let approved = say(&server, "conf-a", "yes, four seven one one").await;
    assert_eq!(approved["status"], "done", "{approved}");
    assert_eq!(approved["actions"][0]["verified"], true, "{approved}");
    assert_eq!(door(ha).await, "unlocked");
    let (status, again) = server
        .post_json("/api/approve", &json!({"approval_id": id}))
        .await;
    assert_eq!(status, 409, "{again}");

    // Neither PIN was stored with the conversation.
    let (status, stored, _) = server
        .request("GET", "/api/sessions/conf-a", None, &[])
        .await;
    assert_eq!(status, 200, "{stored}");
    let stored = stored.to_string();
    assert!(stored.contains("approved lock.unlock"), "{stored}");
    // As a number of its own: a hex approval id may hold the digits "1234" by chance.
    let pin = regex::Regex::new(r"(^|[^0-9a-f])1234([^0-9a-f]|$)").unwrap();
    assert!(
        !pin.is_match(&stored) && !stored.contains("seven"),
        "{stored}"
    );
    assert!(!server.log().contains("4711"), "the PIN reached the log");

    // No, in German: declined, locked, and the id is spent.
    lock_door(ha).await;
    let asked = say(&server, "conf-c", "unlock the kitchen door").await;
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let declined = say(&server, "conf-c", "nein").await;
    assert_eq!(declined["status"], "done", "{declined}");
    assert!(
        declined["reply"]
            .as_str()
            .unwrap()
            .starts_with("In Ordnung"),
        "{declined}"
    );
    spent_and_locked(&server, ha, &id).await;
    assert_eq!(
        llm.requests().len(),
        1,
        "only the stray yes reached the model"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_pin_a_yes_approves_but_not_in_a_shared_conversation() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let server = server(ha, &llm, dir.path(), "").await;

    // The OpenAI front without `user` cannot tell its conversations apart: a shared session.
    lock_door(ha).await;
    let mut messages = vec![json!({"role": "user", "content": "unlock the kitchen door"})];
    let chat = |messages: Vec<Value>| {
        let server = &server;
        async move {
            let (status, body) = server
                .post_json(
                    "/v1/chat/completions",
                    &json!({"model": "homeclaw", "messages": messages}),
                )
                .await;
            assert_eq!(status, 200, "{body}");
            body["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let question = chat(messages.clone()).await;
    assert!(question.contains("approval"), "{question}");
    messages.push(json!({"role": "assistant", "content": question}));
    messages.push(json!({"role": "user", "content": "yes"}));
    let refused = chat(messages).await;
    assert!(refused.contains("needs a PIN"), "{refused}");
    assert_eq!(door(ha).await, "locked");

    // Its own conversation over the HTTP API: a plain yes in Polish does it.
    let asked = say(&server, "conf-d", "unlock the kitchen door").await;
    assert_eq!(asked["status"], "approval_required", "{asked}");
    let approved = say(&server, "conf-d", "tak").await;
    assert_eq!(approved["status"], "done", "{approved}");
    assert_eq!(door(ha).await, "unlocked");
    // A second fast-path action in the same conversation is run and kept like the first
    // (both used to be call "fast_1", and the second exchange could not be stored).
    let locked = say(&server, "conf-d", "lock the kitchen door").await;
    assert_eq!(locked["status"], "done", "{locked}");
    assert_eq!(locked.get("warnings"), None, "{locked}");
    assert_eq!(door(ha).await, "locked");
    let again = say(&server, "conf-d", "unlock the kitchen door").await;
    assert_eq!(again["status"], "approval_required", "{again}");
    assert_eq!(again.get("warnings"), None, "{again}");
    let declined = say(&server, "conf-d", "nie").await;
    assert_eq!(declined["status"], "done", "{declined}");
    assert_eq!(llm.requests().len(), 0);
}

/// Waits for Home Assistant to run a service call that `matches` (from its `call_service`
/// events), returning its data.
async fn called(
    events: &mut tokio::sync::broadcast::Receiver<homeclaw::ha::ClientEvent>,
    what: &str,
    matches: impl Fn(&str, &str, &Value) -> bool,
) -> Value {
    let wait = async {
        loop {
            match events.recv().await {
                Ok(homeclaw::ha::ClientEvent::Event(e)) if e.event_type == "call_service" => {
                    let domain = e.data["domain"].as_str().unwrap_or_default();
                    let service = e.data["service"].as_str().unwrap_or_default();
                    if matches(domain, service, &e.data["service_data"]) {
                        return e.data["service_data"].clone();
                    }
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("Home Assistant never saw {what}"))
}

async fn press(ha: &HaInstance, action: &str) {
    let (status, body) = ha
        .rest(
            "POST",
            "/api/events/mobile_app_notification_action",
            Some(json!({"action": action})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_announce_held_actions_and_their_buttons_answer_them() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    // A watcher of every service call Home Assistant runs.
    let mut settings = ha.settings();
    settings.subscriptions = vec!["call_service".into()];
    let watcher = homeclaw::ha::HaClient::spawn(settings);
    let mut calls = watcher.events();
    watcher
        .wait_connected(std::time::Duration::from_secs(30))
        .await
        .expect("the watcher connects");
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    // notify.persistent_notification takes what a phone's notify service takes (title,
    // message, data with actions); the button presses are fired as the companion app fires
    // them.
    let server = server(
        ha,
        &llm,
        dir.path(),
        "    notify_service: notify.persistent_notification\n",
    )
    .await;
    lock_door(ha).await;

    let asked = say(&server, "notify-a", "unlock the kitchen door").await;
    assert_eq!(asked["status"], "approval_required", "{asked}");
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let tag = format!("homeclaw_{id}");
    let shown = called(&mut calls, "the persistent notification", |d, s, data| {
        d == "persistent_notification" && s == "create" && data["notification_id"] == tag
    })
    .await;
    // Named as the person names it: no service, entity or approval id in the words.
    let message = shown["message"].as_str().unwrap();
    assert!(message.contains("unlock Kitchen Door"), "{shown}");
    assert!(
        !message.contains(&id) && !message.contains("lock."),
        "{shown}"
    );
    assert_eq!(shown["title"], "HomeClaw: approval needed", "{shown}");
    // Home Assistant's notification has no buttons: it says where they are.
    assert!(message.contains("in HomeClaw's panel"), "{shown}");
    let sent = called(&mut calls, "the actionable notification", |d, s, data| {
        d == "notify" && s == "persistent_notification" && data["data"]["tag"] == tag
    })
    .await;
    assert_eq!(
        sent["data"]["actions"][0]["action"],
        format!("HOMECLAW_APPROVE_{id}"),
        "{sent}"
    );
    assert_eq!(sent["data"]["actions"][0]["title"], "Approve", "{sent}");
    assert_eq!(sent["data"]["actions"][1]["title"], "Deny", "{sent}");
    // The phone's has them, and its words say so; a phone is configured, so the question
    // names it.
    assert!(
        sent["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("Approve or Deny.")),
        "{sent}"
    );
    assert!(
        asked["reply"]
            .as_str()
            .is_some_and(|r| r.contains("or on your phone")),
        "{asked}"
    );
    assert_eq!(door(ha).await, "locked");

    // Approve on the phone: it runs, the phone hears "Done", the notification is withdrawn.
    press(ha, &format!("HOMECLAW_APPROVE_{id}")).await;
    let answer = called(&mut calls, "the answer to the press", |d, _, data| {
        d == "notify" && data["title"] == "HomeClaw"
    })
    .await;
    assert_eq!(answer["message"], "Unlocked Kitchen Door.", "{answer}");
    called(&mut calls, "the notification dismissed", |d, s, data| {
        d == "persistent_notification" && s == "dismiss" && data["notification_id"] == tag
    })
    .await;
    assert_eq!(door(ha).await, "unlocked");

    // Pressed again: already answered, and nothing more runs.
    press(ha, &format!("HOMECLAW_APPROVE_{id}")).await;
    let again = called(
        &mut calls,
        "the answer to the second press",
        |d, _, data| d == "notify" && data["title"] == "HomeClaw",
    )
    .await;
    assert!(
        again["message"]
            .as_str()
            .unwrap()
            .contains("already answered"),
        "{again}"
    );

    // Asked in German (the pipeline's language), the phone speaks German; Deny runs nothing
    // and spends the id.
    lock_door(ha).await;
    let (status, asked) = server
        .post_json(
            "/api/command",
            &json!({"text": "unlock the kitchen door", "session_id": "notify-b", "language": "de"}),
        )
        .await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(
        asked["reply"],
        "Kitchen Door entriegeln? Das braucht deine Freigabe — sag ja oder tippe in HomeClaw \
         oder auf deinem Handy auf „Freigeben“.",
        "{asked}"
    );
    let id = asked["approval_id"].as_str().unwrap().to_owned();
    let tag = format!("homeclaw_{id}");
    let sent = called(&mut calls, "the German notification", |d, s, data| {
        d == "notify" && s == "persistent_notification" && data["data"]["tag"] == tag
    })
    .await;
    assert_eq!(sent["title"], "HomeClaw: Freigabe nötig", "{sent}");
    assert_eq!(sent["data"]["actions"][0]["title"], "Freigeben", "{sent}");
    press(ha, &format!("HOMECLAW_DENY_{id}")).await;
    let declined = called(&mut calls, "the answer to the deny", |d, _, data| {
        d == "notify" && data["title"] == "HomeClaw"
    })
    .await;
    assert_eq!(
        declined["message"], "In Ordnung, Kitchen Door bleibt verriegelt.",
        "{declined}"
    );
    spent_and_locked(&server, ha, &id).await;
    assert_eq!(llm.requests().len(), 0);
}
