/*!
The plumbing every toolsmith crate needs exactly once, each piece named for what it is.

# Brief overview

- [`sqlite`] opens a database the one way every store does ([`sqlite::open`]: WAL, busy
  timeout, foreign keys) and runs each component's own [`sqlite::Migrations`], versioned per
  component in one shared file; a store shares its one connection across threads through
  [`sqlite::SharedConnection`].
- [`secret`] holds [`Secret`], an API key that is usable but never printed nor serialized.
- [`retry`] is the one retry policy of the HTTP clients: [`retry::RetrySettings`] (how many
  retries, backoff with jitter, `Retry-After` cap) and which statuses are worth retrying.
- [`json`] writes canonical JSON (keys sorted, no whitespace) and sha256 digests, the stuff
  cache keys are made of.
- [`store`] is the store kit of the component stores: JSON columns ([`store::to_column`],
  [`store::from_column`]), row ids ([`row_id!`]) and the one [`store::RunId`].
- [`text`] cuts text to a number of characters without splitting one.
- [`env`] names every environment variable toolsmith reads, once (listed in
  `docs/environment.md`).
- [`runtime`] builds the tokio runtimes of code that is not async itself.
- [`data`] finds the shared benchmark data folder (`$TOOLSMITH_DATA`, else `../shared/data`).
- [`measure`] is what the benchmarks measure with: latency quantiles, `/proc` memory and load,
  seeded random floats.

This crate depends on no other toolsmith crate; every other crate may depend on it.

# Example

A cache table keyed by the canonical JSON of a request, in a database migrated from scratch:

```
use serde_json::json;
use toolsmith_plumbing::{json::{canonical_json, sha256_hex}, sqlite::{self, Migrations}, text};

const CACHE: Migrations = Migrations::new(
    "example-cache",
    &["CREATE TABLE cache (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"],
);

let mut conn = sqlite::open_in_memory()?;
assert_eq!(CACHE.apply(&mut conn)?, 1);

// Key order does not change the key.
let a = json!({"query": "Dune", "page": 1});
let b = json!({"page": 1, "query": "Dune"});
assert_eq!(canonical_json(&a), r#"{"page":1,"query":"Dune"}"#);
let key = sha256_hex(canonical_json(&a));
assert_eq!(key, sha256_hex(canonical_json(&b)));

conn.execute("INSERT INTO cache VALUES (?1, ?2)", [&key, "Denis Villeneuve"])?;
let answer: String = conn.query_row("SELECT answer FROM cache WHERE key = ?1", [&key], |r| r.get(0))?;
assert_eq!(text::truncate_chars(&answer, 5), "Denis…");
Ok::<(), Box<dyn std::error::Error>>(())
```
*/

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod data;
pub mod env;
pub mod json;
pub mod measure;
pub mod retry;
pub mod runtime;
pub mod secret;
pub mod sqlite;
pub mod store;
pub mod text;

pub use crate::secret::Secret;
