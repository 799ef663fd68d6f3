//! Where events go as they happen: the run's [`Tracer`] and its sinks.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use super::event::{Stamped, TraceEvent};

/// Receives events as they happen. Methods default to doing nothing.
pub trait TraceSink: Send + Sync {
    /// One event.
    fn event(&self, _event: &Stamped) {}
}

/// Collects a run's events and forwards them to sinks.
#[derive(Clone, Default)]
pub struct Tracer {
    events: Arc<Mutex<Vec<Stamped>>>,
    sinks: Vec<Arc<dyn TraceSink>>,
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer")
            .field("events", &self.events().len())
            .finish()
    }
}

impl Tracer {
    /// A tracer with no sinks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also send events to `sink`.
    pub fn with_sink(mut self, sink: Arc<dyn TraceSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Records an event.
    pub fn emit(&self, event: TraceEvent) {
        let at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let stamped = Stamped { at_ms, event };
        for sink in &self.sinks {
            sink.event(&stamped);
        }
        if let Ok(mut events) = self.events.lock() {
            events.push(stamped);
        }
    }

    /// Everything recorded so far.
    pub fn events(&self) -> Vec<Stamped> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

/// Writes each event as one JSON line.
pub struct JsonlSink<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> JsonlSink<W> {
    /// Writes to `out` (a file, usually).
    pub fn new(out: W) -> Self {
        Self {
            out: Mutex::new(out),
        }
    }
}

impl<W: Write + Send> TraceSink for JsonlSink<W> {
    fn event(&self, event: &Stamped) {
        if let (Ok(line), Ok(mut out)) = (serde_json::to_string(event), self.out.lock()) {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}
