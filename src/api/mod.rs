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

pub mod access;
pub mod auth;
pub mod openai;
pub mod origin;
pub mod panel;

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

use crate::agent::selfcheck;
use crate::app::App;
use crate::command::activity::{Record, Source};
use crate::command::{
    Answer, CommandError, CommandOutcome, CommandRequest, Commands, ErrorKind, IdempotencyKey,
};
use auth::{AuthLimiter, token_matches};

pub const REQUEST_ID: &str = "x-request-id";
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

pub struct ApiState {
    pub commands: Arc<Commands>,
    /// The port the API listens on (bound, so `:0` in a config becomes the real one): the
    /// panel tells other programs where to reach it.
    pub api_port: u16,
    pub limiter: AuthLimiter,
}

impl ApiState {
    fn app(&self) -> &App {
        self.commands.app()
    }
}

/// A JSON error with its status.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// What a command did before it failed, as a finished command's body has it: why no
    /// model answered a sentence is read where the failure is, not in the log.
    pub trace: Vec<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            trace: Vec::new(),
        }
    }

    fn body(&self) -> Value {
        let mut body = json!({"error": {"code": self.code, "message": self.message}});
        if !self.trace.is_empty() {
            body["trace"] = json!(self.trace);
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}

impl From<CommandError> for ApiError {
    fn from(e: CommandError) -> Self {
        let status = match e.kind {
            ErrorKind::InvalidFields | ErrorKind::InvalidSessionId | ErrorKind::InvalidCall => {
                StatusCode::BAD_REQUEST
            }
            ErrorKind::Busy | ErrorKind::AlreadyUsed => StatusCode::CONFLICT,
            ErrorKind::TooLong => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::Storage => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorKind::HaUnavailable
            | ErrorKind::ShuttingDown
            | ErrorKind::InProgress
            | ErrorKind::HaError => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::LlmUnavailable => StatusCode::GATEWAY_TIMEOUT,
            ErrorKind::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::UnknownApproval => StatusCode::NOT_FOUND,
            ErrorKind::Expired => StatusCode::GONE,
            ErrorKind::Denied => StatusCode::FORBIDDEN,
        };
        let mut error = ApiError::new(status, e.code(), e.message);
        error.trace = e.trace;
        error
    }
}

pub fn router(state: Arc<ApiState>) -> Router {
    let protected = Router::new()
        .route("/api/self-check", get(self_check))
        .route("/api/command", post(command))
        .route("/api/approve", post(approve))
        .route("/api/deny", post(deny))
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
        .layer(middleware::from_fn(origin::same_origin_json))
        .layer(middleware::from_fn(request_id))
        .layer(middleware::from_fn_with_state(state.clone(), redact_errors))
        .with_state(state)
}

/// Every error leaves as `{"error": {"code", "message"}}` (also axum's own rejections, a bad
/// query string or a wrong method, which are plain text or empty) and without any configured
/// secret: error bodies may quote what the client sent or what a provider answered.
pub(crate) async fn redact_errors(
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
    let clean = crate::secret::redact(&text, &state.app().cfg.secrets());
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(clean))
}

/// Serves the API until `shutdown` resolves, then lets in-flight requests finish.
pub async fn serve(
    state: Arc<ApiState>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_router(router(state), listener, shutdown).await
}

/// Serves `router` (the API's or the panel's) with each request's peer address known.
pub(crate) async fn serve_router(
    router: Router,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router.into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

pub(crate) async fn request_id(mut request: Request, next: Next) -> Response {
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
    let source = if request.uri().path().starts_with("/v1/") {
        Source::Openai
    } else {
        Source::Http
    };
    match check_token(&state, peer, &request, source) {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

/// The bearer-token check shared by the API and the panel (outside the add-on): no token
/// configured lets everything through (the panel refuses to start that way). A refusal is in
/// the activity list (who, what, why) until the address is locked out: a client that keeps
/// trying adds at most `api.auth_failures_before_lockout` records a minute.
pub(crate) fn check_token(
    state: &ApiState,
    peer: SocketAddr,
    request: &Request,
    source: Source,
) -> Result<(), ApiError> {
    let headers = request.headers();
    let Some(expected) = state.app().cfg.api.token.as_ref() else {
        return Ok(());
    };
    if state.limiter.locked_out(peer.ip()) {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "locked_out",
            "too many failed authentication attempts; try again in a minute",
        ));
    }
    let presented = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if token_matches(presented.unwrap_or_default().trim(), expected.expose()) {
        state.limiter.succeeded(peer.ip());
        Ok(())
    } else {
        state.limiter.failed(peer.ip());
        let reason = if presented.is_some() {
            "wrong token"
        } else {
            "no token"
        };
        info!(peer = %peer.ip(), reason, "Refused a request without the API's token");
        state.commands.activity().record(Record::refused(
            source,
            format!(
                "{} {} from {}",
                request.method(),
                request.uri().path(),
                peer.ip()
            ),
            reason,
        ));
        Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong bearer token",
        ))
    }
}

/// Reads the body with the configured limit and parses it as `T`.
pub async fn read_json<T: DeserializeOwned>(
    state: &ApiState,
    body: Body,
) -> Result<(T, Bytes), ApiError> {
    let limit = state.app().cfg.api.max_body_bytes;
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
    let app = state.app();
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
        "llm": {"models": app.model_names, "health": app.model.health()},
        "pending_approvals": app.approvals.pending_count(),
        "assist": assist_notice(app).await,
    }))
    .into_response()
}

/// What Assist's pipelines mean for HomeClaw, for `/api/health` and the panel: the pipelines
/// that let Home Assistant answer first (`null` when they could not be read) and, when there
/// are any, what that skips and how to switch it off.
pub(crate) async fn assist_notice(app: &App) -> Value {
    let pipelines = app.prefer_local_pipelines(Duration::from_secs(2)).await;
    let warning = pipelines.as_ref().filter(|p| !p.is_empty()).map(|_| {
        "Home Assistant answers the sentences it understands itself in these pipelines \
         (\"Prefer handling commands locally\"), without HomeClaw's approval, check or record. \
         To let HomeClaw handle every command, untick that option in Settings > Voice \
         assistants for each of them."
    });
    json!({"prefer_local_pipelines": pipelines, "warning": warning})
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
    device_id: Option<String>,
    #[serde(default)]
    satellite_id: Option<String>,
    #[serde(default)]
    dry_run: bool,
}

/// The HTTP body of a command's outcome. When every model failed after something had run, the
/// outcome (what ran) comes with 504 and an `error` object, like any other error.
fn outcome_response(outcome: &CommandOutcome) -> Response {
    let mut body = serde_json::to_value(outcome).unwrap_or(Value::Null);
    if outcome.model_unavailable {
        body["error"] = json!({"code": "llm_unavailable", "message": outcome.error});
        return (StatusCode::GATEWAY_TIMEOUT, axum::Json(body)).into_response();
    }
    axum::Json(body).into_response()
}

/// An answer as HTTP: its status and body, marked when repeated for an `Idempotency-Key`.
fn respond<T>(answer: Answer<T>, ok: impl FnOnce(&T) -> Response) -> Response {
    let mut response = match &answer.result {
        Ok(value) => ok(value),
        Err(e) => ApiError::from(e.clone()).into_response(),
    };
    if answer.replayed {
        response
            .headers_mut()
            .insert("idempotent-replay", HeaderValue::from_static("true"));
    }
    response
}

/// The request's `Idempotency-Key`; an empty or overlong one counts as none.
fn idempotency_key(headers: &HeaderMap) -> Option<IdempotencyKey> {
    headers
        .get(IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= IdempotencyKey::MAX_LEN)
        .map(|k| IdempotencyKey {
            scope: "http",
            key: k.to_owned(),
        })
}

async fn command(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    command_from(&state, &headers, body, Source::Http).await
}

/// `POST …/api/command` for any front that speaks the HTTP API's shapes (the API, the panel).
pub(crate) async fn command_from(
    state: &ApiState,
    headers: &HeaderMap,
    body: Body,
    source: Source,
) -> Response {
    let parsed: CommandBody = match read_json(state, body).await {
        Ok((parsed, _)) => parsed,
        Err(e) => return e.into_response(),
    };
    let request = CommandRequest {
        text: parsed.text,
        session_id: parsed.session_id,
        language: parsed.language,
        device_id: parsed.device_id,
        satellite_id: parsed.satellite_id,
        dry_run: parsed.dry_run,
        shared_session: false,
        source,
    };
    let answer = state
        .commands
        .submit(request, idempotency_key(headers))
        .await;
    respond(answer, outcome_response)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    approval_id: String,
}

async fn approve(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Body) -> Response {
    approve_from(&state, &headers, body, Source::Http).await
}

pub(crate) async fn approve_from(
    state: &ApiState,
    headers: &HeaderMap,
    body: Body,
    source: Source,
) -> Response {
    let parsed: ApproveBody = match read_json(state, body).await {
        Ok((parsed, _)) => parsed,
        Err(e) => return e.into_response(),
    };
    let answer = state
        .commands
        .approve(&parsed.approval_id, idempotency_key(headers), source)
        .await;
    respond(answer, |outcome| axum::Json(outcome).into_response())
}

async fn deny(State(state): State<Arc<ApiState>>, body: Body) -> Response {
    deny_from(&state, body, Source::Http).await
}

/// Declines a held action: it never runs, and its id is spent.
pub(crate) async fn deny_from(state: &ApiState, body: Body, source: Source) -> Response {
    let parsed: ApproveBody = match read_json(state, body).await {
        Ok((parsed, _)) => parsed,
        Err(e) => return e.into_response(),
    };
    match state.commands.decline(&parsed.approval_id, source) {
        Ok(outcome) => axum::Json(outcome).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn session(State(state): State<Arc<ApiState>>, Path(id): Path<String>) -> Response {
    let app = state.app();
    let store = app.sessions.store();
    if let Err(e) = crate::session::store::validate_id(&id) {
        return ApiError::new(StatusCode::BAD_REQUEST, "invalid_session_id", e.to_string())
            .into_response();
    }
    if !store.exists(&id) {
        return ApiError::new(StatusCode::NOT_FOUND, "unknown_session", "no such session")
            .into_response();
    }
    match app.sessions.view(&id) {
        Ok(loaded) => {
            let text = serde_json::to_string(&loaded.messages).unwrap_or_else(|_| "[]".into());
            let redacted = crate::secret::redact(&text, &state.app().cfg.secrets());
            let messages: Value = serde_json::from_str(&redacted).unwrap_or(Value::Null);
            let mut body = json!({"session_id": id, "messages": messages});
            if !loaded.warnings.is_empty() {
                body["warnings"] = json!(loaded.warnings);
            }
            axum::Json(body).into_response()
        }
        Err(e) => ApiError::from(CommandError::from(e)).into_response(),
    }
}

#[cfg(test)]
mod tests;
