#!/usr/bin/env bash
# Stops the nodes tools/cluster/start_cluster.sh DIR started (SIGTERM, then
# waits for each to exit).
set -u
dir="$1"
[ -f "$dir/pids" ] || exit 0
while read -r pid; do kill -TERM "$pid" 2>/dev/null; done <"$dir/pids"
while read -r pid; do
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
done <"$dir/pids"
rm -f "$dir/pids"
