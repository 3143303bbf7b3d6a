"""shakedown-analyze export on a real run folder (the synthetic generator, one slow node): the CSV
read back with Python's csv module and the OpenMetrics text with Prometheus' own parser
(prometheus_client.openmetrics.parser), their values checked against summary.json of the same run,
and bad input refused with one line, nothing written.
Usage: export_test.py SYNTHETIC_RUN_EXE ANALYZE_EXE WORK_DIR"""
import csv
import json
import math
import os
import subprocess
import sys

from outputs_common import Checks, analyze, fresh_dir, require, synthetic_run

parser = require("prometheus_client.openmetrics.parser")

generator, analyzer, work = sys.argv[1:4]
fresh_dir(work)
checks = Checks()
columns = ["run", "node", "rank", "gpu_uuid", "test", "metric", "unit", "value", "nominal", "level"]

run = synthetic_run(generator, os.path.join(work, "run"), "--tests", "stream,dgemm_fp64,mpi_pingpong",
                    "--slow-node", "2", "--run-id", "export-test")
analyze(analyzer, run, "--no-html", "--quiet", expect=1)
with open(os.path.join(run, "summary.json"), encoding="utf-8") as file:
    summary = json.load(file)
before = sorted(os.listdir(run))

csv_path = os.path.join(work, "rows.csv")
analyze(analyzer, "export", run, "--format", "csv", "--output", csv_path, expect=0)
openmetrics = analyze(analyzer, "export", run, "--format", "openmetrics", expect=0)
checks.expect(sorted(os.listdir(run)) == before, "export writes nothing into the run folder")

# CSV: the declared header, one row per rank x metric, values as summary.json's per-node figures.
with open(csv_path, encoding="utf-8", newline="") as file:
    reader = csv.DictReader(file)
    header = reader.fieldnames
    rows = list(reader)
checks.expect(header == columns, f"the CSV header is the tidy columns: {header}")
checks.expect(len(rows) > 0 and all(row["run"] == "export-test" for row in rows), f"{len(rows)} rows, all of the run")
metric_count = sum(len(node["metrics"]) for node in summary["nodes"])
by_node_metric = {}
for row in rows:
    by_node_metric.setdefault((row["node"], row["metric"]), []).append(float(row["value"]))
checks.expect(len(by_node_metric) == metric_count, f"every node x metric of summary.json is exported ({metric_count})")
mismatched = [(node["node"], metric["name"]) for node in summary["nodes"] for metric in node["metrics"]
              if (values := by_node_metric.get((node["node"], metric["name"]))) is None
              or min(values) != metric["min"] or max(values) != metric["max"] or len(values) != metric["ranks"]]
checks.expect(not mismatched, f"each node's min, max and rank count equal summary.json's: {mismatched[:3]}")
triad = [row for row in rows if row["metric"] == "stream.triad_gbs"]
checks.expect(len(triad) == 8 and all(float(row["nominal"]) > 0 for row in triad),
              "stream.triad_gbs: one row per rank (8), each with its nominal")

# Levels: the worst finding about that rank's metric; the slow node fails, the others pass.
worst = {}
rank_order = {"warn": 1, "fail": 2}
for node in summary["nodes"]:
    for finding in node["findings"]:
        if finding["metric"] is not None:
            key = (finding["rank"], finding["metric"])
            worst[key] = max(worst.get(key, 0), rank_order[finding["level"]])
# A figure no rule compared is "not_judged" (a pass there would claim a check never made).
judged_rows = [row for row in rows if row["level"] != "not_judged"]
checks.expect(all(row["level"] in ("pass", "warn", "fail", "not_judged") for row in rows), "levels are pass, warn, fail or not_judged")
checks.expect(0 < len(judged_rows) < len(rows), f"some rows judged, some not ({len(judged_rows)} of {len(rows)})")
exported = {(int(row["rank"]), row["metric"]): {"pass": 0, "warn": 1, "fail": 2}[row["level"]] for row in judged_rows}
checks.expect(all(exported[key] == level for key, level in worst.items() if key in exported)
              and all(level == worst.get(key, 0) for key, level in exported.items()),
              "every judged row's level is its findings' worst level, pass without one")
checks.expect(all((int(row["rank"]), row["metric"]) not in worst for row in rows if row["level"] == "not_judged"),
              "no row with a finding is not_judged")
failing_nodes = {row["node"] for row in rows if row["level"] == "fail"}
checks.expect(failing_nodes == {"node0002"}, f"only the slow node has failing rows: {failing_nodes}")
checks.expect(all(row["level"] == "pass" for row in triad if row["node"] != "node0002"),
              "the healthy nodes' triad rows pass")

# OpenMetrics through Prometheus' parser: three gauge families, the CSV's values and levels.
checks.expect(openmetrics.endswith("# EOF\n"), "the OpenMetrics text ends with # EOF")
families = {family.name: family for family in parser.text_string_to_metric_families(openmetrics)}
checks.expect(set(families) == {"shakedown_metric_value", "shakedown_metric_nominal", "shakedown_metric_level"}
              and all(family.type == "gauge" for family in families.values()), f"families: {sorted(families)}")


def identity(labels):
    return (labels["node"], labels["rank"], labels["test"], labels["metric"])


csv_by_identity = {(row["node"], row["rank"], row["test"], row["metric"]): row for row in rows}
values = {identity(s.labels): s for s in families["shakedown_metric_value"].samples}
checks.expect(len(values) == len(rows), f"one value sample per CSV row ({len(values)} of {len(rows)})")


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


checks.expect(all(same(sample.value, float(csv_by_identity[key]["value"])) and
                  sample.labels["unit"] == csv_by_identity[key]["unit"] and
                  sample.labels["gpu_uuid"] == csv_by_identity[key]["gpu_uuid"] and
                  sample.labels["run"] == "export-test" for key, sample in values.items()),
              "every value sample equals its CSV row (value, unit, GPU UUID, run)")
nominals = {identity(s.labels): s.value for s in families["shakedown_metric_nominal"].samples}
checks.expect(nominals == {key: float(row["nominal"]) for key, row in csv_by_identity.items() if row["nominal"]},
              "nominal samples exactly for the rows with a nominal")
levels = {identity(s.labels): s.value for s in families["shakedown_metric_level"].samples}
checks.expect(levels == {key: float({"pass": 0, "warn": 1, "fail": 2}[row["level"]]) for key, row in csv_by_identity.items()
                         if row["level"] != "not_judged"},
              "level samples 0/1/2 as the CSV's levels, none for a row not judged")
checks.expect(all(s.timestamp is None for f in families.values() for s in f.samples),
              "no timestamps (node_exporter's textfile collector refuses them)")

# Bad input: one line, exit 2, an existing output left as it was.
with open(csv_path, "w", encoding="utf-8") as file:
    file.write("kept\n")
result = subprocess.run([analyzer, "export", work, "--format", "csv", "--output", csv_path], capture_output=True, text=True)
checks.expect(result.returncode == 2 and result.stderr.count("\n") == 1 and "run.json" in result.stderr,
              f"a folder that is not a run: exit 2 and one line ({result.returncode}: {result.stderr.strip()})")
with open(csv_path, encoding="utf-8") as file:
    checks.expect(file.read() == "kept\n", "the existing --output file is untouched")
result = subprocess.run([analyzer, "export", run, "--format", "json"], capture_output=True, text=True)
checks.expect(result.returncode == 2 and result.stderr.count("\n") == 1, "an unknown --format: exit 2 and one line")
checks.exit()
