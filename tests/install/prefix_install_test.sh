#!/usr/bin/env bash
# prefix_install_test.sh BUILD_DIR MPIEXEC
# `cmake --install` into a fresh prefix, then the quick suite (small sizes, as the driver's
# end-to-end test) under mpirun and the analyzer, both from PREFIX/bin, started from outside the
# build and source trees with a clean environment. Fails on the first wrong thing, saying what.
set -euo pipefail
build=$(cd "$1" && pwd -P)
mpiexec=$2
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
work=$(mktemp -d /tmp/shakedown-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }

for file in bin/shakedown bin/shakedown-analyze \
            share/shakedown/thresholds/default.yaml share/shakedown/thresholds/calibrated.yaml \
            share/shakedown/templates/quick.sbatch.in share/doc/shakedown/README.md \
            share/doc/shakedown/docs/architecture.md; do
  [ -s "$prefix/$file" ] || fail "missing $file in the installed tree"
done
ls "$prefix"/share/shakedown/configs/*/*.yaml >/dev/null 2>&1 || fail "no example configs under share/shakedown/configs"
for schema in "$source_dir"/analysis/schemas/*.json; do
  [ -e "$schema" ] || continue
  cmp -s "$schema" "$prefix/share/shakedown/schemas/${schema##*/}" || fail "schema ${schema##*/} not installed"
done
if [ -f "$build/man/shakedown.1" ]; then
  for page in shakedown shakedown-analyze; do
    [ -s "$prefix/share/man/man1/$page.1" ] || fail "man page $page.1 was generated but not installed"
    grep -q '^\.TH' "$prefix/share/man/man1/$page.1" || fail "$page.1 is not a man page"
  done
  grep -q 'run' "$prefix/share/man/man1/shakedown.1" || fail "shakedown.1 does not name the run command"
fi

# RUNPATH: only the directories of the libraries linked from outside the project, each one that
# exists; never a path of the build or source tree, never a folder of the prefix the install does
# not make (the project installs no library: $ORIGIN/../lib would name nothing).
runpath_problem() {  # runpath_problem NAME RUNPATH: prints what is wrong, nothing when right
  local entries entry
  IFS=: read -r -a entries <<<"$2"
  for entry in "${entries[@]}"; do
    case "$entry" in "$build"*|"$source_dir"*) echo "$1 RUNPATH holds the build-tree path '$entry'"; return ;; esac
    case "$entry" in '$ORIGIN'*) [ -d "$prefix/bin/${entry#\$ORIGIN/}" ] ||
                                   { echo "$1 RUNPATH names '$entry', which the install does not have"; return; } ;; esac
  done
}
# The check itself catches a planted build-tree entry and a folder the install lacks.
[ -n "$(runpath_problem planted "/usr/lib:$build/src/trace")" ] || fail "a build path in RUNPATH went unnoticed"
[ -n "$(runpath_problem planted "\$ORIGIN/../lib")" ] || fail "a RUNPATH entry the install lacks went unnoticed"
for binary in shakedown shakedown-analyze; do
  runpath=$(readelf -d "$prefix/bin/$binary" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  problem=$(runpath_problem "$binary" "$runpath")
  [ -z "$problem" ] || fail "$problem"
  # Reproducible: no path of the machine that built it (__FILE__ in the GPU libraries' error
  # messages is the source file's path relative to the source tree).
  if strings "$prefix/bin/$binary" | grep -q -e "$source_dir/" -e "$build/"; then
    strings "$prefix/bin/$binary" | grep -e "$source_dir/" -e "$build/" | head -n 5 >&2
    fail "$binary holds paths of the build machine"
  fi
  if env -i PATH=/usr/bin:/bin ldd "$prefix/bin/$binary" | grep -q 'not found'; then
    env -i PATH=/usr/bin:/bin ldd "$prefix/bin/$binary" | grep 'not found' >&2
    fail "$binary does not find its libraries from the install"
  fi
done

# The run: a clean environment (PATH holds only the system and PREFIX/bin), from a folder of its own.
cat >"$work/small.yaml" <<'YAML'
params:
  stream: {array_mib: 4, repetitions: 3}
  dgemm_fp64: {n: 192, repetitions: 2}
  stencil3d: {local_n: 24, steps: 4, triad_mib: 4, triad_repetitions: 2}
  cg_fp64: {local_n: 12, triad_mib: 4, triad_repetitions: 2}
  mpi_pingpong: {sizes: "8,1024", iterations_small: 200, warmup_small: 5, batch: 20}
  train_step: {steps: 3, warmup_steps: 1}
YAML
# The analyzer's speed rules judge this shared CI machine's speed, not the install: off here.
cat >"$work/rules.yaml" <<'YAML'
metrics:
  stream.triad_gbs: {}
  dgemm_fp64.tflops: {}
  dgemm_fp64.core_peak_gflops: {}
# train_step's ranks compared with each other alone and against their prediction: speed too.
scaling: {slow_rank_ratio: 100, slow_rank_fail_ratio: 100, shortfall_warn: 0.01}
YAML
clean=(env -i "HOME=$work" "PATH=$prefix/bin:/usr/bin:/bin" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
       OMPI_MCA_rmaps_base_oversubscribe=1)
cd "$work"
version=$("${clean[@]}" shakedown --version) || fail "shakedown --version exited $?"
grep -q '^shakedown [0-9][0-9.]* (git [0-9a-z-]*)$' <<<"$version" || fail "shakedown --version printed: $version"
for line in '^  MPI  ' '^  HDF5  ' '^  CUDA code  '; do
  grep -q "$line" <<<"$version" || fail "shakedown --version lacks '$line': $version"
done
[ "$("${clean[@]}" shakedown version)" = "$version" ] || fail "'shakedown version' and --version differ"

# A Slurm job generated from the install runs the installed programs, not a build tree's.
"${clean[@]}" shakedown slurm generate --nodes 1 --out "$work/jobs" --script job.sbatch ||
  fail "shakedown slurm generate from the install exited $?"
grep -qxF "shakedown='$prefix/bin/shakedown'" job.sbatch || fail "the generated job does not run PREFIX/bin/shakedown"
grep -qxF "analyzer='$prefix/bin/shakedown-analyze'" job.sbatch || fail "the generated job does not run PREFIX/bin/shakedown-analyze"

set +e
"${clean[@]}" "$mpiexec" -np 2 --oversubscribe --allow-run-as-root --mca btl self,vader,tcp \
  "$prefix/bin/shakedown" run --suite quick --config small.yaml --out runs --name installed --progress lines \
  >run.log 2>&1
run_status=$?
"${clean[@]}" shakedown-analyze runs/installed --thresholds rules.yaml >analysis.log 2>&1
analysis_status=$?
set -e
[ "$run_status" -eq 0 ] || { cat run.log; fail "the installed shakedown run exited $run_status"; }
[ -f runs/installed/traces/00000-00999/rank-00000.h5 ] && [ -f runs/installed/traces/00000-00999/rank-00001.h5 ] || fail "the run left no traces"
[ "$analysis_status" -eq 0 ] || { cat analysis.log; fail "the installed shakedown-analyze exited $analysis_status"; }
grep -q '^Verdict: PASS: 1 node(s): 1 pass, 0 warn, 0 fail, 0 incomplete$' analysis.log ||
  { cat analysis.log; fail "no 'Verdict: PASS' line for the one node"; }
grep -q '"verdict": "pass"' runs/installed/summary.json || fail "summary.json does not say pass"
# What the run recorded must not point into the build tree either (it names the binaries it ran).
if grep -rqs -- "$build" runs/installed/run.json; then fail "run.json names a build-tree path"; fi
echo "install test: $prefix ran the quick suite and the analyzer: PASS"
