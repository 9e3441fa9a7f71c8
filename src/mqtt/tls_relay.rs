//! TLS to the MQTT broker on HomeClaw's own TLS stack. rumqttc's TLS feature pins an old
//! certificate verifier (`rustls-webpki` 0.102, with published advisories) beside the one
//! rustls uses; rumqttc is therefore built without TLS and talks plain MQTT to this relay over
//! a Unix socket, and the relay carries each connection to the broker through
//! [`crate::tls`]'s configuration — the same rustls, ring and roots as every other connection,
//! plus the user's own CA for a broker with a self-signed certificate.
//!
//! Invariants:
//! - The socket lives in a directory of its own that only this user may enter (0700), made
//!   anew for each relay and removed when the relay is dropped.
//! - One broker connection per accepted client connection, opened when rumqttc connects and
//!   closed with it: rumqttc's own reconnect and backoff stay in charge, and a TLS failure
//!   (an unknown CA, a wrong host name) is logged here, once per attempt, with its reason.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::ServerName;
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio_rustls::TlsConnector;
use tracing::{debug, warn};

/// A running relay; dropping it stops it and removes its socket.
#[derive(Debug)]
pub struct TlsRelay {
    socket: PathBuf,
    dir: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl TlsRelay {
    /// Listens on a fresh private socket and relays every connection to `host:port` over TLS.
    pub fn start(
        host: &str,
        port: u16,
        config: Arc<rustls::ClientConfig>,
    ) -> std::io::Result<Self> {
        let name = ServerName::try_from(host.to_owned()).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{host:?} is not a host name TLS can check: {e}"),
            )
        })?;
        let dir = private_dir()?;
        let socket = dir.join("mqtt.sock");
        let listener = match UnixListener::bind(&socket) {
            Ok(l) => l,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        let connector = TlsConnector::from(config);
        let host = host.to_owned();
        let task = tokio::spawn(async move {
            loop {
                let client = match listener.accept().await {
                    Ok((client, _)) => client,
                    Err(e) => {
                        // Out of file descriptors, say: try again shortly rather than spin.
                        warn!(error = %e, "The MQTT TLS relay cannot accept a connection");
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        continue;
                    }
                };
                let (connector, name, host) = (connector.clone(), name.clone(), host.clone());
                tokio::spawn(async move {
                    if let Err(e) = relay(client, &host, port, connector, name).await {
                        warn!(broker = %format!("{host}:{port}"), error = %e, "MQTT over TLS failed");
                    }
                });
            }
        });
        Ok(Self { socket, dir, task })
    }

    /// Where rumqttc connects (`Transport::Unix`).
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl Drop for TlsRelay {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn relay(
    mut client: UnixStream,
    host: &str,
    port: u16,
    connector: TlsConnector,
    name: ServerName<'static>,
) -> std::io::Result<()> {
    let tcp = TcpStream::connect((host, port)).await?;
    tcp.set_nodelay(true)?;
    let mut tls = connector.connect(name, tcp).await?;
    let (up, down) = tokio::io::copy_bidirectional(&mut client, &mut tls).await?;
    debug!(up, down, "MQTT connection over TLS closed");
    Ok(())
}

/// A new directory under the system's temporary directory that only this user may enter.
fn private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..8 {
        let dir = base.join(format!(
            "homeclaw-mqtt-{}-{:016x}",
            std::process::id(),
            fastrand::u64(..)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free directory name")))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[tokio::test]
    async fn the_socket_is_private_and_gone_with_the_relay() {
        let relay = TlsRelay::start("broker.invalid", 8883, crate::tls::client_config()).unwrap();
        let socket = relay.socket().to_owned();
        let dir = socket.parent().unwrap().to_owned();
        assert!(socket.exists());
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        drop(relay);
        assert!(!dir.exists());
    }

    #[tokio::test]
    async fn a_name_tls_cannot_check_is_refused_at_start() {
        let err = TlsRelay::start("not a host", 8883, crate::tls::client_config()).unwrap_err();
        assert!(err.to_string().contains("not a host"), "{err}");
    }
}
