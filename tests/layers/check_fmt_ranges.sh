#!/usr/bin/env bash
# fmt 11 moved fmt::join into <fmt/ranges.h> (fmt 9, Debian's, still has it in <fmt/format.h>),
# and the Spack package allows any fmt: every source that calls fmt::join includes
# <fmt/ranges.h> itself. Prints each file that does not and exits 1.
set -uo pipefail
root=${1:?usage: check_fmt_ranges.sh SOURCE_ROOT}
cd "$root" || exit 2
status=0
while IFS= read -r file; do
  if ! grep -q '#include <fmt/ranges.h>' "$file"; then
    echo "$file calls fmt::join without #include <fmt/ranges.h>"
    status=1
  fi
done < <(grep -rlE 'fmt::join' --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.in' \
           src kernels mpi ib health slurm analysis bench tests 2>/dev/null)
[[ $status == 0 ]] && echo "fmt: every fmt::join has <fmt/ranges.h>"
exit $status
