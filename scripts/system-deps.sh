#!/usr/bin/env bash
# Debian packages the tests use as real parts: Alertmanager (the bridge's peer)
# and Prometheus (scrapes the operator). Installed only when missing.
set -euo pipefail
need=()
command -v prometheus-alertmanager >/dev/null 2>&1 || need+=(prometheus-alertmanager)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
[[ ${#need[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
    echo "system-deps.sh: need root to install: ${need[*]} (or install them yourself)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
