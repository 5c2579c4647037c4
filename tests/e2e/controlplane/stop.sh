#!/usr/bin/env bash
# Stops a control plane start.sh serves (started without a command):
#   stop.sh KUBECONFIG_OR_WORKDIR
# The start.sh process tears everything down itself (its trap); this waits for it (30 s).
set -euo pipefail
target=${1:?usage: stop.sh KUBECONFIG_OR_WORKDIR (the path start.sh printed)}
[[ -d $target ]] || target=$(dirname "$target")
pidfile=$target/pid
if [[ ! -f $pidfile ]]; then
  echo "controlplane: no control plane runs in $target" >&2
  exit 1
fi
pid=$(cat "$pidfile")
kill -TERM "$pid" 2>/dev/null || { echo "controlplane: process $pid is gone" >&2; exit 0; }
for _ in $(seq 300); do
  kill -0 "$pid" 2>/dev/null || { echo "controlplane: stopped" >&2; exit 0; }
  sleep 0.1
done
echo "controlplane: process $pid still runs after 30 s" >&2
exit 1
