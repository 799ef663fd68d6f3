#!/usr/bin/env bash
# Runs the whole test suite: formatting, lints, unit and integration tests, doctests.
# Installs what the tests need first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."

# rustfmt and clippy come with rustup's default profile; add them where a minimal one left them out.
if command -v rustup >/dev/null; then
  for component in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$component" ||
      rustup component add "$component"
  done
fi
if [ -x scripts/install-model.sh ]; then
  scripts/install-model.sh
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (workspace lints denied in Cargo.toml hold here)"
cargo clippy --workspace --locked --all-targets -- -D warnings
# Dependencies build with opt-level 2 (see Cargo.toml), so the embedding model runs fast in tests.
echo "== cargo test (unit and integration)"
cargo test --workspace --locked --all-targets 2>&1
echo "== cargo test --doc"
cargo test --workspace --locked --doc 2>&1
