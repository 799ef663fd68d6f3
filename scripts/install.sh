#!/usr/bin/env bash
# Installs what toolsmith needs and runs the main job.
#
# Idempotent: a second run reuses the build and the installed model.
#   1. builds and installs the toolsmith binary (release) into $CARGO_INSTALL_ROOT/bin,
#      by default ~/.cargo/bin, which rustup puts on PATH (about 16 minutes on 2 cores
#      the first time; later runs rebuild only what changed);
#   2. installs the local embedding model when the installer is present;
#   3. main job: imports RestBench's TMDB spec with DRAFT's and EasyTool's
#      published docs into ./toolsmith.db, then runs `toolsmith quickstart` (the
#      example API imported, indexed, searched and called; retrieval measured on
#      TMDB; agents run when an LLM endpoint is configured).
set -euo pipefail
cd "$(dirname "$0")/.."

data="${TOOLSMITH_DATA:-../shared/data}"
db="${TOOLSMITH_DB:-toolsmith.db}"
root="${CARGO_INSTALL_ROOT:-$HOME/.cargo}"

command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs) first" >&2; exit 2; }
# `--path` builds in this workspace's target folder, so a re-run reuses the build.
cargo install --path crates/toolsmith --locked --bin toolsmith --root "$root"
if [ -x scripts/install-model.sh ]; then
  scripts/install-model.sh
fi

bin="$root/bin/toolsmith"
"$bin" --db "$db" import \
  "$data/restbench-tmdb/restgpt/tmdb_oas.json" \
  "$data/restbench-tmdb/draft/TMDB_DRAFT.json" \
  "$data/restbench-tmdb/easytool/tmdb_tool.json"
"$bin" --db "$db" quickstart --data-dir "$data"

case "$db" in /*) shown="$db" ;; *) shown="$PWD/$db" ;; esac
echo
if [ "$(command -v toolsmith 2>/dev/null)" = "$bin" ]; then
  echo "toolsmith is installed at $bin. Try:"
  echo "  toolsmith --db $shown search \"recommend movies like Titanic\" -k 5"
else
  echo "toolsmith is installed at $bin, which is not on your PATH yet. Add it, then try it:"
  echo "  export PATH=\"$root/bin:\$PATH\"; toolsmith --db $shown search \"recommend movies like Titanic\" -k 5"
fi
