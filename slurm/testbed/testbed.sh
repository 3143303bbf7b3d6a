#!/usr/bin/env bash
# A virtual Slurm cluster on one machine, for testing shakedown's multi-node behaviour for real:
# a bridge, one network namespace per node (veth pair, own address), munged with its own key
# and socket, slurmctld on the bridge address and one slurmd per node, each in its own UTS and
# mount namespace (own hostname, own tmpfs /tmp, as real nodes have: srun --mpi=pmix needs it).
#
#   testbed.sh up [N]                 start N nodes (default 3, at most 4); idempotent
#   testbed.sh down                   stop and remove everything `up` made, also after a failed up
#   testbed.sh status                 what exists, what runs, sinfo
#   testbed.sh env                    prints `export SLURM_CONF=...` for Slurm's commands
#   testbed.sh shared-dir             prints the folder every node sees at the same path (the
#                                     cluster's "shared file system": binaries and run folders go
#                                     there; /tmp does not do, each node has its own)
#   testbed.sh limit-rate NODE RATE   shape NODE's link both ways (tc tbf), e.g. node2 200mbit
#   testbed.sh limit-link NODE PEER RATE  shape only the traffic between NODE and PEER, both ways
#                                     (tc htb class per peer; other traffic unshaped), e.g.
#                                     node4 node1 100mbit: a bad cable or port between the two
#   testbed.sh limit-direction NODE PEER RATE  shape only what NODE sends to PEER (the reverse
#                                     untouched), e.g. node1 node2 200mbit: a port's transmit side
#   testbed.sh shaped-bytes NODE PEER  prints how many bytes NODE has sent through its shaping
#                                     toward PEER (limit-link, limit-direction), 0 when none: a
#                                     test shows its planted fault was in the path
#   testbed.sh mtu NODE MTU           set NODE's link MTU (both veth ends), e.g. node3 9000
#   testbed.sh clear-faults           remove every rate limit, MTUs back to 1500
#   testbed.sh address NODE           prints NODE's address on its link (eth0)
#   testbed.sh exec NODE CMD [ARG...]  runs CMD in NODE's network namespace (a reference tool such
#                                     as iperf3 beside a job); `down` ends whatever is left there
#   testbed.sh kill-slurmd NODE       SIGKILL NODE's slurmd, its job processes left running (a
#                                     dead node as Slurm sees it: not responding, then DOWN)
#   testbed.sh revive NODE            after kill-slurmd: NODE's leftover job processes ended,
#                                     slurmd started again, the node resumed and idle
#
# Needs root, iproute2, util-linux (unshare, nsenter), munge and slurm-wlm (slurmctld, slurmd,
# slurm-client). Everything it makes is recorded in $STATE/owned as it is made; `down` removes
# exactly those things (processes by pid file or by membership in the testbed's own network
# namespaces, never by name). `up` refuses to start when a bridge, namespace, link, address
# range or folder of the same name exists that it did not make.
#
# Environment: SHAKEDOWN_TESTBED_DIR (state folder, default /var/lib/shakedown-testbed; must
# not be under /tmp, which every node replaces by its own), SHAKEDOWN_TESTBED_SUBNET (first
# three octets, default 10.77.0).
set -euo pipefail

readonly STATE=${SHAKEDOWN_TESTBED_DIR:-/var/lib/shakedown-testbed}
readonly SUBNET=${SHAKEDOWN_TESTBED_SUBNET:-10.77.0}
readonly PREFIX=sdtb                 # every bridge, namespace and link name starts with it
readonly BRIDGE=${PREFIX}0
readonly BRIDGE_IP=${SUBNET}.1
readonly CONTROLLER=${PREFIX}ctl     # slurmctld's host name (in its own UTS namespace)
readonly CTLD_PORT=6917              # not Slurm's defaults, so a real Slurm on this host is untouched
readonly SLURMD_PORT=6918
readonly MAX_NODES=4
readonly OWNED=$STATE/owned
readonly CONF=$STATE/etc/slurm.conf
readonly MUNGE_SOCKET=$STATE/munge/munge.socket

log() { echo "testbed: $*" >&2; }
die() { log "error: $*"; exit 1; }

node_name() { echo "node$1"; }
namespace_of() { echo "${PREFIX}-node$1"; }
host_link_of() { echo "${PREFIX}-n$1"; }
node_ip() { echo "${SUBNET}.$((10 + $1))"; }

# --- ownership ------------------------------------------------------------------------
# $OWNED lists "kind name" lines; a thing is ours only when it is listed.
owns() { [ -f "$OWNED" ] && grep -qxF "$1 $2" "$OWNED"; }
record() { owns "$1" "$2" || echo "$1 $2" >>"$OWNED"; }
forget() { [ -f "$OWNED" ] && { grep -vxF "$1 $2" "$OWNED" >"$OWNED.new" || true; mv "$OWNED.new" "$OWNED"; }; }

link_exists() { ip link show dev "$1" >/dev/null 2>&1; }
namespace_exists() { [ -e "/var/run/netns/$1" ]; }

require_root() { [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, bridges, daemons)"; }

require_tools() {
  local missing=()
  for tool in ip tc unshare nsenter munged mungekey slurmctld slurmd sbatch sinfo scontrol squeue scancel; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]} (apt-get install -y slurm-wlm munge iproute2)"
}

# --- processes: by pid file only ----------------------------------------------------------
pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_from() { [ -f "$1" ] && tr -dc '0-9' <"$1" || true; }

# Stops the process in pid file $1 if it still runs the program $2 (a reused pid is left alone).
stop_pid_file() {
  local file=$1 program=$2 pid
  pid=$(pid_from "$file")
  # Debian installs some daemons as NAME-wlm behind an alternative: NAME* matches both.
  if pid_alive "$pid" && [[ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")" == "$program"* ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do pid_alive "$pid" || break; sleep 0.1; done
    if pid_alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    if pid_alive "$pid"; then
      log "error: $program (pid $pid) does not stop"
      return 1
    fi
  fi
  rm -f "$file"
}

# Every process inside one of our network namespaces is ours (slurmd, slurmstepd, job ranks).
stop_namespace_processes() {
  local namespace=$1 pids
  namespace_exists "$namespace" || return 0
  for signal in TERM KILL; do
    pids=$(ip netns pids "$namespace" 2>/dev/null || true)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -"$signal" $pids 2>/dev/null || true
    for _ in $(seq 30); do [ -z "$(ip netns pids "$namespace" 2>/dev/null)" ] && return 0; sleep 0.1; done
  done
}

# --- up -------------------------------------------------------------------------------
check_nothing_foreign() {
  local count=$1
  if [ -e "$STATE" ] && [ ! -f "$OWNED" ]; then
    die "$STATE exists but was not made by this script (no $OWNED): refusing"
  fi
  link_exists "$BRIDGE" && ! owns bridge "$BRIDGE" && die "bridge $BRIDGE exists and is not ours: refusing"
  for i in $(seq "$count"); do
    namespace_exists "$(namespace_of "$i")" && ! owns netns "$(namespace_of "$i")" &&
      die "network namespace $(namespace_of "$i") exists and is not ours: refusing"
    link_exists "$(host_link_of "$i")" && ! owns link "$(host_link_of "$i")" &&
      die "link $(host_link_of "$i") exists and is not ours: refusing"
  done
  if ! owns bridge "$BRIDGE" && ip -4 route show | grep -q "^${SUBNET//./\\.}\.0/24"; then
    die "the subnet ${SUBNET}.0/24 is routed already on this machine: set SHAKEDOWN_TESTBED_SUBNET"
  fi
  if ! owns pid slurmctld && ss -ltn 2>/dev/null | grep -q ":$CTLD_PORT "; then
    die "port $CTLD_PORT is in use: another testbed or service runs here"
  fi
}

make_state_folders() {
  mkdir -p "$STATE"
  touch "$OWNED"
  record folder "$STATE"
  mkdir -p "$STATE"/{etc,munge,log,run,ctld,spool,shared}
  chmod 700 "$STATE/munge"
}

make_network() {
  local count=$1
  if ! link_exists "$BRIDGE"; then
    record bridge "$BRIDGE"
    ip link add name "$BRIDGE" type bridge
    ip addr add "$BRIDGE_IP/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
  fi
  for i in $(seq "$count"); do
    local namespace host_link
    namespace=$(namespace_of "$i")
    host_link=$(host_link_of "$i")
    if ! namespace_exists "$namespace"; then
      record netns "$namespace"
      ip netns add "$namespace"
    fi
    if ! link_exists "$host_link"; then
      record link "$host_link"
      ip link add "$host_link" type veth peer name "${host_link}p"
      ip link set "${host_link}p" netns "$namespace"
      ip -n "$namespace" link set "${host_link}p" name eth0
      ip -n "$namespace" addr add "$(node_ip "$i")/24" dev eth0
      ip -n "$namespace" link set eth0 up
      ip -n "$namespace" link set lo up
      ip link set "$host_link" master "$BRIDGE"
      ip link set "$host_link" up
    fi
  done
}

write_configuration() {
  local count=$1 cpus memory_mib
  cpus=$(nproc)
  memory_mib=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / (count + 1)))
  {
    echo "127.0.0.1 localhost"
    echo "$BRIDGE_IP $CONTROLLER"
    for i in $(seq "$count"); do echo "$(node_ip "$i") $(node_name "$i")"; done
  } >"$STATE/etc/hosts"
  cat >"$CONF" <<EOF
# Written by slurm/testbed/testbed.sh: a virtual cluster for shakedown's tests.
ClusterName=shakedown-testbed
SlurmctldHost=$CONTROLLER($BRIDGE_IP)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool/%n
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd-%n.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MessageTimeout=20
EOF
  for i in $(seq "$count"); do
    echo "NodeName=$(node_name "$i") NodeAddr=$(node_ip "$i") CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN" >>"$CONF"
  done
  echo "PartitionName=debug Nodes=node[1-$count] Default=YES MaxTime=INFINITE State=UP" >>"$CONF"
  # PMIx fences on the ring algorithm, with or without data. Slurm 22.05's default runs a fence
  # without data (the closing barrier of Open MPI 4.1's MPI_Init) on the tree algorithm, which
  # released it node by node here: a rank left MPI_Init while a rank of another node still waited
  # in the first fence, and that rank died on the early rank's first message (a call through the
  # TCP BTL's not yet registered callback: SIGSEGV at start-up, 4 of 100 srun jobs; 0 of 48 with
  # ring, every release within 2 ms of the last arrival). docs/slurm.md says it for sites.
  cat >"$(dirname "$CONF")/mpi.conf" <<EOF
PMIxCollFence=ring
EOF
  echo "$count" >"$STATE/node-count"
}

start_munged() {
  if pid_alive "$(pid_from "$STATE/run/munged.pid")"; then return; fi
  [ -f "$STATE/munge/munge.key" ] || mungekey --create --keyfile="$STATE/munge/munge.key" --force
  chmod 400 "$STATE/munge/munge.key"
  record pid munged
  munged --force --socket="$MUNGE_SOCKET" --pid-file="$STATE/run/munged.pid" \
    --key-file="$STATE/munge/munge.key" --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munged.seed"
  for _ in $(seq 50); do [ -S "$MUNGE_SOCKET" ] && return; sleep 0.1; done
  die "munged did not create $MUNGE_SOCKET (see $STATE/log/munged.log)"
}

start_slurmctld() {
  if pid_alive "$(pid_from "$STATE/run/slurmctld.pid")"; then return; fi
  record pid slurmctld
  # Its own UTS namespace gives it the controller's host name; it stays in this network
  # namespace and listens on the bridge address.
  unshare --uts sh -c "hostname $CONTROLLER; exec slurmctld -c -f '$CONF'"
  for _ in $(seq 100); do pid_alive "$(pid_from "$STATE/run/slurmctld.pid")" && return; sleep 0.1; done
  die "slurmctld did not start (see $STATE/log/slurmctld.log)"
}

start_slurmd() {
  local i=$1 name namespace
  name=$(node_name "$i")
  namespace=$(namespace_of "$i")
  if pid_alive "$(pid_from "$STATE/run/slurmd-$name.pid")"; then return; fi
  mkdir -p "$STATE/spool/$name"
  record pid "slurmd-$name"
  # Own hostname (UTS), own /tmp and /etc/hosts (mount namespace, private so nothing leaks to
  # the host), the node's network through nsenter: `ip netns exec` would remount /sys and
  # slurmd would then fail its cgroup check.
  unshare --uts --mount --propagation private sh -c \
    "mount -t tmpfs tmpfs /tmp && mount --bind '$STATE/etc/hosts' /etc/hosts && hostname $name &&
     exec nsenter --net=/var/run/netns/$namespace slurmd -f '$CONF' -N $name"
}

wait_for_idle_nodes() {
  local count=$1 idle
  for _ in $(seq 120); do
    idle=$(SLURM_CONF=$CONF sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
    [ "$idle" -eq "$count" ] && return 0
    sleep 0.5
  done
  SLURM_CONF=$CONF sinfo -N 2>&1 | sed 's/^/testbed:   /' >&2 || true
  die "not all $count nodes became idle within 60 s"
}

show_logs() {
  for file in "$STATE"/log/*.log; do
    [ -f "$file" ] || continue
    log "--- last lines of $file"
    tail -n 15 "$file" | sed 's/^/testbed:   /' >&2
  done
}

on_up_exit() {
  local up_status=$?
  if [ "$up_status" -ne 0 ]; then
    show_logs
    log "up failed: removing what was made"
    cmd_down
  fi
}

cmd_up() {
  local count=${1:-3}
  [[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le "$MAX_NODES" ] ||
    die "node count must be 1..$MAX_NODES, got '$count'"
  [[ "$SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "SHAKEDOWN_TESTBED_SUBNET '$SUBNET' is not like 10.77.0"
  require_root
  require_tools
  case "$STATE" in /tmp | /tmp/*) die "state folder $STATE must not be under /tmp (each node has its own /tmp)" ;; esac
  if [ -f "$STATE/node-count" ]; then
    local running
    running=$(cat "$STATE/node-count")
    [ "$running" = "$count" ] || die "the testbed is up with $running nodes: run '$0 down' first"
  fi
  check_nothing_foreign "$count"

  # A failed `up` leaves nothing behind: show why, then take down what was made.
  trap on_up_exit EXIT
  local started=$SECONDS
  make_state_folders
  make_network "$count"
  write_configuration "$count"
  start_munged
  start_slurmctld
  for i in $(seq "$count"); do start_slurmd "$i"; done
  wait_for_idle_nodes "$count"
  trap - EXIT
  log "up: $count nodes idle in $((SECONDS - started)) s; use: export SLURM_CONF=$CONF"
}

# --- down -------------------------------------------------------------------------------
cmd_down() {
  require_root
  if [ ! -f "$OWNED" ]; then
    [ -e "$STATE" ] && die "$STATE exists but was not made by this script: leaving it alone"
    log "down: nothing to remove"
    return 0
  fi
  # Jobs first, so that slurmstepd and ranks end through Slurm where it still answers.
  if pid_alive "$(pid_from "$STATE/run/slurmctld.pid")"; then
    local jobs
    jobs=$(SLURM_CONF=$CONF timeout 10 squeue -h -o %i 2>/dev/null || true)
    # shellcheck disable=SC2086
    [ -z "$jobs" ] || SLURM_CONF=$CONF timeout 10 scancel --quiet $jobs 2>/dev/null || true
  fi
  local kind name
  # Processes: slurmd and anything inside a node's namespaces, then slurmctld, then munged.
  while read -r kind name; do
    [ "$kind" = netns ] && stop_namespace_processes "$name"
  done <"$OWNED"
  local stuck=0
  while read -r kind name; do
    case "$kind $name" in
      "pid slurmd-"*) stop_pid_file "$STATE/run/$name.pid" slurmd || stuck=1 ;;
    esac
  done <"$OWNED"
  if owns pid slurmctld; then stop_pid_file "$STATE/run/slurmctld.pid" slurmctld || stuck=1; fi
  if owns pid munged; then stop_pid_file "$STATE/run/munged.pid" munged || stuck=1; fi
  # The record stays while a daemon lives, so a later `down` can still find it.
  [ "$stuck" -eq 0 ] || die "down: a daemon did not stop; state kept in $STATE"
  # Network: links (their peers go with them), namespaces, the bridge.
  while read -r kind name; do
    case "$kind" in
      link) link_exists "$name" && ip link delete "$name" ;;
    esac
  done <"$OWNED"
  while read -r kind name; do
    case "$kind" in
      netns) namespace_exists "$name" && ip netns delete "$name" ;;
    esac
  done <"$OWNED"
  owns bridge "$BRIDGE" && link_exists "$BRIDGE" && ip link delete "$BRIDGE"
  # Files last: the folder holds the record of everything above.
  owns folder "$STATE" && rm -rf --one-file-system "$STATE"
  log "down: removed everything the testbed made"
}

# --- status and faults ------------------------------------------------------------------
node_count() { [ -f "$STATE/node-count" ] && cat "$STATE/node-count" || echo 0; }

cmd_status() {
  local count
  count=$(node_count)
  if [ "$count" -eq 0 ]; then
    echo "testbed: down"
    [ -f "$OWNED" ] && echo "testbed: leftovers recorded in $OWNED (run down)" || true
    return 0
  fi
  echo "testbed: $count nodes, state $STATE, SLURM_CONF=$CONF"
  for daemon in munged slurmctld; do
    pid=$(pid_from "$STATE/run/$daemon.pid")
    if pid_alive "$pid"; then echo "  $daemon running (pid $pid)"; else echo "  $daemon NOT running"; fi
  done
  for i in $(seq "$count"); do
    local name namespace pid mtu qdisc
    name=$(node_name "$i")
    namespace=$(namespace_of "$i")
    pid=$(pid_from "$STATE/run/slurmd-$name.pid")
    mtu=$(ip -n "$namespace" -o link show eth0 2>/dev/null | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
    qdisc=$(tc qdisc show dev "$(host_link_of "$i")" 2>/dev/null | grep -o 'tbf.*rate [^ ]*' || echo "none")
    printf '  %s %s slurmd %s mtu %s shaping %s\n' "$name" "$(node_ip "$i")" \
      "$(pid_alive "$pid" && echo "running (pid $pid)" || echo "NOT running")" "${mtu:-?}" "$qdisc"
  done
  SLURM_CONF=$CONF sinfo -N 2>&1 | sed 's/^/  /' || true
}

node_index() {
  local node=$1 count
  count=$(node_count)
  [ "$count" -gt 0 ] || die "the testbed is down"
  [[ "$node" =~ ^node([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le "$count" ] ||
    die "unknown node '$node': the testbed has node1..node$count"
  echo "${BASH_REMATCH[1]}"
}

cmd_exec() {
  [ $# -ge 2 ] || die "usage: $0 exec NODE CMD [ARG...]"
  require_root
  local i
  i=$(node_index "$1")
  shift
  exec nsenter --net=/var/run/netns/"$(namespace_of "$i")" "$@"
}

cmd_limit_rate() {
  [ $# -eq 2 ] || die "usage: $0 limit-rate NODE RATE (e.g. node2 200mbit)"
  require_root
  local i
  i=$(node_index "$1")
  [[ "$2" =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] || die "rate '$2' is not like 200mbit"
  # Toward the node (host side of the veth) and from the node (its eth0): both directions.
  tc qdisc replace dev "$(host_link_of "$i")" root tbf rate "$2" burst 64kb latency 50ms
  tc -n "$(namespace_of "$i")" qdisc replace dev eth0 root tbf rate "$2" burst 64kb latency 50ms
  log "node$i limited to $2 both ways"
}

# NODE's traffic to PEER only through an HTB class of RATE; unclassified traffic (to every other
# node) is sent directly, unshaped, as HTB does without a default class.
shape_toward() {
  local namespace class
  namespace=$(namespace_of "$1")
  class="1:$((10 + $2))"
  if ! tc -n "$namespace" qdisc show dev eth0 | grep -q '^qdisc htb 1: root'; then
    tc -n "$namespace" qdisc replace dev eth0 root handle 1: htb
  fi
  tc -n "$namespace" class replace dev eth0 parent 1: classid "$class" htb rate "$3" ceil "$3" burst 64kb
  tc -n "$namespace" filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$(node_ip "$2")/32" flowid "$class"
}

# limit-link (both ways) and limit-direction (NODE's sends only): NODE PEER RATE checked, then
# the htb classes.
limit_between() {
  local command=$1 ways=$2
  shift 2
  [ $# -eq 3 ] || die "usage: $0 $command NODE PEER RATE (e.g. node4 node1 100mbit)"
  require_root
  local i j
  i=$(node_index "$1")
  j=$(node_index "$2")
  [ "$i" != "$j" ] || die "$command needs two different nodes, got $1 twice"
  [[ "$3" =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] || die "rate '$3' is not like 100mbit"
  shape_toward "$i" "$j" "$3"
  if [ "$ways" = both ]; then
    shape_toward "$j" "$i" "$3"
    log "link node$i<->node$j limited to $3 both ways"
  else
    log "node$i -> node$j limited to $3 (node$j -> node$i untouched)"
  fi
}

cmd_shaped_bytes() {
  [ $# -eq 2 ] || die "usage: $0 shaped-bytes NODE PEER (e.g. node1 node2)"
  require_root
  local i j sent
  i=$(node_index "$1")
  j=$(node_index "$2")
  sent=$(tc -n "$(namespace_of "$i")" -s class show dev eth0 classid "1:$((10 + j))" 2>/dev/null |
    sed -n 's/^ *Sent \([0-9]*\) bytes.*/\1/p' | head -n 1)
  echo "${sent:-0}"
}

cmd_mtu() {
  [ $# -eq 2 ] || die "usage: $0 mtu NODE MTU (e.g. node3 9000)"
  require_root
  local i
  i=$(node_index "$1")
  [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge 576 ] && [ "$2" -le 65535 ] || die "MTU '$2' is not 576..65535"
  ip link set dev "$(host_link_of "$i")" mtu "$2"
  ip -n "$(namespace_of "$i")" link set dev eth0 mtu "$2"
  log "node$i MTU $2"
}

cmd_clear_faults() {
  require_root
  local count
  count=$(node_count)
  for i in $(seq "$count"); do
    tc qdisc del dev "$(host_link_of "$i")" root 2>/dev/null || true
    tc -n "$(namespace_of "$i")" qdisc del dev eth0 root 2>/dev/null || true
    ip link set dev "$(host_link_of "$i")" mtu 1500
    ip -n "$(namespace_of "$i")" link set dev eth0 mtu 1500
  done
  log "faults cleared on $count nodes"
}

cmd_kill_slurmd() {
  [ $# -eq 1 ] || die "usage: $0 kill-slurmd NODE (e.g. node3)"
  require_root
  local i name pid
  i=$(node_index "$1")
  name=$(node_name "$i")
  pid=$(pid_from "$STATE/run/slurmd-$name.pid")
  # By pid file, checked to still be slurmd (as stop_pid_file): never by name.
  pid_alive "$pid" && [[ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")" == slurmd* ]] ||
    die "slurmd of $name is not running"
  kill -KILL "$pid"
  log "slurmd of $name killed (pid $pid); its job processes run on until Slurm marks it down"
}

cmd_revive() {
  [ $# -eq 1 ] || die "usage: $0 revive NODE (e.g. node3)"
  require_root
  local i name
  i=$(node_index "$1")
  name=$(node_name "$i")
  # Whatever the dead slurmd left in the node (slurmstepd, ranks) is ours: its namespace is.
  if ! pid_alive "$(pid_from "$STATE/run/slurmd-$name.pid")"; then
    stop_namespace_processes "$(namespace_of "$i")"
  fi
  start_slurmd "$i"
  SLURM_CONF=$CONF scontrol update NodeName="$name" State=RESUME 2>/dev/null || true
  wait_for_idle_nodes "$(node_count)"
  log "$name revived"
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

main() {
  local command=${1:-}
  [ $# -gt 0 ] && shift
  case "$command" in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    shared-dir)
      [ -d "$STATE/shared" ] || die "the testbed is down"
      echo "$STATE/shared"
      ;;
    address)
      [ $# -eq 1 ] || die "usage: $0 address NODE"
      node_ip "$(node_index "$1")"
      ;;
    exec) cmd_exec "$@" ;;
    limit-rate) cmd_limit_rate "$@" ;;
    limit-direction) limit_between limit-direction one "$@" ;;
    limit-link) limit_between limit-link both "$@" ;;
    shaped-bytes) cmd_shaped_bytes "$@" ;;
    mtu) cmd_mtu "$@" ;;
    clear-faults) cmd_clear_faults ;;
    kill-slurmd) cmd_kill_slurmd "$@" ;;
    revive) cmd_revive "$@" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"
