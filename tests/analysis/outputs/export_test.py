"""shakedown-analyze export on a real run folder (the synthetic generator, one slow node): the CSV
read back with Python's csv module and the OpenMetrics text with Prometheus' own parser
(prometheus_client.openmetrics.parser), their values checked against summary.json of the same run
(the OpenMetrics families per metric and in base units, against the CSV), and bad input refused
with one line, nothing written.
Usage: export_test.py SYNTHETIC_RUN_EXE ANALYZE_EXE WORK_DIR"""
import csv
import decimal
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

# OpenMetrics through Prometheus' parser: one gauge family per metric in base units (the unit
# table of analysis/export/tidy_openmetrics.cpp, for the units of this run), its nominal beside it,
# the run once as shakedown_run_info, the levels in one family; values and levels as the CSV's.
checks.expect(openmetrics.endswith("# EOF\n"), "the OpenMetrics text ends with # EOF")
families = {family.name: family for family in parser.text_string_to_metric_families(openmetrics)}
# unit: (base unit, power of ten to it, how the metric names spell the unit)
base_units = {"GB/s": ("bytes_per_second", 9, "gbs"), "TFLOP/s": ("flops_per_second", 12, "tflops"),
              "us": ("seconds", -6, "us")}
checks.expect({row["unit"] for row in rows} <= set(base_units), f"this run's units are in the test's table: "
              f"{sorted({row['unit'] for row in rows})}")


def family_of(metric, unit, part=""):
    """shakedown_ + the test + the metric's words less the unit's spelling (its last place) + part + _unit."""
    test, rest = metric.split(".", 1)
    words = rest.split("_")
    spelled = base_units[unit][2]
    if spelled in words:
        del words[len(words) - 1 - words[::-1].index(spelled)]
    return "_".join(["shakedown", test, *words, *([part] if part else []), base_units[unit][0]])


def to_base(text, unit):
    """The CSV's value (shortest round-trip text) with its decimal point moved, as the export does."""
    return float(decimal.Decimal(text).scaleb(base_units[unit][1])) if text not in ("NaN", "Inf", "-Inf") else float(text)


checks.expect(family_of("stream.triad_gbs", "GB/s") == "shakedown_stream_triad_bytes_per_second"
              and family_of("dgemm_fp64.tflops_max", "TFLOP/s") == "shakedown_dgemm_fp64_max_flops_per_second",
              "the test's naming reads as the documented examples")
value_families = {family_of(row["metric"], row["unit"]) for row in rows}
nominal_families = {family_of(row["metric"], row["unit"], "nominal") for row in rows if row["nominal"]}
expected_families = value_families | nominal_families | {"shakedown_run_info", "shakedown_metric_level"}
checks.expect(set(families) == expected_families, f"one family per metric and per metric with a nominal, the run's "
              f"info and the levels ({len(families)}; differing: {sorted(set(families) ^ expected_families)[:5]})")
checks.expect(all(family.type == "gauge" for family in families.values()), "every family a gauge (the info one too)")
checks.expect(all(families[family_of(row["metric"], row["unit"], part)].unit == base_units[row["unit"]][0]
                  for row in rows for part in ("", "nominal")
                  if family_of(row["metric"], row["unit"], part) in families),
              "each metric's families have its base unit as UNIT")
triad = families.get("shakedown_stream_triad_bytes_per_second")
checks.expect(triad is not None and len(triad.samples) == 8 and "stream.triad_gbs" in triad.documentation,
              "stream.triad_gbs: shakedown_stream_triad_bytes_per_second, 8 samples, HELP naming the metric")

info = families.get("shakedown_run_info")
with open(os.path.join(run, "run.json"), encoding="utf-8") as file:
    manifest = json.load(file)
checks.expect(info is not None and [sample.labels for sample in info.samples] ==
              [{"run_id": "export-test", "run_uuid": manifest.get("run_uuid") or "",
                "shakedown_version": manifest["shakedown_version"]}] and info.samples[0].value == 1,
              f"the run once: shakedown_run_info{{run_id, run_uuid, shakedown_version}} 1 as run.json says "
              f"({info.samples if info else None})")
checks.expect(all(not {"run", "unit"} & set(sample.labels) and ("metric" in sample.labels) == (name == "shakedown_metric_level")
                  for name, family in families.items() for sample in family.samples),
              "no sample labelled with the run or the unit; only the levels name the metric")


def identity(labels, metric):
    return (labels["node"], labels["rank"], labels["test"], metric)


def samples_of(name):
    return families[name].samples if name in families else []


csv_by_identity = {(row["node"], row["rank"], row["test"], row["metric"]): row for row in rows}
metric_of = {family_of(row["metric"], row["unit"], part): row["metric"] for row in rows for part in ("", "nominal")}
values = {identity(sample.labels, metric_of[name]): sample for name in value_families for sample in samples_of(name)}
checks.expect(len(values) == len(rows) == sum(len(samples_of(name)) for name in value_families),
              f"one value sample per CSV row ({len(values)} of {len(rows)})")


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


checks.expect(all(same(sample.value, to_base(csv_by_identity[key]["value"], csv_by_identity[key]["unit"])) and
                  sample.labels["gpu_uuid"] == csv_by_identity[key]["gpu_uuid"] for key, sample in values.items()),
              "every value sample is its CSV row's value in base units (x 1e9, x 1e12, / 1e6), with its GPU UUID")
nominals = {identity(sample.labels, metric_of[name]): sample.value for name in nominal_families for sample in samples_of(name)}
checks.expect(nominals == {key: to_base(row["nominal"], row["unit"]) for key, row in csv_by_identity.items() if row["nominal"]},
              "nominal samples exactly for the rows with a nominal, in the same base unit")
levels = {identity(s.labels, s.labels["metric"]): s.value for s in families["shakedown_metric_level"].samples}
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
