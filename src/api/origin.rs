//! Cross-site request forgery guard for every request that changes something.
//!
//! A web page the person happens to visit can make their browser send a request to
//! `127.0.0.1` or the LAN: a `<form>` posts `text/plain` without a preflight, and the server
//! would read its body as JSON. So a state-changing request must say it is JSON (which a form
//! cannot, and which a cross-origin `fetch` may only send after a CORS preflight that we never
//! answer), and when a browser tells where it comes from (`Sec-Fetch-Site`, `Origin`), that
//! must be this very origin. A client that is not a browser sends neither header and passes,
//! still subject to the bearer token.

use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use tracing::warn;

use super::{ApiError, ApiState};

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The body is not declared as `application/json`; the declared type, if any.
    NotJson(Option<String>),
    /// The browser says the request comes from another site or origin.
    CrossOrigin(String),
}

impl Refusal {
    fn into_error(self) -> ApiError {
        match self {
            Refusal::NotJson(declared) => ApiError::new(
                StatusCode::FORBIDDEN,
                "json_required",
                format!(
                    "a request that changes something must be sent as Content-Type: \
                     application/json (got {})",
                    declared.as_deref().unwrap_or("none")
                ),
            ),
            Refusal::CrossOrigin(why) => ApiError::new(
                StatusCode::FORBIDDEN,
                "cross_origin",
                format!("requests from another web site are refused ({why})"),
            ),
        }
    }
}

/// Whether `method` can change something (everything but reads and preflights).
fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// `scheme://host[:port]` or a bare `host[:port]` as lowercase `host:port`, the scheme's default
/// port made explicit so that `http://a` and `a:80` compare equal.
fn authority(value: &str, scheme_hint: &str) -> Option<String> {
    let value = value.trim();
    let (scheme, rest) = match value.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => (scheme_hint.to_owned(), value),
    };
    let host_port = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    if host_port.is_empty() || host_port.contains('@') {
        return None;
    }
    // A port is what follows the last ':' unless it closes an IPv6 literal.
    let has_port = host_port
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.contains(']') && !port.is_empty());
    if has_port {
        return Some(host_port);
    }
    let port = match scheme.as_str() {
        "https" | "wss" => 443,
        _ => 80,
    };
    Some(format!("{host_port}:{port}"))
}

/// The pure rule. `forwarded_host_trusted`: the peer is a proxy we trust (ingress), whose
/// `X-Forwarded-Host` names the host the browser spoke to.
pub fn check(
    method: &Method,
    headers: &HeaderMap,
    forwarded_host_trusted: bool,
) -> Result<(), Refusal> {
    if !changes_state(method) {
        return Ok(());
    }
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .map(|v| v.to_str().map(str::trim).unwrap_or("(not text)"))
    };
    let content_type = text(header::CONTENT_TYPE);
    let json = content_type.is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json {
        return Err(Refusal::NotJson(content_type.map(str::to_owned)));
    }
    // A browser's own word (a header no page can set) decides where it has one: it holds behind
    // proxies that rewrite the host. Older browsers, and plain-HTTP origins that are not
    // "potentially trustworthy", send only `Origin`.
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("(not text)").trim();
        return if matches!(site, "same-origin" | "none") {
            Ok(())
        } else {
            Err(Refusal::CrossOrigin(format!("Sec-Fetch-Site: {site}")))
        };
    }
    let Some(origin) = text(header::ORIGIN) else {
        return Ok(());
    };
    let scheme = origin.split_once("://").map_or("http", |(s, _)| s);
    let Some(from) = authority(origin, scheme) else {
        return Err(Refusal::CrossOrigin(format!("Origin: {origin}")));
    };
    let host = text(header::HOST).and_then(|h| authority(h, scheme));
    let forwarded = forwarded_host_trusted
        .then(|| text(header::HeaderName::from_static("x-forwarded-host")))
        .flatten()
        .and_then(|h| authority(h.split(',').next().unwrap_or(h), scheme));
    if host.as_deref() == Some(from.as_str()) || forwarded.as_deref() == Some(from.as_str()) {
        Ok(())
    } else {
        Err(Refusal::CrossOrigin(format!("Origin: {origin}")))
    }
}

/// The guard as middleware for the API: no proxy's word about the host is believed.
pub(crate) async fn same_origin_json(
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    guard(peer, false, request, next).await
}

/// The guard for the panel: behind ingress, the proxy's `X-Forwarded-Host` names the host the
/// browser spoke to (the peer check has already let only that proxy in).
pub(crate) async fn same_origin_json_panel(
    State(state): State<Arc<ApiState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let panel = &state.app().cfg.panel;
    let trusted = panel.auth == crate::config::PanelAuth::Ingress && panel.allows(peer.ip());
    guard(peer, trusted, request, next).await
}

/// A refused request is answered 403 and logged; nothing runs.
async fn guard(peer: SocketAddr, trusted: bool, request: Request, next: Next) -> Response {
    match check(request.method(), request.headers(), trusted) {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            warn!(
                peer = %peer.ip(),
                method = %request.method(),
                path = %request.uri().path(),
                refusal = ?refusal,
                "Refused a request that could come from another web site; nothing was run"
            );
            refusal.into_error().into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    const JSON: (&str, &str) = ("content-type", "application/json");

    #[test]
    fn reads_pass_whatever_they_carry() {
        let h = headers(&[("sec-fetch-site", "cross-site"), ("origin", "http://evil")]);
        assert_eq!(check(&Method::GET, &h, false), Ok(()));
        assert_eq!(check(&Method::HEAD, &h, false), Ok(()));
    }

    #[test]
    fn a_change_must_be_declared_json() {
        for ct in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonp"),
        ] {
            let h = match ct {
                Some(ct) => headers(&[("content-type", ct)]),
                None => HeaderMap::new(),
            };
            assert_eq!(
                check(&Method::POST, &h, false),
                Err(Refusal::NotJson(ct.map(str::to_owned))),
                "{ct:?}"
            );
        }
        for ct in ["application/json", "Application/JSON; charset=utf-8"] {
            assert_eq!(
                check(&Method::POST, &headers(&[("content-type", ct)]), false),
                Ok(())
            );
        }
    }

    #[test]
    fn a_browser_from_another_site_or_port_is_refused() {
        for site in ["cross-site", "same-site"] {
            let h = headers(&[JSON, ("sec-fetch-site", site)]);
            assert!(matches!(
                check(&Method::POST, &h, false),
                Err(Refusal::CrossOrigin(_))
            ));
        }
        // Another port of the same host is another origin.
        let h = headers(&[
            JSON,
            ("host", "127.0.0.1:8100"),
            ("origin", "http://127.0.0.1:9999"),
        ]);
        assert!(matches!(
            check(&Method::POST, &h, false),
            Err(Refusal::CrossOrigin(_))
        ));
        // An opaque origin (sandboxed frame, file://) is nobody we know.
        let h = headers(&[JSON, ("host", "127.0.0.1:8100"), ("origin", "null")]);
        assert!(matches!(
            check(&Method::POST, &h, false),
            Err(Refusal::CrossOrigin(_))
        ));
        // An Origin with no Host to compare it with is refused too.
        let h = headers(&[JSON, ("origin", "http://127.0.0.1:8100")]);
        assert!(matches!(
            check(&Method::POST, &h, false),
            Err(Refusal::CrossOrigin(_))
        ));
    }

    #[test]
    fn the_same_origin_and_clients_that_are_not_browsers_pass() {
        let h = headers(&[
            JSON,
            ("host", "127.0.0.1:8100"),
            ("origin", "http://127.0.0.1:8100"),
            ("sec-fetch-site", "same-origin"),
        ]);
        assert_eq!(check(&Method::POST, &h, false), Ok(()));
        // Default ports on either side.
        let h = headers(&[
            JSON,
            ("host", "homeassistant.local"),
            ("origin", "http://HomeAssistant.local:80"),
        ]);
        assert_eq!(check(&Method::POST, &h, false), Ok(()));
        let h = headers(&[
            JSON,
            ("host", "[::1]:8100"),
            ("origin", "http://[::1]:8100"),
        ]);
        assert_eq!(check(&Method::POST, &h, false), Ok(()));
        // curl, scripts, the CLI: no browser headers at all.
        assert_eq!(check(&Method::POST, &headers(&[JSON]), false), Ok(()));
    }

    #[test]
    fn the_forwarded_host_counts_only_from_a_trusted_proxy() {
        let h = headers(&[
            JSON,
            ("host", "172.30.33.5:8100"),
            ("x-forwarded-host", "homeassistant.local:8123"),
            ("origin", "http://homeassistant.local:8123"),
        ]);
        assert_eq!(check(&Method::POST, &h, true), Ok(()));
        assert!(matches!(
            check(&Method::POST, &h, false),
            Err(Refusal::CrossOrigin(_))
        ));
    }
}
