#!/usr/bin/env bash
# Renders report.html of an 8-node synthetic run with faults in headless Chromium and checks it:
# the HTML is well-formed (it is written as XML-compatible HTML, so a strict XML parser reads it),
# self-contained (no script, no external reference), holds the protocol's parts (header with dates,
# Slurm job, versions and the thresholds' sha256; hardware identity; every measured value; waived
# list; sign-off), and the screenshot is non-trivial (size, non-blank pixels, colours). Then: a
# site's --template-dir brands the report, a bad one exits 2 and overwrites nothing, --pdf prints a
# PDF of a sane page count, and --pdf without chromium on PATH exits 2 naming it.
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
"$synthetic" "$work/run" --ranks 32 --ranks-per-node 4 --samples 4 --telemetry-hz 4 \
  --tests stream,dgemm_fp64,gemm_ladder,mpi_pingpong,nccl,mpi_coll,allpairs --slow-node 2 --throttled-gpu 5,1 >/dev/null
# As the driver records a Slurm job in run.json (driver/run_manifest.cpp slurm_job_info).
python3 - "$work/run/run.json" <<'PY'
import json, sys
path = sys.argv[1]
manifest = json.load(open(path))
manifest["slurm"] = {"job_id": "778899", "partition": "gpu-acceptance", "nodelist": "node[0000-0007]",
                     "step_id": "0", "num_nodes": "8", "job_name": "shakedown-quick"}
json.dump(manifest, open(path, "w"), indent=2)
PY
expect_exit() {  # expect_exit CODE COMMAND...: runs it, fails the test on another exit code
  local expected=$1
  shift
  set +e
  "$@"
  local code=$?
  set -e
  [ "$code" -eq "$expected" ] || { echo "FAIL: exit $code, expected $expected: $*"; exit 1; }
}
# Rent against buy from the site's costs, the node's power from the run's own GPU energy.
printf 'purchase_per_node: 300000\ndepreciation_months: 36\nhosting_per_node_month: 1000\npue: 1.25\n' >"$work/own.yaml"
expect_exit 1 "$analyze" "$work/run" --price-per-node-hour 40 --energy-price-per-kwh 0.2 --ownership "$work/own.yaml" \
  --pdf "$work/report.pdf" >"$work/analyze.out"
report=$work/run/report.html
"$analyze" export "$work/run" --format csv --output "$work/values.csv"

python3 - "$report" "$work/values.csv" <<'PY'
import csv, re, sys, xml.dom.minidom
path, values = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
document = xml.dom.minidom.parseString(text.encode("utf-8"))  # raises on malformed markup
svgs = document.getElementsByTagName("svg")
assert len(svgs) >= 4, f"expected the heatmap, bars and timelines, got {len(svgs)} svg elements"
assert "<script" not in text, "report.html must not need a script"
for reference in ("src=", "href=", "url(", "@import"):
    assert reference not in text, f"report.html must be self-contained, found {reference}"
for needed in ("Verdict per node", "Top findings", "Links (allpairs)", "Usable against nominal", "Telemetry around findings",
               "GPU1 power-capped", "slow node: all 7 of node0002", "@media print", "break-inside: avoid",
               "Energy", "J per TFLOP", "TFLOP/s per W", "rent against buy", "owning a node:", "break-even utilization"):
    assert needed in text, f"report.html lacks '{needed}'"

def section(anchor):
    for element in document.getElementsByTagName("section"):
        if element.getAttribute("id") == anchor:
            return element
    raise AssertionError(f"no section {anchor}")

def cells(row):
    return ["".join(node.toxml() for node in cell.childNodes) for cell in row.getElementsByTagName("td")]

def facts(element):  # th -> td of the key/value tables
    out = {}
    for row in element.getElementsByTagName("tr"):
        heads, data = row.getElementsByTagName("th"), row.getElementsByTagName("td")
        if len(heads) == 1 and len(data) == 1:
            out[heads[0].firstChild.data] = "".join(node.toxml() for node in data[0].childNodes)
    return out

# The header: run, dates and duration (synthetic runs start 2025-11-30T05:20:00Z and last 600 s),
# the Slurm job, versions, thresholds with their sha256.
header = facts(section("summary"))
assert header["run id"] == "synthetic", header
assert header["started (UTC)"] == "2025-11-30T05:20:00.000Z", header
assert header["ended (UTC)"] == "2025-11-30T05:30:00.000Z", header
assert header["duration"] == "00:10:00 (600 s)", header
assert header["Slurm job"] == "778899 (shakedown-quick)", header
assert header["Slurm partition"] == "gpu-acceptance", header
assert header["Slurm nodelist"] == "node[0000-0007] (8 nodes)", header
assert header["mpi"] == "Open MPI 4.1.6" and header["nccl"] == "2.28.3", header
assert re.fullmatch(r"\d+\.\d+\.\d+.*", header["shakedown-analyze"]), header
hashes = re.findall(r'<td class="hash">([0-9a-f]+)</td>', text)
assert len(hashes) == 2 and all(len(h) == 64 for h in hashes), hashes

# Hardware identity: one row per GPU of the 8 nodes, no empty cell.
identity = [cells(row) for row in section("identity").getElementsByTagName("table")[0].getElementsByTagName("tr")[1:]]
assert len(identity) == 32, len(identity)
assert all(all(cell.strip() for cell in row) for row in identity), identity
assert identity[0][:5] == ["node0000", "Intel(R) Xeon(R) Platinum 8480+", "0", "NVIDIA H200", "GPU-node0000-0000"], identity[0]
assert identity[0][5] == "not recorded", identity[0]

# Every measured value: the export's rows, one table per node, the failing nodes open.
exported = list(csv.DictReader(open(values)))
results = section("results")
rows = [cells(row) for row in results.getElementsByTagName("tr") if row.getElementsByTagName("td")]
assert len(rows) == len(exported), (len(rows), len(exported))
shown = {(r[0], r[1], r[4]): r for r in rows}
for value in exported:
    row = shown[(value["node"], value["rank"], value["metric"])]
    # level is the last cell (after "bound met"); the export writes "not_judged" for "not judged".
    assert row[10].lower().replace(" ", "_") == value["level"], (row, value)
    assert row[9] == "-" or value["level"] == "pass", (row, value)  # only a judged pass names an edge it met
    assert abs(float(row[6]) - float(value["value"])) <= 0.01 * abs(float(value["value"])) + 1e-9, (row, value)
details = results.getElementsByTagName("details")
assert len(details) == 8, len(details)
opened = sorted(d.getElementsByTagName("summary")[0].toxml().split(":")[0].split(">")[-1] for d in details if d.getAttribute("open"))
assert opened == ["node0002", "node0005"], opened
slow = [r for r in rows if r[0] == "node0002" and r[4] == "stream.triad_gbs"]
assert slow and slow[0][10] == "FAIL" and float(slow[0][8]) < 0.6, slow
healthy_triad = [r for r in rows if r[0] == "node0001" and r[4] == "stream.triad_gbs"]
assert healthy_triad and healthy_triad[0][10] == "PASS" and healthy_triad[0][9] != "-", healthy_triad
assert any(r[10] == "not judged" for r in rows), "no value shown as not judged"

# Sign-off: the lines to fill in and the verdict repeated.
signoff = section("signoff").toxml()
for needed in ("Accepted by", "Date", "Signature", "Verdict: FAIL: 8 node(s)"):
    assert needed in signoff, f"sign-off lacks '{needed}'"
print(f"report.html: well-formed, {len(svgs)} inline SVG plots, {len(rows)} measured values, {len(text)} bytes")
PY

# HOME inside the work folder: chromium writes its profile there, not into the user's home.
HOME=$work timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --screenshot="$work/report.png" --window-size=1400,2000 "file://$(realpath "$report")" >"$work/chromium.log" 2>&1 || {
  echo "FAIL: chromium did not render the report"; tail -5 "$work/chromium.log"; exit 1; }
# What Chromium laid out holds the energy and the rent-against-buy lines with their inputs.
HOME=$work timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$(realpath "$report")" \
  >"$work/dom.html" 2>>"$work/chromium.log" || { echo "FAIL: chromium did not load the report"; exit 1; }
for needed in "J per TFLOP" "purchase 300000 per node over 36 months" "break-even utilization" "W from the run's GPUs in dgemm_fp64"; do
  grep -qF "$needed" "$work/dom.html" || { echo "FAIL: Chromium's page lacks '$needed'"; exit 1; }
done
read -r width height share colours < <(python3 "$here/png_tool.py" stats "$work/report.png")
echo "screenshot: ${width}x${height}, non-blank share $share, $colours colours"
[ "$width" -eq 1400 ] && [ "$height" -eq 2000 ] || { echo "FAIL: screenshot size"; exit 1; }
python3 -c "import sys; sys.exit(0 if 0.05 < float('$share') < 0.9 and int('$colours') >= 20 else 1)" ||
  { echo "FAIL: the screenshot looks blank or flat"; exit 1; }

# --pdf: a PDF, of a sane number of pages for 8 nodes (the measured values print open).
grep -q "^PDF: $work/report.pdf" "$work/analyze.out" || { echo "FAIL: the analyzer did not list the PDF"; exit 1; }
python3 - "$work/report.pdf" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
assert data.startswith(b"%PDF-"), data[:16]
pages = len(re.findall(rb"/Type\s*/Page(?![s])", data))
assert 8 <= pages <= 60, f"{pages} pages"
print(f"report.pdf: {pages} pages, {len(data)} bytes")
PY
[ ! -e "$work/.report.pdf.partial" ] || { echo "FAIL: a partial PDF was left"; exit 1; }
# The printed pages: A4 by default, every page naming the run, its number of the total, and the
# sha256 of the report.html it was printed from (poppler's pdfinfo and pdftotext read the PDF).
pdfinfo "$work/report.pdf" | grep -q "^Page size: .*(A4)" || { echo "FAIL: the PDF is not A4"; pdfinfo "$work/report.pdf"; exit 1; }
pdftotext "$work/report.pdf" "$work/report.txt"
pages=$(pdfinfo "$work/report.pdf" | awk '/^Pages:/ {print $2}')
report_sha=$(sha256sum "$report" | cut -d' ' -f1)
for needed in "page 1 of $pages" "page $pages of $pages" "shakedown run synthetic, analyzed" "report.html sha256 $report_sha" \
  "Appendix: measured values"; do
  grep -qF "$needed" "$work/report.txt" || { echo "FAIL: the PDF's text lacks '$needed'"; exit 1; }
done
[ "$(grep -cF "report.html sha256 $report_sha" "$work/report.txt")" -eq "$pages" ] ||
  { echo "FAIL: not every page names the report's sha256"; exit 1; }
expect_exit 1 "$analyze" "$work/run" --quiet --paper letter --pdf "$work/letter.pdf" >/dev/null
pdfinfo "$work/letter.pdf" | grep -q "^Page size: .*(letter)" || { echo "FAIL: --paper letter"; exit 1; }
# No browser process outlives the analyzer: none of them has the work folder's report open.
if pgrep -f -- "--print-to-pdf=.*shakedown-pdf" >/dev/null; then echo "FAIL: a chromium process was left"; exit 1; fi

# A site's templates brand both reports.
mkdir -p "$work/site"
cat >"$work/site/report.html.mustache" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><title>ACME {{title}}</title></head>
<body><h1>ACME Compute acceptance</h1>{{#header}}<p id="run">{{run_id}} job {{#slurm}}{{job_id}}{{/slurm}}</p>{{/header}}
{{#nodes}}<p class="{{level}}">{{node}} {{verdict}}</p>{{/nodes}}<p>{{#signoff}}{{line}}{{/signoff}}</p></body></html>
EOF
printf '# ACME {{title}}\n{{#nodes}}- {{node}}: {{verdict}}\n{{/nodes}}' >"$work/site/report.md.mustache"
expect_exit 1 "$analyze" "$work/run" --quiet --template-dir "$work/site" --html "$work/branded.html" >/dev/null
python3 - "$work/branded.html" <<'PY'
import sys, xml.dom.minidom
text = open(sys.argv[1], encoding="utf-8").read()
xml.dom.minidom.parseString(text.encode("utf-8"))
assert "<h1>ACME Compute acceptance</h1>" in text and '<p id="run">synthetic job 778899</p>' in text, text[:400]
assert '<p class="fail">node0002 FAIL</p>' in text and "Verdict: FAIL: 8 node(s)" in text, text
PY
"$analyze" "$work/run" --template-dir "$work/site" --format markdown --no-html --summary "$work/s.json" \
  --junit "$work/j.xml" --drain "$work/d.txt" >"$work/branded.md" || true
grep -q "^# ACME shakedown run synthetic$" "$work/branded.md" && grep -q "^- node0005: FAIL$" "$work/branded.md" ||
  { echo "FAIL: the Markdown template was not used"; head -5 "$work/branded.md"; exit 1; }

# A bad template folder: exit 2, one line naming it, nothing overwritten.
before=$(sha256sum "$report" "$work/run/summary.json")
printf '{{#nodes}}unclosed' >"$work/site/report.md.mustache"
for bad in "$work/site" "$work/no-such-folder"; do
  expect_exit 2 "$analyze" "$work/run" --quiet --template-dir "$bad" 2>"$work/bad.err" >/dev/null
  [ "$(wc -l <"$work/bad.err")" -eq 1 ] && grep -q -- "--template-dir $bad" "$work/bad.err" ||
    { echo "FAIL: bad template folder message"; cat "$work/bad.err"; exit 1; }
done
[ "$before" = "$(sha256sum "$report" "$work/run/summary.json")" ] || { echo "FAIL: a bad template overwrote a report"; exit 1; }

# --pdf without chromium on PATH: exit 2 naming it, nothing written.
expect_exit 2 env PATH=/nonexistent "$analyze" "$work/run" --quiet --pdf "$work/none.pdf" 2>"$work/nopdf.err" >/dev/null
grep -q "chromium" "$work/nopdf.err" && [ ! -e "$work/none.pdf" ] || { echo "FAIL: --pdf without chromium"; cat "$work/nopdf.err"; exit 1; }
[ "$before" = "$(sha256sum "$report" "$work/run/summary.json")" ] || { echo "FAIL: --pdf without chromium overwrote a report"; exit 1; }
echo "PASS"
