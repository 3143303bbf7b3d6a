#!/usr/bin/env python3
"""The Spack package against the CMake build: spack_package_test.py SOURCE_DIR

Without Spack: spack.package is replaced by a stand-in that records the package's variant() and
depends_on() calls and runs its cmake_args() on made-up specs. Checked:
  - every shakedown_option(NAME) of cmake/ShakedownOptions.cmake is a variant (cuda through
    CudaPackage) and every variant is an option;
  - cmake_args() sets SHAKEDOWN_WITH_<NAME> ON exactly when +name, for every option;
  - every required find_package / pkg_check_modules / SHAKEDOWN_*_INCLUDE_DIR find_path of any
    CMakeLists.txt is an unconditional
    dependency, every optional feature's libraries are dependencies when +feature, and the
    package depends on nothing else.
Each check is also run on a planted mismatch (an option only in CMake, a variant only in the
package, a dependency missing), which it must catch. Exit 0 when all hold."""

import itertools
import pathlib
import re
import sys
import types

# CMake package (find_package / pkg_check_modules module) -> Spack package; None: the system's.
REQUIRED_DEPENDENCIES = {
    "MPI": "mpi",
    "HDF5": "hdf5",
    "CLI11": "cli11",
    "yaml-cpp": "yaml-cpp",
    "nlohmann_json": "nlohmann-json",
    "cereal": "cereal",
    "fmt": "fmt",
    "Threads": None,
    "PkgConfig": "pkgconfig",
    "hwloc": "hwloc",
    "GTest": "googletest",
    "Python3": None,
    "SQLite3": "sqlite",
    "OpenSSL": "openssl",
    # Header-only libraries found with find_path(SHAKEDOWN_<NAME>_INCLUDE_DIR ...) and refused
    # at configure when absent.
    "SHAKEDOWN_MUSTACHE_INCLUDE_DIR": "kainjow-mustache",
}
# Optional feature -> the Spack packages it needs (CUDA's come with CudaPackage).
FEATURE_DEPENDENCIES = {
    "cuda": [],
    "nccl": ["nccl"],
    "kokkos": ["kokkos", "kokkos-kernels"],
    "verbs": ["rdma-core"],
    "ucx": ["ucx"],
    "scalapack": ["scalapack"],
}
BUILD_TOOLS = {"cmake", "help2man"}  # needed by the build itself, not by a find_package


def cmake_options(options_text):
    return {name.lower() for name in re.findall(r"^shakedown_option\((\w+)", options_text, re.M)}


def cmake_required_packages(cmake_texts):
    found = set()
    for text in cmake_texts:
        found |= set(re.findall(r"find_package\(([\w-]+)[^)]*\bREQUIRED\b", text))
        found |= set(re.findall(r"pkg_check_modules\(\w+\s+REQUIRED(?:\s+IMPORTED_TARGET)?\s+([\w-]+)", text))
        found |= set(re.findall(r"find_path\((SHAKEDOWN_\w+_INCLUDE_DIR)\b", text))
    return found


class Recorder:
    def __init__(self):
        self.variants = {}
        self.dependencies = []  # (spec string, when)


def load_package(package_text):
    """Executes package.py against a stand-in spack.package; returns (class, recorder)."""
    recorder = Recorder()
    stand_in = types.ModuleType("spack.package")

    class CMakePackage:
        def define(self, name, value):
            if isinstance(value, bool):
                value = "ON" if value else "OFF"
            return f"-D{name}={value}"

    class CudaPackage:
        pass

    def variant(name, **kwargs):
        recorder.variants[name] = kwargs

    def depends_on(spec, when=None, type=None):
        recorder.dependencies.append((spec, when))

    stand_in.CMakePackage = CMakePackage
    stand_in.CudaPackage = CudaPackage
    stand_in.variant = variant
    stand_in.depends_on = depends_on
    stand_in.version = lambda *args, **kwargs: None
    stand_in.license = lambda *args, **kwargs: None
    stand_in.conflicts = lambda *args, **kwargs: None
    spack = types.ModuleType("spack")
    spack.package = stand_in
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = stand_in
    namespace = {}
    exec(compile(package_text, "package.py", "exec"), namespace)
    classes = [value for value in namespace.values()
               if isinstance(value, type) and issubclass(value, CMakePackage) and value is not CMakePackage]
    if len(classes) != 1:
        raise AssertionError(f"package.py defines {len(classes)} CMake packages, expected 1")
    package = classes[0]
    if issubclass(package, CudaPackage):
        recorder.variants.setdefault("cuda", {"from": "CudaPackage"})
    return package, recorder


class FakeSpec:
    def __init__(self, on):
        self.on = set(on)
        arch = types.SimpleNamespace(value=("90",))
        self.variants = {"cuda_arch": arch}

    def satisfies(self, constraint):
        wanted = re.findall(r"\+(\w+)", constraint)
        return all(name in self.on for name in wanted)


def package_name(spec):
    return re.match(r"[\w-]+", spec).group(0)


def check(options_text, cmake_texts, package_text):
    """Every mismatch between the CMake build and the package, as lines (empty: none)."""
    problems = []
    options = cmake_options(options_text)
    package, recorder = load_package(package_text)
    variants = set(recorder.variants)
    for name in sorted(options - variants):
        problems.append(f"CMake option SHAKEDOWN_WITH_{name.upper()} has no Spack variant '{name}'")
    for name in sorted(variants - options):
        problems.append(f"Spack variant '{name}' is no CMake option (no shakedown_option({name.upper()}))")

    # cmake_args on every combination of the options: ON exactly when +name.
    ordered = sorted(options & variants)
    for flags in itertools.product([False, True], repeat=len(ordered)):
        on = [name for name, flag in zip(ordered, flags) if flag]
        instance = package.__new__(package)
        instance.spec = FakeSpec(on)
        instance.run_tests = False
        args = instance.cmake_args()
        for name in ordered:
            expected = f"-DSHAKEDOWN_WITH_{name.upper()}={'ON' if name in on else 'OFF'}"
            if expected not in args:
                problems.append(f"cmake_args() with {'+' + name if name in on else '~' + name} lacks {expected}")
                break
        else:
            continue
        break

    unconditional = {package_name(spec) for spec, when in recorder.dependencies if when is None}
    required = cmake_required_packages(cmake_texts)
    for cmake_name in sorted(required):
        if cmake_name not in REQUIRED_DEPENDENCIES:
            problems.append(f"CMake requires '{cmake_name}', which the test's table does not map to a Spack package")
        elif REQUIRED_DEPENDENCIES[cmake_name] and REQUIRED_DEPENDENCIES[cmake_name] not in unconditional:
            problems.append(f"CMake requires '{cmake_name}' but the package does not depend_on('{REQUIRED_DEPENDENCIES[cmake_name]}')")
    for feature, needed in FEATURE_DEPENDENCIES.items():
        if feature not in options:
            continue
        for dependency in needed:
            if not any(package_name(spec) == dependency and when and f"+{feature}" in when
                       for spec, when in recorder.dependencies):
                problems.append(f"+{feature} needs depends_on('{dependency}', when='+{feature}')")
    for feature in sorted(options - set(FEATURE_DEPENDENCIES)):
        problems.append(f"option '{feature}': the test's table does not say which Spack packages it needs")
    known = {name for name in REQUIRED_DEPENDENCIES.values() if name} | BUILD_TOOLS
    known |= {dependency for needed in FEATURE_DEPENDENCIES.values() for dependency in needed}
    for spec, when in recorder.dependencies:
        if package_name(spec) not in known:
            problems.append(f"depends_on('{spec}') matches nothing the CMake build looks for")
    return problems


def main():
    source = pathlib.Path(sys.argv[1])
    options_text = (source / "cmake/ShakedownOptions.cmake").read_text()
    # Every CMakeLists.txt of the source tree (a build folder inside it excluded).
    cmake_texts = [path.read_text() for path in sorted(source.rglob("CMakeLists.txt"))
                   if not any(part.startswith(("build", ".")) for part in path.relative_to(source).parts[:-1])]
    package_text = (source / "packaging/spack/packages/shakedown/package.py").read_text()

    failed = False
    problems = check(options_text, cmake_texts, package_text)
    for line in problems:
        print(f"spack package: {line}")
        failed = True

    # Planted mismatches the check must catch.
    planted = {
        "an option only in CMake": (options_text + '\nshakedown_option(ROCM "ROCm kernels")\n', cmake_texts, package_text),
        "a variant only in the package": (options_text, cmake_texts, package_text.replace(
            '    variant("ucx"', '    variant("rocm", default=False, description="x")\n    variant("ucx"')),
        "an option cmake_args ignores": (options_text, cmake_texts, package_text.replace(
            '"verbs", "ucx", "scalapack")', '"verbs", "ucx")')),
        "a required library the package lacks": (options_text, cmake_texts, package_text.replace(
            '    depends_on("yaml-cpp")\n', '')),
        "a feature's library the package lacks": (options_text, cmake_texts, package_text.replace(
            '    depends_on("rdma-core", when="+verbs")\n', '')),
        "an unmapped CMake requirement": (options_text, cmake_texts + ["find_package(Boost REQUIRED)"], package_text),
        "a dependency CMake never looks for": (options_text, cmake_texts, package_text.replace(
            '    depends_on("fmt")\n', '    depends_on("fmt")\n    depends_on("boost")\n')),
    }
    for what, (options, texts, package) in planted.items():
        if package == package_text and options == options_text and texts == cmake_texts:
            print(f"spack package test: the planted case '{what}' changed nothing (its pattern is stale)")
            failed = True
        elif not check(options, texts, package):
            print(f"spack package test: the planted case '{what}' was not caught")
            failed = True
    if not failed:
        print(f"spack package: {len(cmake_options(options_text))} variants match the CMake options, "
              f"dependencies match; {len(planted)} planted mismatches caught")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
