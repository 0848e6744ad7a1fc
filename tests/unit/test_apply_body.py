"""Apply bodies are JSON the API server's YAML reader accepts, whatever characters a person typed."""

from __future__ import annotations

import json

import pytest
import yaml

from recall_operator.kube.client import apply_body


@pytest.mark.parametrize(
    "text",
    ["cart \U0001f525", "two \U0001f525\U0001f9ef", "cart\u202e", "\x01ctl", "plain", "a\\ud83d\\udd25", "x\\\U0001f525"],
    ids=["emoji", "two-emoji", "bidi", "control", "plain", "escaped-backslash-text", "backslash-then-emoji"],
)
def test_the_body_reads_back_as_the_same_object_and_has_no_surrogate_escape(text: str) -> None:
    obj = {"status": {"title": text, "list": [text]}}
    body = apply_body(obj)
    assert yaml.safe_load(body) == obj
    # The API server's reader refuses \ud800-\udfff escapes: none may remain as escapes.
    unescaped = body.replace("\\\\", "")
    assert "\\ud8" not in unescaped and "\\udc" not in unescaped and "\\udd" not in unescaped, body
    assert json.loads(json.dumps(obj)) == obj
