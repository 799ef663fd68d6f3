//! Embeds each argument with the local all-MiniLM-L6-v2 and prints one JSON array per line.
//!
//! ```text
//! cargo run --release -p toolsmith-llm --example embed_text -- "first text" "second text"
//! ```
#![allow(clippy::print_stdout)]

use toolsmith_llm::LocalEmbedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let texts: Vec<String> = std::env::args().skip(1).collect();
    let model = LocalEmbedder::load_default()?;
    for v in model.embed_blocking(&texts)? {
        println!("{}", serde_json::to_string(&v)?);
    }
    Ok(())
}
