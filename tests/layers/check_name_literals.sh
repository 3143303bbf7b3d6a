#!/usr/bin/env bash
# A test owns every name its results carry: the analyzer reads them from the test's declarations
# (its *_names.hpp), never as a string of its own. Prints every line of analysis/ (outside
# comments) that holds a test's key as a string literal, or a metric name that starts with one
# ("p2p.inter_node_bandwidth_gbs"), or that reads a recorded parameter or a table's column by a
# string of its own (`parameters.find("device")`, `column_index("state")`), and exits 1 when there
# is one. The keys come from the built
# driver's `list --json`, so a new test is covered without an edit here. A line that must hold
# such a word for another reason (a settings section named like a test) says so with the marker
# "names-check: <why>".
set -uo pipefail
root=${1:?usage: check_name_literals.sh SOURCE_ROOT SHAKEDOWN_BINARY}
shakedown=${2:?usage: check_name_literals.sh SOURCE_ROOT SHAKEDOWN_BINARY}
keys=$("$shakedown" list --json | sed -n 's/^ *"key": "\([a-z0-9_]*\)",\{0,1\}$/\1/p' | paste -sd '|')
if [[ -z $keys ]]; then
  echo "no test keys from $shakedown list --json"; exit 2
fi
cd "$root" || exit 2
status=0
while IFS= read -r -d '' file; do
  # Comments may name tests; code may not. Strip // comments, then look for "key" or "key.
  hits=$(sed -e 's|//.*$||' "$file" |
    grep -nE "\"($keys)(\"|\\.)|parameters(\\.|->)(find|at|count|contains)\\(\"|parameters\\[\"|column_index\\(\"" || true)
  if [[ -n $hits ]]; then
    while IFS= read -r hit; do
      line=${hit%%:*}
      grep -q "names-check:" < <(sed -n "${line}p" "$file") && continue
      echo "$file:$hit"; status=1
    done <<<"$hits"
  fi
done < <(find analysis -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)
if [[ $status == 0 ]]; then
  echo "names: no test key, metric, parameter or column name is a string literal in analysis/"
else
  echo "the lines above name a test, its metric, a parameter or a column as a string: read the name from its declaration (*_names.hpp)"
fi
exit $status
