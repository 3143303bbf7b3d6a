"""Shared by the machine-readable output tests: real run folders from the synthetic generator,
analyzed by the real shakedown-analyze. A missing Python module is a failure, never a skip: the
tests exist to prove the outputs parse with these tools (scripts/install-deps.sh installs them)."""
import importlib
import os
import shutil
import subprocess
import sys


def require(module):
    try:
        return importlib.import_module(module)
    except ImportError as error:
        sys.exit(f"FAIL: python module {module} is missing ({error}); scripts/install-deps.sh installs it")


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def synthetic_run(generator, folder, *options):
    """A small run folder: 4 nodes x 2 ranks, few samples (quick on 2 cores)."""
    subprocess.run([generator, folder, "--ranks", "8", "--ranks-per-node", "2", "--samples", "4",
                    "--telemetry-hz", "2", *options], check=True, stdout=subprocess.DEVNULL)
    return folder


def analyze(analyzer, *arguments, expect):
    result = subprocess.run([analyzer, *arguments], capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"FAIL: shakedown-analyze {' '.join(arguments)} exited {result.returncode}, expected {expect}:\n"
                 f"{result.stdout}{result.stderr}")
    return result.stdout


class Checks:
    """Counts failed expectations; every check names what it checked."""

    def __init__(self):
        self.failures = 0

    def expect(self, condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            self.failures += 1

    def exit(self):
        print(f"{self.failures} failed check(s)" if self.failures else "all checks passed")
        sys.exit(1 if self.failures else 0)
