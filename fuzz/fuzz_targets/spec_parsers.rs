//! Feeds arbitrary bytes to every single-document importer: any input must
//! give a batch or an error, never a panic or a hang.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolsmith_catalog::{Format, ImportOptions, read_bytes};

fuzz_target!(|data: &[u8]| {
    for (name, format) in [
        ("spec.json", Some(Format::OpenApi)),
        ("spec.yaml", Some(Format::OpenApi)),
        ("tool.json", Some(Format::RapidApi)),
        ("queries.json", Some(Format::ToolBenchQueries)),
        ("Initial.json", Some(Format::ToolBenchToolset)),
        ("functions.json", Some(Format::OpenAiFunctions)),
        ("TMDB_DRAFT.json", Some(Format::DraftDocs)),
        ("anything", None),
    ] {
        let options = ImportOptions { format, ..ImportOptions::default() };
        let _ = read_bytes(Path::new(name), data, &options);
    }
});
