//! The async runtime a server's `main` runs on.

use crate::error::{Error, Result};

/// A current-thread tokio runtime with timers and I/O, for a server's `main`.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            context: "starting the async runtime".to_owned(),
            source,
        })
}
