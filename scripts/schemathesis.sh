#!/usr/bin/env bash
# Runs Schemathesis (`--checks all`) against a freshly started `toolsmith serve`: the server's
# /openapi.json must describe every answer it gives. Installs Schemathesis into a venv under
# ~/.cache/toolsmith the first time (from PyPI; idempotent), builds the debug binary, serves a
# small catalog (examples/specs/petstore.yaml) with BM25 on a free loopback port, with MCP over
# HTTP and a bearer token, and stops it at the end.
#
#   scripts/schemathesis.sh                 # one run, a random seed
#   scripts/schemathesis.sh --seed 42       # extra arguments go to `schemathesis run`
#   TOKEN= scripts/schemathesis.sh          # serve without a token (loopback Host checks only)
#
# Not part of scripts/test.sh: it takes one to three minutes on two busy cores and explores at
# random, so it is an extra check to run by hand; the property test
# `openapi::every_answer_to_generated_requests_is_documented` holds the same contract in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${SCHEMATHESIS_VERSION:-4.32.5}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/toolsmith/schemathesis-venv"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "version $version\$"; then
  echo "== installing schemathesis $version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

echo "== cargo build -p toolsmith"
cargo build --quiet -p toolsmith
bin="${CARGO_TARGET_DIR:-target}/debug/toolsmith"

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" --quiet --db "$work/st.db" import examples/specs/petstore.yaml >/dev/null
token="${TOKEN-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}"
# An empty TOOLSMITH_SERVE_TOKEN is refused on purpose: without a token it is unset.
if [ -n "$token" ]; then
  export TOOLSMITH_SERVE_TOKEN="$token"
else
  unset TOOLSMITH_SERVE_TOKEN
fi
"$bin" --quiet --db "$work/st.db" serve --mcp http --http 127.0.0.1:0 --method bm25 \
  2>"$work/serve.log" &
server=$!

# The server announces its address on stderr once it listens.
url=""
for _ in $(seq 1 300); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -n 1 || true)"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.2
done
[ -n "$url" ] || { echo "the server did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }

# Two answers are right by design though Schemathesis flags them by default:
# - /v1/solve answers 503 when the server has no LLM configured (a server setting the client
#   cannot fix; ST101 fails any 5xx unless the operation allows it);
# - POST /mcp answers 400 to a message other than `initialize` sent without `Mcp-Session-Id`,
#   as the MCP transport requires; OpenAPI cannot make a header depend on the body.
cat >"$work/schemathesis.toml" <<'EOF'
[[operations]]
include-name = "POST /v1/solve"
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "503"]

[[operations]]
include-name = "POST /mcp"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
EOF

auth=()
[ -n "$token" ] && auth=(--header "Authorization: Bearer $token")
echo "== schemathesis run $url/openapi.json --checks all"
# From the scratch folder: Schemathesis keeps its cache (.schemathesis/) where it runs.
cd "$work"
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$url/openapi.json" \
  --checks all "${auth[@]}" "$@"
