#!/usr/bin/env bash
# The fixture's cleanup: takes the virtual cluster down, then checks that nothing it made is
# left: no network namespace, link or bridge named sdtb*, no process started from the testbed's
# configuration or running inside its folder, no state folder. Needs root; exits 77 otherwise.
set -euo pipefail
testbed=${1:?usage: down_and_check.sh TESTBED}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: the virtual cluster needs root"; exit 77; fi
state=${SHAKEDOWN_TESTBED_DIR:-/var/lib/shakedown-testbed}
"$testbed" down
left=()
ip netns list | grep -q '^sdtb' && left+=("network namespaces: $(ip netns list | grep '^sdtb' | tr '\n' ' ')")
ip -o link show | grep -q ': sdtb' && left+=("links: $(ip -o link show | grep -o ': sdtb[^:@]*' | tr '\n' ' ')")
pgrep -f -- "$state" >/dev/null && left+=("processes: $(pgrep -a -f -- "$state" | tr '\n' ';')")
[ -e "$state" ] && left+=("state folder $state")
if [ ${#left[@]} -gt 0 ]; then
  printf 'FAIL: left behind: %s\n' "${left[@]}" >&2
  exit 1
fi
echo "ok: nothing of the testbed is left (namespaces, links, processes, $state)"
