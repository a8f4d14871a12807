#!/usr/bin/env bash
# Stops the nodes tools/cluster/start_cluster.sh DIR started (SIGTERM, then
# waits for each to exit).
set -u
dir="$1"
[ -f "$dir/pids" ] || exit 0
while read -r pid; do kill -TERM "$pid" 2>/dev/null; done <"$dir/pids"
# A process already gone may linger as a zombie where nothing reaps it (a
# test sandbox's init): it counts as stopped.
alive() {
  kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" != Z* ]]
}
while read -r pid; do
  while alive "$pid"; do sleep 0.1; done
done <"$dir/pids"
rm -f "$dir/pids"
