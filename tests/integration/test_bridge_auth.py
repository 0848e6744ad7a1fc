"""The bridge as a cluster reaches it: bound to every address, behind a bearer token.

`recall run` starts as the chart starts it (``--bridge-host 0.0.0.0
--bridge-token-file``) against the real API server. Requests go to
127.0.0.2, a loopback address other than the 127.0.0.1 a default bind would
take, so an answer there shows the socket is not bound to one address (no
traffic leaves the machine). A real Alertmanager (Debian's
prometheus-alertmanager) sends the token from ``credentials_file``; plain
HTTP clients show what a missing, wrong or other-scheme credential gets.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alertmanager import Alertmanager
from recall_operator.bridge.alertmanager import incident_name
from support import free_port, wait_for

pytestmark = pytest.mark.integration

OTHER_LOOPBACK = "127.0.0.2"
TOKEN = "s3cret-token-for-the-bridge-0123456789"


def post(url: str, body: dict[str, Any], authorization: str | None) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as rsp:
            return rsp.status, json.loads(rsp.read()), dict(rsp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}"), dict(exc.headers)


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as rsp:
            return rsp.status, json.loads(rsp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
    except (urllib.error.URLError, OSError):
        return 0, {}


def webhook(fingerprint: str) -> dict[str, Any]:
    alert = {"status": "firing", "labels": {"alertname": "AuthCheck", "service": "checkout-api"},
             "annotations": {"summary": f"auth check {fingerprint}"}, "startsAt": "2026-01-01T00:00:00Z",
             "fingerprint": fingerprint}
    return {"version": "4", "status": "firing", "alerts": [alert]}


class Running:
    def __init__(self, proc: subprocess.Popen[bytes], bridge: int, metrics: int, log: Path, token: Path) -> None:
        self.proc, self.log, self.token = proc, log, token
        self.alerts = f"http://{OTHER_LOOPBACK}:{bridge}/alerts"
        self.bridge_health = f"http://{OTHER_LOOPBACK}:{bridge}/healthz"
        self.readyz = f"http://{OTHER_LOOPBACK}:{metrics}/readyz"

    def alive(self) -> None:
        if self.proc.poll() is not None:
            pytest.fail("recall run exited:\n" + self.log.read_text(errors="replace")[-4000:])


def recall_executable() -> str:
    beside = Path(sys.executable).parent / "recall"
    assert beside.exists(), "the `recall` console script is not installed (pip install -e .)"
    return str(beside)


@pytest.fixture
def running(cluster: Any, namespace: str, tmp_path: Path) -> Iterator[Running]:
    bridge, metrics = free_port(), free_port()
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")  # a Secret created with `echo` ends in a newline: it is not part of the token
    log = tmp_path / "operator.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [recall_executable(), "run", "--namespace", namespace, "--memory", "embedded",
             "--memory-path", str(tmp_path / "memory.sqlite3"), "--bridge-port", str(bridge),
             "--bridge-host", "0.0.0.0", "--bridge-token-file", str(token), "--metrics-port", str(metrics)],
            stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path, start_new_session=True,
            env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)},
        )
    run = Running(proc, bridge, metrics, log, token)
    try:
        wait_for("the bridge on 127.0.0.2", lambda: run.alive() or get(run.bridge_health)[0] == 200, deadline=60)
        yield run
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def incident_exists(kubectl: Any, namespace: str, name: str) -> bool:
    return bool(kubectl("get", "incident.recall.dev", name, "-n", namespace, "-o", "name").returncode == 0)


def test_bridge_answers_on_another_loopback_address_only_with_the_token(
    running: Running, kubectl: Any, namespace: str
) -> None:
    refusals = [
        None,                          # no header
        "Bearer wrong-token",          # wrong token
        f"Bearer {TOKEN}x",            # the token plus one character
        f"Bearer {TOKEN[:-1]}",        # a prefix of it
        f"Basic {TOKEN}",              # the right secret under another scheme
        "Bearer",                      # the scheme alone
    ]
    for i, authorization in enumerate(refusals):
        code, body, headers = post(running.alerts, webhook(f"authrefused{i:02d}"), authorization)
        assert code == 401, (authorization, code, body)
        assert "bearer token is required" in body["error"]
        assert headers.get("WWW-Authenticate", "").startswith("Bearer")
        assert not incident_exists(kubectl, namespace, incident_name(f"authrefused{i:02d}"))

    code, body, _ = post(running.alerts, webhook("authaccepted01"), f"Bearer {TOKEN}")
    assert code == 200, body
    assert body["created"] == [incident_name("authaccepted01")]
    assert incident_exists(kubectl, namespace, incident_name("authaccepted01"))
    # The scheme is case-insensitive (RFC 9110); the credentials are not.
    code, body, _ = post(running.alerts, webhook("authaccepted02"), f"bearer {TOKEN}")
    assert code == 200, body
    code, body, _ = post(running.alerts, webhook("authrefused99"), f"Bearer {TOKEN.upper()}")
    assert code == 401, body
    _, health = get(running.bridge_health)
    assert health["unauthorized"] == len(refusals) + 1 and health["created"] == 2

    # A rotated Secret takes effect without a restart: the old token stops working.
    running.token.write_text("rotated-token-0123456789\n")
    code, _, _ = post(running.alerts, webhook("authrotated01"), f"Bearer {TOKEN}")
    assert code == 401
    code, body, _ = post(running.alerts, webhook("authrotated02"), "Bearer rotated-token-0123456789")
    assert code == 200, body

    # The probes answer on every address too, and readiness comes once the first lists are done.
    seen: list[Any] = []
    code, ready = wait_for(f"/readyz on 127.0.0.2 (last answers: {seen[-1:]})",
                           lambda: (r := get(running.readyz)) and (seen.append(r) or r[0] == 200) and r, deadline=90)
    assert ready == {"ready": True, "reason": "ready"}


def test_alertmanager_sends_the_token_from_a_credentials_file(
    running: Running, kubectl: Any, namespace: str, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token\n")
    alert = {"labels": {"alertname": "TokenFromFile", "service": "cart-api", "instance": "am"},
             "annotations": {"summary": "sent by Alertmanager with credentials_file"}}
    # First an Alertmanager holding the wrong token: every delivery is refused, no Incident appears.
    with Alertmanager(running.alerts, http_config={"authorization": {"type": "Bearer",
                                                                     "credentials_file": str(wrong)}}) as am:
        am.post_alerts([alert])
        wait_for("Alertmanager's delivery to be refused",
                 lambda: running.alive() or get(running.bridge_health)[1].get("unauthorized", 0) >= 1, deadline=60)
        fingerprint = am.alerts()[0]["fingerprint"]
    assert not incident_exists(kubectl, namespace, incident_name(fingerprint))
    assert get(running.bridge_health)[1]["created"] == 0

    # Then one configured as the README says: the same alert becomes an Incident.
    with Alertmanager(running.alerts, http_config={"authorization": {"type": "Bearer",
                                                                     "credentials_file": str(running.token)}}) as am:
        am.post_alerts([alert])
        wait_for(f"the Incident for {fingerprint}",
                 lambda: running.alive() or incident_exists(kubectl, namespace, incident_name(fingerprint)),
                 deadline=90)
        assert am.alerts()[0]["fingerprint"] == fingerprint
