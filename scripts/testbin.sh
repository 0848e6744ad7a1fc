#!/usr/bin/env bash
# Builds the local Kubernetes control plane that the tests and the demo run:
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd, kwok;
# and helm, kubeconform and kube-score, for the chart tests.
#
# Sources come from the Go module proxy through the modules under testbin/
# (one go.mod per tool, versions pinned there). Binaries go to a cache
# directory outside the repo and are only rebuilt when missing or when their
# module's go.mod/go.sum changed. The last line on stdout is that directory.
#
#   RECALL_TESTBIN   the directory to use (default:
#                    ${XDG_CACHE_HOME:-~/.cache}/recall-operator/testbin/<k8s-version>)
#   RECALL_TESTBIN_JOBS  go build -p (default 2)
#
# Build output goes to <dir>/build.log, not to stdout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
testbin="$root/testbin"

modversion() { # modversion <go.mod> <module path>
    awk -v m="$2" '($1 == m) || ($1 == "require" && $2 == m) { v = ($1 == m) ? $2 : $3 } END { print v }' "$1"
}

k8s_version=$(modversion "$testbin/kube/go.mod" k8s.io/kubernetes)
if [[ -z "$k8s_version" ]]; then
    echo "testbin.sh: cannot read the k8s.io/kubernetes version from testbin/kube/go.mod" >&2
    exit 1
fi
dir="${RECALL_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/recall-operator/testbin/$k8s_version}"
mkdir -p "$dir/.stamps"
dir=$(cd "$dir" && pwd)
log="$dir/build.log"
jobs="${RECALL_TESTBIN_JOBS:-2}"

# One build at a time per directory (two test sessions may start together).
exec 9>"$dir/.lock"
if command -v flock >/dev/null 2>&1; then
    flock 9
fi

stamp_of() { # stamp_of <module dir>: changes when the pinned sources change
    cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -d' ' -f1
}

# build <module dir> <ldflags extra> <binary=package>...
build() {
    local mod="$1" extra="$2"
    shift 2
    local stamp need=() pkgs=() spec bin pkg
    stamp=$(stamp_of "$mod")
    for spec in "$@"; do
        bin="${spec%%=*}"
        pkg="${spec#*=}"
        if [[ -x "$dir/$bin" && "$(cat "$dir/.stamps/$bin" 2>/dev/null)" == "$stamp" ]]; then
            continue
        fi
        need+=("$bin")
        pkgs+=("$pkg")
    done
    [[ ${#need[@]} -eq 0 ]] && return 0

    echo "testbin.sh: building ${need[*]} (log: $log)" >&2
    local tmp start
    tmp=$(mktemp -d "$dir/.build.XXXXXX")
    start=$(date +%s)
    {
        echo "=== $(date -u +%FT%TZ) building ${need[*]} from $(basename "$mod")"
    } >>"$log"
    if ! (
        cd "$mod"
        GOWORK=off CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly" \
            go build -trimpath -p "$jobs" -ldflags="-s -w $extra" -o "$tmp/" "${pkgs[@]}"
    ) >>"$log" 2>&1; then
        rm -rf "$tmp"
        echo "testbin.sh: building ${need[*]} failed; see $log" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
    # go build -o dir/ names each binary after its package's last path element.
    local i
    for i in "${!need[@]}"; do
        pkg="${pkgs[$i]}"
        bin="${need[$i]}"
        local built="$tmp/$(basename "$pkg")"
        [[ "$(basename "$pkg")" =~ ^v[0-9]+$ ]] && built="$tmp/$(basename "$(dirname "$pkg")")"
        mv -f "$built" "$dir/$bin"
        echo "$stamp" >"$dir/.stamps/$bin"
    done
    rm -rf "$tmp"
    echo "=== built ${need[*]} in $(( $(date +%s) - start ))s" >>"$log"
}

minor=${k8s_version#v1.}
minor=${minor%%.*}
k8s_ldflags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    k8s_ldflags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    k8s_ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done

etcd_version=$(modversion "$testbin/etcd/go.mod" go.etcd.io/etcd/server/v3)
kwok_version=$(modversion "$testbin/kwok/go.mod" sigs.k8s.io/kwok)
helm_version=$(modversion "$testbin/helm/go.mod" helm.sh/helm/v3)
kubeconform_version=$(modversion "$testbin/kubeconform/go.mod" github.com/yannh/kubeconform)
kube_score_version=$(modversion "$testbin/kube-score/go.mod" github.com/zegl/kube-score)

# The small ones first, so a failure there shows quickly.
build "$testbin/etcd" "" etcd=go.etcd.io/etcd/server/v3
build "$testbin/kwok" "" kwok=sigs.k8s.io/kwok/cmd/kwok
build "$testbin/helm" "-X helm.sh/helm/v3/internal/version.version=$helm_version" \
    helm=helm.sh/helm/v3/cmd/helm
# The validators a platform team runs on a chart (tests/integration/test_chart_validators.py).
build "$testbin/kubeconform" "" kubeconform=github.com/yannh/kubeconform/cmd/kubeconform
build "$testbin/kube-score" "" kube-score=github.com/zegl/kube-score/cmd/kube-score
build "$testbin/kube" "$k8s_ldflags" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
    kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
    kubectl=k8s.io/kubernetes/cmd/kubectl

printf 'k8s %s\netcd %s\nkwok %s\nhelm %s\nkubeconform %s\nkube-score %s\n' "$k8s_version" "$etcd_version" \
    "$kwok_version" "$helm_version" "$kubeconform_version" "$kube_score_version" >"$dir/versions"
echo "$dir"
