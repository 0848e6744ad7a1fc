#!/usr/bin/env bash
# Builds the local Kubernetes control plane that the tests and the demo run:
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd, kwok;
# and helm, kubeconform and kube-score, for the chart tests.
#
#   scripts/testbin.sh [all]   everything (make test)
#   scripts/testbin.sh demo    the control plane only (make demo, recall demo)
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
# Build output goes to <dir>/build.log, not to stdout. What is being built, and
# how far along it is, goes to stderr: a first build takes a long time.
set -euo pipefail

selection="${1:-all}"
case "$selection" in
    all | demo) ;;
    *)
        echo "usage: scripts/testbin.sh [all|demo]  (demo: only the control plane the demo runs)" >&2
        exit 2
        ;;
esac

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
# Static binaries from exactly the pinned sources, whatever go.work is around.
export GOWORK=off CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly"

# One build at a time per directory (two test sessions may start together).
exec 9>"$dir/.lock"
if command -v flock >/dev/null 2>&1; then
    flock 9
fi

stamp_of() { # stamp_of <module dir>: changes when the pinned sources change
    cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -d' ' -f1
}

# The groups to build, in order: module dir, extra ldflags, how long a first
# build takes on 2 cores, then binary=package pairs. Filled in below.
group_mod=() group_extra=() group_hint=() group_specs=()
group() { # group <module dir> <ldflags extra> <first-time hint> <binary=package>...
    group_mod+=("$1")
    group_extra+=("$2")
    group_hint+=("$3")
    shift 3
    group_specs+=("$*")
}

# stale <index>: the binary=package pairs of a group whose binary is missing or
# was built from other pinned sources; nothing when the cache is current.
stale() {
    local stamp spec bin
    stamp=$(stamp_of "${group_mod[$1]}")
    for spec in ${group_specs[$1]}; do
        bin="${spec%%=*}"
        if [[ -x "$dir/$bin" && "$(cat "$dir/.stamps/$bin" 2>/dev/null)" == "$stamp" ]]; then
            continue
        fi
        echo "$spec"
    done
}

say() { echo "testbin.sh: $*" >&2; }

# progress <output file> <total packages> <start>: one line on how far `go build -v` is.
progress() {
    local done elapsed
    done=$(grep -cv -e '^#' -e ': ' -e '^\s' "$1" 2>/dev/null || true)
    elapsed=$(( $(date +%s) - $3 ))
    if [[ "$2" -gt 0 ]]; then
        printf '      %d of %d packages compiled (%d%%), %dm%02ds' "$done" "$2" $(( done * 100 / $2 )) \
            $(( elapsed / 60 )) $(( elapsed % 60 ))
    else
        printf '      %d packages compiled, %dm%02ds' "$done" $(( elapsed / 60 )) $(( elapsed % 60 ))
    fi
}

# build <step> <of> <index> <binary=package>...: the given binaries of one group.
build() {
    local step="$1" of="$2" g="$3"
    shift 3
    local mod="${group_mod[$g]}" extra="${group_extra[$g]}" stamp need=() pkgs=() spec
    stamp=$(stamp_of "$mod")
    for spec in "$@"; do
        need+=("${spec%%=*}")
        pkgs+=("${spec#*=}")
    done

    say "[$step/$of] building ${need[*]} (first time: ${group_hint[$g]}; log: $log)"
    local tmp start total out
    tmp=$(mktemp -d "$dir/.build.XXXXXX")
    out="$tmp/.go-build.out"
    start=$(date +%s)
    echo "=== $(date -u +%FT%TZ) building ${need[*]} from $(basename "$mod")" >>"$log"
    # How many packages the build compiles at most (this also fetches the sources);
    # go build -v names each one it compiles, so the two give how far along it is.
    say "      fetching the sources and counting packages"
    total=$(cd "$mod" && go list -deps "${pkgs[@]}" 2>>"$log" | wc -l) || total=0
    (
        cd "$mod"
        go build -v -trimpath -p "$jobs" -ldflags="-s -w $extra" -o "$tmp/" "${pkgs[@]}"
    ) >"$out" 2>&1 &
    local pid=$! tty=0 rc=0 last=0 now
    [[ -t 2 ]] && tty=1
    while kill -0 "$pid" 2>/dev/null; do
        sleep 2
        now=$(date +%s)
        if [[ $tty -eq 1 ]]; then
            printf '\r%s ' "$(progress "$out" "$total" "$start")" >&2
        elif (( now - last >= 30 )); then
            # Not a terminal (a CI log, a pipe): a line every half minute, not a flood.
            progress "$out" "$total" "$start" >&2
            echo >&2
            last=$now
        fi
    done
    wait "$pid" || rc=$?
    [[ $tty -eq 1 ]] && printf '\r%s\n' "$(progress "$out" "$total" "$start")" >&2
    cat "$out" >>"$log"
    if [[ $rc -ne 0 ]]; then
        rm -rf "$tmp"
        say "building ${need[*]} failed; see $log"
        tail -n 30 "$out" >&2 2>/dev/null || tail -n 30 "$log" >&2
        exit 1
    fi
    # go build -o dir/ names each binary after its package's last path element.
    local i pkg bin built
    for i in "${!need[@]}"; do
        pkg="${pkgs[$i]}"
        bin="${need[$i]}"
        built="$tmp/$(basename "$pkg")"
        [[ "$(basename "$pkg")" =~ ^v[0-9]+$ ]] && built="$tmp/$(basename "$(dirname "$pkg")")"
        mv -f "$built" "$dir/$bin"
        echo "$stamp" >"$dir/.stamps/$bin"
    done
    rm -rf "$tmp"
    local took=$(( $(date +%s) - start ))
    echo "=== built ${need[*]} in ${took}s" >>"$log"
    say "[$step/$of] built ${need[*]} in $(( took / 60 ))m$(printf '%02d' $(( took % 60 )))s"
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
group "$testbin/etcd" "" "about a minute" etcd=go.etcd.io/etcd/server/v3
group "$testbin/kwok" "" "a minute or two" kwok=sigs.k8s.io/kwok/cmd/kwok
if [[ "$selection" == all ]]; then
    group "$testbin/helm" "-X helm.sh/helm/v3/internal/version.version=$helm_version" "a few minutes" \
        helm=helm.sh/helm/v3/cmd/helm
    # The validators a platform team runs on a chart (tests/integration/test_chart_validators.py).
    group "$testbin/kubeconform" "" "about a minute" kubeconform=github.com/yannh/kubeconform/cmd/kubeconform
    group "$testbin/kube-score" "" "about a minute" kube-score=github.com/zegl/kube-score/cmd/kube-score
fi
group "$testbin/kube" "$k8s_ldflags" "10 to 20 minutes" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
    kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
    kubectl=k8s.io/kubernetes/cmd/kubectl

# Count what is out of date first, so each build says how far along the whole is.
pending=()
for g in "${!group_mod[@]}"; do
    [[ -n "$(stale "$g")" ]] && pending+=("$g")
done
if [[ ${#pending[@]} -gt 0 ]]; then
    say "building ${#pending[@]} of ${#group_mod[@]} tool groups ($selection) into $dir; later runs reuse them"
fi
step=0
for g in "${pending[@]}"; do
    step=$(( step + 1 ))
    # shellcheck disable=SC2046  # one binary=package pair per line, none with spaces
    build "$step" "${#pending[@]}" "$g" $(stale "$g")
done

printf 'k8s %s\netcd %s\nkwok %s\nhelm %s\nkubeconform %s\nkube-score %s\n' "$k8s_version" "$etcd_version" \
    "$kwok_version" "$helm_version" "$kubeconform_version" "$kube_score_version" >"$dir/versions"
echo "$dir"
