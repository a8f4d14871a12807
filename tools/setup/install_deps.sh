#!/usr/bin/env bash
# Installs the Debian 12 packages trackdb needs (tools/setup/debian-packages.txt),
# only those missing, and builds kvrocks-controller at its pinned version
# (tools/cluster/install_controller.sh) if it is not built yet: a second
# run installs nothing and needs no network.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
list="${1:-$here/debian-packages.txt}"

mapfile -t wanted < <(grep -v -E '^\s*(#|$)' "$list")
missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#wanted[@]} packages present"
else
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "install_deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# What Debian lacks, from the Go module proxy at a pinned version (built
# once, then found): kvrocks-controller, which the failover test runs.
if [[ $# -eq 0 ]]; then
  "$here/../cluster/install_controller.sh"
fi
