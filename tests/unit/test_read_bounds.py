"""How much of an incident's own text recall and scoring read (models.as_read).

The CRD lets one Incident carry a megabyte of description and log lines; read
whole, scoring it held the event loop for seconds on every answer. Only the
first READ_DESCRIPTION characters of the description and the first
READ_SIGNATURES log lines, each to READ_SIGNATURE characters, are read, on
both sides of a comparison; the object keeps all of it.
"""

from __future__ import annotations

import pytest

from domain_builders import context, incident, memory, runbook
from recall_operator.domain.dna import incident_dna
from recall_operator.domain.models import READ_DESCRIPTION, READ_SIGNATURE, READ_SIGNATURES, as_read
from recall_operator.domain.recommend import assess
from recall_operator.domain.similarity import memory_features
from recall_operator.domain.topology import Topology
from recall_operator.memory.base import recall_query
from recall_operator.memory.embedded import searchable_words

FILLER = "the pool is saturated and requests queue behind it " * 200  # about 10,000 characters
TELLING = "zebraflux"  # a word only past the bounds says, and one precedent shares


@pytest.mark.parametrize(
    ("fields", "description", "signatures"),
    [
        ({"description": "short", "errorSignatures": ["one"]}, "short", ("one",)),
        ({"description": "d" * (READ_DESCRIPTION + 5)}, "d" * READ_DESCRIPTION, ()),
        ({"errorSignatures": [f"line {i}" for i in range(READ_SIGNATURES + 3)]}, "",
         tuple(f"line {i}" for i in range(READ_SIGNATURES))),
        ({"errorSignatures": ["e" * (READ_SIGNATURE + 1)]}, "", ("e" * READ_SIGNATURE,)),
    ],
    ids=["within", "long-description", "many-lines", "long-line"],
)
def test_as_read_cuts_only_what_lies_past_the_bounds(fields: dict, description: str, signatures: tuple) -> None:
    spec = incident(**fields).spec
    read = as_read(spec)
    assert (read.description, read.error_signatures) == (description, signatures)
    assert read.model_copy(update={"description": spec.description, "error_signatures": spec.error_signatures}) == spec
    if read == spec:
        assert read is spec  # nothing copied for the common case


def _long(**fields) -> dict:
    return {"description": FILLER[:READ_DESCRIPTION] + " " + FILLER + TELLING,
            "errorSignatures": [f"pool timeout {i}" for i in range(READ_SIGNATURES)] + [f"{TELLING} failed"] * 40,
            **fields}


def test_words_past_the_bounds_move_no_score_of_the_incident_nor_of_a_memory() -> None:
    near = memory("inc-near", runbook="pool-resize", description=f"{FILLER[:300]} {TELLING}",
                  errorSignatures=[f"{TELLING} failed"])
    other = memory("inc-other", runbook="cache-flush", description="cache evictions spiked")
    ctx = context(catalog=[runbook("pool-resize", ["cart-service"]), runbook("cache-flush", ["cart-service"])])
    long, cut = incident(**_long()), incident(**_long())
    cut = cut.model_copy(update={"spec": as_read(cut.spec)})
    assert TELLING in long.spec.description and TELLING not in cut.spec.description
    assert assess(long, [near, other], ctx) == assess(cut, [near, other], ctx)
    assert TELLING not in recall_query(long, Topology()).text

    # A memory with the same text past the bounds keeps no more of it than the query reads.
    remembered = memory("inc-long", **_long())
    assert memory_features(remembered) == memory_features(
        remembered.model_copy(update={"spec": as_read(remembered.spec)}))
    assert TELLING not in searchable_words(remembered).split()
    assert incident_dna(long.spec, Topology()) == incident_dna(cut.spec, Topology())


def test_the_catalog_reads_each_command_as_far_as_it_names_its_tool_and_target() -> None:
    from recall_operator.domain.catalog import READ_COMMAND, runbook_words
    from recall_operator.domain.models import Runbook

    script = "pgbouncer-reload --pool orders " + "x" * READ_COMMAND + f" {TELLING}"
    rb = Runbook.model_validate({"name": "rb", "spec": {"title": "Reload the pool", "services": ["orders-db"],
                                                         "steps": [{"name": "reload", "image": "tools:1",
                                                                    "command": ["sh", "-c", script]}]}})
    words = runbook_words(rb)
    assert {"pgbouncer-reload", "pool", "orders", "reload"} <= set(words) and TELLING not in words
