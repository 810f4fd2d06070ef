#!/usr/bin/env bash
# Installs a package client from the distribution when it is missing (the registry tests drive skopeo and twine).
# Usage: ensure-client.sh COMMAND APT_PACKAGE
# Exit 0: COMMAND is there. Exit 2: it could not be installed (apt missing or unreachable); the reason is on stderr.
set -u
command="$1"
package="$2"
command -v "$command" >/dev/null 2>&1 && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-get is not available to install $package" >&2
  exit 2
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else echo "not root and no password-less sudo to install $package" >&2; exit 2; fi
fi
export DEBIAN_FRONTEND=noninteractive
# one installation at a time: test files run in parallel
exec 9>/tmp/hearth-ensure-client.lock
flock 9
command -v "$command" >/dev/null 2>&1 && exit 0
if ! $SUDO apt-get install -y -qq "$package" >/dev/null 2>&1; then
  if ! $SUDO apt-get update -qq >/dev/null 2>&1; then
    echo "apt-get update failed (no network to the package mirrors?)" >&2
    exit 2
  fi
  if ! $SUDO apt-get install -y -qq "$package" >/dev/null 2>&1; then
    echo "apt-get install $package failed" >&2
    exit 2
  fi
fi
command -v "$command" >/dev/null 2>&1 || { echo "$command is still missing after apt-get install $package" >&2; exit 2; }
