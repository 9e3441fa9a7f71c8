//! A real Mosquitto broker (Debian package) on a free loopback port, and a small MQTT test
//! client. Readiness is Mosquitto's own "running" log line; the tests never sleep to wait.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::Packet;
use rumqttc::v5::{AsyncClient, Event, MqttOptions};
use serde_json::Value;
use tokio::sync::mpsc;

pub struct Mosquitto {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

fn binary() -> &'static str {
    if Path::new("/usr/sbin/mosquitto").exists() {
        "/usr/sbin/mosquitto"
    } else {
        "mosquitto"
    }
}

impl Mosquitto {
    pub fn start(dir: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::start_on(dir, port)
    }

    /// Starts (or restarts) a broker on `port`, persisting to `dir` so sessions survive.
    pub fn start_on(dir: &Path, port: u16) -> Self {
        let conf = dir.join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!(
                "listener {port} 127.0.0.1\nallow_anonymous true\nuser root\npersistence true\n\
                 persistence_location {}/\nlog_dest stdout\nlog_type error\nlog_type warning\n\
                 log_type notice\nlog_type information\n",
                dir.display()
            ),
        )
        .unwrap();
        // stdbuf: Mosquitto's log to a pipe is block-buffered; its "running" line must arrive
        // when it is written.
        let mut child = Command::new("stdbuf")
            .args(["-oL", binary(), "-c", conf.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto is installed (apt-get install mosquitto)");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        loop {
            match lines.next() {
                Some(Ok(line)) if line.contains(" running") => break,
                Some(Ok(_)) => {}
                _ => panic!("mosquitto exited before running"),
            }
        }
        // Keep draining the log so the pipe never fills.
        std::thread::spawn(move || for _ in lines {});
        Self {
            child,
            port,
            dir: dir.to_owned(),
        }
    }

    /// SIGTERM (Mosquitto saves its persistence file), then wait.
    pub fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }

    pub fn restart(&mut self) {
        self.stop();
        let again = Self::start_on(&self.dir.clone(), self.port);
        *self = again;
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Received {
    pub topic: String,
    pub payload: Bytes,
    pub correlation: Option<Bytes>,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.payload).unwrap_or(Value::Null)
    }
}

pub struct TestClient {
    pub client: AsyncClient,
    pub rx: mpsc::UnboundedReceiver<Received>,
}

impl TestClient {
    /// Connects with a persistent session (so QoS 1 messages wait while it is offline) and
    /// subscribes to `topics`.
    pub async fn connect(port: u16, id: &str, topics: &[&str]) -> Self {
        let mut opts = MqttOptions::new(id, "127.0.0.1", port);
        opts.set_keep_alive(Duration::from_secs(5));
        opts.set_clean_start(false);
        opts.set_session_expiry_interval(Some(3600));
        let (client, mut eventloop) = AsyncClient::new(opts, 64);
        let (tx, rx) = mpsc::unbounded_channel();
        let (ready_tx, mut ready_rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            loop {
                match eventloop.poll().await {
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        let _ = ready_tx.send(());
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let _ = tx.send(Received {
                            topic: String::from_utf8_lossy(&p.topic).into_owned(),
                            payload: p.payload.clone(),
                            correlation: p.properties.and_then(|pr| pr.correlation_data),
                        });
                    }
                    Ok(_) => {}
                    // Reconnect pacing while the broker is down (not synchronisation).
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        for topic in topics {
            client.subscribe(*topic, QoS::AtLeastOnce).await.unwrap();
        }
        for _ in topics {
            tokio::time::timeout(Duration::from_secs(10), ready_rx.recv())
                .await
                .expect("SUBACK")
                .unwrap();
        }
        Self { client, rx }
    }

    pub async fn publish(&self, topic: &str, payload: impl Into<Bytes>) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload.into())
            .await
            .unwrap();
    }

    /// Publishes with MQTT v5 response topic and correlation data.
    pub async fn publish_v5(
        &self,
        topic: &str,
        payload: &str,
        response_topic: &str,
        correlation: &str,
    ) {
        let properties = rumqttc::v5::mqttbytes::v5::PublishProperties {
            response_topic: Some(response_topic.to_owned()),
            correlation_data: Some(Bytes::from(correlation.to_owned())),
            ..Default::default()
        };
        self.client
            .publish_with_properties(
                topic,
                QoS::AtLeastOnce,
                false,
                payload.to_owned(),
                properties,
            )
            .await
            .unwrap();
    }

    /// The next message on `topic` matching `filter`, within `secs`.
    pub async fn next_on(
        &mut self,
        topic: &str,
        secs: u64,
        filter: impl Fn(&Received) -> bool,
    ) -> Received {
        tokio::time::timeout(Duration::from_secs(secs), async {
            loop {
                let msg = self.rx.recv().await.expect("client alive");
                if msg.topic == topic && filter(&msg) {
                    return msg;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no message on {topic} within {secs} s"))
    }
}
