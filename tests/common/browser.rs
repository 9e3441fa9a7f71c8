//! A real headless Chromium (Debian's `chromium`), driven over the DevTools protocol: the page
//! is loaded, typed into and clicked as a person would, and photographed.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any one step may take before the test fails (a guard, never a pause).
const STEP: Duration = Duration::from_secs(30);

pub struct Browser {
    child: Child,
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

/// The Chromium binary: Debian's, or `CHROMIUM` when set.
fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("chromium"), PathBuf::from)
}

impl Browser {
    /// Starts Chromium with an empty profile and attaches to its first tab.
    pub async fn launch(width: u32, height: u32) -> Self {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium())
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--remote-debugging-port=0",
                "--hide-scrollbars",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start chromium (Debian's package; .ci/run installs it)");
        // Chromium announces its DevTools endpoint on stderr once it listens.
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let announced = tokio::time::timeout(STEP, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(at) = line.find("ws://") {
                    return Some(line[at..].trim().to_owned());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .expect("chromium announced no DevTools endpoint");
        // Keep draining stderr so Chromium never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let port = announced
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap()
            .to_owned();
        let targets: Value = homeclaw::tls::http_client()
            .get(format!("http://{port}/json/list"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let page = targets
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .expect("a tab")["webSocketDebuggerUrl"]
            .as_str()
            .unwrap()
            .to_owned();
        let (ws, _) = tokio_tungstenite::connect_async(page.as_str())
            .await
            .unwrap();
        let mut browser = Self {
            child,
            ws,
            next_id: 0,
            _profile: profile,
        };
        browser.call("Page.enable", json!({})).await;
        browser
    }

    /// Sends one DevTools command and returns its result (events met meanwhile are dropped,
    /// except through [`Browser::until_event`]).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params).await;
        let id = self.next_id;
        self.until(|m| m["id"] == id)
            .await
            .get("result")
            .cloned()
            .unwrap_or(Value::Null)
    }

    async fn send(&mut self, method: &str, params: Value) {
        self.next_id += 1;
        let message = json!({"id": self.next_id, "method": method, "params": params});
        self.ws
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
    }

    async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let ws = &mut self.ws;
        tokio::time::timeout(STEP, async {
            while let Some(Ok(message)) = ws.next().await {
                if let Message::Text(text) = message {
                    let value: Value = serde_json::from_str(&text).unwrap();
                    if let Some(error) = value.get("error") {
                        panic!("DevTools error: {error}");
                    }
                    if wanted(&value) {
                        return value;
                    }
                }
            }
            panic!("the DevTools connection closed");
        })
        .await
        .expect("no answer from Chromium in time")
    }

    /// Opens `url` and returns once its load event fired.
    pub async fn open(&mut self, url: &str) {
        self.send("Page.navigate", json!({"url": url})).await;
        self.until(|m| m["method"] == "Page.loadEventFired").await;
    }

    /// Runs `expression` (which makes the page navigate: a form's submit, a link's click) and
    /// returns once the next page's load event fired.
    pub async fn navigate_by(&mut self, expression: &str) {
        self.send(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        )
        .await;
        self.until(|m| m["method"] == "Page.loadEventFired").await;
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value; a thrown
    /// error fails the test with its text.
    pub async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
            )
            .await;
        if let Some(details) = result.get("exceptionDetails") {
            panic!("{expression}\nthrew: {details}");
        }
        result["result"]["value"].clone()
    }

    /// Waits in the page (a `MutationObserver`, not a poll) until `condition` — a JS
    /// expression — is truthy, and returns its value.
    pub async fn wait_for(&mut self, condition: &str) -> Value {
        self.eval(&format!(
            "new Promise((resolve, reject) => {{
                const check = () => {{ const v = ({condition}); if (v) {{ observer.disconnect(); resolve(v); return true; }} return false; }};
                const observer = new MutationObserver(check);
                if (!check()) {{
                    observer.observe(document, {{subtree: true, childList: true, characterData: true, attributes: true}});
                    setTimeout(() => {{ observer.disconnect(); reject(new Error('never: ' + {condition:?})); }}, 25000);
                }}
            }})"
        ))
        .await
    }

    /// Presses `key` ("Enter", "Space") on whatever has the focus, as a keyboard does.
    pub async fn press(&mut self, key: &str) {
        let (key, code, text, vk) = match key {
            "Space" => (" ", "Space", " ", 32),
            _ => ("Enter", "Enter", "\r", 13),
        };
        for kind in ["keyDown", "keyUp"] {
            let mut params = json!({"type": kind, "key": key, "code": code,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk});
            if kind == "keyDown" {
                params["text"] = json!(text);
            }
            self.call("Input.dispatchKeyEvent", params).await;
        }
    }

    /// As [`Browser::wait_for`], for a page that changes inside shadow roots (Home Assistant's
    /// own UI), which a `MutationObserver` on the document does not see: the condition is
    /// checked on every animation frame until it holds.
    pub async fn wait_for_rendered(&mut self, condition: &str) -> Value {
        self.eval(&format!(
            "new Promise((resolve, reject) => {{
                const until = performance.now() + 45000;
                const check = () => {{
                    const v = ({condition});
                    if (v) return resolve(v);
                    if (performance.now() > until) return reject(new Error('never: ' + {condition:?}));
                    requestAnimationFrame(check);
                }};
                check();
            }})"
        ))
        .await
    }

    /// Shows the page at `width`×`height` (a phone, a desktop).
    pub async fn resize(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .await;
    }

    /// Saves a PNG of the whole page.
    pub async fn screenshot(&mut self, path: &Path) {
        self.capture(path, true).await;
    }

    /// Saves a PNG of what the window shows (a page longer than it is cut where a person's
    /// screen would cut it).
    pub async fn screenshot_window(&mut self, path: &Path) {
        self.capture(path, false).await;
    }

    async fn capture(&mut self, path: &Path, whole: bool) {
        let shot = self
            .call(
                "Page.captureScreenshot",
                json!({"format": "png", "captureBeyondViewport": whole}),
            )
            .await;
        let data = shot["data"].as_str().expect("screenshot data");
        use base64::Engine;
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
