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
    /// A second listener that speaks TLS, with a certificate of the test's own CA.
    pub tls: Option<TlsListener>,
}

pub struct TlsListener {
    pub port: u16,
    /// The CA that signed the broker's certificate (for 127.0.0.1), as PEM.
    pub ca: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A CA and a server certificate for 127.0.0.1 signed by it, made by openssl in `dir`.
fn make_certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl is installed (apt-get install openssl)");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    run(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=HomeClaw test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    )
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
        Self::start_on(dir, free_port())
    }

    /// A broker with a plain listener (for the test's clients) and a TLS one.
    pub fn start_with_tls(dir: &Path) -> Self {
        let (ca, cert, key) = make_certificates(dir);
        let tls_port = free_port();
        let listener = format!(
            "listener {tls_port} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\n",
            ca.display(),
            cert.display(),
            key.display()
        );
        let mut broker = Self::start_with(dir, free_port(), &listener);
        broker.tls = Some(TlsListener { port: tls_port, ca });
        broker
    }

    /// Starts (or restarts) a broker on `port`, persisting to `dir` so sessions survive.
    pub fn start_on(dir: &Path, port: u16) -> Self {
        Self::start_with(dir, port, "")
    }

    fn start_with(dir: &Path, port: u16, more: &str) -> Self {
        let conf = dir.join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!(
                "allow_anonymous true\nuser root\npersistence true\n\
                 persistence_location {}/\nlog_dest stdout\nlog_type error\nlog_type warning\n\
                 log_type notice\nlog_type information\nlistener {port} 127.0.0.1\n{more}",
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
            tls: None,
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
