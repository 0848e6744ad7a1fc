"""An incident's Jobs are found by the same label the Job carries, whatever the Incident's name.

An Incident's name is a DNS subdomain (dots, up to 253 characters); a label
value is not. The operator once listed Jobs by the raw name: a name with a dot
found nothing (its run looked "running" forever) and a long one was refused
by the API server (HTTP 400 on every pass). Asked of the real API server here.
"""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from recall_operator.kube import jobs

pytestmark = pytest.mark.integration

STEP = {"name": "show", "image": "busybox:1.36", "command": ["echo", "hi"], "dryRunCommand": ["echo", "dry"],
        "risk": "low", "estimatedSeconds": 30}


@pytest.mark.parametrize("incident", ["dot.inc-0069", "inc-" + "x" * 120, "plain-inc-1"],
                         ids=["dotted", "longer-than-a-label", "plain"])
def test_the_incident_selector_finds_the_jobs_made_for_that_incident(
    k8s_api: Any, namespace: str, incident: str
) -> None:
    # Where the operator makes Jobs there are Runbooks; the chart's admission policy that reads
    # them also weighs anyone's Jobs carrying the incident label, and another test's copy of it
    # may still be loaded while this runs.
    k8s.CustomObjectsApi(k8s_api).create_namespaced_custom_object(
        "recall.dev", "v1alpha1", namespace, "runbooks",
        {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook", "metadata": {"name": "show"},
         "spec": {"title": "show", "services": ["cart"], "steps": [STEP]}})
    batch = k8s.BatchV1Api(k8s_api)
    manifest = jobs.job_manifest(incident_name=incident, namespace=namespace, uid="u-1", step=STEP,
                                 phase="dryrun", attempt=1, parameters={}, plan_hash="0123456789abcdef")
    manifest["metadata"].pop("ownerReferences", None)  # no Incident object behind it in this test
    batch.create_namespaced_job(namespace, manifest)
    other = jobs.job_manifest(incident_name="someone-else", namespace=namespace, uid="u-2", step=STEP,
                              phase="dryrun", attempt=1, parameters={}, plan_hash="0123456789abcdef")
    other["metadata"].pop("ownerReferences", None)
    batch.create_namespaced_job(namespace, other)

    found = batch.list_namespaced_job(namespace, label_selector=jobs.incident_selector(incident)).items
    assert [j.metadata.name for j in found] == [manifest["metadata"]["name"]]
