#!/usr/bin/env bash
# Render a `toolsmith report` in headless Chromium and save a PNG of it, to look at the report
# as a reader would. Not part of CI: it needs Chromium (Debian: `apt-get install -y chromium`).
#
#   scripts/screenshot-report.sh REPORT_DIR_OR_HTML [OUT.png] [WIDTHxHEIGHT]
#
# REPORT_DIR_OR_HTML: the folder `toolsmith report --out` wrote (its index.html is shown) or one
# of its pages. OUT.png defaults to report.png beside it; the window defaults to 1280x2400, tall
# enough for the index's tables and plots. Prints the PNG's path.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 REPORT_DIR_OR_HTML [OUT.png] [WIDTHxHEIGHT]" >&2
    exit 2
fi
page="$1"
if [[ -d "$page" ]]; then
    page="$page/index.html"
fi
if [[ ! -f "$page" ]]; then
    echo "screenshot-report: no page at $page (run \`toolsmith report --out DIR\` first)" >&2
    exit 2
fi
page="$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
out="${2:-$(dirname "$page")/report.png}"
size="${3:-1280x2400}"
width="${size%x*}"
height="${size#*x}"

browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
        browser="$candidate"
        break
    fi
done
if [[ -z "$browser" ]]; then
    echo "screenshot-report: no Chromium found; install it with: apt-get install -y chromium" >&2
    exit 2
fi

# A throwaway profile, so a running browser's profile lock does not get in the way.
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --allow-file-access-from-files \
    --window-size="$width,$height" --screenshot="$out" "file://$page" >/dev/null 2>&1
if [[ ! -s "$out" ]]; then
    echo "screenshot-report: $browser wrote no screenshot to $out" >&2
    exit 1
fi
echo "$out"
