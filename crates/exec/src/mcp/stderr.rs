//! The stderr of a server started as a child process: read as it comes (so
//! the child never blocks on a full pipe), logged at debug level, and its
//! last lines kept to explain a crash. It never reaches our stdout.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;
use tokio::sync::{Mutex, watch};

/// Lines kept for error messages.
const KEEP_LINES: usize = 10;
/// Characters kept of one line.
const KEEP_LINE_CHARS: usize = 300;
/// How long to wait for the last words of a process that has just exited.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// The last lines a child wrote to stderr.
#[derive(Clone, Debug)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    ended: watch::Receiver<bool>,
    end: Arc<watch::Sender<bool>>,
}

impl Default for StderrTail {
    fn default() -> Self {
        // Nothing to wait for until a stderr is followed.
        let (end, ended) = watch::channel(true);
        Self {
            lines: Arc::default(),
            ended,
            end: Arc::new(end),
        }
    }
}

impl StderrTail {
    /// Reads `stderr` until it closes, on a task of its own (one per connection).
    pub(crate) fn follow(&self, stderr: ChildStderr, server: String) {
        let lines = Arc::clone(&self.lines);
        let end = Arc::clone(&self.end);
        end.send_replace(false);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                tracing::debug!(%server, "stderr: {line}");
                let mut kept = lines.lock().await;
                if kept.len() == KEEP_LINES {
                    kept.pop_front();
                }
                kept.push_back(
                    toolsmith_plumbing::text::char_prefix(&line, KEEP_LINE_CHARS).to_owned(),
                );
            }
            end.send_replace(true);
        });
    }

    /// The lines kept so far, joined with ` | `.
    pub(crate) async fn text(&self) -> String {
        let kept = self.lines.lock().await;
        kept.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The lines kept, after waiting briefly for the child's stderr to close
    /// (a process that just exited may still have words in the pipe).
    pub(crate) async fn text_after_exit(&self) -> String {
        let mut ended = self.ended.clone();
        let _ = tokio::time::timeout(EXIT_GRACE, ended.wait_for(|done| *done)).await;
        self.text().await
    }
}
