#!/usr/bin/env bash
# Installs skopeo from the distribution when it is missing (the container registry test drives it).
# Exit 0: skopeo is there. Exit 2: it could not be installed (apt missing or unreachable); the reason is on stderr.
set -u
command -v skopeo >/dev/null 2>&1 && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-get is not available to install skopeo" >&2
  exit 2
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else echo "not root and no password-less sudo to install skopeo" >&2; exit 2; fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq >/dev/null 2>&1; then
  echo "apt-get update failed (no network to the package mirrors?)" >&2
  exit 2
fi
if ! $SUDO apt-get install -y -qq skopeo >/dev/null 2>&1; then
  echo "apt-get install skopeo failed" >&2
  exit 2
fi
command -v skopeo >/dev/null 2>&1 || { echo "skopeo is still missing after apt-get install" >&2; exit 2; }
