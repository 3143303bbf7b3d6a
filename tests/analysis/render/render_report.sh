#!/usr/bin/env bash
# Renders report.html in headless Chromium and checks it: the HTML is well-formed (it is written
# as XML-compatible HTML, so a strict XML parser reads it), self-contained (no script, no
# external reference), and the screenshot is non-trivial (size, non-blank pixels, colours).
# Usage: render_report.sh SYNTHETIC_RUN_EXE ANALYZE_EXE WORK_DIR
# Exits 77 (ctest: skipped, shown as such) when chromium is not installed.
set -euo pipefail
synthetic=$1
analyze=$2
work=$3
here=$(dirname "$(realpath "$0")")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$synthetic" "$work/run" --ranks 24 --ranks-per-node 4 --samples 4 --telemetry-hz 4 \
  --tests stream,dgemm_fp64,gemm_ladder,mpi_pingpong,nccl,mpi_coll,allpairs --slow-node 2 --throttled-gpu 0,1 >/dev/null
set +e
"$analyze" "$work/run" --price-per-node-hour 40 --quiet
code=$?
set -e
[ "$code" -eq 1 ] || { echo "FAIL: analyzer exit $code, expected 1"; exit 1; }
report=$work/run/report.html

python3 - "$report" <<'PY'
import sys, xml.dom.minidom
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
document = xml.dom.minidom.parseString(text.encode("utf-8"))  # raises on malformed markup
svgs = document.getElementsByTagName("svg")
assert len(svgs) >= 4, f"expected the heatmap, bars and timelines, got {len(svgs)} svg elements"
assert "<script" not in text, "report.html must not need a script"
for reference in ("src=", "href=", "url(", "@import"):
    assert reference not in text, f"report.html must be self-contained, found {reference}"
for needed in ("Verdict per node", "Top findings", "Links (allpairs)", "Usable against nominal", "Telemetry around findings",
               "GPU1 power-capped", "slow node: all 5 of node0002"):
    assert needed in text, f"report.html lacks '{needed}'"
print(f"report.html: well-formed, {len(svgs)} inline SVG plots, {len(text)} bytes")
PY

# HOME inside the work folder: chromium writes its profile there, not into the user's home.
HOME=$work timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --screenshot="$work/report.png" --window-size=1400,2000 "file://$(realpath "$report")" >"$work/chromium.log" 2>&1 || {
  echo "FAIL: chromium did not render the report"; tail -5 "$work/chromium.log"; exit 1; }
read -r width height share colours < <(python3 "$here/png_tool.py" stats "$work/report.png")
echo "screenshot: ${width}x${height}, non-blank share $share, $colours colours"
[ "$width" -eq 1400 ] && [ "$height" -eq 2000 ] || { echo "FAIL: screenshot size"; exit 1; }
python3 -c "import sys; sys.exit(0 if 0.05 < float('$share') < 0.9 and int('$colours') >= 20 else 1)" ||
  { echo "FAIL: the screenshot looks blank or flat"; exit 1; }
echo "PASS"
