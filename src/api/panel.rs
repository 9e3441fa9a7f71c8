//! The panel Home Assistant shows in its sidebar (add-on ingress): chat, activity and stats,
//! served by the binary itself with its assets embedded (no CDN; it works offline).
//!
//! Invariants:
//! - Its own listener (`panel.listen`, the add-on's ingress port); a request from an address
//!   not in `panel.allowed_peers` gets 403.
//! - Who may command the home through it: in the add-on (`panel.auth: ingress`) the
//!   Supervisor's ingress proxy has checked the Home Assistant user; anywhere else
//!   (`panel.auth: token`) every `api/*` request carries the API's bearer token, which the
//!   page's login form keeps in memory only (no cookie, no URL, no storage).
//! - Every state-changing request is JSON from this very origin ([`super::origin`]).
//! - Every page URL is relative; the ingress prefix (`X-Ingress-Path`) becomes the page's
//!   `<base>`, and only a prefix of plain path characters is used.
//! - Commands, approvals and denials go through the same front door as the HTTP API, marked
//!   as coming from the panel.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

use super::{ApiError, ApiState, approve_from, command_from, deny_from};
use crate::command::activity::{Record, Source};
use crate::command::stats;
use crate::config::PanelAuth;

const INDEX: &str = include_str!("panel/index.html");
const SCRIPT: &str = include_str!("panel/panel.js");
const STYLE: &str = include_str!("panel/panel.css");
/// The header the Supervisor's ingress proxy sets to the path it serves the panel under.
const INGRESS_PATH: &str = "x-ingress-path";
/// Records the activity list sends at most.
const ACTIVITY_LIMIT: usize = 200;

pub fn router(state: Arc<ApiState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/panel.js", get(script))
        .route("/panel.css", get(style))
        .route("/api/command", post(command))
        .route("/api/approve", post(approve))
        .route("/api/deny", post(deny))
        .route("/api/activity", get(activity))
        .route("/api/stats", get(stats))
        .route("/api/access", get(access))
        .route("/api/notices", get(notices))
        .route("/api/approvals/{id}", get(approval))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such page") })
        .layer(middleware::from_fn_with_state(
            state.clone(),
            super::origin::same_origin_json_panel,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            only_allowed_peers,
        ))
        .layer(middleware::from_fn(super::request_id))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            super::redact_errors,
        ))
        .with_state(state)
}

/// Serves the panel until `shutdown` resolves.
pub async fn serve(
    state: Arc<ApiState>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    super::serve_router(router(state), listener, shutdown).await
}

async fn only_allowed_peers(
    State(state): State<Arc<ApiState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let panel = &state.app().cfg.panel;
    if !panel.allows(peer.ip()) {
        let message = match panel.auth {
            PanelAuth::Ingress => {
                "the panel is only reachable through Home Assistant (add-on ingress)"
            }
            PanelAuth::Token => "this address may not open the panel (panel.allowed_peers)",
        };
        return ApiError::new(StatusCode::FORBIDDEN, "forbidden", message).into_response();
    }
    // The page and its assets hold no data; everything under api/ does.
    if panel.auth == PanelAuth::Token
        && request.uri().path().starts_with("/api/")
        && let Err(refused) = super::check_token(&state, peer, &request, Source::Panel)
    {
        return refused.into_response();
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'self'; base-uri 'self'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The ingress prefix, if it is a plain path (anything else is ignored, never echoed).
pub fn ingress_prefix(headers: &HeaderMap) -> Option<&str> {
    let prefix = headers
        .get(INGRESS_PATH)?
        .to_str()
        .ok()?
        .trim_end_matches('/');
    let plain = prefix.starts_with('/')
        && prefix.len() <= 256
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '.'))
        && !prefix.contains("..");
    plain.then_some(prefix)
}

/// The page, with the ingress prefix as its base so that its relative URLs go through it, and
/// whether it must ask for the token before anything else.
pub fn index_for(prefix: Option<&str>, auth: PanelAuth) -> String {
    let base = format!("<base href=\"{}/\">", prefix.unwrap_or(""));
    let mode = match auth {
        PanelAuth::Token => "token",
        PanelAuth::Ingress => "ingress",
    };
    INDEX.replace("<!--BASE-->", &base).replace(
        "<!--AUTH-->",
        &format!("<meta name=\"homeclaw-auth\" content=\"{mode}\">"),
    )
}

async fn index(State(state): State<Arc<ApiState>>, headers: HeaderMap) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        index_for(ingress_prefix(&headers), state.app().cfg.panel.auth),
    )
        .into_response()
}

async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

async fn command(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    command_from(&state, &headers, body, Source::Panel).await
}

async fn approve(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    approve_from(&state, &headers, body, Source::Panel).await
}

async fn deny(State(state): State<Arc<ApiState>>, body: Body) -> Response {
    deny_from(&state, body, Source::Panel).await
}

/// What the person should know about how Home Assistant hands commands to HomeClaw (the
/// page says it in the person's words).
async fn notices(State(state): State<Arc<ApiState>>) -> Response {
    axum::Json(super::assist_notice(state.app()).await).into_response()
}

/// How other programs reach the API: its port, the container's host name (another app on the
/// Supervisor's network reaches it by that name) and the token, which only the household sees
/// here (the panel is behind Home Assistant's login, or asked for that very token).
async fn access(State(state): State<Arc<ApiState>>) -> Response {
    let api = &state.app().cfg.api;
    let loopback_only = api
        .listen
        .parse::<SocketAddr>()
        .is_ok_and(|a| a.ip().is_loopback());
    axum::Json(json!({
        "token": api.token.as_ref().map(|t| t.expose()),
        "kept_in": api.token_file,
        "host": std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()),
        "port": state.api_port,
        "loopback_only": loopback_only,
    }))
    .into_response()
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActivityQuery {
    #[serde(default)]
    source: Option<Source>,
    #[serde(default)]
    status: Option<String>,
    /// Words the command, its reply or its session must contain (case-insensitive).
    #[serde(default)]
    q: Option<String>,
    /// The one record that ended at this moment (a link from the Stats tab).
    #[serde(default)]
    at_ms: Option<u64>,
}

/// Whether a record passes the activity list's filters.
fn wanted(record: &Record, query: &ActivityQuery) -> bool {
    let q = query.q.as_deref().unwrap_or("").trim().to_lowercase();
    query.at_ms.is_none_or(|at| at == record.at_ms)
        && query.source.is_none_or(|s| s == record.source)
        && query.status.as_deref().is_none_or(|s| s == record.status)
        && (q.is_empty()
            || record.text.to_lowercase().contains(&q)
            || record.reply.to_lowercase().contains(&q)
            || record
                .session_id
                .as_deref()
                .is_some_and(|s| s.to_lowercase().contains(&q)))
}

async fn activity(
    State(state): State<Arc<ApiState>>,
    query: Result<Query<ActivityQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(query)) = query else {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_fields",
            "filters are source (panel, assist, http, mqtt, openai, notification, cli), status, \
             q and at_ms",
        )
        .into_response();
    };
    let runs = state
        .commands
        .activity()
        .recent(ACTIVITY_LIMIT, |r| wanted(r, &query));
    axum::Json(json!({ "runs": runs })).into_response()
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsQuery {
    /// The period in days: one of [`stats::PERIODS`]; 7 when not given.
    #[serde(default)]
    days: Option<u32>,
}

/// Where an approval stands, so that a card asking for it follows it wherever it is answered
/// (another tab, a phone, a "yes" by voice): still waiting, or the answer Activity recorded
/// (none when it was answered in conversation, or expired).
async fn approval(State(state): State<Arc<ApiState>>, Path(id): Path<String>) -> Response {
    if id.is_empty() || id.len() > 100 {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_fields",
            "no such approval id",
        )
        .into_response();
    }
    let waiting = state.app().approvals.waiting(&id).is_some();
    let answer = state
        .commands
        .activity()
        .recent(1, |r| {
            r.approval_id.as_deref() == Some(id.as_str())
                && (r.kind == "approval" || r.kind == "decline")
        })
        .into_iter()
        .next()
        .map(|r| json!({"kind": r.kind, "status": r.status, "reply": r.reply, "source": r.source}));
    axum::Json(json!({ "waiting": waiting, "answer": answer })).into_response()
}

/// The period's summary (in the home's days) and one point per command of it, oldest first.
async fn stats(
    State(state): State<Arc<ApiState>>,
    query: Result<Query<StatsQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let days = match query {
        Ok(Query(StatsQuery { days: None })) => 7,
        Ok(Query(StatsQuery { days: Some(d) })) if stats::PERIODS.contains(&d) => d,
        _ => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_fields",
                format!("days is one of {:?}", stats::PERIODS),
            )
            .into_response();
        }
    };
    let records = state.commands.activity().recent(usize::MAX, |_| true);
    let zone = crate::agent::home::with_registry(state.app().home.as_ref(), |r| {
        stats::zone_named(r.time_zone())
    });
    let summary = stats::summarise(&records, jiff::Timestamp::now(), days, &zone);
    let mut points: Vec<_> = records
        .into_iter()
        .filter(|r| r.kind == "command" && r.at_ms >= summary.from_ms)
        .map(|r| {
            json!({
                "at_ms": r.at_ms,
                "latency_ms": r.latency_ms,
                "llm_requests": r.llm_requests,
                "actions": r.actions.len(),
                "verified": r.actions.iter().filter(|a| a.verified).count(),
                "guard_events": r.guard_events,
                "model": r.model,
                "source": r.source,
                "outcome": stats::outcome_of(&r),
            })
        })
        .collect();
    points.reverse();
    axum::Json(json!({ "summary": summary, "points": points })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of one language's strings in the panel's script.
    fn keys_of(lang: &str) -> std::collections::BTreeSet<String> {
        let start = SCRIPT
            .find(&format!("\n  {lang}: {{\n"))
            .unwrap_or_else(|| panic!("no {lang} strings"));
        let block = &SCRIPT[start..];
        let block = &block[..block.find("\n  },").expect("the block ends")];
        let key = regex::Regex::new(r#"(?m)(?:^|[ ,{])([a-z][a-z0-9_]*): ""#).unwrap();
        key.captures_iter(block).map(|c| c[1].to_owned()).collect()
    }

    /// Every text of the panel exists in each of its languages: a missing one would show in
    /// English in the middle of a Polish page.
    #[test]
    fn the_panel_says_everything_in_each_of_its_languages() {
        let en = keys_of("en");
        assert!(en.len() > 100, "{}", en.len());
        for lang in ["pl", "de", "fr"] {
            let theirs = keys_of(lang);
            assert_eq!(
                en.symmetric_difference(&theirs).collect::<Vec<_>>(),
                Vec::<&String>::new(),
                "{lang}"
            );
        }
    }

    fn with_prefix(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(INGRESS_PATH, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_ingress_prefix_becomes_the_base_and_nothing_else_does() {
        let ok = with_prefix("/api/hassio_ingress/Ab-3_x/");
        assert_eq!(ingress_prefix(&ok), Some("/api/hassio_ingress/Ab-3_x"));
        assert!(
            index_for(ingress_prefix(&ok), PanelAuth::Ingress)
                .contains("<base href=\"/api/hassio_ingress/Ab-3_x/\">")
        );
        for bad in ["/x\"><script>", "relative", "/a/../b", "/a b"] {
            assert_eq!(ingress_prefix(&with_prefix(bad)), None, "{bad}");
        }
        let page = index_for(None, PanelAuth::Token);
        assert!(page.contains("<base href=\"/\">"));
        assert!(page.contains("<meta name=\"homeclaw-auth\" content=\"token\">"));
    }

    #[test]
    fn activity_filters_combine() {
        let record = Record {
            session_id: Some("panel-1".into()),
            text: "Turn on the Kitchen light".into(),
            ..Record::answer(Source::Panel, "command", "", "done".into())
        };
        let query = |source, status: &str, q: &str| ActivityQuery {
            source,
            status: (!status.is_empty()).then(|| status.to_owned()),
            q: (!q.is_empty()).then(|| q.to_owned()),
            at_ms: None,
        };
        assert!(wanted(&record, &query(None, "", "")));
        assert!(wanted(
            &record,
            &query(Some(Source::Panel), "done", "kitchen")
        ));
        assert!(!wanted(&record, &query(Some(Source::Mqtt), "", "")));
        assert!(!wanted(&record, &query(None, "failed", "")));
        assert!(!wanted(&record, &query(None, "", "garage")));
    }
}
