#!/usr/bin/env bash
# Installs the Debian 12 packages shakedown builds and tests with (`build`: only what building and
# running it needs; `all`, the default: the tests' too). Idempotent and non-interactive: does
# nothing when everything is present already.
set -euo pipefail

# What building and running shakedown needs (the README's first command installs only these).
build_packages=(
  build-essential cmake ninja-build pkg-config git
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libopenblas0-pthread
  libibverbs-dev librdmacm-dev libucx-dev
  libhwloc-dev libgtest-dev libgmock-dev libbenchmark-dev libscalapack-openmpi-dev
  libcli11-dev nlohmann-json3-dev libcereal-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libkainjow-mustache-dev
  # configure looks for help2man (man pages in the install tree): present from the first configure
  help2man
)
# What the tests add: the virtual Slurm cluster, Chromium for the report (poppler to read its PDF),
# clang for the fuzzers, the tools that check the machine-readable outputs (tests/analysis/outputs/).
test_packages=(
  slurm-wlm slurmctld slurmd slurm-client munge libpmix2 iproute2 iperf3
  chromium clang-14 libclang-rt-14-dev
  python3-jsonschema python3-yaml libxml2-utils python3-prometheus-client poppler-utils
)
case "${1:-all}" in
  build) packages=("${build_packages[@]}") ;;
  all) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: install-deps.sh [build|all]" >&2; exit 2 ;;
esac
# shellcheck disable=SC2206
packages+=(${SHAKEDOWN_EXTRA_PACKAGES:-})

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
else
  sudo=
fi
echo "shakedown: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
