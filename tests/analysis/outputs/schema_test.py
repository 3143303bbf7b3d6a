"""summary.json, the thresholds file and the calibrated references against their published JSON
Schemas (analysis/schemas/), with python3-jsonschema: real analyzer output of a healthy and of a
faulty synthetic run, the built-in files, --print-thresholds; and planted mistakes are rejected.
Usage: schema_test.py SYNTHETIC_RUN_EXE ANALYZE_EXE SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import sys

from outputs_common import Checks, analyze, fresh_dir, require, synthetic_run

jsonschema = require("jsonschema")
yaml = require("yaml")

generator, analyzer, source, work = sys.argv[1:5]
fresh_dir(work)
checks = Checks()


def validator(name):
    with open(os.path.join(source, "analysis", "schemas", name), encoding="utf-8") as file:
        schema = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)  # raises on a broken schema
    return jsonschema.Draft202012Validator(schema)


def errors(validator, document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in validator.iter_errors(document)]


summary_schema = validator("summary.schema.json")
thresholds_schema = validator("thresholds.schema.json")
calibrated_schema = validator("calibrated.schema.json")

# Real output: a faulty run (slow node, throttled GPU, allpairs, a price) and a healthy one.
tests = "stream,dgemm_fp64,mpi_pingpong,mpi_coll,allpairs"
faulty = synthetic_run(generator, os.path.join(work, "faulty"), "--tests", tests, "--slow-node", "2",
                       "--throttled-gpu", "0,1")
analyze(analyzer, faulty, "--no-html", "--quiet", "--price-per-node-hour", "40", expect=1)
healthy = synthetic_run(generator, os.path.join(work, "healthy"), "--tests", tests)
analyze(analyzer, healthy, "--no-html", "--quiet", expect=0)
summaries = {}
for name, run in (("faulty", faulty), ("healthy", healthy)):
    with open(os.path.join(run, "summary.json"), encoding="utf-8") as file:
        summaries[name] = json.load(file)
    found = errors(summary_schema, summaries[name])
    checks.expect(not found, f"{name} run's summary.json is valid: {found[:3]}")

findings = [f for node in summaries["faulty"]["nodes"] for f in node["findings"]]
checks.expect(any(f["level"] == "fail" for f in findings), "the faulty run has FAIL findings to validate")
checks.expect(any(isinstance(f["bound"], float) for f in findings), "some finding carries its bound as a number")
checks.expect(all(f["code"] != "unclassified" for f in findings), "every finding of these rules has its own code")
checks.expect(summaries["faulty"]["price"] is not None and summaries["faulty"]["localization"] is not None,
              "the optional sections (price, localization) were present and validated")

# Each bound is the edge the value crossed, in the value's unit: on the bad side of it, and the
# band's fraction of the reference it was compared with (default.yaml, calibrated.yaml).
def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def below_band(fail, warn):
    return lambda f: f["value"] < f["bound"] and close(f["bound"], {"fail": fail, "warn": warn}[f["level"]] * f["reference"])


crossed = {"below_calibrated": below_band(0.75, 0.90),
           "slow_node_links": below_band(0.70, 0.90),
           "fleet_outlier": lambda f: f["value"] > f["bound"] > f["reference"],  # latency: lower is better
           "slow_rank": lambda f: f["value"] >= f["bound"] and f["bound"] == {"fail": 3.0, "warn": 1.5}[f["level"]]}
for code, holds in crossed.items():
    of_code = [f for f in findings if f["code"] == code]
    checks.expect(bool(of_code) and all(holds(f) for f in of_code), f"{code}: {len(of_code)} finding(s), each past its bound")

# The built-in files and what --print-thresholds prints.
for name, schema in (("default.yaml", thresholds_schema), ("calibrated.yaml", calibrated_schema)):
    with open(os.path.join(source, "analysis", "thresholds", name), encoding="utf-8") as file:
        found = errors(schema, yaml.safe_load(file))
    checks.expect(not found, f"analysis/thresholds/{name} is valid: {found[:3]}")
printed = yaml.safe_load(analyze(analyzer, "--print-thresholds", expect=0))
checks.expect(not errors(thresholds_schema, printed), "--print-thresholds output is valid")

# Planted mistakes must be rejected: each would otherwise make the schema a rubber stamp.
def rejected(schema, document, what):
    checks.expect(bool(errors(schema, document)), f"rejected: {what}")

fail_finding = next(f for f in findings if f["level"] == "fail")
planted = copy.deepcopy(summaries["faulty"])
planted["nodes"][0]["findings"] = [dict(fail_finding, code="slow-ish")]
rejected(summary_schema, planted, "a reason code outside the declared list")
planted["nodes"][0]["findings"] = [dict(fail_finding, bound="4.7")]
rejected(summary_schema, planted, "a bound written as text")
planted["nodes"][0]["findings"] = [dict(fail_finding, cause="cosmic rays")]
rejected(summary_schema, planted, "an unknown cause class")
planted = copy.deepcopy(summaries["healthy"])
del planted["nodes"][0]["verdict"]
rejected(summary_schema, planted, "a node without its verdict")
typo = copy.deepcopy(printed)
typo["metrics"]["stream.triad_gbs"]["fraction_of_nominal"]["fial"] = 0.5
rejected(thresholds_schema, typo, "a misspelt band key (fial)")
typo = copy.deepcopy(printed)
typo["baseline"]["level"] = "error"
rejected(thresholds_schema, typo, "baseline.level outside warn|fail")
with open(os.path.join(source, "analysis", "thresholds", "calibrated.yaml"), encoding="utf-8") as file:
    calibrated = yaml.safe_load(file)
del calibrated["references"][0]["healthy_fraction"]
rejected(calibrated_schema, calibrated, "a reference with neither healthy_fraction nor healthy_value")
checks.exit()
