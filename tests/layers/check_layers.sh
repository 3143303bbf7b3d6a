#!/usr/bin/env bash
# The include rules of docs/architecture.md, checked on the source tree: a family (kernels, mpi,
# ib, health) includes the src/ layers and its own folder, never another family, the trace, the
# driver or the analyzer; a src/ layer never includes a family, the analyzer or (but the driver,
# the executable on top) the Slurm layer; the analyzer includes a family's names headers only.
# Prints every offending line and exits 1 when there is one.
set -uo pipefail
root=${1:?usage: check_layers.sh SOURCE_ROOT}
cd "$root" || exit 2
families=(kernels mpi ib health)
status=0
for family in "${families[@]}"; do
  forbidden=()
  for other in "${families[@]}"; do [[ $other != "$family" ]] && forbidden+=("$other"); done
  forbidden+=(trace driver analysis)
  pattern="#include \"($(IFS='|'; echo "${forbidden[*]}"))/"
  if hits=$(grep -rnE "$pattern" "$family" --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh'); then
    echo "$family includes what it must not:"; echo "$hits"; status=1
  fi
done
if hits=$(grep -rnE '#include "(kernels|mpi|ib|health|analysis)/' src --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' --include='*.in'); then
  echo "src/ includes a family or the analyzer:"; echo "$hits"; status=1
fi
# The Slurm layer sits above src/: only the driver, the executable on top, wires it in.
if hits=$(grep -rnE '#include "slurm/' src --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' | grep -v '^src/driver/'); then
  echo "src/ includes the Slurm layer:"; echo "$hits"; status=1
fi
# The analyzer reads a family's declarations of its names (*_names.hpp), never its code.
if hits=$(grep -rnE '#include "(kernels|mpi|ib|health)/' analysis --include='*.cpp' --include='*.hpp' | grep -vE '#include "[^"]*_names\.hpp"'); then
  echo "analysis/ includes a family's code, not its names:"; echo "$hits"; status=1
fi
[[ $status == 0 ]] && echo "layers: no family includes another; src/ includes no family and no Slurm; analysis/ only families' names"
exit $status
