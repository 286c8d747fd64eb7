#!/usr/bin/env bash
# Debian's chromium for the browser tests (playwright's own browser download is not used: it fetches
# a binary from outside the package registries).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-noto-color-emoji
