"""Symptoms read from the words of an incident that declares none (domain/symptoms.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from domain_builders import context, incident, memory, rewritten_history, runbook, spec

from recall_operator.domain.recommend import assess
from recall_operator.domain.symptoms import known_symptoms, read_symptoms, symptoms_said
from recall_operator.replay import run_replay

KNOWN = ["oom-kill", "consumer-lag", "5xx", "503", "dns-failures", "error-rate", "latency-spike", "disk-full"]


@pytest.mark.parametrize(
    ("title", "description", "said"),
    [
        # CamelCase alert names split into words, and "kill" starts "Killed"
        ("[FIRING:2] KubeContainerOOMKilled web (eu-1)", "", ["oom-kill"]),
        ("ConsumerGroupLag orders", "lag 2.4M for 15m", ["consumer-lag"]),
        # a status class is any code of it, not the digits inside a number
        ("EdgeErrorRatio web", "edge 502 ratio 7%", ["5xx"]),  # a ratio is no rate
        ("web error rate up", "", ["error-rate"]),
        ("web returns 503", "", ["503", "5xx"]),
        # the class written as a class, in words or run into an alert's name
        ("LobbyApi5xxRate lobby-api", "more than 2% 5xx over 5 minutes", ["5xx"]),
        ("Web5xxRatio web", "", ["5xx"]),
        ("web p99 at 1503 ms", "build 5.503", []),
        # "failures" and "failure" share a stem; every part must be said
        ("name resolution failure on 3 nodes", "", []),
        ("DNS lookup failure on 3 nodes", "", ["dns-failures"]),
        ("latency high on web", "", []),
        ("Disk almost full", "", ["disk-full"]),
    ],
)
def test_a_known_tag_is_read_when_each_of_its_parts_is_said(title: str, description: str, said: list[str]) -> None:
    assert list(symptoms_said(spec("web", title=title, description=description), KNOWN)) == sorted(said)


def test_only_known_tags_are_read_and_declared_tags_are_never_replaced() -> None:
    catalog = {"restart-web": runbook("restart-web", ["web"], ["oom-kill"])}
    past = [memory("inc-1", "web", symptoms=["crashloop"])]
    assert known_symptoms(catalog, past) == {"oom-kill", "crashloop"}
    terse = spec("web", title="KubePodCrashLooping web", description="OOMKilled 6 times; disk full")
    assert read_symptoms(terse, catalog, past) == ("crashloop", "oom-kill")  # "disk-full" is no known tag
    declared = spec("web", title="KubePodCrashLooping web", symptoms=["5xx"])
    assert read_symptoms(declared, catalog, past) == ()


def test_an_alert_without_tags_gets_the_runbook_its_words_name_and_is_told_so() -> None:
    catalog = [
        runbook("restart-web-pods", ["web"], ["oom-kill", "crashloop"]),
        runbook("scale-web-consumers", ["web"], ["consumer-lag"]),
    ]
    page = incident(service="web", title="[FIRING:1] KubeContainerOOMKilled web", description="OOMKilled 4 times in 15m")
    rec = assess(page, [], context(catalog=catalog)).recommendation
    assert rec.mode == "novel"
    assert rec.runbook == "restart-web-pods"
    assert rec.reasons[0] == "declares no symptoms; its words say oom-kill"
    # the same page with a tag that names no runbook's symptom gets no runbook: declared tags stand
    tagged = incident(service="web", title=page.spec.title, description=page.spec.description, symptoms=["paging"])
    assert assess(tagged, [], context(catalog=catalog)).recommendation.runbook is None


def test_a_tag_read_from_the_words_counts_toward_the_precedent_that_showed_it() -> None:
    past = memory("inc-1", "web", runbook="scale-web-consumers", title="orders consumers fall behind",
                  description="consumer lag climbing", symptoms=["consumer-lag"])
    page = incident(service="web", title="ConsumerGroupLag web", description="lag 2.4M for 15m")
    match = assess(page, [past], context(catalog=[runbook("scale-web-consumers", ["web"], ["consumer-lag"])])).matches[0]
    assert match.breakdown["symptoms"] > 0


def _untagged(event: dict[str, Any]) -> dict[str, Any]:
    if event["type"] == "incident":
        event["object"]["spec"].pop("symptoms", None)
    return event


async def test_a_history_of_untagged_incidents_still_finds_runbooks(tmp_path: Path) -> None:
    """Every dev history with its incidents' tags taken away: the catalog alone chose the
    right runbook for 0.13 to 0.22 of them when it read nothing; reading the words lifts each
    above 0.3, and memory still chooses at least as well as the catalog."""
    for name in ("dev", "dev2", "dev3"):
        bare = rewritten_history(name, tmp_path / f"{name}.jsonl", _untagged)
        result = await run_replay(bare, ["on", "off"])
        assert result["off"]["runbook_at_1"] > 0.3, name
        assert result["on"]["runbook_at_1"] >= result["off"]["runbook_at_1"], name
