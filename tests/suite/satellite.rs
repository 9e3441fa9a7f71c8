//! Voice satellites on a real Home Assistant 2025.4.4: a fixture home whose satellites have no
//! hardware (what Home Assistant asks of them is recorded in their attributes, and the test
//! sets what they are doing, as a pipeline running on them would). A timer said to a satellite
//! starts on that satellite; a question HomeClaw asks on a satellite has that satellite listen
//! for the answer without the wake word, and the answer continues the question's session.

use std::path::PathBuf;
use std::time::Duration;

use homeclaw::command::follow_up::CHIME;
use homeclaw::ha::LiveRegistry;
use homeclaw::ha::protocol::Command as HaCommand;
use serde_json::{Value, json};

use crate::common::ha::{HaInstance, create_pipeline};
use crate::common::homeclaw::{Homeclaw, config_yaml, with_fast_path};
use crate::common::scripted_llm::ScriptedLlm;
use crate::suite::wyoming::speak_2026;

const SATELLITE_PORT: u16 = 18134;
const BEDROOM: &str = "assist_satellite.bedroom_satellite";
const WAIT: Duration = Duration::from_secs(30);

fn home_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/homes/satellite-home.fixture.yaml")
}

/// What the satellite did while the test ran: each `start_conversation`, each timer event.
fn recorded(registry: &LiveRegistry, key: &str) -> Vec<Value> {
    registry.read(|r| {
        r.speaker(BEDROOM)
            .and_then(|e| e.attributes.get(key))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    })
}

/// Waits until the satellite has recorded something under `key`, and returns the records.
async fn once_recorded(registry: &LiveRegistry, key: &str, log: impl Fn() -> String) -> Vec<Value> {
    assert!(
        registry
            .wait_until(WAIT, |r| {
                r.speaker(BEDROOM)
                    .is_some_and(|e| e.attributes[key].as_array().is_some_and(|a| !a.is_empty()))
            })
            .await,
        "nothing recorded under {key}:\n{}",
        log()
    );
    recorded(registry, key)
}

/// Puts the satellite into `state`, as a pipeline running on it would.
async fn satellite_is(ha: &HaInstance, state: &str) {
    let (status, body) = ha
        .rest(
            "POST",
            "/api/services/fixture_home/set_state",
            Some(json!({"entity_id": BEDROOM, "state": state})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_satellite_gets_its_timer_and_listens_for_the_answer_to_a_question() {
    let ha = tokio::task::spawn_blocking(|| HaInstance::start_home(SATELLITE_PORT, &home_file()))
        .await
        .unwrap();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    // Generous for a machine that also builds: the recogniser's budget is tested elsewhere.
    let config = with_fast_path(&config_yaml(
        &ha.ws_url(),
        &ha.token,
        &llm.openai_url(),
        &dir.path().join("sessions"),
        "",
    ))
    .replace(
        "answer_from_verification: true\n",
        "answer_from_verification: true\n  ha_recogniser:\n    budget_ms: 5000\n",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let (client, registry) = ha.registry().await;
    // The satellite is not exposed to Assist (as Home Assistant leaves it), yet it names its
    // device and its room.
    let mut device = None;
    assert!(
        registry
            .wait_until(WAIT, |r| {
                device = r.speaker(BEDROOM).and_then(|e| e.device_id.clone());
                device.is_some()
            })
            .await,
        "{BEDROOM} has no device"
    );
    let device = device.unwrap();

    // A timer said to the satellite starts on it: Home Assistant 2025.4 takes no device in
    // `conversation/process` ("timers are not supported on this device" without it), so the
    // hand-off goes through its own agent's pipeline, with the device.
    let (status, body, _) = server
        .request(
            "POST",
            "/api/command",
            Some(
                &json!({"text": "set a timer for 5 minutes", "language": "en",
                        "satellite_id": BEDROOM})
                .to_string(),
            ),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let reply = body["reply"].as_str().unwrap_or_default();
    assert!(!reply.contains("not supported"), "{body}");
    let timers = once_recorded(&registry, "timers", || body.to_string()).await;
    assert_eq!(timers.len(), 1, "{timers:?}");
    assert_eq!(timers[0]["event"], "started", "{timers:?}");
    assert_eq!(timers[0]["seconds"], 300, "{timers:?}");

    // The household's assistant is HomeClaw (through Home Assistant's Wyoming integration);
    // Home Assistant's own pipeline stays, as it does in a real home.
    let addr = server.wyoming.clone().unwrap();
    let (_, port) = addr.rsplit_once(':').unwrap();
    ha.add_integration(
        "wyoming",
        json!({"host": "127.0.0.1", "port": port.parse::<u16>().unwrap()}),
    )
    .await;
    let mut agent = None;
    assert!(
        registry
            .wait_until(WAIT, |r| {
                agent = r
                    .entities()
                    .chain(r.hidden_entities())
                    .find(|e| {
                        e.domain() == "conversation" && e.entity_id != "conversation.home_assistant"
                    })
                    .map(|e| e.entity_id.clone());
                agent.is_some()
            })
            .await,
        "no Wyoming conversation entity"
    );
    let created = create_pipeline(&client, "HomeClaw", &agent.unwrap(), false).await;
    client
        .request(
            HaCommand::new("assist_pipeline/pipeline/set_preferred")
                .with("pipeline_id", created["id"].clone()),
        )
        .await
        .unwrap();

    // Said in the bedroom, where two lamps are, as Home Assistant 2026.11 says it: HomeClaw
    // asks which, while the satellite is still busy with the sentence.
    satellite_is(&ha, "processing").await;
    let asked = speak_2026(
        &addr,
        &[
            "turn on the lamp",
            "en",
            &device,
            BEDROOM,
            "01KAZ0F0110WUPASKED00000",
        ],
    )
    .await;
    assert_eq!(asked["result_type"], "handled", "{asked}");
    let question = asked["text"].as_str().unwrap_or_default().to_owned();
    assert!(
        question.contains("Bedside Lamp") && question.contains("Reading Lamp"),
        "{asked}"
    );
    // Not while the satellite speaks the question: only once it is idle.
    satellite_is(&ha, "responding").await;
    assert!(recorded(&registry, "conversations").is_empty());
    satellite_is(&ha, "idle").await;
    let conversations = once_recorded(&registry, "conversations", || server.log()).await;
    assert_eq!(conversations.len(), 1, "{conversations:?}");
    let listening = &conversations[0];
    assert_eq!(listening["start_message"], question.as_str(), "{listening}");
    assert_eq!(
        listening["media_id"], CHIME,
        "the chime, not the question again"
    );
    // Home Assistant opened a conversation of its own for the answer.
    let answer_conversation = listening["conversation_id"]
        .as_str()
        .expect("a conversation id")
        .to_owned();
    assert_ne!(answer_conversation, "01KAZ0F0110WUPASKED00000");

    // The answer, without the wake word, in Home Assistant's new conversation: it continues
    // the question, and chooses among the lamps the question offered (no model needed).
    let answered = speak_2026(
        &addr,
        &[
            "the reading lamp",
            "en",
            &device,
            BEDROOM,
            &answer_conversation,
        ],
    )
    .await;
    assert_eq!(answered["result_type"], "handled", "{answered}");
    let state = |id: &'static str| {
        let ha = &ha;
        async move {
            ha.rest("GET", &format!("/api/states/{id}"), None).await.1["state"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        }
    };
    assert_eq!(state("light.reading_lamp").await, "on", "{answered}");
    assert_eq!(state("light.bedside_lamp").await, "off", "{answered}");
    assert_eq!(state("light.floor_lamp").await, "off", "{answered}");
    // Read with its question: "the reading lamp" alone would have gone to the model (it names
    // no verb), which is never asked here.
    assert!(
        llm.requests().is_empty(),
        "the answer was read without its question: {:?}",
        llm.requests().len()
    );
}
