"""The operator as its own ServiceAccount, under the RBAC it ships (manifests/rbac.yaml).

Every other end-to-end test runs the operator as the cluster's admin, so a
verb its ClusterRole lacks goes unseen there: the API server answers 403, the
operator logs a warning, and a feature is silently gone in a real cluster
(proposing a Contradiction was, until its `create` was granted). Here the
operator logs in with a token of `recall-system/recall-operator` and runs
triage, consolidation, runbook counting and a Contradiction proposal, then
a run with a failed step and its rollbacks; no request may be refused (the
operator logs each refusal as a warning naming the 403).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kopf.testing import KopfRunner

from alertmanager import free_port
from recall_operator.handlers import ENV_BACKEND, ENV_HINDSIGHT_URL, ENV_PATH
from recall_operator.kube import status as st
from recall_operator.runner import operator_args
from kit import KubeEnv, cart_runbook, execution_operator, kept_default_registry
from recall_operator_dev.demo import apply, import_outcome, wait_for
from test_contradictions import DEADLINE_S, RAISED, REDUCED, _contradictions, _incident, _poll_runbooks

pytestmark = pytest.mark.integration

MANIFESTS = Path(__file__).resolve().parents[2] / "manifests"


@pytest.fixture
def account_kubeconfig(kubectl: Any, cluster: Any, tmp_path: Path) -> Path:
    """A kubeconfig that logs in as the operator's ServiceAccount, with manifests/rbac.yaml applied."""
    proc = kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=recall-test",
                   "-f", str(MANIFESTS / "namespace-restricted.yaml"), "-f", str(MANIFESTS / "rbac.yaml"))
    assert proc.returncode == 0, proc.stderr
    return _login(kubectl, cluster, tmp_path, "recall-system")


@pytest.fixture
def confined_kubeconfig(kubectl: Any, cluster: Any, tmp_path: Path, namespace: str) -> Iterator[Path]:
    """The operator's account of a chart release that watches only `namespace` (its RBAC bound only there)."""
    import uuid

    from support import renderer

    release_ns = f"recall-shard-{uuid.uuid4().hex[:6]}"
    render = renderer()
    rendered = [d for d in yaml.safe_load_all(render.render_chart(
        render.helm_binary(), "--set", "watch.allNamespaces=false", "--set", f"watch.namespaces={{{namespace}}}",
        "--show-only", "templates/rbac.yaml", "--show-only", "templates/serviceaccount.yaml",
        namespace=release_ns)) if d]
    kubectl("create", "namespace", release_ns, check=True)
    proc = kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": rendered}))
    assert proc.returncode == 0, proc.stderr
    try:
        yield _login(kubectl, cluster, tmp_path, release_ns)
    finally:
        for d in rendered:
            if d["kind"].startswith("Cluster"):
                kubectl("delete", d["kind"].lower(), d["metadata"]["name"], "--ignore-not-found")
        kubectl("delete", "namespace", release_ns, "--wait=false")


def _login(kubectl: Any, cluster: Any, tmp_path: Path, release_ns: str) -> Path:
    """A kubeconfig with a token of the operator's ServiceAccount in `release_ns`."""
    token = kubectl("create", "token", "recall-operator", "-n", release_ns, "--duration=1h", check=True)
    admin = yaml.safe_load(Path(cluster.kubeconfig).read_text())
    context = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])
    own = {
        "apiVersion": "v1", "kind": "Config", "current-context": "recall-operator",
        "clusters": [c for c in admin["clusters"] if c["name"] == context["context"]["cluster"]],
        "users": [{"name": "recall-operator", "user": {"token": token.stdout.strip()}}],
        "contexts": [{"name": "recall-operator",
                      "context": {"cluster": context["context"]["cluster"], "user": "recall-operator"}}],
    }
    path = tmp_path / "operator.kubeconfig"
    path.write_text(yaml.safe_dump(own))
    return path


@pytest.fixture
def operator_as_its_account(account_kubeconfig: Path, namespace: str, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> Iterator[KopfRunner]:
    monkeypatch.setenv("KUBECONFIG", str(account_kubeconfig))
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(tmp_path / "memory.sqlite3"))
    with KopfRunner(operator_args([namespace]), timeout=60) as runner:
        yield runner
    _nothing_refused(runner)


def _nothing_refused(runner: KopfRunner) -> None:
    """The runner stopped cleanly and no request it made was refused.

    Its output is only there once it has stopped: read inside the block, it waits for ever.
    """
    assert runner.exception is None, runner.output
    refused = [line for line in runner.output.splitlines() if " 403" in line or "Forbidden" in line]
    assert not refused, refused


def test_the_loop_runs_under_the_operator_s_own_rbac(operator_as_its_account: KopfRunner, kubectl: Any,
                                                     namespace: str, get_status: Any) -> None:
    _the_loop(kubectl, namespace, get_status)


def test_the_loop_runs_under_a_shards_rbac_bound_only_to_its_namespace(
        confined_kubeconfig: Path, kubectl: Any, namespace: str, get_status: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A release watching named namespaces reads nothing elsewhere; what it does there needs nothing more."""
    monkeypatch.setenv("KUBECONFIG", str(confined_kubeconfig))
    monkeypatch.setenv(ENV_BACKEND, "embedded")
    monkeypatch.setenv(ENV_PATH, str(tmp_path / "memory.sqlite3"))
    with KopfRunner(operator_args([namespace]), timeout=60) as runner:
        _the_loop(kubectl, namespace, get_status)
    _nothing_refused(runner)


def _the_loop(kubectl: Any, namespace: str, get_status: Any) -> None:
    """Triage, consolidation, runbook counting, a Contradiction proposal and the answer's Event."""
    _poll_runbooks(kubectl, namespace)
    import_outcome(kubectl, namespace, _incident("inc-a"), RAISED)
    import_outcome(kubectl, namespace, _incident("inc-b"), REDUCED)
    proposed = wait_for("a proposed contradiction", lambda: _contradictions(kubectl, namespace), timeout=DEADLINE_S)
    assert sorted(proposed[0]["spec"]["memories"]) == ["inc-a", "inc-b"]

    apply(kubectl, namespace, _incident("inc-c"))
    rec = wait_for("a recommendation on inc-c", lambda: get_status("inc-c").get("recommendation", {}).get("mode")
                   and get_status("inc-c")["recommendation"], timeout=DEADLINE_S)
    assert "open contradiction" in " ".join(rec.get("warnings") or []), rec
    counted = json.loads(kubectl("get", "runbook", "reduce-poll-records", "-n", namespace, "-o", "json",
                                 check=True).stdout).get("status") or {}
    assert counted.get("timesExecuted") == 1, counted
    # The answer's Event (posted from the operator's outbox once the namespace is quiet).
    wait_for("an Event about inc-c", lambda: any(
        e["involvedObject"]["name"] == "inc-c"
        for e in json.loads(kubectl("get", "events", "-n", namespace, "-o", "json", check=True).stdout)["items"]),
        timeout=DEADLINE_S)


def test_a_run_and_its_rollback_go_through_under_the_operator_s_own_rbac(
        account_kubeconfig: Path, kubectl: Any, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dry-run Jobs, the Approval's verdict, step Jobs, a failed step and its rollbacks, the Events."""
    monkeypatch.setenv("RECALL_ALLOW_SIMULATED_FAILURE", "1")
    env = KubeEnv(kubectl, namespace)
    spec = {"title": "cart slow", "service": "cart", "severity": "high", "description": "redis hot keys"}
    env.create_runbook("cart-hot-keys", cart_runbook())
    env.create_incident("inc-cart", spec, {"recall.dev/simulate-fail-step": "restart-cart"})
    plan_hash = env.recommend("inc-cart", spec, "cart-hot-keys", cart_runbook())  # standing in for triage
    monkeypatch.setenv("KUBECONFIG", str(account_kubeconfig))
    with kept_default_registry(), execution_operator(namespace) as runner:
        wait_for("dry-run results", lambda: env.dry_run_of("inc-cart", plan_hash), timeout=DEADLINE_S)
        env.approve_plan("inc-cart", "approve-1", plan_hash)
        ran = wait_for("the run to end", lambda: (e := env.status_field("inc-cart", "execution")).get("state")
                       in ("Succeeded", "Failed", "Stopped", "RolledBack") and e, timeout=DEADLINE_S)
        wait_for("the run's last Event", lambda: "ExecutionRolledBack" in kubectl(
            "get", "events", "-n", namespace, "--field-selector", "involvedObject.name=inc-cart",
            "-o", "jsonpath={.items[*].reason}", check=True).stdout, timeout=DEADLINE_S)
    _nothing_refused(runner)
    assert ran["state"] == "RolledBack", ran
    # kwok keeps no logs; a refused read would say so instead (and warn, which _nothing_refused catches).
    assert {s["logTail"] for s in env.status_field("inc-cart", "dryRun")["steps"] if s.get("job")} == {"no log available"}
    assert (env.get("approvals.recall.dev", "approve-1").get("status") or {}).get("state") == "Accepted"
    assert [(r["name"], r["result"]) for r in ran["rollbacks"]] == [
        ("flush-hot-keys", "succeeded"), ("snapshot", "succeeded")]


def test_an_outcome_waiting_for_memory_holds_the_deletion_under_the_operator_s_own_rbac(
        account_kubeconfig: Path, kubectl: Any, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory down (a Hindsight server that does not answer): the finalizer goes on, the deletion waits."""
    monkeypatch.setenv("KUBECONFIG", str(account_kubeconfig))
    monkeypatch.setenv(ENV_BACKEND, "hindsight")
    monkeypatch.setenv(ENV_HINDSIGHT_URL, f"http://127.0.0.1:{free_port()}")
    env = KubeEnv(kubectl, namespace)
    spec = {"title": "cart slow", "service": "cart", "severity": "high",
            "resolution": {"summary": "recycled the cart pods by hand", "confirmedBy": "alice"}}

    def held() -> dict[str, Any]:
        return env.get("incidents.recall.dev", "inc-held")

    with KopfRunner(operator_args([namespace]), timeout=60) as runner:
        env.create_incident("inc-held", spec)
        wait_for("the outcome in the outbox, the Incident held", lambda: (
            (held().get("status") or {}).get("memory", {}).get("outbox") == "pending"
            and st.OUTCOME_FINALIZER in held()["metadata"].get("finalizers", [])), timeout=DEADLINE_S)
        kubectl("delete", "incidents.recall.dev", "inc-held", "-n", namespace, "--wait=false", check=True)
        wait_for("the deletion said to wait", lambda: any(
            c["reason"] == "DeletionWaitsForMemory" for c in (held().get("status") or {}).get("conditions", [])),
            timeout=DEADLINE_S)
    _nothing_refused(runner)
    # With no operator to let it go, the README's patch does.
    kubectl("patch", "incidents.recall.dev", "inc-held", "-n", namespace, "--type=json",
            "-p", '[{"op":"remove","path":"/metadata/finalizers"}]', check=True)
    wait_for("the Incident gone", lambda: not held(), timeout=DEADLINE_S)
