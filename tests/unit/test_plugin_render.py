"""What `kubectl recall` prints and builds, from a realistic Incident, without a cluster."""

from __future__ import annotations

import copy
import hashlib
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from recall_operator import plugin

PLAN_HASH = "9f2c4e1a7b3d5c60"

INCIDENT: dict[str, Any] = {
    "apiVersion": "recall.dev/v1alpha1",
    "kind": "Incident",
    "metadata": {"name": "inc-0046", "namespace": "payments"},
    "spec": {
        "service": "checkout-api", "severity": "critical",
        "title": "checkout-api 5xx and DB pool timeouts after rollout",
        "symptoms": ["5xx", "db-pool-exhausted"],
    },
    "status": {
        "observedGeneration": 1,
        "conditions": [
            {"type": "Triaged", "status": "True", "reason": "Actionable", "message": "actionable: ..."},
            {"type": "AwaitingApproval", "status": "True", "reason": "PlanReady", "message": "..."},
            {"type": "MemoryAvailable", "status": "True", "reason": "Recalled", "message": "recalled 3"},
        ],
        "matches": [
            {"incident": "inc-0022", "similarity": 81,
             "breakdown": {"lexical": 28.4, "service": 25.0, "symptoms": 16.0, "signals": 7.5, "runbook": 3.1,
                           "dna": 1.0},
             "outcome": "succeeded", "runbook": "k8s-rollback-deploy",
             "actions": [{"action": "restart checkout pods", "result": "failed"},
                         {"action": "run runbook k8s-rollback-deploy", "result": "succeeded"}],
             "stale": None, "contradiction": None, "repageOf": None},
            {"incident": "inc-0009", "similarity": 63,
             "breakdown": {"lexical": 20.0, "service": 25.0, "symptoms": 10.0, "ruledOut": -10.0},
             "outcome": "failed", "runbook": "redis-restart-vm",
             "actions": [{"action": "restart redis VM", "result": "failed"}],
             "stale": {"migration": "redis-cluster-to-elasticache", "oldArch": "redis on VMs",
                       "newArch": "ElastiCache", "deduction": 40, "why": "the VMs are gone"},
             "contradiction": "contradiction-pool-size: inc-0009 says pool size, inc-0031 says a slow query",
             "repageOf": "inc-0008", "ruledOut": ["this report denies 'vacuum', which inc-0009 had"],
             "sharedChange": ["client", "redis"]},
        ],
        "recommendation": {
            "mode": "actionable", "similarity": 81, "actionability": 72, "runbook": "k8s-rollback-deploy",
            "source": "inc-0022",
            "warnings": ["runbook redis-restart-vm failed before under the same conditions"],
            "evidence": ["inc-0022 resolved by k8s-rollback-deploy"],
            "reasons": ["best precedent inc-0022 at 81"],
            "readOnly": False, "parameters": {"SERVICE": "checkout-api"}, "planHash": PLAN_HASH,
            "steps": [
                {"name": "undo-rollout", "title": "Roll the deployment back", "image": "kubectl:1.36",
                 "command": ["kubectl", "rollout", "undo", "deployment/checkout-api"],
                 "dryRunCommand": ["kubectl", "rollout", "history", "deployment/checkout-api"],
                 "rollbackCommand": ["kubectl", "rollout", "undo", "deployment/checkout-api"],
                 "risk": "high", "blastRadius": "one deployment", "estimatedSeconds": 60},
                {"name": "announce", "image": "notify:1", "command": ["notify", "rolled back"],
                 "dryRunCommand": [], "rollbackCommand": [], "risk": "low", "blastRadius": ""},
            ],
        },
    },
}


def test_why_shows_mode_scores_runbook_and_warnings_before_matches() -> None:
    text = plugin.render_why(INCIDENT)
    assert "MODE ACTIONABLE" in text and "similarity 81/100" in text and "actionability 72/100" in text
    assert "RUNBOOK k8s-rollback-deploy  (source: inc-0022)" in text
    assert "! runbook redis-restart-vm failed before" in text
    assert text.index("WARNINGS") < text.index("MATCHES") < text.index("PLAN")


def test_why_shows_each_match_with_its_breakdown_outcome_and_failed_actions() -> None:
    text = plugin.render_why(INCIDENT)
    first = text.index("1. inc-0022")
    second = text.index("2. inc-0009")
    assert first < second
    assert "lexical +28.4, service +25" in text[first:second]
    assert "[FAILED ] restart checkout pods" in text[first:second]
    assert "[ok     ] run runbook k8s-rollback-deploy" in text[first:second]
    tail = text[second:]
    assert "outcome FAILED" in tail
    assert "ruledOut -10" in tail
    assert "ruled out: this report denies 'vacuum', which inc-0009 had" in tail
    assert "ruled out" not in text[first:second]
    assert "rolled out shortly before both: client, redis" in tail
    assert "rolled out" not in text[first:second]
    assert "STALE: migration redis-cluster-to-elasticache (redis on VMs -> ElastiCache), actionability -40" in tail
    assert "CONTRADICTION: contradiction-pool-size" in tail
    assert "re-page of inc-0008" in tail


def test_a_success_only_claimed_is_said_to_be_one() -> None:
    """A reported action (a person's claim, or a memory nobody signed): the operator did not see it succeed."""
    lines = plugin.render_actions([{"action": "run runbook k8s-rollback-deploy", "result": "succeeded", "reported": True},
                                   {"action": "restart checkout pods", "result": "succeeded"}])
    assert lines == ["[ok     ] run runbook k8s-rollback-deploy (a claim: not what the operator saw here)",
                     "[ok     ] restart checkout pods"]


def test_plan_shows_commands_dry_run_rollback_risk_blast_radius_and_hash() -> None:
    text = plugin.render_plan(INCIDENT["status"]["recommendation"])
    assert f"planHash {PLAN_HASH}" in text
    assert "command:  kubectl rollout undo deployment/checkout-api" in text
    assert "dry-run:  kubectl rollout history deployment/checkout-api" in text
    assert "rollback: kubectl rollout undo deployment/checkout-api" in text
    assert "risk HIGH; blast radius: one deployment" in text
    assert "rollback: NONE" in text  # the announce step cannot be undone
    assert "blast radius: not stated" in text
    assert "parameters were set by" not in text
    signed = plugin.render_plan(INCIDENT["status"]["recommendation"], "bob\nsecond line")
    assert "the incident's parameters were set by bob⏎second line, who cannot approve this plan" in signed


def test_memory_outage_is_the_first_warning() -> None:
    inc = copy.deepcopy(INCIDENT)
    inc["status"]["conditions"][2] = {"type": "MemoryAvailable", "status": "False", "reason": "MemoryUnavailable",
                                      "message": "connection refused"}
    text = plugin.render_why(inc)
    warnings = text[text.index("WARNINGS"):text.index("MATCHES")].splitlines()
    assert warnings[1] == "  ! memory unavailable: connection refused"


def test_novel_incident_has_no_matches_and_nothing_to_approve() -> None:
    inc = copy.deepcopy(INCIDENT)
    inc["status"]["matches"] = []
    inc["status"]["recommendation"].update(mode="novel", actionability=0, planHash=None, warnings=[], readOnly=True)
    text = plugin.render_why(inc)
    assert "MODE NOVEL" in text and "(none: nothing in memory" in text and "  (none)" in text
    assert "kubectl recall resolve inc-0046 -n payments" in text
    refusal = plugin.not_actionable_message(inc)
    assert refusal and refusal.startswith("refusing: incident inc-0046 is novel")
    assert "kubectl recall resolve inc-0046 -n payments" in refusal
    assert plugin.not_actionable_message(INCIDENT) is None


def test_not_triaged_and_not_found_say_what_to_do() -> None:
    bare = {"metadata": {"name": "inc-9", "namespace": "ns"}, "spec": {}, "status": {}}
    msg = plugin.not_triaged_message(bare)
    assert msg and "not triaged yet" in msg and "operator" in msg
    invalid = {**bare, "status": {"conditions": [{"type": "Triaged", "status": "False", "reason": "InvalidSpec",
                                                   "message": "service: required"}]}}
    assert "InvalidSpec: service: required" in (plugin.not_triaged_message(invalid) or "")
    assert plugin.not_triaged_message(INCIDENT) is None
    assert "Incidents there: inc-1, inc-2" in plugin.not_found_message("inc-3", "ns", ["inc-2", "inc-1"])
    assert "none at all" in plugin.not_found_message("inc-3", "ns", [])
    lost = plugin.not_found_message("lag", "ns", ["lag-fix"], "Contradiction")
    assert "no Contradiction 'lag' in namespace ns. Contradictions there: lag-fix." in lost
    assert "kubectl get contradictions -A" in plugin.not_found_message("lag", "ns", [], "Contradiction")


def test_next_step_says_how_to_lift_an_open_contradiction() -> None:
    held = copy.deepcopy(INCIDENT)
    held["status"]["recommendation"] = {"mode": "advisory", "runbook": "scale-out"}
    held["status"]["matches"] = [{"incident": "inc-7", "contradiction": "lag-fix"},
                                 {"incident": "inc-9", "contradiction": "lag-fix"}, {"incident": "inc-3"}]
    step = plugin.next_step(held)
    assert step.startswith("act by hand, then record what happened: kubectl recall resolve inc-0046 -n payments")
    assert step.endswith("in lag-fix, say so (role recall-reconciler): kubectl recall reconcile lag-fix -n payments"
                         " --note ...")
    held["status"]["matches"] = [{"incident": "inc-3"}]
    assert "reconcile" not in plugin.next_step(held)


CONTRADICTION: dict[str, Any] = {
    "metadata": {"name": "lag-fix", "namespace": "payments"},
    "spec": {"topic": "consumer lag: scale out or cap concurrency", "memories": ["inc-7", "inc-9"],
             "claims": [{"memory": "inc-7", "claim": "scaling out cleared it"},
                        {"memory": "inc-9", "claim": "capping concurrency\x1b[2J cleared it"}]},
}


def test_a_contradiction_shows_its_claims_and_who_reconciled_it() -> None:
    text = plugin.render_contradiction(CONTRADICTION)
    assert text.splitlines()[:3] == ["contradiction lag-fix: consumer lag: scale out or cap concurrency",
                                     "  inc-7: scaling out cleared it",
                                     "  inc-9: capping concurrency\\x1b[2J cleared it"]  # escapes reach no terminal
    assert "open: answers that recall these memories stay advisory" in text
    signed = copy.deepcopy(CONTRADICTION)
    signed["spec"]["resolution"] = plugin.reconciliation("out when starved, cap when out of memory", "rita",
                                                         datetime(2026, 3, 2, 11, 30, 5, 900, tzinfo=UTC))
    assert signed["spec"]["resolution"] == {"state": "reconciled", "note": "out when starved, cap when out of memory",
                                            "reconciledBy": "rita", "reconciledAt": "2026-03-02T11:30:05Z"}
    assert plugin.render_contradiction(signed).endswith("reconciled by rita: out when starved, cap when out of memory")
    signed["spec"]["resolution"].pop("reconciledBy")
    assert plugin.render_contradiction(signed).endswith("reconciled (unsigned): out when starved, cap when out of memory")
    # Opening it again takes the signature away with the merge patch (null removes a key); the note stays.
    assert plugin.REOPENED == {"state": "open", "reconciledBy": None, "reconciledAt": None}


def test_reconcile_takes_a_note_or_reopens_never_both() -> None:
    parser = plugin.build_parser()
    args = parser.parse_args(["reconcile", "lag-fix", "--note", "it depends on memory", "-n", "payments"])
    assert (args.func, args.contradiction, args.note, args.reopen) == (plugin.cmd_reconcile, "lag-fix",
                                                                      "it depends on memory", False)
    assert parser.parse_args(["reconcile", "lag-fix", "--reopen"]).reopen is True
    with pytest.raises(SystemExit):
        parser.parse_args(["reconcile", "lag-fix", "--reopen", "--note", "x"])


def test_approval_is_bound_to_the_plan_hash_and_the_user() -> None:
    m = plugin.approval_manifest("inc-0046", "payments", PLAN_HASH, "system:admin", "approve", "dry-run is clean")
    # A user name that is not a name already gets a digest of itself (alice.b is not alice-b).
    digest = hashlib.sha256(b"system:admin").hexdigest()[:6]
    assert m["metadata"] == {"name": f"inc-0046-9f2c4e1a-system-admin-{digest}", "namespace": "payments"}
    assert m["spec"] == {"incident": "inc-0046", "planHash": PLAN_HASH, "decision": "approve",
                         "approver": "system:admin", "reason": "dry-run is clean"}
    rej = plugin.approval_manifest("inc-0046", "payments", PLAN_HASH, "Alice@Example.com", "reject", "no")
    digest = hashlib.sha256(b"Alice@Example.com").hexdigest()[:6]
    assert rej["metadata"]["name"] == f"inc-0046-9f2c4e1a-alice-example-com-{digest}-reject"


def test_resolution_parses_actions_and_refuses_bad_ones() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    r = plugin.resolution("bad rollout", "rolled back", ["restart pods=failed", "x=y=succeeded"], "rb", "alice", now)
    assert r["actions"] == [{"action": "restart pods", "result": "failed"}, {"action": "x=y", "result": "succeeded"}]
    assert r["confirmedAt"] == "2026-01-02T03:04:05Z" and r["confirmedBy"] == "alice" and r["runbook"] == "rb"
    assert plugin.resolution("a", "b", [], None, "u", now)["runbook"] is None
    with pytest.raises(plugin.PluginError, match="RESULT one of"):
        plugin.parse_action("restart pods=maybe")
    with pytest.raises(plugin.PluginError):
        plugin.parse_action("no result here")
    with pytest.raises(plugin.PluginError, match="--root-cause"):
        plugin.resolution(" ", "b", [], None, "u", now)


@pytest.mark.parametrize("odd", ["firmware", 7, {"a": 1}, None, []])
def test_a_shared_change_that_is_not_a_list_of_words_prints_nothing(odd: object) -> None:
    lines = plugin.render_match(1, {"incident": "inc-1", "similarity": 50, "sharedChange": odd})
    assert not any("rolled out" in line for line in lines)


def test_why_says_when_recognition_put_a_match_above_a_more_similar_one() -> None:
    match = {"incident": "inc-0031", "similarity": 49, "recognition": 31, "outcome": "succeeded",
             "breakdown": {"lexical": 3.0, "service": 25.0}}
    lines = plugin.render_match(1, match)
    assert any(line.strip().startswith("recognition: +31") for line in lines), lines
    assert not any("recognition" in line for line in plugin.render_match(1, {**match, "recognition": 0}))


def test_why_flags_a_step_that_gets_an_api_token() -> None:
    step = {"name": "undo", "risk": "medium", "command": ["kubectl", "rollout", "undo"], "dryRunCommand": ["true"]}
    assert not any("API ACCESS" in line for line in plugin.render_step(1, step, read_only=False))
    assert any("API ACCESS" in line for line in plugin.render_step(1, {**step, "apiAccess": True}, read_only=False))


def test_a_plan_that_succeeded_is_not_offered_for_approval_again() -> None:
    inc = copy.deepcopy(INCIDENT)
    inc["status"]["execution"] = {"planHash": PLAN_HASH, "state": "Succeeded", "approvedBy": "alice"}
    refusal = plugin.not_actionable_message(inc)
    assert refusal and "already ran and every step succeeded" in refusal and "alice" in refusal
    inc["status"]["execution"]["state"] = "RolledBack"  # a failed run may be approved again
    assert plugin.not_actionable_message(inc) is None


def test_why_shows_a_half_approved_plan_and_who_approved_it() -> None:
    pending = {"metadata": {"name": "a1", "creationTimestamp": "2026-01-01T00:00:00Z"},
               "spec": {"incident": "inc-0046", "planHash": PLAN_HASH, "decision": "approve", "approver": "bob"},
               "status": {"state": "Pending", "reason": "needs 2 distinct approvers; has 1 (bob)",
                          "expiresAt": "2026-01-01T01:00:00Z"}}
    older_plan = {"metadata": {"name": "a0"}, "spec": {"incident": "inc-0046", "planHash": "0" * 16,
                                                       "decision": "approve", "approver": "carol"}}
    text = plugin.render_why(INCIDENT, [older_plan, pending])
    section = text[text.index(f"APPROVALS of plan {PLAN_HASH}"):text.index("NEXT")]
    assert "bob approves  Pending: needs 2 distinct approvers; has 1 (bob) (counts until 2026-01-01T01:00:00Z)" \
        in section
    assert "carol" not in section  # an Approval of another plan is not this plan's
    assert "APPROVALS" not in plugin.render_why(INCIDENT, [])
    assert "may not list Approvals" in plugin.render_why(INCIDENT, None)


def test_approval_names_keep_people_apart_and_a_found_one_is_yours_only_if_it_says_so() -> None:
    from recall_operator.plugin import approval_manifest, approval_name, same_decision

    # However long the incident's or the user's name, who decided and how stays in the name.
    long_incident, long_user = "i" * 250, "someone@" + "x" * 300 + ".example"
    names = {approval_name(long_incident, "0123456789abcdef", u, d)
             for u in ("alice", "bob", long_user, long_user + "2") for d in ("approve", "reject")}
    assert len(names) == 8 and all(len(n) <= 253 and n[-1].isalnum() for n in names), names
    assert approval_name(long_incident, "0123456789abcdef", "bob", "reject").endswith("-01234567-bob-reject")

    assert approval_name("inc-1", "0123456789abcdef", "bob") == "inc-1-01234567-bob"
    dotted, dashed = approval_name("inc-1", "0123456789abcdef", "alice.b"), approval_name(
        "inc-1", "0123456789abcdef", "alice-b")
    assert dotted != dashed and dotted.startswith("inc-1-01234567-alice-b-")
    mine = approval_manifest("inc-1", "shop", "0123456789abcdef", "bob", "approve", None)
    assert same_decision(mine, mine)
    for field, other in (("approver", "mallory"), ("decision", "reject"), ("planHash", "f" * 16),
                         ("incident", "inc-2")):
        assert not same_decision({"spec": {**mine["spec"], field: other}}, mine), field


def test_text_from_an_incident_can_neither_forge_a_line_nor_hide_one() -> None:
    hostile = copy.deepcopy(INCIDENT)
    forged = "\n\nMODE NOVEL   similarity 0/100\nWARNINGS\n  (none)"
    hostile["spec"]["title"] = f"cart 5xx{forged}\x1b[8m\r\u202e"
    hostile["status"]["matches"][1]["actions"][0]["action"] = "restart\x1b]0;pwned\x07 redis VM\nWHY"
    hostile["status"]["matches"][1]["ruledOut"] = ["denies 'vacuum'\u2028MODE NOVEL"]
    hostile["status"]["recommendation"]["warnings"] = ["failed before\x1b[2J"]
    hostile["status"]["recommendation"]["steps"][0]["command"] = ["kubectl", "rollout\x1b[8m", "undo"]
    out = plugin.render_why(hostile, [{"spec": {"planHash": PLAN_HASH, "approver": "bob\x1b[8m", "decision": "approve"},
                                       "status": {"state": "Pending", "reason": "1 of 2\nMODE NOVEL"}}])
    assert not [c for c in out if c != "\n" and (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u202e")]
    lines = out.splitlines()
    # The real mode line is the only one, and each field stays on its own line.
    assert [line for line in lines if line.startswith("MODE")] == [
        "MODE ACTIONABLE   similarity 81/100   actionability 72/100"]
    assert "  cart 5xx⏎⏎MODE NOVEL similarity 0/100⏎WARNINGS⏎ (none)\\x1b[8m⏎\\u202e" in lines
    assert "\\x1b[2J" in out and "restart\\x1b]0;pwned\\x07 redis VM⏎WHY" in out
    assert "  bob\\x1b[8m approves  Pending: 1 of 2⏎MODE NOVEL" in lines
    # Ordinary text is untouched (the fixture renders the same either way).
    assert plugin.render_why(INCIDENT) == plugin.render_why(plugin.shown(INCIDENT))


def test_plan_shows_the_image_and_the_deadline_it_is_hashed_with() -> None:
    rec = copy.deepcopy(INCIDENT["status"]["recommendation"])
    rec["steps"][0]["timeoutSeconds"] = 300
    plan = plugin.render_plan(rec)
    assert rec["steps"][0].get("dryRunCommand"), "the fixture's first step has a dry-run"
    assert ("     image:    kubectl:1.36; deadline 300 s  (by tag: the run takes the digest its dry-run ran)"
            in plan.splitlines())
    # An image the Runbook pins, or a step with no dry-run, runs as written: nothing to say.
    rec["steps"][0]["image"] = "kubectl@sha256:" + "0" * 64
    assert f"     image:    kubectl@sha256:{'0' * 64}; deadline 300 s" in plugin.render_plan(rec).splitlines()
    rec["steps"][0]["image"], rec["steps"][0]["dryRunCommand"] = "kubectl:1.36", None
    assert "     image:    kubectl:1.36; deadline 300 s" in plugin.render_plan(rec).splitlines()


def test_why_lists_each_step_of_the_run_with_the_image_it_ran() -> None:
    incident = copy.deepcopy(INCIDENT)
    pinned = "kubectl:1.36@sha256:" + "ab" * 32
    incident["status"]["execution"] = {
        "state": "Failed", "reason": "step restart failed; rolled back",
        "steps": [{"name": "restart", "phase": "run", "result": "failed", "image": pinned},
                  {"name": "announce", "phase": "run", "result": "pending"}],
        "rollbacks": [{"name": "snapshot", "phase": "rollback", "result": "succeeded", "image": "redis-tools:7"}]}
    lines = plugin.render_why(incident).splitlines()
    at = lines.index("EXECUTION Failed: step restart failed; rolled back")
    assert lines[at + 1:at + 4] == [f"  restart: failed (image {pinned})", "  announce: pending",
                                    "  rollback of snapshot: succeeded (image redis-tools:7)"]


def test_set_reads_name_value_pairs_and_refuses_what_is_not_one() -> None:
    from recall_operator.plugin import PluginError, parse_parameters

    assert parse_parameters(["SERVICE=cart", "REPLICAS=3", "OLD=", "SERVICE=cart-canary", "URL=a=b"]) == {
        "SERVICE": "cart-canary", "REPLICAS": "3", "OLD": None, "URL": "a=b"}
    for bad in ("SERVICE", "=cart", " =x"):
        with pytest.raises(PluginError, match="is not NAME=VALUE"):
            parse_parameters([bad])


@pytest.mark.parametrize(("pair", "needle"), [
    ("replicas=10", "'replicas' is not a parameter name"),
    ("TARGET=cart api", "the value of TARGET is not one plain word"),
    ("TARGET=" + "a" * 254, "the value of TARGET is not one plain word"),
    ("TARGET=$(rm -rf /)", "the value of TARGET is not one plain word"),
])
def test_set_refuses_what_no_plan_can_take_before_writing(pair: str, needle: str) -> None:
    # The CRD refuses the same; said here with nothing sent.
    with pytest.raises(plugin.PluginError, match=re.escape(needle)):
        plugin.parse_parameters([pair])


def test_set_says_which_names_the_recommended_plan_does_not_use() -> None:
    incident = {"status": {"recommendation": {"runbook": "scale-up", "parameters": {"SERVICE": "cart",
                                                                                    "REPLICAS": "2"}}}}
    assert plugin.unused_parameters({"REPLICAS": "4", "REPLICA": "4", "OLD": None}, incident) == ["REPLICA"]
    assert plugin.unused_parameters({"REPLICA": "4"}, {"status": {"recommendation": {"mode": "novel"}}}) == []


def test_set_says_what_new_values_do_to_a_run_going_on() -> None:
    from recall_operator.plugin import run_going_on

    assert run_going_on({"status": {}}) is None
    assert run_going_on({"status": {"execution": {"state": "Succeeded", "planHash": "ab12"}}}) is None
    said = run_going_on({"status": {"execution": {"state": "Running", "planHash": "ab12"}}})
    assert said is not None and said.startswith("note: plan ab12 is running") and "no further step starts" in said


RAN = {"status": {"recommendation": {"runbook": "cart-flush-hot-keys"}, "execution": {"runbook": "cart-flush-hot-keys"},
                  "matches": [{"incident": "inc-1", "runbook": "k8s-rollback-deploy"}, {"incident": "inc-2"}]}}


@pytest.mark.parametrize(("name", "catalog", "refused"), [
    ("cart-flush-hot-keys", ["cart-flush-hot-keys"], False),
    (None, ["cart-flush-hot-keys"], False),  # none: a manual fix
    ("cart-flush-hot-key", ["cart-flush-hot-keys", "k8s-rollback-deploy"], True),
    ("k8s-rollback-deploy", None, False),  # the Runbooks cannot be read: a name the status shows is known
    ("anything", None, False),  # nor can anything else be checked then
    ("coredns-scale-up", ["coredns-scale-up"], False),  # in the catalog, though nothing here named it
])
def test_a_runbook_named_in_an_outcome_must_be_one(name: str | None, catalog: list[str] | None, refused: bool) -> None:
    why = plugin.unknown_runbook(name, RAN, catalog)
    assert (why is not None) is refused
    if why:
        assert f"no Runbook named {name!r}" in why and "cart-flush-hot-keys" in why and "k8s-rollback-deploy" in why


def test_runs_of_spaces_cannot_wrap_a_forged_line_onto_the_terminal() -> None:
    # A title padded to 80 columns put "APPROVED by carol, dave: plan ran" on a line of its own in `why`.
    from recall_operator.plugin import shown

    assert shown("cart slow" + " " * 69 + "APPROVED by carol") == "cart slow APPROVED by carol"


def _closed_port_kubeconfig(tmp_path: Any) -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    config = tmp_path / "kubeconfig"
    config.write_text(f"""apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "http://127.0.0.1:{port}"}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u, namespace: prod}}}}]
current-context: x
""")
    return str(config)


def test_an_unreachable_api_server_is_one_error_line_not_a_traceback(tmp_path: Any, capsys: Any) -> None:
    from recall_operator.plugin import main

    assert main(["why", "inc-a", "--kubeconfig", _closed_port_kubeconfig(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach the Kubernetes API") and "Traceback" not in err, err


@pytest.mark.parametrize("name", ["inc-e/status", "../inc-e", "Inc-E", "inc e"])
def test_a_name_that_is_no_incident_name_is_refused_before_anything_is_sent(
    tmp_path: Any, capsys: Any, name: str
) -> None:
    # `inc-e/status` addressed the status subresource: `resolve` said it recorded an outcome that was dropped.
    from recall_operator.plugin import main

    assert main(["resolve", name, "--root-cause", "rc", "--summary", "s", "--action", "x=succeeded",
                 "--kubeconfig", _closed_port_kubeconfig(tmp_path)]) == 1
    assert "is not an Incident name" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["lag-fix/status", "Lag-Fix", "../lag-fix"])
def test_a_name_that_is_no_contradiction_name_is_refused_before_anything_is_sent(
    tmp_path: Any, capsys: Any, name: str
) -> None:
    from recall_operator.plugin import main

    # The kubeconfig points at a closed port: reaching the API would be another error.
    assert main(["reconcile", name, "--note", "n", "--kubeconfig", _closed_port_kubeconfig(tmp_path)]) == 1
    assert "is not a Contradiction name" in capsys.readouterr().err


@pytest.mark.parametrize(("left_out", "head"), [(56, "   actions (the last 1; 56 earlier ones are in memory):"),
                                                (None, "   actions:"), ("56", "   actions:")])
def test_why_says_how_many_earlier_actions_the_answer_left_to_memory(left_out: object, head: str) -> None:
    match = {"incident": "inc-1", "similarity": 70, "actionsLeftOut": left_out,
             "actions": [{"action": "run runbook redis-restart", "result": "succeeded"}]}
    lines = plugin.render_match(1, match)
    assert head in lines, lines


@pytest.mark.parametrize(("argv", "named"), [
    (["resolve", "inc-a", "--root-cause", "rc", "--summary", "caf\udce9 down", "--action", "x=succeeded"], "--summary"),
    (["resolve", "inc-a", "--root-cause", "rc", "--summary", "s", "--action", "restart \udcff=succeeded"], "--action"),
    (["why", "inc-\udcff"], "the incident's name"),
])
def test_an_argument_the_terminal_could_not_decode_is_refused_before_anything_is_sent(
    tmp_path: Any, capsys: Any, argv: list[str], named: str
) -> None:
    # Python keeps undecodable bytes of argv as lone surrogates; the API server would have stored U+FFFD for
    # them, an outcome recorded with other words than the ones typed. The kubeconfig points at a closed port.
    from recall_operator.plugin import main

    assert main([*argv, "--kubeconfig", _closed_port_kubeconfig(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {named} holds bytes that are not text") and "nothing was sent" in err, err


@pytest.mark.parametrize("typed", [UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "caf\udce9"])
def test_an_answer_typed_in_another_encoding_is_refused_not_a_traceback(monkeypatch: Any, typed: object) -> None:
    def fake_input(prompt: str) -> str:
        if isinstance(typed, Exception):
            raise typed
        return str(typed)

    monkeypatch.setattr("builtins.input", fake_input)
    with pytest.raises(plugin.PluginError, match="not text in this terminal's encoding"):
        plugin._ask("Summary")
