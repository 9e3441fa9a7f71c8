//! The one way HomeClaw keeps JSON lines on disk: sessions, idempotency answers and the
//! activity list all go through here, so they survive a crash alike.
//!
//! Invariants:
//! - An append is one write of whole lines, then `fsync`: a line that was acknowledged is on
//!   the disk.
//! - A rewrite goes to a temporary file beside the journal that is fsynced, renamed over it,
//!   and then the directory is fsynced: a crash leaves the old file or the new one, never half
//!   of either, and the rename itself is durable.
//! - A line counts only when it is whole (ends with a newline) and parses. Reading never stops
//!   at a bad line: invalid JSON and invalid UTF-8 are skipped and counted, and the lines after
//!   them are kept. A torn last line (the process died mid-append) is reported apart, so the
//!   owner can cut it off before appending after it.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A line that did not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based, as an editor shows it.
    pub number: usize,
    /// Byte offset of its first byte.
    pub start: u64,
    /// The last line, without its newline: an append the process did not finish.
    pub torn: bool,
}

/// What a journal held.
#[derive(Debug)]
pub struct Read<T> {
    /// The whole, parsed lines, in file order.
    pub items: Vec<T>,
    /// The lines skipped, in file order (blank lines are neither items nor bad).
    pub bad: Vec<BadLine>,
    /// Lines in the file, blank and bad ones included.
    pub lines: usize,
}

impl<T> Default for Read<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            bad: Vec::new(),
            lines: 0,
        }
    }
}

impl<T> Read<T> {
    /// The torn last line, if the last append did not finish.
    pub fn torn(&self) -> Option<BadLine> {
        self.bad.last().copied().filter(|b| b.torn)
    }

    /// Bad lines other than a torn last one: damage, not an interrupted append.
    pub fn damaged(&self) -> impl Iterator<Item = &BadLine> {
        self.bad.iter().filter(|b| !b.torn)
    }
}

/// Reads every line of `path`; a missing file is an empty journal.
pub fn read<T: DeserializeOwned>(path: &Path) -> std::io::Result<Read<T>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Read::default()),
        Err(e) => return Err(e),
    };
    let mut read = Read::default();
    let mut reader = BufReader::new(file);
    let mut offset = 0u64;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        read.lines += 1;
        let whole = buf.ends_with(b"\n");
        let parsed = match std::str::from_utf8(&buf) {
            Ok(text) if text.trim().is_empty() && whole => None,
            Ok(text) if whole => Some(serde_json::from_str::<T>(text.trim_end()).ok()),
            _ => Some(None),
        };
        match parsed {
            None => {}
            Some(Some(item)) => read.items.push(item),
            Some(None) => read.bad.push(BadLine {
                number: read.lines,
                start: offset,
                torn: !whole,
            }),
        }
        offset += n as u64;
    }
    Ok(read)
}

/// Cuts the file at `len` (a torn last line's start) and fsyncs it.
pub fn cut(path: &Path, len: u64) -> std::io::Result<()> {
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(len)?;
    file.sync_all()
}

/// Appends already-encoded lines (each ending with a newline) in one write, then fsyncs.
pub fn append_raw(path: &Path, lines: &[u8]) -> std::io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(lines)?;
    file.sync_data()
}

/// `items` as JSON lines.
pub fn lines<T: Serialize>(items: &[T]) -> std::io::Result<Vec<u8>> {
    encode(items)
}

/// Appends `items`, one JSON line each, in one write, then fsyncs.
pub fn append<T: Serialize>(path: &Path, items: &[T]) -> std::io::Result<()> {
    append_raw(path, &encode(items)?)
}

/// Replaces the whole journal with already-encoded lines, atomically and durably.
pub fn rewrite_raw(path: &Path, lines: &[u8]) -> std::io::Result<()> {
    replace(
        path,
        lines,
        OpenOptions::new().write(true).create(true).truncate(true),
    )
}

/// Replaces the file at `path` with `bytes` as [`rewrite_raw`] does, readable and writable by
/// its owner only (0600) from the moment it exists: for a secret such as the API's token.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // A temporary file left by a crash would keep its old mode: it is made anew.
    let _ = std::fs::remove_file(temporary(path));
    replace(
        path,
        bytes,
        OpenOptions::new().write(true).create_new(true).mode(0o600),
    )
}

/// Writes `bytes` to a temporary file beside `path` opened with `options`, fsyncs it, renames
/// it over `path` and fsyncs the directory.
fn replace(path: &Path, bytes: &[u8], options: &OpenOptions) -> std::io::Result<()> {
    let tmp = temporary(path);
    {
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    // The rename is an entry in the directory: without this it may not survive a power loss.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(dir) = File::open(dir)
    {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Replaces the whole journal with `items`, atomically and durably.
pub fn rewrite<T: Serialize>(path: &Path, items: &[T]) -> std::io::Result<()> {
    rewrite_raw(path, &encode(items)?)
}

/// What the background writer is asked to do, in order.
enum Job {
    Append(Vec<u8>),
    Rewrite(Vec<u8>),
    /// Answered once everything asked before is on the disk.
    Flush(std::sync::mpsc::SyncSender<()>),
}

/// A journal written by a thread of its own, for records whose writer must not wait for the
/// disk (the activity list, written on every command's way out): what arrived while the last
/// write was on its way is appended in one write and one fsync (group commit), so each record
/// is still fsynced, at a cost of one fsync per burst instead of one per record. Dropping it
/// writes what is left and waits for the thread.
pub struct Appender {
    jobs: Option<std::sync::mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Appender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Appender").finish_non_exhaustive()
    }
}

impl Appender {
    /// A writer for `path`; `failed` hears of every write that could not be made (the
    /// records stay wherever the caller keeps them).
    pub fn spawn(
        path: PathBuf,
        failed: impl Fn(&Path, &std::io::Error) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || write_in_bursts(&path, &queue, failed))?;
        Ok(Self {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Appends already-encoded lines (each ending with a newline).
    pub fn append(&self, lines: Vec<u8>) {
        self.send(Job::Append(lines));
    }

    /// Replaces the whole journal with already-encoded lines.
    pub fn rewrite(&self, lines: Vec<u8>) {
        self.send(Job::Rewrite(lines));
    }

    /// Waits until everything asked before is on the disk.
    pub fn flush(&self) {
        let (done, wait) = std::sync::mpsc::sync_channel(1);
        self.send(Job::Flush(done));
        let _ = wait.recv();
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }
}

impl Drop for Appender {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer thread: each burst of jobs becomes one append (or one rewrite with what came
/// after it) and one fsync.
fn write_in_bursts(
    path: &Path,
    queue: &std::sync::mpsc::Receiver<Job>,
    failed: impl Fn(&Path, &std::io::Error),
) {
    while let Ok(first) = queue.recv() {
        let mut base: Option<Vec<u8>> = None;
        let mut tail: Vec<u8> = Vec::new();
        let mut waiting = Vec::new();
        for job in std::iter::once(first).chain(queue.try_iter()) {
            match job {
                Job::Append(lines) => tail.extend(lines),
                // A rewrite holds everything before it.
                Job::Rewrite(lines) => {
                    base = Some(lines);
                    tail.clear();
                }
                Job::Flush(done) => waiting.push(done),
            }
        }
        let written = match base {
            Some(mut all) => {
                all.extend(tail);
                rewrite_raw(path, &all)
            }
            None => append_raw(path, &tail),
        };
        if let Err(e) = written {
            failed(path, &e);
        }
        for done in waiting {
            let _ = done.send(());
        }
    }
}

fn encode<T: Serialize>(items: &[T]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    for item in items {
        serde_json::to_writer(&mut out, item)?;
        out.push(b'\n');
    }
    Ok(out)
}

/// `.name.tmp` beside `path`: hidden, and never taken for a journal of its own.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        n: u32,
    }

    fn rows(ns: &[u32]) -> Vec<Row> {
        ns.iter().map(|&n| Row { n }).collect()
    }

    #[test]
    fn an_invalid_utf8_line_in_the_middle_is_skipped_counted_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        append(&path, &rows(&[1, 2])).unwrap();
        append_raw(&path, b"{\"n\": \xff\xfe}\n").unwrap();
        append_raw(&path, b"not json\n\n").unwrap();
        append(&path, &rows(&[3, 4])).unwrap();
        let read = read::<Row>(&path).unwrap();
        assert_eq!(read.items, rows(&[1, 2, 3, 4]));
        assert_eq!(read.lines, 7);
        assert_eq!(
            read.bad.iter().map(|b| b.number).collect::<Vec<_>>(),
            vec![3, 4]
        );
        assert_eq!(read.torn(), None);
        assert_eq!(read.damaged().count(), 2);
    }

    #[test]
    fn a_torn_last_line_is_reported_and_can_be_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        append(&path, &rows(&[1])).unwrap();
        // Whole JSON, but the newline never reached the disk: the append did not finish.
        append_raw(&path, b"{\"n\":2}").unwrap();
        let read = read::<Row>(&path).unwrap();
        assert_eq!(read.items, rows(&[1]));
        let torn = read.torn().unwrap();
        assert_eq!((torn.number, torn.start), (2, 8));
        assert_eq!(read.damaged().count(), 0);
        cut(&path, torn.start).unwrap();
        append(&path, &rows(&[3])).unwrap();
        assert_eq!(read_items(&path), rows(&[1, 3]));
    }

    fn read_items(path: &Path) -> Vec<Row> {
        read::<Row>(path).unwrap().items
    }

    #[test]
    fn a_rewrite_replaces_everything_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        append(&path, &rows(&[1, 2, 3])).unwrap();
        rewrite(&path, &rows(&[9])).unwrap();
        assert_eq!(read_items(&path), rows(&[9]));
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["j.jsonl".to_owned()]);
    }

    #[test]
    fn the_background_writer_keeps_order_across_appends_and_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let writer = Appender::spawn(path.clone(), |_, e| panic!("{e}")).unwrap();
        for n in 1..=50 {
            writer.append(lines(&rows(&[n])).unwrap());
        }
        writer.flush();
        assert_eq!(read_items(&path), rows(&(1..=50).collect::<Vec<_>>()));
        writer.append(lines(&rows(&[51])).unwrap());
        writer.rewrite(lines(&rows(&[7, 8])).unwrap());
        writer.append(lines(&rows(&[9])).unwrap());
        // Dropping it writes what is left.
        drop(writer);
        assert_eq!(read_items(&path), rows(&[7, 8, 9]));
    }

    #[test]
    fn a_missing_journal_is_empty_and_an_unreadable_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let read = read::<Row>(&dir.path().join("none.jsonl")).unwrap();
        assert!(read.items.is_empty() && read.bad.is_empty());
        assert!(super::read::<Row>(dir.path()).is_err(), "a directory");
    }
}
