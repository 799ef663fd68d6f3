//! Multi-file specs: brings the targets of a spec's external `$ref`s
//! (`ops/list_things.yml`, `../models/thing.yml#/Thing`) into the document,
//! so the importer only ever follows local references.
//!
//! Every referenced value is copied once under `#/x-toolsmith-bundled/<name>`
//! and the references to it are rewritten to point there; a target's own
//! references are rewritten relative to its file, so files that refer to each
//! other (or to themselves) bundle without looping. Where the files may come
//! from is a [`RefSource`]'s decision: a local spec's folder tree
//! ([`FileRefs`]), a fetched spec's own host, or nowhere ([`NoRefs`]).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use toolsmith_plumbing::json::sha256_hex;

use crate::error::{Error, Result};
use crate::import::schema::percent_decode;
use crate::import::text::{self, pointer_escape};

/// The root key under which external targets are placed.
pub(crate) const BUNDLED: &str = "x-toolsmith-bundled";

/// Keys whose values are data, not schemas or OpenAPI objects: a `$ref` inside is not followed.
/// (`examples` is data too, except where it maps names to OpenAPI 3 Example objects.)
const DATA_KEYS: [&str; 4] = ["example", "enum", "default", "const"];

/// Keys whose values map names to schemas (a property may well be called `example`).
const NAME_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];

/// Where the files named by a spec's external `$ref`s may be read from.
pub trait RefSource {
    /// The canonical location (a file path or a URL, without fragment) of `file`, a
    /// `$ref`'s part before `#`, relative to the document at `base`; or why it is refused.
    fn locate(&self, base: &str, file: &str) -> std::result::Result<String, String>;
    /// The bytes of a document at a location [`RefSource::locate`] returned.
    fn read(&self, location: &str) -> std::result::Result<Vec<u8>, String>;
}

/// Refuses every external reference: for specs read from memory with no place to look.
pub struct NoRefs;

impl RefSource for NoRefs {
    fn locate(&self, _base: &str, _file: &str) -> std::result::Result<String, String> {
        Err("external $ref in a spec read from memory; import the spec from its file or URL, or bundle it first".to_owned())
    }

    fn read(&self, location: &str) -> std::result::Result<Vec<u8>, String> {
        Err(format!("cannot read {location}"))
    }
}

/// Local files inside one folder tree (the root spec's folder): anything that
/// resolves outside it, through `..` or a symlink, and any URL, is refused.
pub struct FileRefs {
    jail: PathBuf,
}

impl FileRefs {
    /// The files in `spec`'s folder and below. `spec` must exist.
    pub fn for_spec(spec: &Path) -> Result<(Self, String)> {
        let io = |source| Error::Io {
            path: spec.to_owned(),
            source,
        };
        let canonical = spec.canonicalize().map_err(io)?;
        let jail = canonical
            .parent()
            .map_or_else(|| canonical.clone(), Path::to_path_buf);
        Ok((Self { jail }, canonical.to_string_lossy().into_owned()))
    }
}

impl RefSource for FileRefs {
    fn locate(&self, base: &str, file: &str) -> std::result::Result<String, String> {
        if file.contains("://") || file.starts_with("//") {
            return Err(
                "a remote $ref in a local spec is refused; save that file beside the spec"
                    .to_owned(),
            );
        }
        let file = percent_decode(file);
        let relative = Path::new(&file);
        if relative.is_absolute() {
            return Err(format!(
                "absolute paths are refused; refer to files below {}",
                self.jail.display()
            ));
        }
        let folder = Path::new(base).parent().unwrap_or(&self.jail);
        let target = folder
            .join(relative)
            .canonicalize()
            .map_err(|e| format!("{}: {e}", folder.join(relative).display()))?;
        if !target.starts_with(&self.jail) {
            return Err(format!(
                "{} is outside the spec's folder {}: refused",
                target.display(),
                self.jail.display()
            ));
        }
        Ok(target.to_string_lossy().into_owned())
    }

    fn read(&self, location: &str) -> std::result::Result<Vec<u8>, String> {
        std::fs::read(location).map_err(|e| e.to_string())
    }
}

/// What a value holds, as far as finding references in it goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// A schema or an OpenAPI object: a `$ref` in it is a reference.
    Objects,
    /// A map from names to schemas (`properties`): its keys are names, never keywords.
    Names,
    /// OpenAPI 3's `examples`: a map from names to Example objects (or references to them).
    Examples,
    /// One OpenAPI 3 Example object: its `value` is data (GitHub's hold `$ref` keys).
    Example,
}

/// What a Swagger 2.0 or OpenAPI 3 document means by an `examples` map.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExamplesMap {
    /// Swagger 2.0: media types to example values, all data.
    OfData,
    /// OpenAPI 3: names to Example objects, whose `value` is data.
    OfExampleObjects,
}

/// A target waiting to be copied in: its name under [`BUNDLED`], its file and
/// pointer, and the reference that asked for it (for errors).
struct Pending {
    name: String,
    location: String,
    pointer: String,
    referrer: String,
    at: String,
    /// What the target is, judged by where the first reference to it stands.
    holds: Holds,
}

struct Bundler<'s> {
    source: &'s dyn RefSource,
    root: String,
    docs: HashMap<String, Value>,
    hashes: BTreeMap<String, String>,
    placed: HashMap<(String, String), String>,
    names: HashSet<String>,
    queue: VecDeque<Pending>,
    examples: ExamplesMap,
}

/// Rewrites `spec`'s external references (found at `location`, displayed as `path`) into
/// local ones, copying their targets under [`BUNDLED`]. Returns the hash of every file read
/// with the spec's own (`sha256`), so a change in any file changes the batch's hash.
pub(crate) fn bundle(
    spec: &mut Value,
    location: &str,
    sha256: &str,
    source: &dyn RefSource,
) -> Result<String> {
    let mut bundler = Bundler {
        source,
        root: location.to_owned(),
        docs: HashMap::new(),
        hashes: BTreeMap::new(),
        placed: HashMap::new(),
        names: HashSet::new(),
        queue: VecDeque::new(),
        examples: if spec.get("swagger").is_some() {
            ExamplesMap::OfData
        } else {
            ExamplesMap::OfExampleObjects
        },
    };
    bundler.rewrite(spec, location, "#", Holds::Objects)?;
    let mut bundled = Map::new();
    while let Some(pending) = bundler.queue.pop_front() {
        let mut value = bundler.target(&pending)?;
        let at = format!("#{}", pending.pointer);
        bundler.rewrite(&mut value, &pending.location, &at, pending.holds)?;
        bundled.insert(pending.name, value);
    }
    if bundled.is_empty() {
        return Ok(sha256.to_owned());
    }
    if let Value::Object(map) = spec {
        map.insert(BUNDLED.to_owned(), Value::Object(bundled));
    }
    let all: String = std::iter::once(sha256)
        .chain(bundler.hashes.values().map(String::as_str))
        .collect();
    Ok(sha256_hex(all.as_bytes()))
}

impl Bundler<'_> {
    /// Rewrites every reference in `value`, a value of the document at `location`.
    fn rewrite(&mut self, value: &mut Value, location: &str, at: &str, holds: Holds) -> Result<()> {
        match value {
            Value::Object(map) => {
                // A string `$ref` is a reference even where a map of names stands (DigitalOcean
                // writes `properties: {$ref: attributes.yml#/...}`); a property named `$ref`
                // holds a schema object instead.
                let is_ref = matches!(map.get("$ref"), Some(Value::String(_)));
                if let Some(Value::String(reference)) = map.get("$ref") {
                    let target = match holds {
                        Holds::Examples | Holds::Example => Holds::Example,
                        Holds::Objects | Holds::Names => Holds::Objects,
                    };
                    let local = self.localize(reference, location, at, target)?;
                    map.insert("$ref".to_owned(), Value::String(local));
                }
                // In a responses map, `default` is a response, not a schema's default value.
                let responses = at.ends_with("/responses");
                for (key, child) in map.iter_mut() {
                    if key == "$ref" && is_ref {
                        continue;
                    }
                    let Some(child_holds) = self.child_holds(holds, key, child, responses) else {
                        continue;
                    };
                    let child_at = format!("{at}/{}", pointer_escape(key));
                    self.rewrite(child, location, &child_at, child_holds)?;
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.rewrite(item, location, &format!("{at}/{i}"), Holds::Objects)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// What `child`, the value under `key` of an object that holds `holds`, holds; `None`
    /// for data and vendor extensions, whose references are never followed.
    fn child_holds(
        &self,
        holds: Holds,
        key: &str,
        child: &Value,
        responses: bool,
    ) -> Option<Holds> {
        match holds {
            Holds::Names => return Some(Holds::Objects),
            Holds::Examples => return Some(Holds::Example),
            Holds::Example if key == "value" => return None,
            Holds::Example | Holds::Objects => {}
        }
        // A vendor extension (`x-...`) is opaque to toolsmith: its references are never
        // followed (Spotify's spec points `x-spotify-policy` at a file it does not ship),
        // so they cannot fail an import.
        if key.starts_with("x-") {
            return None;
        }
        if DATA_KEYS.contains(&key) && !(responses && key == "default") {
            return None;
        }
        if key == "examples" {
            // JSON Schema's `examples` is a list of values; Swagger 2.0's a map of them.
            return match (child, self.examples) {
                (Value::Object(_), ExamplesMap::OfExampleObjects) => Some(Holds::Examples),
                _ => None,
            };
        }
        Some(if NAME_MAPS.contains(&key) {
            Holds::Names
        } else {
            Holds::Objects
        })
    }

    /// The local reference standing for `reference`, written in the document at `location`;
    /// its target holds `holds`.
    fn localize(
        &mut self,
        reference: &str,
        location: &str,
        at: &str,
        holds: Holds,
    ) -> Result<String> {
        let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let fragment = percent_decode(fragment);
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Err(self.bad(
                location,
                at,
                format!("$ref `{reference}`: only JSON-pointer fragments (`#/...`) are supported"),
            ));
        }
        let target = if file.is_empty() {
            location.to_owned()
        } else {
            self.source
                .locate(location, file)
                .map_err(|why| self.bad(location, at, format!("$ref `{reference}`: {why}")))?
        };
        if target == self.root {
            return Ok(format!("#{fragment}"));
        }
        let key = (target.clone(), fragment.clone());
        if let Some(local) = self.placed.get(&key) {
            return Ok(local.clone());
        }
        let name = self.fresh_name(&target, &fragment);
        let local = format!("#/{BUNDLED}/{}", pointer_escape(&name));
        self.placed.insert(key, local.clone());
        self.queue.push_back(Pending {
            name,
            location: target,
            pointer: fragment,
            referrer: location.to_owned(),
            at: at.to_owned(),
            holds,
        });
        Ok(local)
    }

    /// A copy of a pending target's value, reading its file on first use.
    fn target(&mut self, pending: &Pending) -> Result<Value> {
        if !self.docs.contains_key(&pending.location) {
            let bytes = self.source.read(&pending.location).map_err(|why| {
                self.bad(
                    &pending.referrer,
                    &pending.at,
                    format!("$ref to {}: {why}", pending.location),
                )
            })?;
            let doc = text::parse_bytes(Path::new(&pending.location), &bytes)?;
            self.hashes.insert(pending.location.clone(), doc.sha256);
            self.docs.insert(pending.location.clone(), doc.value);
        }
        self.docs
            .get(&pending.location)
            .and_then(|doc| doc.pointer(&pending.pointer))
            .cloned()
            .ok_or_else(|| {
                self.bad(
                    &pending.referrer,
                    &pending.at,
                    format!(
                        "dangling $ref: {} has nothing at `#{}`",
                        pending.location, pending.pointer
                    ),
                )
            })
    }

    /// A name for a target: its pointer's last segment, else its file's stem, made unique.
    fn fresh_name(&mut self, location: &str, pointer: &str) -> String {
        let last = pointer
            .rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .map(|s| s.replace("~1", "_").replace("~0", "_"));
        let stem = || {
            let file = location.rsplit(['/', '\\']).next().unwrap_or(location);
            file.split('.').next().unwrap_or(file).to_owned()
        };
        let base: String = last
            .unwrap_or_else(stem)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.is_empty() {
            "ref".to_owned()
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 1;
        while !self.names.insert(name.clone()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    fn bad(&self, location: &str, at: &str, reason: String) -> Error {
        Error::bad(Path::new(location), at, reason)
    }
}
