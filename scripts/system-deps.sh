#!/usr/bin/env bash
# Debian packages the tests use as real parts: Alertmanager (the bridge's peer),
# Prometheus (scrapes the operator; its package ships promtool, which checks and
# tests the alert rules), Lua 5.1 (the Lua Argo CD runs health checks in) and
# Chromium with its chromedriver (the memory panel's browser tests).
# Installed only when missing.
set -euo pipefail
need=()
command -v prometheus-alertmanager >/dev/null 2>&1 || need+=(prometheus-alertmanager)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v lua5.1 >/dev/null 2>&1 || need+=(lua5.1)
# The README's install commands make the bridge token with openssl (tests/integration/test_install_docs.py).
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
[[ ${#need[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
    echo "system-deps.sh: need root to install: ${need[*]} (or install them yourself)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
