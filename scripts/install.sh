#!/usr/bin/env bash
# Installs what toolsmith needs and runs the main job.
#
# Idempotent: a second run reuses the build and the installed model.
#   1. builds the toolsmith binary (release);
#   2. installs the local embedding model when the installer is present;
#   3. main job: imports RestBench's TMDB spec with DRAFT's and EasyTool's
#      published docs into ./toolsmith.db, then runs `toolsmith quickstart` (the
#      example API imported, indexed, searched and called; retrieval measured on
#      TMDB; agents run when an LLM endpoint is configured).
set -euo pipefail
cd "$(dirname "$0")/.."

data="${TOOLSMITH_DATA:-../shared/data}"
db="${TOOLSMITH_DB:-toolsmith.db}"

command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs) first" >&2; exit 2; }
cargo build --release --locked -p toolsmith
if [ -x scripts/install-model.sh ]; then
  scripts/install-model.sh
fi

bin=target/release/toolsmith
"$bin" --db "$db" import \
  "$data/restbench-tmdb/restgpt/tmdb_oas.json" \
  "$data/restbench-tmdb/draft/TMDB_DRAFT.json" \
  "$data/restbench-tmdb/easytool/tmdb_tool.json"
"$bin" --db "$db" quickstart --data-dir "$data"
