//! The ingress panel as a person uses it: a real headless Chromium opens it under an
//! ingress-style path prefix (through a proxy that does what the Supervisor's does), types
//! commands, clicks Approve and Deny, and reads the badges — against the real `homeclaw serve`
//! and a real Home Assistant. Screenshots of each page land in `target/screenshots/`
//! (docs/ keeps the committed copies).

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::common::browser::Browser;
use crate::common::ha::{HaInstance, shared};
use crate::common::homeclaw::{API_TOKEN, Homeclaw, config_for, with_fast_path};
use crate::common::scripted_llm::{Reply, ScriptedLlm, openai_calls};
use crate::suite::approvals::DOOR_TAKEN;

const PREFIX: &str = "/api/hassio_ingress/Xy7_token";
/// The common test configuration's panel section (off: the default outside the add-on).
const PANEL_LINE: &str = "panel:\n  listen: 127.0.0.1:0\n";
/// The panel as the add-on has it (ingress vouches for the user), with the test's proxy on
/// loopback in the Supervisor's place.
const BEHIND_INGRESS: &str = "panel:\n  enabled: true\n  auth: ingress\n  listen: 127.0.0.1:0\n";
const LIGHT: &str = "light.bed_light";
const DOOR: &str = "lock.kitchen_door";

/// Forwards `PREFIX/…` to the panel with `X-Ingress-Path`, as the Supervisor's proxy does: the
/// browser's own headers that tell where a request comes from go along, and the host it spoke
/// to becomes `X-Forwarded-Host`; anything else is 404.
async fn ingress(State(panel): State<Arc<String>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return (axum::http::StatusCode::NOT_FOUND, "not ingress").into_response();
    };
    let query = request
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let url = format!("{panel}{}{query}", if rest.is_empty() { "/" } else { rest });
    let method = request.method().clone();
    let passed: Vec<_> = ["content-type", "origin", "sec-fetch-site"]
        .into_iter()
        .filter_map(|name| Some((name, request.headers().get(name)?.clone())))
        .collect();
    let host = request.headers().get("host").cloned();
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap();
    let mut forward = homeclaw::tls::http_client()
        .request(method, url)
        .header("x-ingress-path", PREFIX)
        .body(body);
    for (name, value) in passed {
        forward = forward.header(name, value);
    }
    if let Some(host) = host {
        forward = forward.header("x-forwarded-host", host);
    }
    let answer = forward.send().await.unwrap();
    let status = answer.status();
    let content_type = answer.headers().get("content-type").cloned();
    let bytes = answer.bytes().await.unwrap();
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    if let Some(ct) = content_type {
        response.headers_mut().insert("content-type", ct);
    }
    response
}

async fn start_proxy(panel: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .fallback(ingress)
        .with_state(Arc::new(panel));
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

async fn state_of(ha: &HaInstance, entity: &str) -> String {
    let (_, state) = ha.rest("GET", &format!("/api/states/{entity}"), None).await;
    state["state"].as_str().unwrap_or_default().to_owned()
}

async fn service(ha: &HaInstance, domain: &str, service: &str, entity: &str) {
    let (status, _) = ha
        .rest(
            "POST",
            &format!("/api/services/{domain}/{service}"),
            Some(json!({"entity_id": entity})),
        )
        .await;
    assert_eq!(status, 200);
}

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots")
}

/// Types `text` into the chat and sends it; returns the index its answer card will have.
async fn submit(browser: &mut Browser, text: &str) -> u64 {
    let before = browser
        .eval("document.querySelectorAll('#log .card').length")
        .await
        .as_u64()
        .unwrap();
    browser
        .eval(&format!(
            "document.getElementById('text').value = {text:?}; \
             document.getElementById('ask').requestSubmit(); true"
        ))
        .await;
    before
}

/// Types `text` into the chat and waits for its answer card; returns the card's index.
async fn ask(browser: &mut Browser, text: &str) -> u64 {
    let before = submit(browser, text).await;
    browser
        .wait_for(&format!(
            "document.querySelectorAll('#log .card').length > {before} && \
             !document.querySelector('#log .card.pending')"
        ))
        .await;
    let status = browser
        .eval(&format!(
            "{}.dataset.status || {}.textContent",
            card(before),
            card(before)
        ))
        .await;
    assert!(
        [
            "done",
            "approval_required",
            "failed",
            "clarification_required"
        ]
        .contains(&status.as_str().unwrap_or_default()),
        "{text}: {status}"
    );
    before
}

/// The test configuration with the fast path on (a command that gets in acts at once) and the
/// panel section `panel`.
fn panel_config(ha: &HaInstance, llm: &ScriptedLlm, dir: &std::path::Path, panel: &str) -> String {
    let config = with_fast_path(&config_for(ha, &llm.openai_url(), &dir.join("sessions")))
        .replace(PANEL_LINE, panel);
    assert!(config.contains(panel), "{config}");
    config
}

fn card(index: u64) -> String {
    format!("document.querySelectorAll('#log .card')[{index}]")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_chats_approves_denies_and_shows_activity_and_stats() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = panel_config(ha, &llm, dir.path(), BEHIND_INGRESS);
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let panel = server.panel.clone().expect("the panel listens");
    let proxy = start_proxy(format!("http://{panel}")).await;
    service(ha, "light", "turn_off", LIGHT).await;
    service(ha, "lock", "lock", DOOR).await;

    let mut browser = Browser::launch(1000, 900).await;
    browser.open(&format!("{proxy}{PREFIX}/?lang=en")).await;
    // Every asset came through the prefix: the script ran and translated the page.
    assert_eq!(
        browser
            .eval("document.querySelector('base').getAttribute('href')")
            .await,
        format!("{PREFIX}/")
    );
    browser
        .wait_for("document.querySelector('nav a.active')?.textContent === 'Chat'")
        .await;

    // A typed command turns a real light on; the badge says verified.
    let lit = ask(&mut browser, "turn on the bed light").await;
    let badge = browser
        .eval(&format!(
            "{}.querySelector('.badge')?.textContent",
            card(lit)
        ))
        .await;
    assert_eq!(badge, "Verified");
    assert_eq!(state_of(ha, LIGHT).await, "on");

    // An unlock waits: Approve runs it once, a second click is refused.
    let held = ask(&mut browser, "unlock the kitchen door").await;
    assert_eq!(
        browser
            .eval(&format!("{}.dataset.status", card(held)))
            .await,
        "approval_required"
    );
    assert_eq!(state_of(ha, DOOR).await, "locked");
    // Asked in plain words: the door by its name, no service and no approval id.
    let asked = browser
        .eval(&format!(
            "{}.querySelector('.reply').textContent",
            card(held)
        ))
        .await;
    // No phone is configured here, so none is promised.
    assert_eq!(
        asked,
        "Unlock Kitchen Door? It needs your approval — press Approve in HomeClaw.",
    );
    browser
        .screenshot(&shots().join("panel-approval-asked.png"))
        .await;
    browser
        .eval(&format!(
            "{}.querySelector('button.approve').click(); true",
            card(held)
        ))
        .await;
    let first = browser
        .wait_for(&format!(
            "{}.querySelector('.answer')?.textContent",
            card(held)
        ))
        .await;
    assert_eq!(first, "Unlocked Kitchen Door.");
    assert_eq!(state_of(ha, DOOR).await, "unlocked");
    // Answered: the buttons are gone and the card says how it ended.
    assert_eq!(
        browser
            .eval(&format!(
                "[{0}.querySelectorAll('button').length, {0}.dataset.status, \
                 {0}.querySelector('.status').textContent]",
                card(held)
            ))
            .await,
        json!([0, "approved", "Approved"])
    );
    browser
        .screenshot(&shots().join("panel-approval-approved.png"))
        .await;

    // Answered elsewhere (another tab, a phone, the API): the card follows.
    service(ha, "lock", "lock", DOOR).await;
    let elsewhere = ask(&mut browser, "unlock the kitchen door").await;
    let id = browser
        .eval(&format!(
            "{}.querySelector('button.approve').dataset.approval",
            card(elsewhere)
        ))
        .await;
    let (status, body, _) = server
        .request(
            "POST",
            "/api/approve",
            Some(&json!({"approval_id": id}).to_string()),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let followed = browser
        .wait_for(&format!(
            "{0}.dataset.status === 'approved' && !{0}.querySelector('button') && \
             {0}.querySelector('.answer').textContent",
            card(elsewhere)
        ))
        .await;
    assert_eq!(followed, "Unlocked Kitchen Door.");
    assert_eq!(state_of(ha, DOOR).await, "unlocked");

    // Deny leaves the lock locked.
    service(ha, "lock", "lock", DOOR).await;
    let denied = ask(&mut browser, "unlock the kitchen door").await;
    browser
        .eval(&format!(
            "{}.querySelector('button.deny').click(); true",
            card(denied)
        ))
        .await;
    let answer = browser
        .wait_for(&format!(
            "{}.querySelector('.answer')?.textContent",
            card(denied)
        ))
        .await;
    assert_eq!(answer, "OK, Kitchen Door stays locked.");
    assert_eq!(state_of(ha, DOOR).await, "locked");
    assert_eq!(
        browser
            .eval(&format!("{}.dataset.status", card(denied)))
            .await,
        "declined"
    );
    browser
        .screenshot(&shots().join("panel-approval-declined.png"))
        .await;
    browser.screenshot(&shots().join("panel-chat.png")).await;

    // Activity: every run from the panel, the approval exactly once, filterable.
    show_activity(&mut browser, 7).await;
    // The two approvals and the decline, in words: no approval id, a decline not "Done".
    let answers = browser
        .eval(
            "[...document.querySelectorAll('#runs li.run')].filter(li => li.dataset.kind !== 'command').map(li => li.querySelector('.text').textContent + ' / ' + li.querySelectorAll('.chip')[1].textContent)",
        )
        .await;
    assert_eq!(
        answers,
        json!([
            "Declined / Declined",
            "Approved / Approved",
            "Approved / Approved"
        ]),
        "{answers}"
    );
    no_ids_in_sight(&mut browser).await;
    // A row opens from the keyboard too.
    browser
        .eval("document.querySelector('#runs li.run .run-head').focus(); true")
        .await;
    browser.press("Enter").await;
    browser
        .wait_for("document.querySelector('#runs li.run .run-head').getAttribute('aria-expanded') === 'true'")
        .await;
    browser
        .screenshot(&shots().join("panel-activity.png"))
        .await;
    browser
        .eval(
            "const s = document.getElementById('f-status'); s.value = 'approval_required'; \
             s.dispatchEvent(new Event('change')); true",
        )
        .await;
    let statuses = browser
        .wait_for(
            "(() => { const rows = [...document.querySelectorAll('#runs li.run')]; \
             return rows.length === 3 && rows.map(r => r.querySelectorAll('.chip')[1].className); })()",
        )
        .await;
    assert!(
        statuses
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.as_str().unwrap().contains("approval_required")),
        "{statuses}"
    );

    // Connect: how other programs reach the API, the token hidden until asked for.
    browser
        .eval("document.querySelector('nav a[data-tab=connect]').click(); true")
        .await;
    let address = browser
        .wait_for("document.getElementById('access-address')?.textContent")
        .await;
    assert!(
        address.as_str().unwrap().starts_with("http://"),
        "{address}"
    );
    let field = browser
        .eval("(() => { const t = document.getElementById('access-token'); return [t.type, t.value]; })()")
        .await;
    assert_eq!(field, json!(["password", API_TOKEN]));
    assert!(
        !browser
            .eval("document.body.innerText")
            .await
            .as_str()
            .unwrap()
            .contains(API_TOKEN),
        "the token is not shown until asked for"
    );
    browser.screenshot(&shots().join("panel-connect.png")).await;
    browser
        .eval("document.getElementById('access-show').click(); true")
        .await;
    browser
        .wait_for("document.getElementById('access-token').type === 'text'")
        .await;

    // On a phone, in Polish (Home Assistant's language setting, which the panel shares).
    browser.resize(390, 844, true).await;
    speak(&mut browser, "pl").await;
    browser.open(&format!("{proxy}{PREFIX}/")).await;
    browser
        .wait_for("document.querySelector('nav a.active')?.textContent === 'Czat'")
        .await;
    ask(&mut browser, "włącz bed light").await;
    no_ids_in_sight(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-phone-pl.png"))
        .await;
    fits_a_phone(&mut browser).await;
    show_activity(&mut browser, 7).await;
    no_ids_in_sight(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-activity-phone-pl.png"))
        .await;

    // In French: the panel's words and HomeClaw's answer both.
    speak(&mut browser, "fr").await;
    browser.open(&format!("{proxy}{PREFIX}/")).await;
    browser
        .wait_for("document.querySelector('nav a.active')?.textContent === 'Discussion'")
        .await;
    ask(&mut browser, "éteins bed light").await;
    browser
        .wait_for("document.body.innerText.includes('Éteint : Bed Light')")
        .await;
    no_ids_in_sight(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-phone-fr.png"))
        .await;

    // Home Assistant's dark theme (the panel shares its setting), in English, on a desktop.
    speak(&mut browser, "en").await;
    browser
        .eval("localStorage.setItem('selectedTheme', JSON.stringify({theme: 'default', dark: true})); true")
        .await;
    browser.resize(1000, 900, false).await;
    browser.open(&format!("{proxy}{PREFIX}/?dark")).await;
    browser
        .wait_for("document.documentElement.dataset.theme === 'dark'")
        .await;
    ask(&mut browser, "turn on the bed light").await;
    service(ha, "lock", "lock", DOOR).await;
    let dark = ask(&mut browser, "unlock the kitchen door").await;
    browser
        .eval(&format!(
            "{}.querySelector('button.approve').click(); true",
            card(dark)
        ))
        .await;
    browser
        .wait_for(&format!("{}.dataset.status === 'approved'", card(dark)))
        .await;
    readable_everywhere(&mut browser).await;
    browser.screenshot(&shots().join("panel-dark.png")).await;
    service(ha, "lock", "lock", DOOR).await;
    show_activity(&mut browser, 7).await;
    readable_everywhere(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-activity-dark.png"))
        .await;
    browser
        .eval("localStorage.removeItem('selectedTheme'); true")
        .await;
    assert_eq!(llm.requests().len(), 0, "the fast path took every command");
    service(ha, "light", "turn_off", LIGHT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panel_refuses_anyone_but_the_ingress_proxy() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(ha, &llm.openai_url(), &dir.path().join("sessions")).replace(
        PANEL_LINE,
        "panel:\n  enabled: true\n  auth: ingress\n  listen: 127.0.0.1:0\n  allowed_peers: [172.30.32.2]\n",
    );
    assert!(config.contains("172.30.32.2"), "{config}");
    let server = Homeclaw::spawn(dir.path(), &config);
    let panel = server.panel.clone().expect("the panel listens");
    for (method, path) in [("GET", "/"), ("POST", "/api/command")] {
        let request = homeclaw::tls::http_client()
            .request(method.parse().unwrap(), format!("http://{panel}{path}"));
        let answer = request
            .header("x-ingress-path", PREFIX)
            .body(r#"{"text": "unlock the kitchen door"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 403, "{method} {path}");
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["error"]["code"], "forbidden", "{body}");
    }
    assert!(server.log().contains("panel_addr"), "{}", server.log());
}

/// The body a forged `text/plain` form sends: `name=value`, so the `=` lands inside the text.
const FORGED_NAME: &str = r#"{"session_id": "forged", "text": "turn on the bed light"#;

/// A page on another origin (another port of the same host) that tries to command the home
/// through `target`: a `text/plain` form post, a CORS `fetch` with JSON, and a `no-cors` fetch
/// whose `text/plain` body is a valid command.
async fn start_attacker(target: String) -> String {
    let page = format!(
        r#"<!doctype html><html><body>
<form id="forged" method="POST" enctype="text/plain" action="{target}/api/command">
<input type="hidden" name='{name}' value='"}}'>
</form>
<script>
const TARGET = "{target}";
async function fetches() {{
  const out = {{}};
  const command = JSON.stringify({{text: "turn on the bed light", session_id: "forged"}});
  try {{
    const r = await fetch(TARGET + "/api/command", {{method: "POST", headers: {{"content-type": "application/json"}}, body: command}});
    out.cors = r.status;
  }} catch (e) {{ out.cors = "blocked"; }}
  try {{
    const r = await fetch(TARGET + "/api/command", {{method: "POST", mode: "no-cors", headers: {{"content-type": "text/plain"}}, body: command}});
    out.no_cors = r.type;
  }} catch (e) {{ out.no_cors = "error: " + e; }}
  return out;
}}
</script></body></html>"#,
        name = FORGED_NAME.replace('\'', "&#39;"),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().fallback(move || {
        let page = page.clone();
        async move { axum::response::Html(page) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// Runs from the panel's activity journal (read from loopback, as the open panel allows).
async fn commands_run(panel: &str) -> usize {
    let runs: Value = homeclaw::tls::http_client()
        .get(format!("http://{panel}/api/activity"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    runs["runs"].as_array().unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_cannot_command_the_home_through_the_panel() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    // The widest door: a panel that trusts loopback peers alone (no token), as it did by
    // default before, with the fast path on so that a command that got in would act at once.
    let config = panel_config(ha, &llm, dir.path(), BEHIND_INGRESS);
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let panel = format!(
        "http://{}",
        server.panel.clone().expect("the panel listens")
    );
    service(ha, "light", "turn_off", LIGHT).await;
    let attacker = start_attacker(panel.clone()).await;
    let mut browser = Browser::launch(800, 600).await;
    browser.open(&format!("{attacker}/")).await;

    // The fetches: the JSON one dies at its preflight, the no-cors one is sent and refused.
    let fetched = browser.eval("fetches()").await;
    assert_eq!(fetched["cors"], "blocked", "{fetched}");
    assert_eq!(fetched["no_cors"], "opaque", "{fetched}");

    // The form: the browser navigates to the panel's answer, which is the refusal.
    browser
        .navigate_by("document.getElementById('forged').submit(); true")
        .await;
    let answer = browser.eval("document.body.innerText").await;
    assert!(
        answer.as_str().unwrap().contains("json_required"),
        "{answer}"
    );

    assert_eq!(state_of(ha, LIGHT).await, "off", "a forged request acted");
    assert_eq!(commands_run(server.panel.as_deref().unwrap()).await, 0);
    assert_eq!(llm.requests().len(), 0);
    let log = server.log();
    assert!(
        log.matches("Refused a request that could come from another web site")
            .count()
            >= 2,
        "{log}"
    );

    // The same body the form sent is a real command: let through, it would have turned the
    // light on (so the refusals above are what kept it off).
    let forged_body = format!("{FORGED_NAME}=\"}}\r\n");
    let (status, body) = {
        let answer = homeclaw::tls::http_client()
            .post(format!("{panel}/api/command"))
            .header("content-type", "application/json")
            .body(forged_body)
            .send()
            .await
            .unwrap();
        (answer.status(), answer.json::<Value>().await.unwrap())
    };
    assert_eq!(status, 200, "{body}");
    assert_eq!(state_of(ha, LIGHT).await, "on", "{body}");
    service(ha, "light", "turn_off", LIGHT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_the_add_on_the_panel_asks_for_the_api_token() {
    // The chat test turns the bed light off before and after: the two take turns with it.
    let _light = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = panel_config(
        ha,
        &llm,
        dir.path(),
        "panel:\n  enabled: true\n  listen: 127.0.0.1:0\n",
    );
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let panel = format!(
        "http://{}",
        server.panel.clone().expect("the panel listens")
    );
    service(ha, "light", "turn_off", LIGHT).await;

    // Without the token: nothing under api/ answers, and nothing runs.
    let http = homeclaw::tls::http_client();
    for (method, path) in [
        ("POST", "/api/command"),
        ("POST", "/api/approve"),
        ("GET", "/api/activity"),
        ("GET", "/api/stats"),
    ] {
        let answer = http
            .request(method.parse().unwrap(), format!("{panel}{path}"))
            .header("content-type", "application/json")
            .header("authorization", "Bearer not-the-token-at-all")
            .body(r#"{"text": "turn on the bed light"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 401, "{method} {path}");
    }
    assert_eq!(state_of(ha, LIGHT).await, "off");

    // In a browser: the login form first; a wrong token is refused, the right one opens it.
    let mut browser = Browser::launch(1000, 700).await;
    browser.open(&format!("{panel}/?lang=en")).await;
    browser
        .wait_for("!document.getElementById('login').hidden")
        .await;
    // Nothing of the panel shows before the token: no tabs, no chat.
    assert_eq!(
        browser
            .eval(
                "['tabs', 'chat'].map(id => getComputedStyle(document.getElementById(id)).display)"
            )
            .await,
        json!(["none", "none"])
    );
    browser.screenshot(&shots().join("panel-login.png")).await;
    let sign_in = |token: &str| {
        format!(
            "document.getElementById('token').value = {token:?}; \
             document.getElementById('login-form').requestSubmit(); true"
        )
    };
    browser.eval(&sign_in("wrong-token-wrong-token")).await;
    let error = browser
        .wait_for("!document.getElementById('login-error').hidden && document.getElementById('login-error').textContent")
        .await;
    assert!(error.as_str().unwrap().contains("not the one"), "{error}");
    browser
        .eval(&sign_in(crate::common::homeclaw::API_TOKEN))
        .await;
    browser
        .wait_for("!document.getElementById('chat').hidden")
        .await;
    let lit = ask(&mut browser, "turn on the bed light").await;
    let badge = browser
        .eval(&format!(
            "{}.querySelector('.badge')?.textContent",
            card(lit)
        ))
        .await;
    assert_eq!(badge, "Verified");
    assert_eq!(state_of(ha, LIGHT).await, "on");
    // The token is in the page's memory only: no cookie, no storage, not in the URL.
    let kept = browser
        .eval(&format!(
            "(() => {{ const t = {:?}; const stored = [...Object.values(localStorage), ...Object.values(sessionStorage)]; \
             return document.cookie.includes(t) || location.href.includes(t) || stored.some(v => String(v).includes(t)); }})()",
            crate::common::homeclaw::API_TOKEN
        ))
        .await;
    assert_eq!(kept, false);
    // A reload forgets it.
    browser.open(&format!("{panel}/?lang=en")).await;
    browser
        .wait_for("!document.getElementById('login').hidden")
        .await;
    assert!(!server.log().contains(crate::common::homeclaw::API_TOKEN));
    service(ha, "light", "turn_off", LIGHT).await;
}

/// Nothing a person sees names an entity, a service or an approval by its id (the details
/// disclosures, closed, keep them).
async fn no_ids_in_sight(browser: &mut Browser) {
    let seen = browser
        .eval(
            "(() => { const t = document.body.innerText; \
             const m = t.match(/\\b(light|switch|lock|cover|climate|media_player|fan|sensor|binary_sensor|script|scene|automation|input_[a-z]+|vacuum|valve|todo|calendar|weather|alarm_control_panel|button|assist_satellite)\\.[a-z0-9_]+|appr_[0-9a-f]+|\\bLLM\\b|fast path/); \
             return m ? m[0] : null; })()",
        )
        .await;
    assert_eq!(seen, Value::Null, "an id or an internal word is in sight");
}

/// Every text in sight keeps a contrast of at least 4.5:1 with what is behind it (WCAG AA),
/// measured from the colours the browser computed.
async fn readable_everywhere(browser: &mut Browser) {
    let worst = browser
        .eval(
            r#"(() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (node) => { for (let n = node; n; n = n.parentElement) {
    const c = rgb(getComputedStyle(n).backgroundColor); if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c; }
    return [255, 255, 255]; };
  let worst = null;
  for (const node of document.querySelectorAll('body *')) {
    if (!node.offsetParent && node.tagName !== 'BODY') continue;
    const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!own || node.closest('svg')) continue;
    const fg = lum(rgb(getComputedStyle(node).color)), bg = lum(behind(node));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (!worst || ratio < worst[0]) worst = [Math.round(ratio * 100) / 100, node.textContent.trim().slice(0, 40)];
  }
  return worst; })()"#,
        )
        .await;
    let ratio = worst[0].as_f64().unwrap_or(0.0);
    assert!(ratio >= 4.5, "too little contrast: {worst}");
}

/// Opens the Activity tab and waits until it lists at least `rows` runs.
async fn show_activity(browser: &mut Browser, rows: usize) {
    browser
        .eval("document.querySelector('nav a[data-tab=activity]').click(); true")
        .await;
    browser
        .wait_for(&format!(
            "document.querySelectorAll('#runs li.run').length >= {rows}"
        ))
        .await;
}

/// The page is no wider than a 390 px phone.
async fn fits_a_phone(browser: &mut Browser) {
    let width = browser
        .eval("document.documentElement.scrollWidth")
        .await
        .as_u64()
        .unwrap();
    assert!(width <= 390, "the page is wider than the phone: {width}px");
}

/// Home Assistant's language setting, which the panel shares (read at the next load).
async fn speak(browser: &mut Browser, lang: &str) {
    browser
        .eval(&format!(
            "localStorage.setItem('selectedLanguage', JSON.stringify('{lang}')); true"
        ))
        .await;
}

/// Types a command the panel cannot answer (the model refuses the key) and waits for its card.
async fn ask_failing(browser: &mut Browser, text: &str) {
    let before = submit(browser, text).await;
    browser
        .wait_for(&format!(
            "document.querySelectorAll('#log .card.failed').length > 0 && \
             document.querySelectorAll('#log .card').length > {before}"
        ))
        .await;
}

/// The text of `selector` once it shows.
async fn text_of(browser: &mut Browser, selector: &str) -> String {
    browser
        .wait_for(&format!(
            "document.querySelector({selector:?})?.textContent"
        ))
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stats_tab_sums_up_a_day_of_commands() {
    let _door = DOOR_TAKEN.lock().await;
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = panel_config(ha, &llm, dir.path(), BEHIND_INGRESS);
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let panel = server.panel.clone().expect("the panel listens");
    let proxy = start_proxy(format!("http://{panel}")).await;
    service(ha, "lock", "lock", DOOR).await;

    let mut browser = Browser::launch(1100, 1000).await;
    browser.open(&format!("{proxy}{PREFIX}/?lang=en")).await;
    browser
        .wait_for("document.querySelector('nav a.active')?.textContent === 'Chat'")
        .await;
    // Nothing yet: the tab says so instead of drawing empty axes.
    browser
        .eval("document.querySelector('nav a[data-tab=stats]').click(); true")
        .await;
    let empty = text_of(&mut browser, "#stats-empty").await;
    assert!(
        empty.starts_with("No commands in this period yet"),
        "{empty}"
    );
    browser
        .eval("document.querySelector('nav a[data-tab=chat]').click(); true")
        .await;

    // A household's day in the demo home, typed into the panel.
    // (Not the bed light: the token test, which runs beside this one, turns it on.)
    for text in [
        "turn on the ceiling lights",
        "are the ceiling lights on?",
        "turn off the ceiling lights",
        "turn on the kitchen lights",
        "turn off the kitchen lights",
        "turn on the ceiling lights",
        "turn off the ceiling lights",
    ] {
        ask(&mut browser, text).await;
    }
    // Words the fast path does not take go to the model, which takes its time; the call it
    // makes is verified, and the reply is written from that (no second request).
    llm.push(Reply::Delay(
        std::time::Duration::from_millis(1200),
        Box::new(openai_calls(&[(
            "c1",
            "call_service",
            json!({"domain": "fan", "service": "turn_on", "entity_id": "fan.ceiling_fan"}),
        )])),
    ));
    let fan = ask(&mut browser, "could you get the ceiling fan spinning").await;
    assert_eq!(
        browser
            .eval(&format!(
                "{}.querySelector('.reply').textContent",
                card(fan)
            ))
            .await,
        "Turned on Ceiling Fan."
    );
    assert_eq!(llm.remaining(), 0);
    // A held unlock, declined.
    let held = ask(&mut browser, "unlock the kitchen door").await;
    browser
        .eval(&format!(
            "{}.querySelector('button.deny').click(); true",
            card(held)
        ))
        .await;
    browser
        .wait_for(&format!("{}.querySelector('.answer')", card(held)))
        .await;
    // The model refuses HomeClaw's key: the command fails, nothing ran.
    llm.push(Reply::Status {
        status: 401,
        body: "invalid api key".into(),
        retry_after: None,
    });
    ask_failing(&mut browser, "tell me about my week").await;

    browser
        .eval("document.querySelector('nav a[data-tab=stats]').click(); true")
        .await;
    let commands = text_of(&mut browser, "#t-commands .value").await;
    assert_eq!(commands, "10");
    let without = text_of(&mut browser, "#t-without-model .value").await;
    // The fast path answered all but the fan and the command that failed.
    assert_eq!(without, "8 · 80%");
    let count = |outcome: &str| format!("[data-outcome={outcome}] .count");
    for (outcome, n) in [
        ("verified", "7 · 70%"),
        ("answered", "1 · 10%"),
        ("waiting_for_approval", "1 · 10%"),
        ("failed", "1 · 10%"),
        ("refused", "0 · 0%"),
    ] {
        assert_eq!(text_of(&mut browser, &count(outcome)).await, n, "{outcome}");
    }
    // The waits are in buckets with units.
    let per_day = browser
        .eval("document.querySelectorAll('#charts .chart')[0].querySelectorAll('rect').length")
        .await;
    // Today's stack: without the model, with it, not answered (more if the test crossed
    // midnight).
    assert!((3..=6).contains(&per_day.as_u64().unwrap()), "{per_day}");
    let labels = browser
        .eval("[...document.querySelectorAll('#charts .chart')[1].querySelectorAll('text.tick')].map(t => t.textContent).join(' ')")
        .await;
    assert!(labels.as_str().unwrap().contains("ms"), "{labels}");
    let period = text_of(&mut browser, "#period").await;
    assert!(period.contains("Days in"), "{period}");
    browser.screenshot(&shots().join("panel-stats.png")).await;

    // The failed command links to its activity entry, open.
    browser
        .eval("document.querySelectorAll('.listed')[1].querySelector('a').click(); true")
        .await;
    let opened = browser
        .wait_for(
            "(() => { const rows = document.querySelectorAll('#runs li.run'); \
             return rows.length === 1 && !rows[0].querySelector('.run-body').hidden \
             && rows[0].querySelector('.text').textContent; })()",
        )
        .await;
    assert_eq!(opened, "tell me about my week");

    // On a phone, and in German: the same numbers, the panel's words and units.
    browser.resize(390, 844, true).await;
    browser
        .eval("document.querySelector('nav a[data-tab=stats]').click(); true")
        .await;
    text_of(&mut browser, "#t-commands .value").await;
    browser
        .screenshot(&shots().join("panel-stats-phone-en.png"))
        .await;
    fits_a_phone(&mut browser).await;
    speak(&mut browser, "de").await;
    browser.open(&format!("{proxy}{PREFIX}/#stats")).await;
    let title = text_of(&mut browser, "#charts .chart h3").await;
    assert_eq!(title, "Befehle pro Tag");
    assert_eq!(
        text_of(&mut browser, "#t-without-model .label").await,
        "Ohne das Modell beantwortet"
    );
    browser
        .screenshot(&shots().join("panel-stats-phone-de.png"))
        .await;
    browser.resize(1100, 1000, false).await;
    // Another address than the phone's, so the page loads anew rather than scrolls.
    browser
        .open(&format!("{proxy}{PREFIX}/?desktop#stats"))
        .await;
    assert_eq!(text_of(&mut browser, "#t-commands .value").await, "10");
    // Numbers as German writes them, and the by-model table counts as the tiles do.
    assert_eq!(
        text_of(&mut browser, "#t-without-model .value")
            .await
            .replace('\u{a0}', " "),
        "8 · 80 %"
    );
    let rows = browser
        .eval("[...document.querySelectorAll('#models tr')].slice(1).map(r => [r.cells[0].textContent, r.cells[1].textContent])")
        .await;
    assert!(
        rows.as_array()
            .unwrap()
            .contains(&json!(["Ohne Modell", "8"])),
        "{rows}"
    );
    browser
        .screenshot(&shots().join("panel-stats-de.png"))
        .await;
    service(ha, "fan", "turn_off", "fan.ceiling_fan").await;
    service(ha, "lock", "lock", DOOR).await;
}

/// A week of a household's commands, as the journal keeps them across restarts: each day
/// some answered without the model, some with it, a few slower, one failed, one declined.
fn a_week_of_activity(sessions: &std::path::Path) -> usize {
    use homeclaw::agent::act::call::PlannedCall;
    use homeclaw::agent::act::verify::ActionReport;
    use homeclaw::command::activity::{Record, Source};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let day = 86_400_000;
    let light = |verified: bool| ActionReport {
        call: PlannedCall {
            domain: "light".into(),
            service: "turn_on".into(),
            entity_ids: vec!["light.kitchen_lights".into()],
            data: serde_json::Value::Null,
        },
        verified,
        observed_state: [("light.kitchen_lights".to_owned(), "on".to_owned())].into(),
        dry_run: false,
    };
    let mut lines = String::new();
    let mut commands = 0;
    for d in (0..7u64).rev() {
        // Midday of that day, minute by minute: every record stays on its day in any zone
        // within ±11 hours of UTC, and today's stay in the past.
        let noon = now - d * day - (now % day) + day / 2 - 3_600_000;
        let n = 4 + (d as usize * 3) % 7;
        for i in 0..n {
            let with_model = i % 4 == 3;
            let failed = i == n - 1 && d % 3 == 0;
            let record = Record {
                at_ms: noon.min(now - 60_000) - (n - i) as u64 * 60_000,
                session_id: Some(format!("week-{d}")),
                text: [
                    "turn on the kitchen lights",
                    "is the door locked?",
                    "dim the lights",
                ][i % 3]
                    .into(),
                reply: if failed {
                    String::new()
                } else {
                    "Turned on Kitchen Lights.".into()
                },
                actions: if i % 3 == 1 || failed {
                    vec![]
                } else {
                    vec![light(i % 5 != 4)]
                },
                latency_ms: if with_model {
                    2_500 + 900 * i as u64
                } else {
                    40 + 25 * i as u64
                },
                llm_requests: u32::from(with_model) * 2,
                model: with_model.then(|| "qwen2.5".to_owned()),
                ..Record::answer(
                    Source::Panel,
                    "command",
                    "",
                    if failed { "llm_unavailable" } else { "done" }.into(),
                )
            };
            lines.push_str(&serde_json::to_string(&record).unwrap());
            lines.push('\n');
            commands += 1;
        }
    }
    std::fs::create_dir_all(sessions).unwrap();
    std::fs::write(sessions.join(".activity.jsonl"), lines).unwrap();
    commands
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_week_of_commands_reads_at_a_glance() {
    let ha = shared();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let commands = a_week_of_activity(&dir.path().join("sessions"));
    let config = panel_config(ha, &llm, dir.path(), BEHIND_INGRESS);
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    let panel = server.panel.clone().expect("the panel listens");
    let proxy = start_proxy(format!("http://{panel}")).await;

    let mut browser = Browser::launch(1100, 1000).await;
    browser
        .open(&format!("{proxy}{PREFIX}/?lang=en#stats"))
        .await;
    assert_eq!(
        text_of(&mut browser, "#t-commands .value").await,
        commands.to_string()
    );
    // Every day has its bar, and the count axis has a tick at each step up to the top.
    let days = browser
        .eval("[...document.querySelectorAll('#charts .chart')[0].querySelectorAll('text.tick')].map(t => t.textContent)")
        .await;
    let days = days.as_array().unwrap();
    assert!(days.len() >= 7 + 3, "{days:?}");
    // The by-model table counts as the tiles do.
    let without = text_of(&mut browser, "#t-without-model .value").await;
    let rows = browser
        .eval("Object.fromEntries([...document.querySelectorAll('#models tr')].slice(1).map(r => [r.cells[0].textContent, r.cells[1].textContent]))")
        .await;
    assert_eq!(
        Some(without.split(' ').next().unwrap()),
        rows["Without the model"].as_str(),
        "{rows}"
    );
    // Legible on a desktop and on a phone: no chart text smaller than 11 px as drawn.
    let smallest = "Math.min(...[...document.querySelectorAll('#charts svg text')].filter(t => t.textContent.trim()).map(t => t.getBoundingClientRect().height))";
    let desktop = browser.eval(smallest).await.as_f64().unwrap();
    assert!(desktop >= 11.0, "chart text {desktop}px high");
    readable_everywhere(&mut browser).await;
    no_ids_in_sight(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-stats-week.png"))
        .await;
    browser.resize(390, 844, true).await;
    speak(&mut browser, "pl").await;
    browser.open(&format!("{proxy}{PREFIX}/?phone#stats")).await;
    text_of(&mut browser, "#t-commands .value").await;
    let phone = browser.eval(smallest).await.as_f64().unwrap();
    assert!(phone >= 11.0, "chart text {phone}px high on a phone");
    fits_a_phone(&mut browser).await;
    no_ids_in_sight(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-stats-week-phone-pl.png"))
        .await;
    browser
        .open(&format!("{proxy}{PREFIX}/?theme=dark&lang=en#stats"))
        .await;
    text_of(&mut browser, "#t-commands .value").await;
    readable_everywhere(&mut browser).await;
    browser
        .screenshot(&shots().join("panel-stats-week-dark.png"))
        .await;
}

/// Home Assistant's own web UI, on its own instance (the demo home).
const FRONTEND_PORT: u16 = 18135;

/// All the text a page shows, through every shadow root (Home Assistant's UI is made of them).
const DEEP_TEXT: &str = "(() => { const walk = (n) => { let t = ''; \
    if (n.shadowRoot) t += walk(n.shadowRoot); \
    for (const c of n.childNodes) t += c.nodeType === 3 ? c.textContent : \
      (c.nodeName === 'STYLE' || c.nodeName === 'SCRIPT' ? '' : walk(c)); \
    return t; }; return walk(document.documentElement); })()";

/// Opens the notifications drawer of Home Assistant's UI once the UI is up, as the sidebar's
/// bell does.
async fn open_notifications(browser: &mut Browser) {
    browser
        .wait_for_rendered(
            "!!document.querySelector('home-assistant')?.shadowRoot?.querySelector('home-assistant-main')",
        )
        .await;
    browser
        .eval(
            "document.querySelector('home-assistant').shadowRoot.querySelector('home-assistant-main') \
             .dispatchEvent(new CustomEvent('hass-show-notifications', {bubbles: true, composed: true})); true",
        )
        .await;
}

/// What a person sees in Home Assistant's notifications while an action waits: what would
/// happen, in words, and where to answer it (the notification has no buttons) — no id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn home_assistants_notification_says_where_to_answer() {
    let ha = tokio::task::spawn_blocking(|| HaInstance::start_with_frontend(FRONTEND_PORT))
        .await
        .unwrap();
    let llm = ScriptedLlm::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = with_fast_path(&config_for(
        &ha,
        &llm.openai_url(),
        &dir.path().join("sessions"),
    ));
    let server = Homeclaw::spawn(dir.path(), &config);
    server.ready().await;
    service(&ha, "lock", "lock", DOOR).await;
    // Only this run's notification (an earlier run's may still be there on this instance).
    let (status, _) = ha
        .rest(
            "POST",
            "/api/services/persistent_notification/dismiss_all",
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200);
    let (status, asked, _) = server
        .request(
            "POST",
            "/api/command",
            Some(&json!({"text": "unlock the kitchen door"}).to_string()),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["status"], "approval_required", "{asked}");
    let id = asked["approval_id"].as_str().unwrap().to_owned();

    // Signed in as the household's user: Home Assistant's UI keeps its tokens in localStorage.
    let mut browser = Browser::launch(1100, 800).await;
    let base = ha.http_url();
    browser.open(&format!("{base}/manifest.json")).await;
    browser
        .eval(&format!(
            "localStorage.setItem('hassTokens', JSON.stringify({{hassUrl: {base:?}, \
             clientId: {client:?}, access_token: {token:?}, token_type: 'Bearer', \
             expires_in: 1800, refresh_token: 'unused', expires: Date.now() + 1e10}})); \
             localStorage.setItem('selectedLanguage', JSON.stringify('en')); true",
            client = format!("{base}/"),
            token = ha.token,
        ))
        .await;
    browser.open(&format!("{base}/lovelace/0")).await;
    open_notifications(&mut browser).await;
    let shown = browser
        .wait_for_rendered(&format!(
            "(() => {{ const t = {DEEP_TEXT}; \
             return t.includes('HomeClaw was asked to unlock Kitchen Door') && t; }})()"
        ))
        .await;
    let shown = shown.as_str().unwrap();
    let at = shown.find("HomeClaw was asked").unwrap_or(0);
    let shown = &shown[at..(at + 300).min(shown.len())];
    assert!(
        shown.contains("HomeClaw was asked to unlock Kitchen Door.")
            && shown.contains("press Approve or Deny in HomeClaw's panel"),
        "{shown}"
    );
    assert!(
        !shown.contains(&id) && !shown.contains("lock.kitchen_door"),
        "{shown}"
    );
    browser
        .screenshot_window(&shots().join("ha-notification.png"))
        .await;
    // Denied through the API: the notification goes.
    let (status, body, _) = server
        .request(
            "POST",
            "/api/deny",
            Some(&json!({"approval_id": id}).to_string()),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    browser
        .wait_for_rendered(&format!(
            "!{DEEP_TEXT}.includes('HomeClaw was asked to unlock Kitchen Door.')"
        ))
        .await;
    assert_eq!(state_of(&ha, DOOR).await, "locked");

    // Asked in Polish, seen in a Polish, dark Home Assistant.
    let (status, asked, _) = server
        .request(
            "POST",
            "/api/command",
            Some(&json!({"text": "odblokuj Kitchen Door", "language": "pl"}).to_string()),
            &[],
        )
        .await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["status"], "approval_required", "{asked}");
    browser
        .eval(
            "localStorage.setItem('selectedLanguage', JSON.stringify('pl')); \
             localStorage.setItem('selectedTheme', JSON.stringify({theme: 'default', dark: true})); true",
        )
        .await;
    browser.open(&format!("{base}/lovelace/0")).await;
    open_notifications(&mut browser).await;
    browser
        .wait_for_rendered(&format!(
            "{DEEP_TEXT}.includes('HomeClaw ma odblokować Kitchen Door. To wymaga Twojej zgody: \
             naciśnij „Zatwierdź” albo „Odrzuć” w panelu HomeClaw.')"
        ))
        .await;
    browser
        .screenshot_window(&shots().join("ha-notification-pl-dark.png"))
        .await;
    let id = asked["approval_id"].as_str().unwrap();
    server
        .request(
            "POST",
            "/api/deny",
            Some(&json!({"approval_id": id}).to_string()),
            &[],
        )
        .await;
    assert_eq!(state_of(&ha, DOOR).await, "locked");
}
