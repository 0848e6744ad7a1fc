"""Shared fixtures: the real local Kubernetes control plane.

Fixtures (all need the binaries scripts/testbin.sh builds; a missing binary is
built, never a reason to skip):

- ``cluster`` (session): a running :class:`recall_operator_dev.cluster.LocalCluster`.
  Started once per session in a temporary directory, or attached to the one
  whose kubeconfig ``RECALL_TEST_KUBECONFIG`` names (a ``recall cluster up``
  directory; then it is left running). ``KUBECONFIG`` points at it for the
  session. Its ``restart_apiserver()`` / ``restart_etcd()`` disturb it.
- ``kubectl`` (session): ``kubectl(*args, as_user=None, as_groups=(), input=None,
  check=False, timeout=120) -> subprocess.CompletedProcess[str]``; runs the
  built kubectl as the admin (or impersonating ``as_user``/``as_groups``) and
  raises on a non-zero exit only with ``check=True``.
- ``namespace`` (function): the name of a fresh namespace, deleted afterwards.
- ``k8s_api`` (session): a ``kubernetes.client.ApiClient`` for the cluster.

Tests under tests/integration/ are marked ``integration`` automatically; they
also say ``pytestmark = pytest.mark.integration`` themselves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_operator_dev.cluster import ClusterError, LocalCluster

Kubectl = Callable[..., "subprocess.CompletedProcess[str]"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    integration_dir = Path(__file__).parent / "integration"
    for item in items:
        if integration_dir in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


def _attach(kubeconfig: str) -> LocalCluster:
    directory = Path(kubeconfig).resolve().parent
    if not (directory / "cluster.json").exists():
        raise ClusterError(
            f"RECALL_TEST_KUBECONFIG={kubeconfig} is not in a `recall cluster up` directory "
            "(no cluster.json beside it)"
        )
    cluster = LocalCluster(directory)
    if not cluster.is_running():
        raise ClusterError(
            f"the cluster in {directory} is not running; start it with `recall cluster up --dir {directory}`"
        )
    return cluster


def _nothing() -> None:
    pass


def _sigterm_raises_interrupt() -> Callable[[], None]:
    """Let a SIGTERM (e.g. from `timeout`) unwind pytest so the cluster is torn down.

    The control-plane processes run in sessions of their own and would
    otherwise outlive a terminated test run. Returns the undo function.
    """
    if threading.current_thread() is not threading.main_thread():
        return _nothing
    previous = signal.getsignal(signal.SIGTERM)
    if previous not in (signal.SIG_DFL, None):
        return _nothing  # someone else already handles it

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    reuse = os.environ.get("RECALL_TEST_KUBECONFIG")
    if reuse:
        try:
            local = _attach(reuse)
            local.install_crds()
        except ClusterError as exc:
            pytest.fail(f"cannot use RECALL_TEST_KUBECONFIG: {exc}", pytrace=False)
        owned = False
        restore_sigterm = _nothing
    else:
        restore_sigterm = _sigterm_raises_interrupt()
        local = LocalCluster(tmp_path_factory.mktemp("cluster"))
        try:
            local.up(timeout=300)
        except ClusterError as exc:
            restore_sigterm()
            pytest.fail(f"could not start the local control plane: {exc}", pytrace=False)
        owned = True
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KUBECONFIG", str(local.kubeconfig))
        try:
            yield local
        finally:
            if owned:
                local.down()
            restore_sigterm()


@pytest.fixture(scope="session")
def kubectl(cluster: LocalCluster) -> Kubectl:
    """The built kubectl against the session's cluster (admin, or `as_user=` impersonating)."""
    return cluster.kubectl


@pytest.fixture
def make_namespace(kubectl: Kubectl) -> Iterator[Callable[[], str]]:
    """Fresh namespaces for one test, each deleted after it."""
    made: list[str] = []

    def make() -> str:
        name = f"t-{uuid.uuid4().hex[:10]}"
        kubectl("create", "namespace", name, check=True)
        made.append(name)
        return name

    try:
        yield make
    finally:
        for name in made:
            kubectl("delete", "namespace", name, "--wait=false", "--ignore-not-found")


@pytest.fixture
def namespace(make_namespace: Callable[[], str]) -> str:
    return make_namespace()


@pytest.fixture(scope="session")
def k8s_api(cluster: LocalCluster) -> Iterator[Any]:
    from kubernetes import config as k8s_config

    api = k8s_config.new_client_from_config(config_file=str(cluster.kubeconfig))
    try:
        yield api
    finally:
        api.close()
