//! The tokio runtimes of code that is not async itself (the command line, a server's
//! `main`), built one way everywhere.

use tokio::runtime::{Builder, Runtime};

/// A current-thread runtime with timers and I/O: one command at a time.
pub fn current_thread() -> std::io::Result<Runtime> {
    Builder::new_current_thread().enable_all().build()
}

/// A runtime with worker threads, timers and I/O: a server answers many clients at once.
pub fn multi_thread() -> std::io::Result<Runtime> {
    Builder::new_multi_thread().enable_all().build()
}
