//! Server-sent events, parsed incrementally from arbitrary byte chunks.
//!
//! Pure and allocation-light: bytes go in as they arrive from the socket, whole events come out.
//! Chunks may split anywhere, even inside a UTF-8 sequence or a `\r\n` pair.

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty for the default "message" event.
    pub event: String,
    /// `data:` lines joined with `\n`.
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    event: String,
    data: Vec<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if !self.data.is_empty() || !self.event.is_empty() {
                    events.push(SseEvent {
                        event: std::mem::take(&mut self.event),
                        data: std::mem::take(&mut self.data).join("\n"),
                    });
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.event = value.to_owned(),
                "data" => self.data.push(value.to_owned()),
                _ => {}
            }
        }
        events
    }

    /// Whether a partial event is pending (the stream must not end here).
    pub fn has_partial(&self) -> bool {
        !self.buffer.is_empty() || !self.data.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_any_chunking() {
        let stream = "event: message_start\r\ndata: {\"a\":\n\r\n: keep-alive\n\ndata: x\ndata: y\n\ndata: [DONE]\n\n";
        let whole = SseParser::new().feed(stream.as_bytes());
        assert_eq!(
            whole,
            vec![
                SseEvent {
                    event: "message_start".into(),
                    data: "{\"a\":".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "x\ny".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "[DONE]".into()
                },
            ]
        );
        for split in 1..stream.len() {
            let mut parser = SseParser::new();
            let mut got = parser.feed(&stream.as_bytes()[..split]);
            got.extend(parser.feed(&stream.as_bytes()[split..]));
            assert_eq!(got, whole, "split at {split}");
            assert!(!parser.has_partial());
        }
    }

    #[test]
    fn an_unterminated_event_is_partial() {
        let mut parser = SseParser::new();
        assert!(parser.feed(b"data: {\"half\"").is_empty());
        assert!(parser.has_partial());
    }
}
