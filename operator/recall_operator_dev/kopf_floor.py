"""A Kopf operator that answers every new Incident with a fixed status, and does nothing else.

`recall bench` times it as a floor of its own: what the framework itself
costs between an Incident's creation and an answer a watching client sees,
with the operator's settings and status write but none of its handlers,
memory or decisions. Answering with one field, it is compared with a plain
client's create and patch (what running on Kopf adds); answering with the
operator's own answer, with the reconcile figure (what the operator's work adds).

Run as `python -m recall_operator_dev.kopf_floor NAMESPACE [STATUS.json]` with
$KUBECONFIG set; without a file the answer is one field.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import kopf

from recall_operator.api import GROUP, VERSION
from recall_operator.kube.kopf_settings import configure_settings
from recall_operator.kube.client import api_client, apply_status

FIELD_MANAGER = "recall-bench-kopf-floor"
ONE_FIELD = {"recommendation": {"mode": "novel"}}


# The operator's settings, without importing its handlers (which would register its start-up).
@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, memo: kopf.Memo, **_: Any) -> None:
    configure_settings(settings)
    memo.api = api_client()
    memo.answer = memo.get("answer") or ONE_FIELD


@kopf.on.login()
def login(**kwargs: Any) -> kopf.ConnectionInfo | None:
    return kopf.login_with_kubeconfig(**kwargs)


@kopf.on.event(GROUP, VERSION, "incidents")
async def answer(event: Mapping[str, Any], name: str, namespace: str | None, status: Mapping[str, Any],
                 memo: Any, **_: Any) -> None:
    # Written once, as the operator writes its answer: server-side apply of the status, on a thread.
    if event.get("type") == "DELETED" or status.get("recommendation"):
        return
    await asyncio.to_thread(apply_status, memo.api, GROUP, VERSION, "incidents", "Incident", str(namespace), name,
                            memo.answer, FIELD_MANAGER)


def main(argv: list[str]) -> None:
    if len(argv) not in (1, 2):
        raise SystemExit("usage: python -m recall_operator_dev.kopf_floor NAMESPACE [STATUS.json]")
    answer = None
    if len(argv) == 2:
        try:
            answer = json.loads(Path(argv[1]).read_text())
        except (OSError, ValueError) as exc:
            raise SystemExit(f"kopf_floor: {argv[1]}: not a readable JSON status: {exc}") from None
        if not isinstance(answer, dict):
            raise SystemExit(f"kopf_floor: {argv[1]}: a status is a JSON object, not {type(answer).__name__}")
    memo = kopf.Memo(answer=answer)
    asyncio.run(kopf.operator(standalone=True, namespaces=argv[:1], memo=memo))


if __name__ == "__main__":
    main(sys.argv[1:])
