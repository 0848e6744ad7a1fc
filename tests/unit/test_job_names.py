"""Every Incident name the API server accepts gives Job names and labels the API server accepts too.

Incident names are DNS subdomains (up to 253 characters, dots allowed); step
names are DNS labels (the Runbook CRD checks). A Job name also becomes its
pods' `job-name` label, so it must be a subdomain of at most 63 characters.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as hs

from recall_operator.kube import jobs as jobkit

DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
SUBDOMAIN = re.compile(rf"{DNS_LABEL}(\.{DNS_LABEL})*")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

labels = hs.from_regex(re.compile(rf"{DNS_LABEL}"), fullmatch=True).filter(lambda s: len(s) <= 63)
# The API server checks a name's pattern and its 253 characters, not the length of each dotted part.
parts = hs.one_of(labels, hs.integers(1, 253).map(lambda n: "x" * n), hs.integers(2, 250).map(lambda n: "a" + "-" * n + "z"))
incident_names = hs.lists(parts, min_size=1, max_size=8).map(".".join).filter(lambda s: len(s) <= 253)


@settings(max_examples=300)
@given(incident=incident_names, step=labels, phase=hs.sampled_from(jobkit.PHASES), attempt=hs.integers(1, 10_000))
def test_job_names_and_labels_are_valid_for_any_incident_name(incident: str, step: str, phase: str,
                                                              attempt: int) -> None:
    name = jobkit.job_name(incident, phase, step, attempt)
    assert len(name) <= 63 and SUBDOMAIN.fullmatch(name), name
    manifest = jobkit.job_manifest(incident, "ns", "uid", {"name": step, "image": "i", "command": ["c"],
                                                             "dryRunCommand": ["c"], "rollbackCommand": ["c"]},
                                   phase, attempt, {})
    for value in manifest["metadata"]["labels"].values():
        assert len(value) <= 63 and LABEL_VALUE.fullmatch(value), value
    # The selector the operator lists an incident's Jobs by names the label those Jobs carry.
    key, _, value = jobkit.incident_selector(incident).partition("=")
    assert manifest["metadata"]["labels"][key] == value


def test_the_longest_names_still_differ() -> None:
    base = "inc-" + "x" * 240
    a = jobkit.job_name(base + "a", "run", "step", 1)
    b = jobkit.job_name(base + "b", "run", "step", 1)
    assert a != b and len(a) <= 63 and len(b) <= 63
