#!/usr/bin/env bash
# Runs the whole test suite. Installs what the tests need first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x scripts/install-model.sh ]; then
  scripts/install-model.sh
fi
# Dependencies build with opt-level 2 (see Cargo.toml), so the embedding model runs fast in tests.
cargo test --workspace --locked --all-targets 2>&1
