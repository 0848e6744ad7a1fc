"""A Pending Approval whose time runs out says so when it does, not only when another Approval comes.

An alert-bridge incident needs two approvers: the first one's Approval is
Pending until a second comes, and one that never comes left it Pending for
ever in `kubectl get approvals`. The handler runs in this process against the
real API server; the operator's clock is moved past the Approval's hour.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import kopf
import pytest

from recall_operator.api import API_VERSION, GROUP, VERSION
from recall_operator.handlers import execution

pytestmark = pytest.mark.integration


def _approval(objects: Any, namespace: str, name: str, approver: str) -> dict[str, Any]:
    body = {"apiVersion": API_VERSION, "kind": "Approval", "metadata": {"name": name},
            "spec": {"incident": "inc-1", "planHash": "aaaa1111bbbb2222", "decision": "approve", "approver": approver}}
    made: dict[str, Any] = objects.create_namespaced_custom_object(GROUP, VERSION, namespace, "approvals", body)
    return made


def _state(objects: Any, namespace: str, name: str) -> dict[str, Any]:
    status: dict[str, Any] = objects.get_namespaced_custom_object(GROUP, VERSION, namespace, "approvals", name)["status"]
    return status


def test_a_pending_approval_expires_when_its_time_runs_out(k8s_api: Any, namespace: str) -> None:
    from kubernetes import client

    objects = client.CustomObjectsApi(k8s_api)
    user = client.AuthenticationV1Api(k8s_api).create_self_subject_review(
        {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).status.user_info.username
    made = {n: _approval(objects, namespace, n, user) for n in ("lone", "counted")}
    created = datetime.fromisoformat(made["lone"]["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    pending = {"state": "Pending", "reason": "1 of 2 approvers", "expiresAt": (created + timedelta(hours=1))
               .strftime("%Y-%m-%dT%H:%M:%SZ")}
    for name in made:
        objects.patch_namespaced_custom_object_status(GROUP, VERSION, namespace, "approvals", name,
                                                      {"status": pending})

    async def run() -> None:
        # The operator restarts two hours later: each Approval's resume event schedules its expiry.
        memo = kopf.Memo(api=k8s_api, clock=lambda: created + timedelta(hours=2), execution_locks={})
        for name, body in made.items():
            await execution.approval_created(name=name, namespace=namespace, spec=body["spec"], status=pending,
                                             patch=kopf.Patch(), body=body, memo=memo)
        assert set(memo.approval_expiries) == {(namespace, "lone"), (namespace, "counted")}
        # Meanwhile a second approver came for one of them: it was counted, and stays so.
        objects.patch_namespaced_custom_object_status(GROUP, VERSION, namespace, "approvals", "counted", {
            "status": {"state": "Accepted", "reason": "counted when another arrived"}})
        await asyncio.gather(*memo.approval_expiries.values())
        assert not memo.approval_expiries

    asyncio.run(run())
    lone = _state(objects, namespace, "lone")
    assert lone["state"] == "Expired" and "no further approver came within 1:00:00" in lone["reason"]
    assert _state(objects, namespace, "counted")["state"] == "Accepted"
