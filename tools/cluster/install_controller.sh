#!/usr/bin/env bash
# Install the pieces needed to run Apache kvrocks-controller against trackdb:
#   * etcd (Debian package etcd-server, 3.4.x) if no `etcd` binary is on PATH;
#   * the controller's server (kvctl-server) and CLI (kvctl), built from the
#     Go module github.com/apache/kvrocks-controller at a pinned version.
#
# Usage: tools/cluster/install_controller.sh [DEST_DIR]
#   DEST_DIR defaults to /var/tmp/trackdb-tools/kvrocks-controller (outside the
#   repo; tests read it there).
#   Result: DEST_DIR/kvctl-server, DEST_DIR/kvctl, DEST_DIR/VERSION.
#
# Idempotent: does nothing when both binaries already exist for the pinned
# version. Env overrides: KVROCKS_CONTROLLER_VERSION (default v1.3.0), GO.
#
# Why not `go install ...@version`: `go install pkg@version` looks up the
# module's deprecation notice via the proxy's version *list*, which the proxy
# reachable here refuses (403), so it fails even though the exact version is
# served. We therefore `go mod download` the exact version and `go build`
# from a writable temp copy of the module (no replace directives involved).
set -euo pipefail

VERSION="${KVROCKS_CONTROLLER_VERSION:-v1.3.0}"
MODULE="github.com/apache/kvrocks-controller"
DEST="${1:-/var/tmp/trackdb-tools/kvrocks-controller}"

log() { printf '[install_controller] %s\n' "$*" >&2; }

# --- etcd ------------------------------------------------------------------
if command -v etcd >/dev/null 2>&1; then
  log "etcd present: $(command -v etcd)"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      log "etcd missing and not root (no sudo): install etcd-server manually"; exit 1
    fi
  fi
  log "installing etcd-server via apt"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # The package's postinst tries to start a system etcd service; in a
  # container without an init system that is skipped (harmless warning).
  $SUDO apt-get install -y -qq etcd-server >/dev/null
  command -v etcd >/dev/null 2>&1 || { log "etcd still not on PATH after install"; exit 1; }
  # Do not leave a system-wide etcd running on :2379 if the package started one.
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet etcd 2>/dev/null; then
    $SUDO systemctl stop etcd || true
    $SUDO systemctl disable etcd >/dev/null 2>&1 || true
  fi
fi

# --- controller ------------------------------------------------------------
if [ -x "$DEST/kvctl-server" ] && [ -x "$DEST/kvctl" ] &&
   [ "$(cat "$DEST/VERSION" 2>/dev/null || true)" = "$VERSION" ]; then
  log "kvrocks-controller $VERSION already built in $DEST"
  exit 0
fi

GO="${GO:-}"
if [ -z "$GO" ]; then
  if command -v go >/dev/null 2>&1; then GO="$(command -v go)"
  elif [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go
  else log "go toolchain not found (set GO=/path/to/go)"; exit 1; fi
fi
export GOTOOLCHAIN=local   # never try to download another toolchain
export CGO_ENABLED=0

log "downloading $MODULE@$VERSION"
SRC_DIR="$("$GO" mod download -json "$MODULE@$VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
if [ -z "$SRC_DIR" ] || [ ! -f "$SRC_DIR/go.mod" ]; then
  log "go mod download of $MODULE@$VERSION failed"; exit 1
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -R "$SRC_DIR" "$WORK/src"
chmod -R u+w "$WORK/src"
mkdir -p "$DEST"

LDFLAGS="-X $MODULE/version.Version=${VERSION#v}"
log "building kvctl-server and kvctl (this takes ~1-2 min the first time)"
( cd "$WORK/src" &&
  "$GO" build -buildvcs=false -trimpath -ldflags "$LDFLAGS" -o "$WORK/kvctl-server" ./cmd/server &&
  "$GO" build -buildvcs=false -trimpath -ldflags "$LDFLAGS" -o "$WORK/kvctl" ./cmd/client )

mv -f "$WORK/kvctl-server" "$DEST/kvctl-server"
mv -f "$WORK/kvctl" "$DEST/kvctl"
# Keep the upstream sample configs next to the binaries for reference.
cp -f "$WORK/src/config/config.yaml" "$DEST/config.sample.yaml"
chmod u+w "$DEST/config.sample.yaml"
echo "$VERSION" > "$DEST/VERSION"
log "installed $DEST/kvctl-server and $DEST/kvctl ($VERSION)"
