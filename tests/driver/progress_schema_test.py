"""RUN/progress.json against its published JSON Schema (analysis/schemas/progress.schema.json), with
python3-jsonschema: every version a real 2-rank run writes while it goes (read every 50 ms, each read
must parse) and its final one, and planted mistakes are rejected.
Usage: progress_schema_test.py SHAKEDOWN_EXE MPIEXEC SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis", "outputs"))
from outputs_common import Checks, fresh_dir, require  # noqa: E402

jsonschema = require("jsonschema")

shakedown, mpiexec, source, work = sys.argv[1:5]
fresh_dir(work)
checks = Checks()

with open(os.path.join(source, "analysis", "schemas", "progress.schema.json"), encoding="utf-8") as file:
    schema = json.load(file)
jsonschema.Draft202012Validator.check_schema(schema)  # raises on a broken schema
validator = jsonschema.Draft202012Validator(schema)


def errors(document):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in validator.iter_errors(document)]


config = os.path.join(work, "c.yaml")
with open(config, "w", encoding="utf-8") as file:
    file.write("params:\n  stream: {array_mib: 4, repetitions: 3}\n"
               "  burnin: {host: true, duration_s: 4, window_s: 1, host_n: 128, telemetry_hz: 5}\n")
progress = os.path.join(work, "r1", "progress.json")
command = [mpiexec, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader,tcp", shakedown,
           "run", "--tests", "stream,burnin", "--config", config, "--out", work, "--name", "r1", "--progress", "lines"]
run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
versions, invalid, states = 0, [], set()
deadline = time.monotonic() + 150
while run.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)
    if not os.path.exists(progress):
        continue
    with open(progress, encoding="utf-8") as file:
        document = json.load(file)  # a half-written file fails here
    versions += 1
    states.add(document["state"])
    found = errors(document)
    if found:
        invalid.append(found)
output = run.communicate(timeout=30)[0]
checks.expect(run.returncode == 0, f"the run exited 0 (got {run.returncode}): {output[-2000:]}")
checks.expect(versions > 10, f"progress.json read {versions} times while the run went")
checks.expect("running" in states, "some read saw the run running")
checks.expect(not invalid, f"every read is valid: {invalid[:2]}")
if not os.path.exists(progress):
    checks.expect(False, f"the run left {progress}")
    checks.exit()
with open(progress, encoding="utf-8") as file:
    final = json.load(file)
checks.expect(not errors(final), f"the final progress.json is valid: {errors(final)[:3]}")
checks.expect(final["state"] == "finished" and [t["key"] for t in final["finished"]] == ["stream", "burnin"],
              "it ends finished with both tests")

# Planted mistakes, each of which the schema must reject.
running = copy.deepcopy(final)
running.update(state="running", current={"key": "burnin", "index": 1, "started_utc": final["updated_utc"],
                                         "started_utc_iso": final["updated_utc_iso"], "elapsed_s": 2.5,
                                         "expected_s": 4.0, "expected_from": "parameter duration_s"})
checks.expect(not errors(running), f"a hand-made running document is valid: {errors(running)[:3]}")
aborted = copy.deepcopy(running)
aborted.update(state="aborted", reason="ended by signal 15 (Terminated)")
checks.expect(not errors(aborted), f"a hand-made aborted document is valid: {errors(aborted)[:3]}")
mistakes = {
    "an unknown state": lambda d: d.update(state="paused"),
    "a missing run_id": lambda d: d.pop("run_id"),
    "an abort without a reason": lambda d: d.update(state="aborted", reason=None),
    "a reason while running": lambda d: d.update(reason="why"),
    "finished with a running test": lambda d: d.update(state="finished"),
    "a negative elapsed time": lambda d: d["current"].update(elapsed_s=-1),
    "an expectation said to be unknown": lambda d: d["current"].update(expected_from="unknown"),
    "an unknown expectation with a figure": lambda d: d["current"].update(expected_s=None),
    "a finished test's unknown status": lambda d: d["finished"][0].update(status="ok"),
    "a count as text": lambda d: d.update(tests_done="2"),
    "a time stamp without its zone": lambda d: d.update(updated_utc_iso="2026-12-02T03:00:00"),
}
for what, plant in mistakes.items():
    document = copy.deepcopy(running)
    plant(document)
    checks.expect(bool(errors(document)), f"rejected: {what}")
checks.exit()
