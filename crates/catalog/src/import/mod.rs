//! Importers: read a source (spec, tool file, folder, archive, dataset file)
//! into an [`ImportBatch`] of tool and doc records, without touching the store.
//! [`crate::Store::import`] then lands a batch in one transaction.
//!
//! One entry point, [`read_source`], detects the format from the path and the
//! content, or takes the one it is told.

mod bundle;
mod detect;
mod mcp;
mod openai;
mod openapi;
mod options;
mod rapidapi;
pub(crate) mod records;
mod refined;
mod schema;
mod security;
mod text;
mod toolbench;
mod yaml;

use std::path::Path;

pub use bundle::{FileRefs, NoRefs, RefSource};
pub use detect::Format;
pub use options::ImportOptions;
pub(crate) use options::{collect_failures, display_path, member_path};
pub use records::{ApiRecord, ImportBatch, RefDoc, RefTarget, ToolRecord};

use crate::error::Result;

/// Reads one source into a batch of records. Fails without side effects.
pub fn read_source(path: &Path, options: &ImportOptions) -> Result<ImportBatch> {
    if options.format == Some(Format::RapidApi)
        || (options.format.is_none() && detect::is_tree(path))
    {
        return rapidapi::read(path, options);
    }
    let doc = text::read_document(path)?;
    let (refs, location) = FileRefs::for_spec(path)?;
    read_parsed(path, doc, options, &refs, &location)
}

/// Reads a single-document source from bytes already in memory (a spec
/// fetched over HTTP, stdin, a fuzzer's input). `name` stands for the file in
/// errors and guides detection by its extension.
/// An OpenAPI spec's external `$ref`s are refused ([`NoRefs`]); see [`read_bytes_with`].
pub fn read_bytes(name: &Path, bytes: &[u8], options: &ImportOptions) -> Result<ImportBatch> {
    read_bytes_with(name, bytes, options, &NoRefs)
}

/// [`read_bytes`] for a spec whose external `$ref`s `refs` may resolve, relative
/// to `name` (the spec's URL, say, with `refs` reading only from its host).
pub fn read_bytes_with(
    name: &Path,
    bytes: &[u8],
    options: &ImportOptions,
    refs: &dyn RefSource,
) -> Result<ImportBatch> {
    let doc = text::parse_bytes(name, bytes)?;
    read_parsed(name, doc, options, refs, &display_path(name))
}

fn read_parsed(
    path: &Path,
    mut doc: text::Document,
    options: &ImportOptions,
    refs: &dyn RefSource,
    location: &str,
) -> Result<ImportBatch> {
    let format = match options.format {
        Some(format) => format,
        None => detect::detect_value(path, &doc.value)?,
    };
    if format == Format::OpenApi {
        doc.sha256 = bundle::bundle(&mut doc.value, location, &doc.sha256, refs)?;
    }
    let mut batch = match format {
        Format::RapidApi => rapidapi::read_document(path, &doc, options),
        Format::OpenApi => openapi::read(path, &doc.value, options),
        Format::OpenAiFunctions => openai::read(path, &doc.value, options),
        Format::McpTools => mcp::read(path, &doc.value, options),
        Format::ToolBenchQueries => toolbench::read_queries(path, &doc.value),
        Format::ToolBenchToolset => toolbench::read_toolset(path, &doc.value),
        Format::DraftDocs | Format::EasyToolDocs => {
            refined::read(path, &doc.value, format, options)
        }
    }?;
    batch.source = display_path(path);
    batch.format = Some(format);
    batch.sha256 = doc.sha256;
    Ok(batch)
}
