"""run.json against its published JSON Schema (analysis/schemas/run.schema.json) with
python3-jsonschema: the run.json a real 2-rank run writes (traces in their block folder), an older
flat run.json, and planted mistakes (hostile trace paths among them) rejected.
Usage: run_schema_test.py MPIEXEC SHAKEDOWN_EXE SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("python3-jsonschema is missing (scripts/install-deps.sh installs it)")

mpiexec, shakedown, source, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


with open(os.path.join(source, "analysis", "schemas", "run.schema.json"), encoding="utf-8") as file:
    schema = json.load(file)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def problems(document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:120]}" for e in validator.iter_errors(document)]


config = os.path.join(work, "tiny.yaml")
with open(config, "w", encoding="utf-8") as file:
    file.write('params:\n  mpi_pingpong: {sizes: "8", iterations_small: 20, warmup_small: 2, batch: 10}\n')
run = subprocess.run([mpiexec, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader,tcp",
                      shakedown, "run", "--tests", "mpi_pingpong", "--no-telemetry", "--config", config, "--out", work,
                      "--name", "s2"], capture_output=True, text=True, timeout=180)
check(run.returncode == 0, f"the 2-rank run exits 0 ({run.returncode}: {run.stderr[-300:]})")
with open(os.path.join(work, "s2", "run.json"), encoding="utf-8") as file:
    written = json.load(file)
check(problems(written) == [], f"the run.json a real run writes is valid: {problems(written)}")
check(written["schema_version"] == "1.2", "it is schema 1.2")
check([r["trace"] for r in written["ranks"]] == ["traces/00000-00999/rank-00000.h5", "traces/00000-00999/rank-00001.h5"],
      "its traces lie in the first block folder")
check(all(os.path.isfile(os.path.join(work, "s2", r["trace"])) for r in written["ranks"]), "the traces are where it says")

old = copy.deepcopy(written)
old["schema_version"] = "1.1"
del old["manifest_cost"]
for entry in old["ranks"]:
    entry["trace"] = "rank-%05d.h5" % entry["rank"]
check(problems(old) == [], f"a flat run.json of 1.1 is valid: {problems(old)}")

planted = {
    "an absolute trace": ("/ranks/0/trace", "/etc/passwd"),
    "a trace through ..": ("/ranks/0/trace", "../../etc/passwd"),
    "a trace leaving its block": ("/ranks/1/trace", "traces/../../x.h5"),
    "a trace ending in ..": ("/ranks/1/trace", "traces/00000-00999/.."),
    "a NUL in a trace": ("/ranks/0/trace", "rank-00000.h5\u0000/../x"),
    "world_size 0": ("/world_size", 0),
    "an unknown status": ("/status", "finished"),
    "negative cost bytes": ("/manifest_cost/bytes", -1),
    "schema 2.0": ("/schema_version", "2.0"),
}
for what, (pointer, value) in planted.items():
    document = copy.deepcopy(written)
    *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
    target = document
    for part in parents:
        target = target[part]
    target[last] = value
    check(problems(document) != [], f"{what} is rejected")
for inside in ["rank-00000.h5", "traces/00000-00999/rank-00000.h5", "a..b/rank..h5", None]:
    document = copy.deepcopy(written)
    document["ranks"][0]["trace"] = inside
    check(problems(document) == [], f"trace {inside!r} is accepted")

shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
