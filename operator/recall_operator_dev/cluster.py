"""A real, local Kubernetes control plane for the tests and the demo.

`recall cluster up` starts etcd, kube-apiserver, kube-controller-manager,
kube-scheduler and kwok (fake kubelets) as plain processes on loopback,
creates one fake Node, installs the CRDs from the repo's ``crds/`` folder and
prints ``export KUBECONFIG=...``. `recall cluster down` stops exactly the
processes that `up` started.

The binaries are built from source by ``scripts/testbin.sh`` (or taken from
the directory named by ``RECALL_TESTBIN``). The API server is started the way
controller-runtime's envtest does it: client-certificate admin in the
``system:masters`` group, RBAC, service-account signing key, random ports.

kwok plays the kubelet with the stages in :mod:`.kwok_stages`: a scheduled Pod
becomes Running; a Pod owned by a Job then Succeeds, unless its labels carry
``recall.dev/simulate=fail``, in which case it Fails (exit code 1). The pod
annotation ``recall.dev/simulate-duration`` (a Go duration such as ``"5s"``)
sets how long such a Pod stays Running (default 1s). Note that a Job only
ends ``Failed`` after ``backoffLimit`` retries, so failing Jobs in tests
should set ``backoffLimit: 0``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from recall_operator_dev import apiclient
from recall_operator_dev.kwok_stages import KWOK_STAGES
from recall_operator_dev.pki import Pki, kubeconfig
from recall_operator_dev.processes import alive, free_port, log_tail, proc_start_time

__all__ = [
    "COMPONENTS",
    "ClusterError",
    "FAKE_NODE_NAME",
    "LocalCluster",
    "find_testbin",
    "register",
]

#: Start order; `down` stops them in reverse.
COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok")

#: Seconds between SIGTERM and SIGKILL when stopping a component.
STOP_GRACE = {"kube-apiserver": 5.0, "etcd": 10.0}

FAKE_NODE_NAME = "kwok-node-0"
FAKE_NODE_ANNOTATION = ("kwok.x-k8s.io/node", "fake")
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"

CONTROLLERS = (
    "job-controller",
    "cronjob-controller",
    "ttl-after-finished-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "root-ca-certificate-publisher-controller",
    "clusterrole-aggregation-controller",
    "deployment-controller",
    "replicaset-controller",
    "pod-garbage-collector-controller",
    "validatingadmissionpolicy-status-controller",
)

ADMISSION_PLUGINS = (
    "NamespaceLifecycle",
    "LimitRanger",
    "ServiceAccount",
    "DefaultTolerationSeconds",
    "PodSecurity",
    "Priority",
    "NodeRestriction",
    "MutatingAdmissionWebhook",
    "MutatingAdmissionPolicy",  # the outcome hold (manifests/outcome-hold.yaml)
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
)

class ClusterError(RuntimeError):
    """The local control plane could not be built, started or reached."""


# --------------------------------------------------------------------------
# binaries


def repo_root() -> Path | None:
    """The source checkout this module runs from, if it runs from one."""
    here = Path(__file__).resolve().parent
    for candidate in (here, *here.parents):
        if (candidate / "scripts" / "testbin.sh").is_file() and (candidate / "testbin").is_dir():
            return candidate
    return None


def _has_binaries(directory: Path) -> bool:
    return all(os.access(directory / name, os.X_OK) for name in BINARIES)


def find_testbin(*, build: bool = True, log: Any = None) -> Path:
    """Return the directory holding the control-plane binaries.

    ``RECALL_TESTBIN`` wins when it already holds every binary. Otherwise
    ``scripts/testbin.sh`` builds what is missing (minutes the first time,
    seconds afterwards) and names the directory. Raises :class:`ClusterError`
    when no binaries can be had.
    """
    env_dir = os.environ.get("RECALL_TESTBIN")
    if env_dir and _has_binaries(Path(env_dir)):
        return Path(env_dir).resolve()
    root = repo_root()
    if root is None:
        if env_dir:
            raise ClusterError(f"RECALL_TESTBIN={env_dir} lacks some of {', '.join(BINARIES)}")
        raise ClusterError(
            "no control-plane binaries: set RECALL_TESTBIN to a directory holding "
            f"{', '.join(BINARIES)}, or run from a source checkout (scripts/testbin.sh)"
        )
    if not build:
        raise ClusterError("control-plane binaries are missing; run scripts/testbin.sh")
    script = root / "scripts" / "testbin.sh"
    stderr = log if log is not None else sys.stderr
    proc = subprocess.run(
        ["bash", str(script)],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or not lines:
        raise ClusterError(f"scripts/testbin.sh failed (exit {proc.returncode}); see its build.log")
    directory = Path(lines[-1]).resolve()
    if not _has_binaries(directory):
        raise ClusterError(f"scripts/testbin.sh named {directory}, which lacks some binaries")
    return directory


# How many times `up` picks new ports when one was taken under it.
PORT_RACE_ATTEMPTS = 3


class LocalCluster:
    """etcd + kube-apiserver + controller-manager + scheduler + kwok under one directory.

    Everything lives in `directory`: ``pki/``, ``etcd/`` (data), ``logs/``,
    ``kubeconfig`` (admin, ``system:masters``), ``cluster.json`` (ports and
    command lines) and ``pids.json`` (what `down` stops).

    Use ``LocalCluster(dir).up()`` to start one, ``LocalCluster(dir)`` alone
    to attach to one started earlier (e.g. by ``recall cluster up``), and
    :meth:`restart_apiserver` / :meth:`restart_etcd` (or :meth:`stop` and
    :meth:`start` for a longer outage) to disturb a running one.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        testbin: str | os.PathLike[str] | None = None,
        crds_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.directory = Path(directory).resolve()
        self._testbin = Path(testbin).resolve() if testbin else None
        if crds_dir is not None:
            self.crds_dir: Path | None = Path(crds_dir).resolve()
        else:
            root = repo_root()
            self.crds_dir = root / "crds" if root else None
        self._popen: dict[str, subprocess.Popen[bytes]] = {}
        self._state: dict[str, Any] = {}
        self._pids: dict[str, dict[str, Any]] = {}
        self._load()

    # -- paths and addresses ------------------------------------------------

    @property
    def kubeconfig(self) -> Path:
        return self.directory / "kubeconfig"

    @property
    def logs_dir(self) -> Path:
        return self.directory / "logs"

    @property
    def pki(self) -> Pki:
        return Pki(self.directory / "pki", SERVICE_CLUSTER_IP_RANGE)

    @property
    def ports(self) -> dict[str, int]:
        return dict(self._state.get("ports", {}))

    @property
    def apiserver_url(self) -> str:
        return f"https://127.0.0.1:{self._port('apiserver')}"

    @property
    def etcd_url(self) -> str:
        return f"http://127.0.0.1:{self._port('etcd')}"

    @property
    def testbin(self) -> Path:
        if self._testbin is None:
            stored = self._state.get("testbin")
            self._testbin = Path(stored) if stored and _has_binaries(Path(stored)) else find_testbin()
        return self._testbin

    @property
    def kubectl_path(self) -> Path:
        return self.testbin / "kubectl"

    def log_file(self, component: str) -> Path:
        return self.logs_dir / f"{component}.log"

    @property
    def pids(self) -> dict[str, int]:
        """PID of each component started by this cluster (running or not)."""
        return {name: int(info["pid"]) for name, info in self._pids.items()}

    def _port(self, name: str) -> int:
        try:
            return int(self._state["ports"][name])
        except KeyError:
            raise ClusterError(f"cluster in {self.directory} was never started (no cluster.json)") from None

    # -- state files ----------------------------------------------------------

    def _load(self) -> None:
        state = self.directory / "cluster.json"
        pids = self.directory / "pids.json"
        if state.exists():
            self._state = json.loads(state.read_text())
        if pids.exists():
            self._pids = json.loads(pids.read_text())

    def _save_state(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / "cluster.json.tmp"
        tmp.write_text(json.dumps(self._state, indent=2) + "\n")
        tmp.replace(self.directory / "cluster.json")

    def _save_pids(self) -> None:
        tmp = self.directory / "pids.json.tmp"
        tmp.write_text(json.dumps(self._pids, indent=2) + "\n")
        tmp.replace(self.directory / "pids.json")

    # -- status ---------------------------------------------------------------

    def is_running(self, component: str | None = None) -> bool:
        """Whether `component` (default: every component) is running."""
        names = [component] if component else list(COMPONENTS)
        for name in names:
            info = self._pids.get(name)
            if info is None or not self._pid_alive(name, info):
                return False
        return True

    def _pid_alive(self, name: str, info: dict[str, Any]) -> bool:
        popen = self._popen.get(name)
        if popen is not None and popen.pid == info["pid"]:
            return popen.poll() is None
        return alive(int(info["pid"]), info.get("start_time"))

    # -- lifecycle ------------------------------------------------------------

    def up(self, timeout: float = 180.0, *, fresh: bool = False, log: Any = None) -> LocalCluster:
        """Start every component and wait until the cluster schedules and runs Pods.

        Reuses the PKI and etcd data already in the directory unless `fresh`.
        Raises :class:`ClusterError` (naming the log file) if a component dies
        or the cluster is not ready within `timeout` seconds.
        """
        out = log if log is not None else sys.stderr
        if self._pids and any(self._pid_alive(n, i) for n, i in self._pids.items()):
            if self.is_running():
                return self
            raise ClusterError(
                f"some components of the cluster in {self.directory} still run; run `down` first"
            )
        if fresh:
            self._wipe()
        deadline = time.monotonic() + timeout
        # Free ports are picked by binding and letting go (recall_operator.ports);
        # another process may take one before our component binds it. Such a start
        # is retried with new ports rather than failed.
        for attempt in range(PORT_RACE_ATTEMPTS):
            try:
                return self._up_once(deadline, out)
            except ClusterError as exc:
                if "address already in use" not in str(exc) or attempt == PORT_RACE_ATTEMPTS - 1:
                    raise
                print(f"a port was taken while starting ({exc.args[0].splitlines()[0]}); retrying", file=out)
        raise AssertionError("unreachable")

    def _up_once(self, deadline: float, out: Any) -> LocalCluster:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.logs_dir.mkdir(exist_ok=True)
        testbin = self.testbin
        self.pki.ensure()
        self._state = {
            "testbin": str(testbin),
            "ports": {
                name: free_port()
                for name in ("etcd", "etcd-peer", "apiserver", "controller-manager", "scheduler", "kwok")
            },
        }
        self._write_configs()
        self._state["commands"] = {name: self._command(name) for name in COMPONENTS}
        self._save_state()
        self._pids = {}
        self._save_pids()
        try:
            self.start("etcd", timeout=max(1.0, deadline - time.monotonic()))
            print("etcd ready", file=out)
            self.start("kube-apiserver", timeout=max(1.0, deadline - time.monotonic()))
            print(f"kube-apiserver ready at {self.apiserver_url}", file=out)
            for name in ("kube-controller-manager", "kube-scheduler", "kwok"):
                self.start(name, wait=False)
            for name in ("kube-controller-manager", "kube-scheduler", "kwok"):
                self._wait_ready(name, deadline)
            print("controller-manager, scheduler and kwok ready", file=out)
            self._ensure_fake_node(deadline)
            self._wait_for(
                "the default ServiceAccount",
                lambda: self._api("GET", "/api/v1/namespaces/default/serviceaccounts/default")[0] == 200,
                deadline,
                component="kube-controller-manager",
            )
            installed = self.install_crds(timeout=max(1.0, deadline - time.monotonic()))
            if installed:
                print(f"installed CRDs: {', '.join(installed)}", file=out)
        except BaseException:
            self.down()
            raise
        return self

    def down(self, timeout: float | None = None) -> None:
        """Stop exactly the processes `up` started (SIGTERM, then SIGKILL). Removes no file."""
        for name in reversed(COMPONENTS):
            if name in self._pids:
                self.stop(name, timeout=timeout)

    def __enter__(self) -> LocalCluster:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.down()

    def _wipe(self) -> None:
        import shutil

        for sub in ("etcd", "pki"):
            shutil.rmtree(self.directory / sub, ignore_errors=True)

    # -- single components ------------------------------------------------------

    def start(self, component: str, *, wait: bool = True, timeout: float = 120.0) -> None:
        """Start one component with the command line `up` chose, optionally waiting for it."""
        if component not in COMPONENTS:
            raise ValueError(f"unknown component {component!r}; one of {COMPONENTS}")
        info = self._pids.get(component)
        if info is not None and self._pid_alive(component, info):
            raise ClusterError(f"{component} already runs (pid {info['pid']})")
        argv = self._state.get("commands", {}).get(component)
        if not argv:
            raise ClusterError(f"cluster in {self.directory} was never started (no command for {component})")
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.log_file(component)
        with open(log_path, "ab") as log_fh:
            log_fh.write(f"\n==== {dt.datetime.now().isoformat()} starting {component}\n".encode())
            log_fh.flush()
            popen = subprocess.Popen(
                argv,
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=log_fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
                env=self._component_env(),
            )
        self._popen[component] = popen
        self._pids[component] = {
            "pid": popen.pid,
            "start_time": proc_start_time(popen.pid),
            "log": str(log_path),
        }
        self._save_pids()
        if wait:
            self._wait_ready(component, time.monotonic() + timeout)

    def stop(self, component: str, timeout: float | None = None, *, graceful: bool = True) -> None:
        """Stop one component: SIGTERM, then SIGKILL after `timeout` seconds.

        The default grace is :data:`STOP_GRACE` for the component (the API
        server would otherwise wait up to its request timeout, 60s, for open
        watches). ``graceful=False`` sends SIGKILL at once, like a crash.
        """
        info = self._pids.get(component)
        if info is None:
            return
        if timeout is None:
            timeout = STOP_GRACE.get(component, 10.0)
        pid = int(info["pid"])
        popen = self._popen.pop(component, None)
        if popen is not None and popen.pid != pid:
            popen = None
        if self._pid_alive(component, info):
            try:
                os.kill(pid, signal.SIGTERM if graceful else signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not self._wait_gone(pid, info, popen, timeout if graceful else 10.0):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._wait_gone(pid, info, popen, 10.0)
        elif popen is not None:
            popen.poll()

    @staticmethod
    def _wait_gone(
        pid: int, info: dict[str, Any], popen: subprocess.Popen[bytes] | None, timeout: float
    ) -> bool:
        if popen is not None:
            try:
                popen.wait(timeout=timeout)
                return True
            except subprocess.TimeoutExpired:
                return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not alive(pid, info.get("start_time")):
                return True
            time.sleep(0.05)
        return not alive(pid, info.get("start_time"))

    def restart(
        self, component: str, *, downtime: float = 0.0, timeout: float = 120.0, graceful: bool = True
    ) -> None:
        """Stop `component`, stay down for `downtime` seconds, start it and wait until it is ready.

        ``graceful=False`` kills it (SIGKILL) instead of asking it to stop.
        """
        self.stop(component, graceful=graceful)
        if downtime > 0:
            time.sleep(downtime)
        self.start(component, timeout=timeout)

    def stop_apiserver(self, *, graceful: bool = True) -> None:
        self.stop("kube-apiserver", graceful=graceful)

    def start_apiserver(self, timeout: float = 120.0) -> None:
        self.start("kube-apiserver", timeout=timeout)

    def restart_apiserver(self, downtime: float = 0.0, timeout: float = 120.0, *, graceful: bool = True) -> None:
        """Restart kube-apiserver on the same port; clients see connection errors meanwhile."""
        self.restart("kube-apiserver", downtime=downtime, timeout=timeout, graceful=graceful)

    def restart_etcd(self, downtime: float = 0.0, timeout: float = 120.0, *, graceful: bool = True) -> None:
        """Restart etcd (data kept); then wait until the API server is ready again."""
        self.restart("etcd", downtime=downtime, timeout=timeout, graceful=graceful)
        if self.is_running("kube-apiserver"):
            self._wait_ready("kube-apiserver", time.monotonic() + timeout)

    # -- configuration ----------------------------------------------------------

    def _component_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBECONFIG")}
        # kwok keeps a work directory under $HOME; give it one of its own.
        env["HOME"] = str(self.directory / "home")
        (self.directory / "home").mkdir(parents=True, exist_ok=True)
        return env

    def _write_configs(self) -> None:
        server = f"https://127.0.0.1:{self._state['ports']['apiserver']}"
        self.kubeconfig.write_text(kubeconfig(server, self.pki, "admin"))
        self.kubeconfig.chmod(0o600)
        for user in ("kube-controller-manager", "kube-scheduler", "kwok"):
            path = self.directory / f"{user}.kubeconfig"
            path.write_text(kubeconfig(server, self.pki, user))
            path.chmod(0o600)
        (self.directory / "kwok-stages.yaml").write_text(KWOK_STAGES.lstrip())

    def _command(self, name: str) -> list[str]:
        bin_dir = self.testbin
        ports = self._state["ports"]
        pki = self.pki.path
        d = self.directory
        if name == "etcd":
            client = f"http://127.0.0.1:{ports['etcd']}"
            peer = f"http://127.0.0.1:{ports['etcd-peer']}"
            return [
                str(bin_dir / "etcd"),
                "--name=recall",
                f"--data-dir={d / 'etcd'}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=recall={peer}",
                "--initial-cluster-state=new",
                "--unsafe-no-fsync=true",
                "--log-level=warn",
                "--quota-backend-bytes=4294967296",
            ]
        if name == "kube-apiserver":
            return [
                str(bin_dir / "kube-apiserver"),
                f"--etcd-servers=http://127.0.0.1:{ports['etcd']}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={ports['apiserver']}",
                f"--cert-dir={d / 'pki'}",
                f"--tls-cert-file={pki('serving.crt')}",
                f"--tls-private-key-file={pki('serving.key')}",
                f"--client-ca-file={pki('ca.crt')}",
                "--authorization-mode=Node,RBAC",
                "--anonymous-auth=false",
                f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
                f"--service-account-key-file={pki('sa.pub')}",
                f"--service-account-signing-key-file={pki('sa.key')}",
                f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
                "--allow-privileged=true",
                f"--enable-admission-plugins={','.join(ADMISSION_PLUGINS)}",
                # No node-lifecycle controller runs to lift the not-ready taint from the fake node.
                "--disable-admission-plugins=TaintNodesByCondition",
                "--endpoint-reconciler-type=none",
                "--event-ttl=1h",
                "--v=1",
            ]
        if name == "kube-controller-manager":
            return [
                str(bin_dir / "kube-controller-manager"),
                f"--kubeconfig={d / 'kube-controller-manager.kubeconfig'}",
                "--bind-address=127.0.0.1",
                f"--secure-port={ports['controller-manager']}",
                f"--tls-cert-file={pki('serving.crt')}",
                f"--tls-private-key-file={pki('serving.key')}",
                "--leader-elect=false",
                f"--controllers={','.join(CONTROLLERS)}",
                "--use-service-account-credentials=true",
                f"--service-account-private-key-file={pki('sa.key')}",
                f"--root-ca-file={pki('ca.crt')}",
                f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
                "--v=1",
            ]
        if name == "kube-scheduler":
            return [
                str(bin_dir / "kube-scheduler"),
                f"--kubeconfig={d / 'kube-scheduler.kubeconfig'}",
                "--bind-address=127.0.0.1",
                f"--secure-port={ports['scheduler']}",
                f"--tls-cert-file={pki('serving.crt')}",
                f"--tls-private-key-file={pki('serving.key')}",
                "--leader-elect=false",
                "--v=1",
            ]
        if name == "kwok":
            key, value = FAKE_NODE_ANNOTATION
            return [
                str(bin_dir / "kwok"),
                f"--kubeconfig={d / 'kwok.kubeconfig'}",
                f"--config={d / 'kwok-stages.yaml'}",
                "--manage-all-nodes=false",
                f"--manage-nodes-with-annotation-selector={key}={value}",
                f"--server-address=127.0.0.1:{ports['kwok']}",
                "--node-ip=10.0.1.1",
                "--cidr=10.0.2.0/24",
                "--node-lease-duration-seconds=40",
            ]
        raise ValueError(name)

    # -- talking to the components ---------------------------------------------

    def _ssl_context(self, client: bool = True) -> ssl.SSLContext:
        return apiclient.ssl_context(self.pki, client=client)

    def _api(self, method: str, path: str, body: Any = None, timeout: float = 10.0) -> tuple[int, Any]:
        """One request to the API server as the admin; returns (status, decoded JSON or text)."""
        return apiclient.request(self._port("apiserver"), self.pki, method, path, body, timeout)

    def _probe(self, component: str) -> bool:
        ports = self._state["ports"]
        try:
            if component == "etcd":
                conn: http.client.HTTPConnection = http.client.HTTPConnection(
                    "127.0.0.1", ports["etcd"], timeout=2
                )
                conn.request("GET", "/health")
                resp = conn.getresponse()
                ok = resp.status == 200 and json.loads(resp.read()).get("health") == "true"
                conn.close()
                return ok
            if component == "kube-apiserver":
                status, body = self._api("GET", "/readyz", timeout=5)
                return status == 200 and str(body).strip() == "ok"
            if component in ("kube-controller-manager", "kube-scheduler"):
                port = ports["controller-manager" if component == "kube-controller-manager" else "scheduler"]
                conn = http.client.HTTPSConnection(
                    "127.0.0.1", port, context=self._ssl_context(client=False), timeout=2
                )
                conn.request("GET", "/healthz")
                resp = conn.getresponse()
                ok = resp.status == 200
                conn.close()
                return ok
            if component == "kwok":
                conn = http.client.HTTPConnection("127.0.0.1", ports["kwok"], timeout=2)
                conn.request("GET", "/healthz")
                resp = conn.getresponse()
                ok = resp.status == 200
                conn.close()
                return ok
        except (OSError, http.client.HTTPException, ValueError):
            return False
        raise ValueError(component)

    def _check_alive(self, component: str) -> None:
        info = self._pids.get(component)
        if info is None or not self._pid_alive(component, info):
            popen = self._popen.get(component)
            code = popen.poll() if popen is not None else None
            log = self.log_file(component)
            raise ClusterError(
                f"{component} exited{'' if code is None else f' with code {code}'}; see {log}\n"
                f"--- last lines of {log.name} ---\n{log_tail(log)}"
            )

    def _wait_ready(self, component: str, deadline: float) -> None:
        self._wait_for(f"{component} to be ready", lambda: self._probe(component), deadline, component=component)

    def _wait_for(self, what: str, check: Any, deadline: float, *, component: str | None = None) -> None:
        delay = 0.05
        while True:
            for name in [component] if component else []:
                self._check_alive(name)
            try:
                if check():
                    return
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() >= deadline:
                hint = f"; see {self.log_file(component)}" if component else ""
                raise ClusterError(f"timed out waiting for {what}{hint}")
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _ensure_fake_node(self, deadline: float) -> None:
        key, value = FAKE_NODE_ANNOTATION
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": FAKE_NODE_NAME,
                "annotations": {key: value, "node.alpha.kubernetes.io/ttl": "0"},
                "labels": {
                    "type": "kwok",
                    "kubernetes.io/hostname": FAKE_NODE_NAME,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "node-role.kubernetes.io/agent": "",
                },
            },
            "spec": {},
        }
        status, body = self._api("POST", "/api/v1/nodes", node)
        if status not in (201, 409):
            raise ClusterError(f"could not create the fake node: HTTP {status}: {body}")

        def ready() -> bool:
            status, body = self._api("GET", f"/api/v1/nodes/{FAKE_NODE_NAME}")
            if status != 200:
                return False
            conditions = body.get("status", {}).get("conditions") or []
            return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)

        self._wait_for(f"node {FAKE_NODE_NAME} to be Ready", ready, deadline, component="kwok")

    # -- CRDs and kubectl ---------------------------------------------------------

    def install_crds(self, directory: str | os.PathLike[str] | None = None, timeout: float = 60.0) -> list[str]:
        """Apply every ``*.yaml`` in the CRD folder and wait until its CRDs are Established.

        Returns the names of the CRDs found; an absent or empty folder is fine.
        """
        import yaml

        folder = Path(directory) if directory is not None else self.crds_dir
        if folder is None or not folder.is_dir():
            return []
        files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
        if not files:
            return []
        names: list[str] = []
        for path in files:
            for doc in yaml.safe_load_all(path.read_text()):
                if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                    names.append(doc["metadata"]["name"])
        args = ["apply", "--server-side", "--force-conflicts", "--field-manager=recall-cluster"]
        for path in files:
            args += ["-f", str(path)]
        proc = self.kubectl(*args, timeout=timeout)
        if proc.returncode != 0:
            raise ClusterError(f"kubectl apply of {folder} failed:\n{proc.stdout}{proc.stderr}")
        deadline = time.monotonic() + timeout

        def established(name: str) -> bool:
            status, body = self._api("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
            if status != 200:
                return False
            conditions = body.get("status", {}).get("conditions") or []
            return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)

        for name in names:
            self._wait_for(f"CRD {name} to be Established", lambda n=name: established(n), deadline)
        return names

    def kubectl(
        self,
        *args: str,
        as_user: str | None = None,
        as_groups: Iterable[str] = (),
        input: str | None = None,
        check: bool = False,
        timeout: float = 120.0,
    ) -> subprocess.CompletedProcess[str]:
        """Run the built kubectl against this cluster (admin, or impersonating `as_user`)."""
        argv = [str(self.kubectl_path), f"--kubeconfig={self.kubeconfig}"]
        if as_user is not None:
            argv.append(f"--as={as_user}")
        argv += [f"--as-group={g}" for g in as_groups]
        argv += list(args)
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        env["KUBECONFIG"] = str(self.kubeconfig)
        return subprocess.run(
            argv,
            input=input,
            capture_output=True,
            text=True,
            check=check,
            timeout=timeout,
            env=env,
            stdin=None if input is not None else subprocess.DEVNULL,
        )


# --------------------------------------------------------------------------
# the `recall cluster` command


def _default_dir() -> Path:
    return Path(os.environ.get("RECALL_CLUSTER_DIR", ".cache/cluster"))


def _cmd_up(args: argparse.Namespace) -> int:
    cluster = LocalCluster(args.dir, crds_dir=args.crds)
    start = time.monotonic()
    try:
        cluster.up(timeout=args.timeout, fresh=args.fresh)
    except ClusterError as exc:
        print(f"recall cluster up: {exc}", file=sys.stderr)
        return 1
    print(
        f"cluster up in {time.monotonic() - start:.1f}s; API server {cluster.apiserver_url}; logs in {cluster.logs_dir}",
        file=sys.stderr,
    )
    print(f"export KUBECONFIG={cluster.kubeconfig}")
    return 0


def _cmd_down(args: argparse.Namespace) -> int:
    cluster = LocalCluster(args.dir)
    if not cluster.pids:
        print(f"recall cluster down: no cluster recorded in {cluster.directory}", file=sys.stderr)
        return 0
    cluster.down(timeout=args.timeout)
    print(f"stopped {', '.join(f'{n} ({p})' for n, p in cluster.pids.items())}", file=sys.stderr)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    cluster = LocalCluster(args.dir)
    if not cluster.pids:
        print(f"no cluster recorded in {cluster.directory}")
        return 1
    for name in COMPONENTS:
        pid = cluster.pids.get(name)
        state = "running" if cluster.is_running(name) else "stopped"
        print(f"{name:24} {state:8} pid={pid}  log={cluster.log_file(name)}")
    return 0 if cluster.is_running() else 1


def register(subparsers: Any) -> None:
    """Add `recall cluster up|down|status`."""
    parser = subparsers.add_parser(
        "cluster",
        help="start or stop the local Kubernetes control plane (etcd, kube-apiserver, kwok, ...)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="cluster_command", required=True)
    dir_help = "state directory (default: $RECALL_CLUSTER_DIR or .cache/cluster)"

    up = sub.add_parser("up", help="start the cluster and print `export KUBECONFIG=...`")
    up.add_argument("--dir", type=Path, default=None, help=dir_help)
    up.add_argument("--crds", type=Path, default=None, help="folder of CRD YAML to install (default: repo crds/)")
    up.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for readiness")
    up.add_argument("--fresh", action="store_true", help="discard the etcd data and certificates first")
    up.set_defaults(func=lambda a: _cmd_up(_with_dir(a)))

    down = sub.add_parser("down", help="stop the processes `up` started")
    down.add_argument("--dir", type=Path, default=None, help=dir_help)
    down.add_argument(
        "--timeout", type=float, default=None, help="seconds between SIGTERM and SIGKILL (default: per component)"
    )
    down.set_defaults(func=lambda a: _cmd_down(_with_dir(a)))

    status = sub.add_parser("status", help="show which components run")
    status.add_argument("--dir", type=Path, default=None, help=dir_help)
    status.set_defaults(func=lambda a: _cmd_status(_with_dir(a)))


def _with_dir(args: argparse.Namespace) -> argparse.Namespace:
    if args.dir is None:
        args.dir = _default_dir()
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m recall_operator_dev.cluster up|down|status`, without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="recall")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["cluster", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
