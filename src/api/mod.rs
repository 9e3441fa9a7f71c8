//! The HTTP API (axum): commands, approvals, sessions, health, self-check, and an
//! OpenAI-compatible front so any chat client can talk to HomeClaw as if it were a model.
//!
//! Invariants:
//! - Every failure is JSON `{"error": {"code", "message"}}` with a fitting status.
//! - Bodies are read with a size limit (413 beyond it) and parsed by us, so malformed JSON gets
//!   a clear 400 naming the problem.
//! - Auth (when a token is configured) covers everything but `/api/health`, compares in
//!   constant time, and locks out an address after repeated failures.
//! - `X-Request-ID` is echoed (or made) and attached to the request's tracing span.

pub mod auth;
pub mod idempotency;
pub mod openai;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tracing::{Instrument, info, info_span};

use crate::agent::RunStatus;
use crate::agent::approval::{ApprovalError, ExecuteError, execute_approved};
use crate::agent::selfcheck;
use crate::app::App;
use crate::ha::services::CallError;
use crate::session::manager::{CommandOutcome, CommandRequest, SessionError};
use auth::{AuthLimiter, token_matches};
use idempotency::{Claim, IdempotencyStore};

pub const REQUEST_ID: &str = "x-request-id";
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

pub struct ApiState {
    pub app: Arc<App>,
    pub idempotency: IdempotencyStore,
    pub limiter: AuthLimiter,
}

/// A JSON error with its status.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    fn body(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message}})
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}

impl From<SessionError> for ApiError {
    fn from(e: SessionError) -> Self {
        let (status, code) = match &e {
            SessionError::Busy { .. } => (StatusCode::CONFLICT, "busy"),
            SessionError::InvalidId(_) => (StatusCode::BAD_REQUEST, "invalid_session_id"),
            SessionError::TooLong { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "too_long"),
            SessionError::Store(_) => (StatusCode::INTERNAL_SERVER_ERROR, "storage"),
            SessionError::Closed => (StatusCode::SERVICE_UNAVAILABLE, "shutting_down"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

pub fn router(state: Arc<ApiState>) -> Router {
    let protected = Router::new()
        .route("/api/self-check", get(self_check))
        .route("/api/command", post(command))
        .route("/api/approve", post(approve))
        .route("/api/sessions/{id}", get(session))
        .route("/v1/chat/completions", post(openai::chat_completions))
        .route("/v1/models", get(openai::models))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/api/health", get(health))
        .merge(protected)
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
        })
        .layer(middleware::from_fn(request_id))
        .layer(middleware::from_fn_with_state(state.clone(), redact_errors))
        .with_state(state)
}

/// Every error leaves as `{"error": {"code", "message"}}` (also axum's own rejections, a bad
/// query string or a wrong method, which are plain text or empty) and without any configured
/// secret: error bodies may quote what the client sent or what a provider answered.
async fn redact_errors(
    State(state): State<Arc<ApiState>>,
    request: Request,
    next: Next,
) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, 1 << 20).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    };
    let ours = serde_json::from_str::<Value>(&text).is_ok_and(|v| v["error"]["code"].is_string());
    let text = if ours {
        text
    } else {
        let code = match status {
            StatusCode::BAD_REQUEST => "bad_request",
            StatusCode::NOT_FOUND => "not_found",
            StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
            StatusCode::PAYLOAD_TOO_LARGE => "too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            _ => "error",
        };
        let message = match text.trim() {
            "" => status.canonical_reason().unwrap_or("error").to_owned(),
            t => t.to_owned(),
        };
        parts.headers.insert(
            axum::http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        json!({"error": {"code": code, "message": message}}).to_string()
    };
    let clean = crate::secret::redact(&text, &state.app.cfg.secrets());
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(clean))
}

/// Serves until `shutdown` resolves, then lets in-flight requests finish.
pub async fn serve(
    state: Arc<ApiState>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

async fn request_id(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.chars().all(|c| c.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("req-{:016x}", fastrand::u64(..)));
    if let Ok(value) = HeaderValue::from_str(&id) {
        request.headers_mut().insert(REQUEST_ID, value);
    }
    let span = info_span!("request", request_id = %id, method = %request.method(), path = %request.uri().path());
    let mut response = next.run(request).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    response
}

async fn require_token(
    State(state): State<Arc<ApiState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let Some(expected) = state.app.cfg.api.token.as_ref() else {
        return next.run(request).await;
    };
    if state.limiter.locked_out(peer.ip()) {
        return ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "locked_out",
            "too many failed authentication attempts; try again in a minute",
        )
        .into_response();
    }
    let presented = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    if token_matches(presented.trim(), expected.expose()) {
        state.limiter.succeeded(peer.ip());
        next.run(request).await
    } else {
        state.limiter.failed(peer.ip());
        info!(peer = %peer.ip(), "Refused a request with a missing or wrong token");
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong bearer token",
        )
        .into_response()
    }
}

/// Reads the body with the configured limit and parses it as `T`.
pub async fn read_json<T: DeserializeOwned>(
    state: &ApiState,
    body: Body,
) -> Result<(T, Bytes), ApiError> {
    let limit = state.app.cfg.api.max_body_bytes;
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|e| {
        // The limit's error is one kind among others (a broken chunked encoding, a client
        // that went away); only it is "too large".
        let mut source: Option<&dyn std::error::Error> = Some(&e);
        let mut over_limit = false;
        while let Some(err) = source {
            over_limit |= err.to_string().contains("length limit exceeded");
            source = err.source();
        }
        if over_limit {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("request body is over {limit} bytes"),
            )
        } else {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                format!("request body could not be read: {e}"),
            )
        }
    })?;
    let value = serde_json::from_slice(&bytes).map_err(|e| {
        let code = if e.is_data() {
            "invalid_fields"
        } else {
            "invalid_json"
        };
        ApiError::new(StatusCode::BAD_REQUEST, code, format!("request body: {e}"))
    })?;
    Ok((value, bytes))
}

fn ha_ready(app: &App) -> Result<(), ApiError> {
    let state = app.ha_state();
    if state.is_connected() && app.registry_ready() {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ha_unavailable",
            format!("Home Assistant is not available ({})", state.label()),
        ))
    }
}

#[derive(Debug, Deserialize)]
struct HealthQuery {
    /// Wait up to this long for Home Assistant and the registry to be ready (for scripts).
    #[serde(default)]
    wait_ready_ms: Option<u64>,
}

async fn health(
    State(state): State<Arc<ApiState>>,
    axum::extract::Query(query): axum::extract::Query<HealthQuery>,
) -> Response {
    let app = &state.app;
    if let Some(ms) = query.wait_ready_ms {
        let _ = app.wait_ready(Duration::from_millis(ms.min(60_000))).await;
    }
    let ha = app.ha_state();
    let (entities, version) = app
        .home
        .registry
        .read(|r| (r.len(), r.ha_version().to_owned()));
    axum::Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "home_assistant": {"state": ha.label(), "version": version},
        "registry": {"entities": entities, "synced": app.registry_ready()},
        "llm": {"models": app.model_names},
        "pending_approvals": app.approvals.pending_count(),
    }))
    .into_response()
}

async fn self_check() -> Response {
    let checks = selfcheck::run_all().await;
    let ok = checks.iter().all(|c| c.ok);
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    };
    (status, axum::Json(json!({"ok": ok, "checks": checks}))).into_response()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandBody {
    text: String,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// The JSON every command entry point answers with (HTTP, MQTT, OpenAI front).
pub fn outcome_json(outcome: &CommandOutcome) -> Value {
    let result = &outcome.result;
    let mut body = json!({
        "status": result.status.as_str(),
        "reply": result.reply,
        "session_id": outcome.session_id,
        "actions": result.actions,
        "trace": result.trace,
        "stats": result.stats,
    });
    if let Some(pending) = &result.approval {
        body["approval_id"] = json!(pending.id);
    }
    if let RunStatus::Failed(reason) | RunStatus::ModelUnavailable(reason) = &result.status {
        body["error"] = json!(reason);
    }
    if !outcome.warnings.is_empty() {
        body["warnings"] = json!(outcome.warnings);
    }
    body
}

/// A fresh session id for commands that do not name one.
pub fn new_session_id() -> String {
    format!("s-{:016x}", fastrand::u64(..))
}

/// Runs a command in its session and maps the outcome to an HTTP status and body.
pub async fn run_command(
    state: &ApiState,
    session_id: &str,
    request: CommandRequest,
) -> Result<(StatusCode, Value), ApiError> {
    ha_ready(&state.app)?;
    let outcome = state.app.sessions.submit(session_id, request).await?;
    if let RunStatus::ModelUnavailable(reason) = &outcome.result.status {
        if outcome.result.actions.is_empty() {
            return Err(ApiError::new(
                StatusCode::GATEWAY_TIMEOUT,
                "llm_unavailable",
                reason.clone(),
            ));
        }
        // Something already ran: the answer says what, and (being no server error of the
        // retry-me kind for the idempotency store) it is pinned to the key, so a retry does not
        // run it again.
        let mut body = outcome_json(&outcome);
        body["error"] = json!({"code": "llm_unavailable", "message": reason});
        return Ok((StatusCode::GATEWAY_TIMEOUT, body));
    }
    Ok((StatusCode::OK, outcome_json(&outcome)))
}

/// Runs `work` once per `Idempotency-Key` (when the header is present).
async fn idempotent<F>(
    state: &ApiState,
    headers: &HeaderMap,
    scope: &str,
    body: &[u8],
    work: F,
) -> Response
where
    F: std::future::Future<Output = Result<(StatusCode, Value), ApiError>>,
{
    let key = headers
        .get(IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= 200);
    let Some(key) = key else {
        return match work.await {
            Ok((status, body)) => (status, axum::Json(body)).into_response(),
            Err(e) => e.into_response(),
        };
    };
    match state.idempotency.claim(scope, key, body) {
        Claim::Mismatch => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "idempotency_key_reused",
            "this Idempotency-Key was used with a different request body",
        )
        .into_response(),
        Claim::Repeat(cell) => {
            let (status, body) = cell
                .get_or_init(|| async {
                    (
                        503,
                        ApiError::new(
                            StatusCode::SERVICE_UNAVAILABLE,
                            "in_progress",
                            "the first request with this key did not finish",
                        )
                        .body(),
                    )
                })
                .await
                .clone();
            let mut response = (
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                axum::Json(body),
            )
                .into_response();
            response
                .headers_mut()
                .insert("idempotent-replay", HeaderValue::from_static("true"));
            response
        }
        Claim::Fresh(cell) => {
            let answer = match work.await {
                Ok((status, body)) => (status.as_u16(), body),
                Err(e) if e.status.is_server_error() || e.status == StatusCode::CONFLICT => {
                    // Nothing ran (or it may be retried): do not pin this answer to the key.
                    state.idempotency.release(scope, key);
                    return e.into_response();
                }
                Err(e) => (e.status.as_u16(), e.body()),
            };
            state
                .idempotency
                .complete(scope, key, &cell, answer.clone());
            (
                StatusCode::from_u16(answer.0).unwrap_or(StatusCode::OK),
                axum::Json(answer.1),
            )
                .into_response()
        }
    }
}

async fn command(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    let (parsed, raw): (CommandBody, Bytes) = match read_json(&state, body).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    if parsed.text.trim().is_empty() {
        return ApiError::new(StatusCode::BAD_REQUEST, "invalid_fields", "text is empty")
            .into_response();
    }
    let _ = parsed.language;
    let session_id = parsed.session_id.clone().unwrap_or_else(new_session_id);
    let request = CommandRequest {
        text: parsed.text,
        dry_run: parsed.dry_run,
    };
    idempotent(&state, &headers, "/api/command", &raw, async {
        run_command(&state, &session_id, request).await
    })
    .await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    approval_id: String,
}

async fn approve(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    let (parsed, raw): (ApproveBody, Bytes) = match read_json(&state, body).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    idempotent(&state, &headers, "/api/approve", &raw, async {
        ha_ready(&state.app)?;
        let app = &state.app;
        let timeout = Duration::from_millis(app.cfg.agent.verify_timeout_ms);
        let report = execute_approved(
            app.home.as_ref(),
            &app.approvals,
            &parsed.approval_id,
            timeout,
        )
        .await
        .map_err(|e| {
            let (status, code) = match &e {
                ExecuteError::Approval(ApprovalError::Unknown(_)) => {
                    (StatusCode::NOT_FOUND, "unknown_approval")
                }
                ExecuteError::Approval(ApprovalError::AlreadyUsed(_)) => {
                    (StatusCode::CONFLICT, "already_used")
                }
                ExecuteError::Approval(ApprovalError::Expired(_)) => (StatusCode::GONE, "expired"),
                ExecuteError::Approval(ApprovalError::Denied(_)) => {
                    (StatusCode::FORBIDDEN, "denied")
                }
                ExecuteError::Call(CallError::Ha(_)) => {
                    (StatusCode::SERVICE_UNAVAILABLE, "ha_error")
                }
                ExecuteError::Call(_) => (StatusCode::BAD_REQUEST, "invalid_call"),
            };
            ApiError::new(status, code, e.to_string())
        })?;
        let reply = if report.verified {
            format!("Done: {}.", report.describe())
        } else {
            format!(
                "Home Assistant accepted {}, but the expected state was not observed ({:?}).",
                report.describe(),
                report.observed_state
            )
        };
        Ok((
            StatusCode::OK,
            json!({
                "status": "done",
                "reply": reply,
                "approval_id": parsed.approval_id,
                "actions": [report],
            }),
        ))
    })
    .await
}

async fn session(State(state): State<Arc<ApiState>>, Path(id): Path<String>) -> Response {
    let store = state.app.sessions.store();
    if let Err(e) = crate::session::store::validate_id(&id) {
        return ApiError::new(StatusCode::BAD_REQUEST, "invalid_session_id", e.to_string())
            .into_response();
    }
    if !store.exists(&id) {
        return ApiError::new(StatusCode::NOT_FOUND, "unknown_session", "no such session")
            .into_response();
    }
    match state.app.sessions.view(&id) {
        Ok(loaded) => {
            let text = serde_json::to_string(&loaded.messages).unwrap_or_else(|_| "[]".into());
            let redacted = crate::secret::redact(&text, &state.app.cfg.secrets());
            let messages: Value = serde_json::from_str(&redacted).unwrap_or(Value::Null);
            let mut body = json!({"session_id": id, "messages": messages});
            if !loaded.warnings.is_empty() {
                body["warnings"] = json!(loaded.warnings);
            }
            axum::Json(body).into_response()
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}
