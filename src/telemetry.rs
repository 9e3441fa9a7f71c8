//! Tracing set-up. Logs go to stderr so that stdout stays for command output (`check`'s table).
//! Every log line passes through [`crate::secret::redact`] on its way out: a token can reach a
//! log through a field nobody thought of (a tool argument a model copied, an error a provider
//! quoted), so the filter sits at the one place all of them pass.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// Installs the global subscriber. `RUST_LOG`, when set, wins over the configured level so a
/// developer can turn up one module without touching the config. Colours only on a terminal:
/// the add-on's log viewer and log files would show the escape codes as text.
pub fn init(level: &str, secrets: Vec<String>) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(RedactingStderr {
            secrets: Arc::new(secrets),
        })
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// Hands out one buffer per log event; the event is redacted and written when it is dropped.
pub struct RedactingStderr {
    secrets: Arc<Vec<String>>,
}

impl<'a> MakeWriter<'a> for RedactingStderr {
    type Writer = RedactedEvent;

    fn make_writer(&'a self) -> Self::Writer {
        RedactedEvent {
            secrets: Arc::clone(&self.secrets),
            buf: Vec::new(),
            out: Box::new(std::io::stderr()),
        }
    }
}

pub struct RedactedEvent {
    secrets: Arc<Vec<String>>,
    buf: Vec<u8>,
    out: Box<dyn Write + Send>,
}

impl Write for RedactedEvent {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedEvent {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.buf);
        let clean = crate::secret::redact(&text, &self.secrets);
        let _ = self.out.write_all(clean.as_bytes());
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_event_is_redacted_whole_even_when_written_in_pieces() {
        let sink = Arc::new(Mutex::new(Vec::new()));
        {
            let mut event = RedactedEvent {
                secrets: Arc::new(vec!["hunter2-secret".into()]),
                buf: Vec::new(),
                out: Box::new(Shared(Arc::clone(&sink))),
            };
            event.write_all(b"args={\"x\": \"hunter2-").unwrap();
            event
                .write_all(b"secret\"} auth=Bearer abcdefghijkl\n")
                .unwrap();
        }
        let out = String::from_utf8(sink.lock().unwrap().clone()).unwrap();
        assert!(!out.contains("hunter2"), "{out}");
        assert!(!out.contains("abcdefghijkl"), "{out}");
        assert!(out.ends_with('\n'));
    }
}
