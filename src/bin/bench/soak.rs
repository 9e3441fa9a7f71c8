//! The soak: HTTP, MQTT and Wyoming clients hammer one HomeClaw (in this process, with the
//! zero-latency echo model and a real Home Assistant) for a set time. Every reply must be the
//! echo of the command that asked for it, on the session that asked: anything else is crossed,
//! no reply within the timeout is lost. RSS is sampled each second (server and clients share
//! the process, so growth is an upper bound for the server).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::Packet;
use rumqttc::v5::{AsyncClient, Event, MqttOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, oneshot};

use crate::load::{Stack, stack_config};
use crate::{percentile, rss_kib};

/// A reply later than this counts as lost.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    lost: usize,
    crossed: usize,
    /// The first few anomalies, to show what went wrong.
    examples: Vec<String>,
}

impl Tally {
    fn record(
        &mut self,
        started: Instant,
        reply: Option<(String, String)>,
        text: &str,
        session: &str,
    ) {
        self.latencies.push(started.elapsed());
        match reply {
            None => {
                self.lost += 1;
                self.example(format!("lost: {text:?} on {session}"));
            }
            Some((reply, got_session)) => {
                if reply != format!("echo: {text}")
                    || (!got_session.is_empty() && got_session != session)
                {
                    self.crossed += 1;
                    self.example(format!(
                        "crossed: {text:?} on {session} got {reply:?} on {got_session}"
                    ));
                }
            }
        }
    }

    fn example(&mut self, what: String) {
        if self.examples.len() < 3 {
            self.examples.push(what.chars().take(300).collect());
        }
    }

    fn merge(&mut self, other: Tally) {
        for e in other.examples {
            self.example(e);
        }
        self.latencies.extend(other.latencies);
        self.lost += other.lost;
        self.crossed += other.crossed;
    }
}

/// A Mosquitto broker on a free loopback port for the soak's lifetime.
struct Broker {
    child: std::process::Child,
    port: u16,
    _dir: std::path::PathBuf,
}

impl Broker {
    fn start() -> anyhow::Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let dir = std::env::temp_dir().join(format!("homeclaw-soak-broker-{port}"));
        std::fs::create_dir_all(&dir)?;
        let conf = dir.join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!(
                "listener {port} 127.0.0.1\nallow_anonymous true\nuser root\nset_tcp_nodelay true\n"
            ),
        )?;
        let bin = ["/usr/sbin/mosquitto", "mosquitto"]
            .into_iter()
            .find(|b| std::path::Path::new(b).exists() || *b == "mosquitto")
            .unwrap_or("mosquitto");
        let child = std::process::Command::new(bin)
            .arg("-c")
            .arg(&conf)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .context("start mosquitto (apt-get install mosquitto)")?;
        // Ready when it accepts a connection.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                bail!("mosquitto did not start on port {port}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Self {
            child,
            port,
            _dir: dir,
        })
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn run(
    seconds: u64,
    clients: usize,
    context_tokens: Option<usize>,
    ha_url: String,
    token_file: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let broker = Broker::start()?;
    let mut cfg = stack_config(ha_url, token_file)?;
    if let Some(tokens) = context_tokens {
        cfg.agent.context_window_tokens = tokens;
    }
    cfg.mqtt.host = Some("127.0.0.1".into());
    cfg.mqtt.port = broker.port;
    cfg.mqtt.client_id = format!("homeclaw-soak-{}", broker.port);
    cfg.mqtt.discovery = false;
    cfg.wyoming.enabled = true;
    cfg.wyoming.listen = "127.0.0.1:0".into();
    cfg.wyoming.languages = vec!["en".into()];
    cfg.panel.enabled = false;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let stack = Stack::start(cfg.clone()).await?;
        let wyoming = stack.wyoming.context("the Wyoming service did not start")?;
        let running = Arc::new(AtomicBool::new(true));
        let (rss_start, _) = rss_kib()?;
        let started = Instant::now();
        let mut http = Vec::new();
        let mut mqtt = Vec::new();
        let mut wyo = Vec::new();
        for c in 0..clients {
            http.push(tokio::spawn(http_client(stack.addr, c, running.clone())));
            mqtt.push(tokio::spawn(mqtt_client(broker.port, c, running.clone())));
            wyo.push(tokio::spawn(wyoming_client(wyoming, c, running.clone())));
        }
        // RSS each second; the first sample after warm-up is the baseline for growth.
        let mut samples = Vec::new();
        let warmup = Duration::from_secs((seconds / 10).max(1));
        while started.elapsed() < Duration::from_secs(seconds) {
            tokio::time::sleep(Duration::from_secs(1)).await;
            samples.push((started.elapsed(), rss_kib()?.0));
        }
        running.store(false, Ordering::Relaxed);
        let mut rows = Vec::new();
        let mut all = Tally::default();
        for (name, handles) in [("HTTP", http), ("MQTT", mqtt), ("Wyoming", wyo)] {
            let mut tally = Tally::default();
            for h in handles {
                tally.merge(h.await??);
            }
            rows.push((name, summarise(&mut tally, started.elapsed())));
            all.merge(tally);
        }
        let elapsed = started.elapsed();
        let total = summarise(&mut all, elapsed);
        stack.stop().await;
        let baseline = samples
            .iter()
            .find(|(t, _)| *t >= warmup)
            .map_or(rss_start, |(_, r)| *r);
        let end = samples.last().map_or(rss_start, |(_, r)| *r);
        let peak = samples.iter().map(|(_, r)| *r).max().unwrap_or(rss_start);

        println!(
            "Soak: {seconds} s, {clients} clients each over HTTP, MQTT and Wyoming, zero-latency model"
        );
        println!(
            "{:<10} {:>9} {:>9} {:>9} {:>9} {:>7} {:>8}",
            "transport", "requests", "req/s", "p50 ms", "p99 ms", "lost", "crossed"
        );
        for (name, row) in rows.iter().chain(std::iter::once(&("all", total.clone()))) {
            println!(
                "{:<10} {:>9} {:>9.0} {:>9.1} {:>9.1} {:>7} {:>8}",
                name, row.requests, row.rate, row.p50, row.p99, row.lost, row.crossed
            );
        }
        println!(
            "RSS: {:.1} MB at start, {:.1} MB after warm-up ({:.0} s), {:.1} MB at the end, peak {:.1} MB; growth after warm-up {:+.1} MB",
            rss_start as f64 / 1024.0,
            baseline as f64 / 1024.0,
            warmup.as_secs_f64(),
            end as f64 / 1024.0,
            peak as f64 / 1024.0,
            (end as f64 - baseline as f64) / 1024.0
        );
        for example in &all.examples {
            println!("  {example}");
        }
        if total.lost + total.crossed > 0 {
            bail!("{} lost and {} crossed replies", total.lost, total.crossed);
        }
        Ok(())
    })
}

/// What a command answer says (HTTP and MQTT carry the same JSON).
fn reply_and_session(body: &Value) -> (String, String) {
    let field = |k: &str| body[k].as_str().unwrap_or_default().to_owned();
    (field("reply"), field("session_id"))
}

#[derive(Clone)]
struct Row {
    requests: usize,
    rate: f64,
    p50: f64,
    p99: f64,
    lost: usize,
    crossed: usize,
}

fn summarise(tally: &mut Tally, elapsed: Duration) -> Row {
    tally.latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Row {
        requests: tally.latencies.len(),
        rate: tally.latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: ms(percentile(&tally.latencies, 0.50)),
        p99: ms(percentile(&tally.latencies, 0.99)),
        lost: tally.lost,
        crossed: tally.crossed,
    }
}

async fn http_client(
    addr: SocketAddr,
    c: usize,
    running: Arc<AtomicBool>,
) -> anyhow::Result<Tally> {
    let http = homeclaw::tls::http_client();
    let mut tally = Tally::default();
    let session = format!("soak-http-{c}");
    let mut n = 0;
    while running.load(Ordering::Relaxed) {
        let text = format!("http {c} command {n}");
        n += 1;
        let t0 = Instant::now();
        let reply = tokio::time::timeout(
            REPLY_TIMEOUT,
            http.post(format!("http://{addr}/api/command"))
                .json(&json!({"text": text, "session_id": session}))
                .send(),
        )
        .await;
        let body: Option<Value> = match reply {
            Ok(Ok(r)) if r.status().is_success() => r.json().await.ok(),
            Ok(Ok(r)) => {
                let status = r.status();
                let text = r.text().await.unwrap_or_default();
                tally.example(format!("HTTP {status}: {text}"));
                None
            }
            _ => None,
        };
        let got = body.as_ref().map(reply_and_session);
        tally.record(t0, got, &text, &session);
    }
    Ok(tally)
}

async fn mqtt_client(port: u16, c: usize, running: Arc<AtomicBool>) -> anyhow::Result<Tally> {
    let mut opts = MqttOptions::new(format!("soak-client-{c}-{port}"), "127.0.0.1", port);
    opts.set_keep_alive(Duration::from_secs(10));
    let mut network = opts.network_options();
    network.set_tcp_nodelay(true);
    opts.set_network_options(network);
    let (client, mut eventloop) = AsyncClient::new(opts, 64);
    let reply_topic = format!("soak/replies/{c}");
    let waiting: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>> = Arc::default();
    let (subscribed_tx, subscribed) = oneshot::channel();
    let pump_waiting = waiting.clone();
    let pump = tokio::spawn(async move {
        let mut subscribed_tx = Some(subscribed_tx);
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if let Some(tx) = subscribed_tx.take() {
                        let _ = tx.send(());
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if let Ok(body) = serde_json::from_slice::<Value>(&p.payload) {
                        let id = body["request_id"].as_str().unwrap_or_default().to_owned();
                        if let Some(tx) = pump_waiting.lock().await.remove(&id) {
                            let _ = tx.send(body);
                        }
                    }
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    client.subscribe(&reply_topic, QoS::AtLeastOnce).await?;
    tokio::time::timeout(REPLY_TIMEOUT, subscribed)
        .await
        .context("no SUBACK")??;
    let mut tally = Tally::default();
    let session = format!("soak-mqtt-{c}");
    let mut n = 0;
    while running.load(Ordering::Relaxed) {
        let text = format!("mqtt {c} command {n}");
        let request_id = format!("soak-{c}-{n}-{}", fastrand::u32(..));
        n += 1;
        let (tx, rx) = oneshot::channel();
        waiting.lock().await.insert(request_id.clone(), tx);
        let t0 = Instant::now();
        let payload = json!({"text": text, "session_id": session, "request_id": request_id,
            "reply_to": reply_topic});
        client
            .publish(
                "homeclaw/command",
                QoS::AtLeastOnce,
                false,
                payload.to_string(),
            )
            .await?;
        let got = match tokio::time::timeout(REPLY_TIMEOUT, rx).await {
            Ok(Ok(body)) => Some(reply_and_session(&body)),
            _ => {
                waiting.lock().await.remove(&request_id);
                None
            }
        };
        tally.record(t0, got, &text, &session);
    }
    pump.abort();
    Ok(tally)
}

async fn wyoming_client(
    addr: SocketAddr,
    c: usize,
    running: Arc<AtomicBool>,
) -> anyhow::Result<Tally> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut tally = Tally::default();
    let session = format!("soak-wyoming-{c}");
    let mut n = 0;
    while running.load(Ordering::Relaxed) {
        let text = format!("wyoming {c} command {n}");
        n += 1;
        let t0 = Instant::now();
        let event = json!({"type": "transcript", "data": {"text": text,
            "context": {"conversation_id": session}}});
        write.write_all(format!("{event}\n").as_bytes()).await?;
        let got = tokio::time::timeout(REPLY_TIMEOUT, read_reply(&mut reader))
            .await
            .ok()
            .flatten()
            .map(|data| {
                (
                    data["text"].as_str().unwrap_or_default().to_owned(),
                    String::new(),
                )
            });
        let lost = got.is_none();
        tally.record(t0, got, &text, &session);
        if lost {
            break;
        }
    }
    Ok(tally)
}

/// The data of the next `handled`/`not-handled` event (inline or as a separate data part).
async fn read_reply(reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Option<Value> {
    let mut line = String::new();
    reader.read_line(&mut line).await.ok()?;
    let header: Value = serde_json::from_str(&line).ok()?;
    if !matches!(header["type"].as_str(), Some("handled" | "not-handled")) {
        return None;
    }
    let mut data = header.get("data").cloned().unwrap_or(Value::Null);
    let len = header["data_length"].as_u64().unwrap_or(0) as usize;
    if len > 0 {
        let mut buf = vec![0u8; len];
        reader.read_exact(&mut buf).await.ok()?;
        data = serde_json::from_slice(&buf).ok()?;
    }
    let payload = header["payload_length"].as_u64().unwrap_or(0) as usize;
    if payload > 0 {
        let mut buf = vec![0u8; payload];
        reader.read_exact(&mut buf).await.ok()?;
    }
    Some(data)
}
