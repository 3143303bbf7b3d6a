#!/usr/bin/env python3
"""The Spack package against the CMake build and against what Spack 1.x asks of a package:
spack_package_test.py SOURCE_DIR

Without Spack: spack.package is replaced by a stand-in that records every directive the package
calls (version, variant, depends_on, conflicts, requires, provides, patch, license, maintainers,
with the condition of any enclosing `with when(...)`) and runs its cmake_args() on made-up specs.
The stand-in exports only the names listed in STAND_IN_NAMES, with the keywords Spack's
directives take, so a misspelt directive or keyword fails here as it would in Spack. Checked:
  - every shakedown_option(NAME) of cmake/ShakedownOptions.cmake is a variant (cuda through
    CudaPackage) and every variant is an option;
  - cmake_args() sets SHAKEDOWN_WITH_<NAME> ON exactly when +name, for every option;
  - every required find_package / pkg_check_modules / SHAKEDOWN_*_INCLUDE_DIR find_path of any
    CMakeLists.txt is an unconditional dependency, every optional feature's libraries are
    dependencies when +feature, and the package depends on nothing else;
  - every language CMake enables is asked for: depends_on("c"/"cxx", type="build") (Spack 1.x
    gives a package no compiler it did not ask for), CUDA through CudaPackage;
  - every cuda_arch value reaches kokkos, kokkos-kernels and nccl under the matching cuda_arch
    and feature, and +kokkos~cuda asks for a Kokkos without CUDA;
  - HDF5 is asked for with the variants the CMake components need and no mpi constraint (the
    project calls its serial C API only, which a parallel HDF5 also provides);
  - license() is declared when the source tree has a license file and not otherwise; every
    version is a branch, tag, commit or checksum, and version("main", branch="main") is there.
Each check is also run on a planted mismatch, which it must catch. Exit 0 when all hold."""

import contextlib
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
# CMake language -> the Spack virtual a package depends on for its compiler (type="build").
# CUDA has none: its compiler is the cuda package, which CudaPackage adds under +cuda.
LANGUAGE_DEPENDENCIES = {"C": "c", "CXX": "cxx", "Fortran": "fortran"}
# Spack package that has device code -> the shakedown variant under which it must be built for
# shakedown's cuda_arch values.
CUDA_ARCH_PROPAGATION = {"kokkos": "kokkos", "kokkos-kernels": "kokkos", "nccl": "nccl"}
# find_package(HDF5 COMPONENTS ...) -> the hdf5 variant that component needs. The project uses
# only the serial C API, so the mpi variant is left to the site either way.
HDF5_COMPONENT_VARIANTS = {"HL": "hl", "CXX": "cxx", "Fortran": "fortran"}
# The cuda_arch values of spack-packages' CudaPackage (repos/spack_repo/builtin/build_systems/
# cuda.py at spack/spack-packages 1e8cf059, July 2026): the stand-in's CudaPackage offers the
# same, so a package that propagates only some of them is caught.
CUDA_ARCH_VALUES = (
    "10", "11", "12", "13", "20", "21", "30", "32", "35", "37", "50", "52", "53", "60", "61",
    "62", "70", "72", "75", "80", "86", "87", "89", "90", "90a", "100", "100a", "100f", "101",
    "101a", "101f", "103", "103a", "103f", "110", "110a", "110f", "120", "120a", "120f", "121",
    "121a", "121f",
)
# What the stand-in spack.package exports (Spack exports more; add a name here when the package
# starts using it, after checking Spack has it).
STAND_IN_NAMES = {
    "CMakePackage", "CudaPackage", "version", "variant", "depends_on", "conflicts", "requires",
    "provides", "patch", "license", "maintainers", "when",
}
DEPENDENCY_TYPES = {"build", "link", "run", "test"}
VERSION_SOURCES = {"sha256", "branch", "tag", "commit"}
VERSION_KEYWORDS = VERSION_SOURCES | {"preferred", "deprecated", "submodules", "get_full_repo", "url",
                                      "expand", "extension", "no_cache"}
LICENSE_FILES = ("LICENSE", "LICENCE", "COPYING")


def cmake_options(options_text):
    return {name.lower() for name in re.findall(r"^shakedown_option\((\w+)", options_text, re.M)}


def cmake_required_packages(cmake_texts):
    found = set()
    for text in cmake_texts:
        found |= set(re.findall(r"find_package\(([\w-]+)[^)]*\bREQUIRED\b", text))
        found |= set(re.findall(r"pkg_check_modules\(\w+\s+REQUIRED(?:\s+IMPORTED_TARGET)?\s+([\w-]+)", text))
        found |= set(re.findall(r"find_path\((SHAKEDOWN_\w+_INCLUDE_DIR)\b", text))
    return found


def words_after(arguments, keyword, stops):
    """The words of a CMake call's arguments after `keyword`, up to the first of `stops`."""
    words = arguments.split()
    if keyword not in words:
        return set()
    found = set()
    for word in words[words.index(keyword) + 1:]:
        if word in stops:
            break
        found.add(word)
    return found


def cmake_languages(texts):
    """The languages project(... LANGUAGES ...) and enable_language(...) turn on."""
    found = set()
    for text in texts:
        for arguments in re.findall(r"\bproject\(([^)]*)\)", text):
            found |= words_after(arguments, "LANGUAGES", {"VERSION", "DESCRIPTION", "HOMEPAGE_URL"})
        for arguments in re.findall(r"\benable_language\(([^)]*)\)", text):
            found |= {word for word in arguments.split() if word != "OPTIONAL"}
    return found


def cmake_hdf5_components(texts):
    """The components of find_package(HDF5 ... COMPONENTS ...): C, CXX, Fortran, HL."""
    keywords = {"REQUIRED", "QUIET", "OPTIONAL_COMPONENTS", "CONFIG", "MODULE", "NO_MODULE", "EXACT", "GLOBAL"}
    found = set()
    for text in texts:
        for arguments in re.findall(r"find_package\(HDF5\b([^)]*)\)", text):
            found |= words_after(arguments, "COMPONENTS", keywords)
    return found


class Constraint:
    """The parts of a spec string the checks read: name, +on, ~off, key=values, @version.
    Anything after a ^ (a constraint on a dependency's dependency) is kept apart."""

    def __init__(self, text):
        text = text or ""
        own, _, self.nested = text.partition("^")
        self.text = text
        # A leading word is the package's name unless it is the key of key=value.
        match = re.match(r"\s*([a-z0-9][\w.-]*)(?![\w.-]|\s*=)", own)
        self.name = match.group(1) if match else None
        rest = own[match.end():] if match else own
        self.version = None
        self.on, self.off, self.values = set(), set(), {}
        for token in re.findall(r"@[^\s+~^]+|[+~]\w+|\w+==?[\w.,:-]+", rest):
            if token.startswith("@"):
                self.version = token[1:]
            elif token.startswith("+"):
                self.on.add(token[1:])
            elif token.startswith("~"):
                self.off.add(token[1:])
            else:
                key, _, value = token.replace("==", "=").partition("=")
                if value.lower() in {"true", "false"}:
                    (self.on if value.lower() == "true" else self.off).add(key)
                else:
                    self.values[key] = set(value.split(","))

    def mentions(self, variant):
        return variant in self.on or variant in self.off or variant in self.values


class Recorder:
    def __init__(self):
        self.variants = {}
        self.calls = []  # (directive, positional arguments, keywords)
        self.conditions = []  # the enclosing when() blocks

    @property
    def dependencies(self):
        """(spec string, when string or None, type) for each depends_on()."""
        return [(args[0], kwargs.get("when"), kwargs.get("type")) for name, args, kwargs in self.calls
                if name == "depends_on"]

    def of(self, directive):
        return [(args, kwargs) for name, args, kwargs in self.calls if name == directive]

    def record(self, directive, args, kwargs):
        kwargs = {key: value for key, value in kwargs.items() if value is not None}
        if self.conditions and directive not in {"maintainers"}:
            kwargs["when"] = " ".join(self.conditions + ([kwargs["when"]] if "when" in kwargs else []))
        self.calls.append((directive, args, kwargs))


class StandInError(Exception):
    pass


def load_package(package_text):
    """Executes package.py against a stand-in spack.package; returns (class, recorder, the
    stand-in CudaPackage)."""
    recorder = Recorder()
    stand_in = types.ModuleType("spack.package")

    class CMakePackage:
        def define(self, name, value):
            if isinstance(value, bool):
                value = "ON" if value else "OFF"
            elif isinstance(value, (list, tuple)):
                value = ";".join(value)
            return f"-D{name}={value}"

    class CudaPackage:
        cuda_arch_values = CUDA_ARCH_VALUES

    # The directives with the keywords Spack gives them: an unknown keyword is a TypeError.
    def version(ver, checksum=None, **kwargs):
        unknown = set(kwargs) - VERSION_KEYWORDS
        if unknown:
            raise StandInError(f"version({ver!r}) got unknown keywords {sorted(unknown)}")
        recorder.record("version", (str(ver), checksum), kwargs)

    def variant(name, default=None, description="", values=None, multi=None, validator=None,
                when=None, sticky=False):
        recorder.variants[name] = {"default": default, "when": when}
        recorder.record("variant", (name,), {"default": default, "when": when, "values": values,
                                             "multi": multi})

    def depends_on(spec, when=None, type=("build", "link"), patches=None):
        kinds = {type} if isinstance(type, str) else set(type)
        if not kinds or kinds - DEPENDENCY_TYPES:
            raise StandInError(f"depends_on({spec!r}) type={type!r}: types are {sorted(DEPENDENCY_TYPES)}")
        recorder.record("depends_on", (spec,), {"when": when, "type": kinds})

    def conflicts(conflict_spec, when=None, msg=None):
        recorder.record("conflicts", (conflict_spec,), {"when": when, "msg": msg})

    def requires(*requirement_specs, policy="one_of", when=None, msg=None):
        recorder.record("requires", requirement_specs, {"policy": policy, "when": when, "msg": msg})

    def provides(*specs, when=None):
        recorder.record("provides", specs, {"when": when})

    def patch(url_or_filename, level=1, when=None, working_dir=".", reverse=False, sha256=None,
              archive_sha256=None):
        recorder.record("patch", (url_or_filename,), {"when": when, "sha256": sha256})

    def license(license_identifier, checked_by=None, when=None):
        recorder.record("license", (license_identifier,), {"when": when, "checked_by": checked_by})

    def maintainers(*names):
        recorder.record("maintainers", names, {})

    @contextlib.contextmanager
    def when(condition):
        recorder.conditions.append(condition)
        try:
            yield
        finally:
            recorder.conditions.pop()

    provided = dict(locals())
    for name in STAND_IN_NAMES:
        setattr(stand_in, name, provided[name])
    stand_in.__all__ = sorted(STAND_IN_NAMES)
    spack = types.ModuleType("spack")
    spack.package = stand_in
    saved = {name: sys.modules.get(name) for name in ("spack", "spack.package")}
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = stand_in
    try:
        namespace = {}
        exec(compile(package_text, "package.py", "exec"), namespace)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    classes = [value for value in namespace.values()
               if isinstance(value, type) and issubclass(value, CMakePackage) and value is not CMakePackage]
    if len(classes) != 1:
        raise StandInError(f"package.py defines {len(classes)} CMake packages, expected 1")
    package = classes[0]
    if issubclass(package, CudaPackage):
        recorder.variants.setdefault("cuda", {"from": "CudaPackage"})
    return package, recorder, CudaPackage


class FakeSpec:
    def __init__(self, on):
        self.on = set(on)
        arch = types.SimpleNamespace(value=("90",))
        self.variants = {"cuda_arch": arch}

    def satisfies(self, constraint):
        wanted = Constraint(constraint)
        return wanted.on <= self.on and not (wanted.off & self.on)


def package_name(spec):
    return re.match(r"[\w-]+", spec).group(0)


def check(options_text, cmake_texts, package_text, module_texts=(), has_license_file=False):
    """Every mismatch between the CMake build and the package, as lines (empty: none)."""
    problems = []
    options = cmake_options(options_text)
    try:
        package, recorder, cuda_base = load_package(package_text)
    except (NameError, TypeError, StandInError, SyntaxError, AttributeError) as error:
        # A misspelt directive, keyword or base class: Spack would refuse to load the package.
        return [f"package.py does not load against the stand-in spack.package: {type(error).__name__}: {error}"]
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
        try:
            args = instance.cmake_args()
        except Exception as error:  # Spack would meet it at build time
            problems.append(f"cmake_args() with {''.join('+' + name for name in on) or 'no option on'} raises "
                            f"{type(error).__name__}: {error}")
            break
        for name in ordered:
            expected = f"-DSHAKEDOWN_WITH_{name.upper()}={'ON' if name in on else 'OFF'}"
            if expected not in args:
                problems.append(f"cmake_args() with {'+' + name if name in on else '~' + name} lacks {expected}")
                break
        else:
            continue
        break

    dependencies = [(spec, Constraint(spec), when, Constraint(when), kinds)
                    for spec, when, kinds in recorder.dependencies]
    unconditional = {spec.name for _, spec, when, _, _ in dependencies if when is None}
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
            if not any(spec.name == dependency and feature in condition.on
                       for _, spec, _, condition, _ in dependencies):
                problems.append(f"+{feature} needs depends_on('{dependency}', when='+{feature}')")
    for feature in sorted(options - set(FEATURE_DEPENDENCIES)):
        problems.append(f"option '{feature}': the test's table does not say which Spack packages it needs")

    # Languages: Spack 1.x sets up a compiler only for a language the package depends on.
    languages = cmake_languages(list(cmake_texts) + list(module_texts))
    for language in sorted(languages):
        if language == "CUDA":
            if not issubclass(package, cuda_base):
                problems.append("CMake enables CUDA but the package is no CudaPackage (no cuda compiler, no cuda_arch)")
            continue
        if language not in LANGUAGE_DEPENDENCIES:
            problems.append(f"CMake enables {language}, which the test's table does not map to a Spack language")
            continue
        virtual = LANGUAGE_DEPENDENCIES[language]
        if not any(spec.name == virtual and when is None and "build" in kinds
                   for _, spec, when, _, kinds in dependencies):
            problems.append(f"CMake enables {language} but the package lacks depends_on('{virtual}', type='build')")
    asked_languages = {spec.name for _, spec, _, _, _ in dependencies} & set(LANGUAGE_DEPENDENCIES.values())
    enabled = {LANGUAGE_DEPENDENCIES[language] for language in languages if language in LANGUAGE_DEPENDENCIES}
    for virtual in sorted(asked_languages - enabled):
        problems.append(f"depends_on('{virtual}') but CMake enables no such language")

    known = {name for name in REQUIRED_DEPENDENCIES.values() if name} | BUILD_TOOLS | asked_languages
    known |= {dependency for needed in FEATURE_DEPENDENCIES.values() for dependency in needed}
    for text, spec, _, _, _ in dependencies:
        if spec.name not in known:
            problems.append(f"depends_on('{text}') matches nothing the CMake build looks for")

    # Device code: each cuda_arch of shakedown reaches each GPU library under its feature.
    if "cuda" in options:
        for dependency, feature in CUDA_ARCH_PROPAGATION.items():
            if feature not in options:
                continue
            missing = [arch for arch in cuda_base.cuda_arch_values
                       if not any(spec.name == dependency and spec.values.get("cuda_arch") == {arch}
                                  and "cuda" not in spec.off
                                  and feature in condition.on and "cuda" not in condition.off
                                  and condition.values.get("cuda_arch") == {arch}
                                  for _, spec, _, condition, _ in dependencies)]
            if missing:
                shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
                problems.append(f"cuda_arch {shown} not passed on: needs depends_on('{dependency} cuda_arch=A', "
                                f"when='+{feature} cuda_arch=A') for each of CudaPackage.cuda_arch_values")
        if "kokkos" in options and not any(
                spec.name == "kokkos" and "cuda" in spec.off and "kokkos" in condition.on and "cuda" in condition.off
                for _, spec, _, condition, _ in dependencies):
            problems.append("+kokkos~cuda may get a CUDA Kokkos: needs depends_on('kokkos~cuda', when='+kokkos~cuda')")

    # HDF5: the variants its CMake components need, and none the code does not.
    components = cmake_hdf5_components(cmake_texts)
    needed_variants = {HDF5_COMPONENT_VARIANTS[c] for c in components if c in HDF5_COMPONENT_VARIANTS}
    for text, spec, _, _, _ in dependencies:
        if spec.name != "hdf5":
            continue
        if spec.mentions("mpi"):
            problems.append(f"depends_on('{text}') constrains mpi, but the project uses HDF5's serial C API, "
                            "which a serial and a parallel HDF5 both provide")
        for extra in sorted((spec.on & set(HDF5_COMPONENT_VARIANTS.values())) - needed_variants):
            problems.append(f"depends_on('{text}') asks for +{extra}, "
                            "but find_package(HDF5) asks for no such component")
    for variant in sorted(needed_variants):
        if not any(spec.name == "hdf5" and variant in spec.on for _, spec, _, _, _ in dependencies):
            problems.append(f"find_package(HDF5) asks for the {variant} component but no depends_on('hdf5+{variant}')")

    # Metadata.
    licenses = recorder.of("license")
    if has_license_file and not licenses:
        problems.append("the source tree has a license file but the package declares no license()")
    if not has_license_file and licenses:
        problems.append(f"license({licenses[0][0][0]!r}) but the source tree has no LICENSE/COPYING file it comes from")
    for args, _ in licenses:
        if not re.fullmatch(r"[A-Za-z0-9.+() -]+", args[0] or ""):
            problems.append(f"license({args[0]!r}) is no SPDX expression")
    for args, _ in recorder.of("maintainers"):
        for name in args:
            if not re.fullmatch(r"[A-Za-z0-9-]+", name):
                problems.append(f"maintainers({name!r}) is no GitHub handle")
    versions = recorder.of("version")
    if not any(args[0] == "main" and kwargs.get("branch") == "main" for args, kwargs in versions):
        problems.append("no version('main', branch='main')")
    for args, kwargs in versions:
        sources = (VERSION_SOURCES & set(kwargs)) | ({"checksum"} if args[1] else set())
        if len(sources) != 1:
            problems.append(f"version({args[0]!r}) needs exactly one of a checksum, branch, tag or commit, "
                            f"has {sorted(sources) or 'none'}")
    return problems


def main():
    source = pathlib.Path(sys.argv[1])
    options_text = (source / "cmake/ShakedownOptions.cmake").read_text()
    # Every CMakeLists.txt of the source tree (a build folder inside it excluded).
    cmake_texts = [path.read_text() for path in sorted(source.rglob("CMakeLists.txt"))
                   if not any(part.startswith(("build", ".")) for part in path.relative_to(source).parts[:-1])]
    # The modules the top level includes: where enable_language(CUDA) is.
    module_texts = [path.read_text() for path in sorted((source / "cmake").glob("*.cmake"))]
    package_text = (source / "packaging/spack/packages/shakedown/package.py").read_text()
    has_license_file = any(path.is_file() and path.name.upper().startswith(LICENSE_FILES)
                           for path in source.iterdir())

    failed = False
    problems = check(options_text, cmake_texts, package_text, module_texts, has_license_file)
    for line in problems:
        print(f"spack package: {line}")
        failed = True

    def edited(old, new):
        return (options_text, cmake_texts, package_text.replace(old, new), module_texts, has_license_file)

    # Planted mismatches the check must catch.
    planted = {
        "an option only in CMake": (options_text + '\nshakedown_option(ROCM "ROCm kernels")\n', cmake_texts,
                                    package_text, module_texts, has_license_file),
        "a variant only in the package": edited(
            '    variant("ucx"', '    variant("rocm", default=False, description="x")\n    variant("ucx"'),
        "an option cmake_args ignores": edited('"verbs", "ucx", "scalapack")', '"verbs", "ucx")'),
        "a required library the package lacks": edited('    depends_on("yaml-cpp")\n', ''),
        "a feature's library the package lacks": edited('    depends_on("rdma-core", when="+verbs")\n', ''),
        "an unmapped CMake requirement": (options_text, cmake_texts + ["find_package(Boost REQUIRED)"],
                                          package_text, module_texts, has_license_file),
        "a dependency CMake never looks for": edited(
            '    depends_on("fmt")\n', '    depends_on("fmt")\n    depends_on("boost")\n'),
        "a language the package does not ask for": edited('    depends_on("c", type="build")\n', ''),
        "a language CMake enables that the test does not know": (
            options_text, cmake_texts, package_text, list(module_texts) + ["enable_language(HIP)"], has_license_file),
        "a cuda_arch kept from nccl": edited(
            'when=f"+nccl+cuda cuda_arch={arch}"', 'when="+nccl+cuda"'),
        "a cuda_arch value left out": edited(
            'for arch in CudaPackage.cuda_arch_values:', 'for arch in CudaPackage.cuda_arch_values[1:]:'),
        "a CUDA Kokkos allowed under ~cuda": edited('    depends_on("kokkos~cuda", when="+kokkos~cuda")\n', ''),
        "a serial HDF5 forced": edited('depends_on("hdf5@1.10.5:")', 'depends_on("hdf5@1.10.5:~mpi")'),
        "an HDF5 component the code does not use": edited(
            'depends_on("hdf5@1.10.5:")', 'depends_on("hdf5@1.10.5:+hl")'),
        "a misspelt directive": edited('    depends_on("fmt")\n', '    depend_on("fmt")\n'),
        "a misspelt keyword": edited('depends_on("help2man", type="build")', 'depends_on("help2man", typ="build")'),
        "a version with no source": edited('    version("main", branch="main")\n',
                                           '    version("main", branch="main")\n    version("0.1.0")\n'),
        "the main branch version dropped": edited('    version("main", branch="main")\n',
                                                  '    version("develop", branch="main")\n'),
        "a license that does not match the source tree": (
            edited('    license(', '    # license(') if has_license_file else
            edited('    version("main", branch="main")\n',
                   '    license("MIT")\n    version("main", branch="main")\n')),
    }
    for what, (options, texts, package, modules, license_file) in planted.items():
        if (package == package_text and options == options_text and texts == cmake_texts
                and modules == module_texts and license_file == has_license_file):
            print(f"spack package test: the planted case '{what}' changed nothing (its pattern is stale)")
            failed = True
        elif not check(options, texts, package, modules, license_file):
            print(f"spack package test: the planted case '{what}' was not caught")
            failed = True
    if not failed:
        print(f"spack package: {len(cmake_options(options_text))} variants match the CMake options, "
              f"dependencies, languages, cuda_arch propagation, HDF5 and metadata hold; "
              f"{len(planted)} planted mismatches caught")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
