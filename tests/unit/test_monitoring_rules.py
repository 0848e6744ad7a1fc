"""The alert rules with the real promtool (Debian's prometheus package): they parse, and they fire as intended.

`promtool test rules` plays series named and labelled as the operator exports
them (tests/monitoring/rules-test.yaml) and checks each alert fires when it
should and stays silent when it should not. That the names exist in a real
scrape is checked in tests/e2e/test_metrics.py.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "helm" / "recall-operator" / "files" / "prometheus-rules.yaml"
RULE_TESTS = ROOT / "tests" / "monitoring" / "rules-test.yaml"


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    found = shutil.which("promtool")
    assert found, "promtool is not installed: run scripts/system-deps.sh (Debian package prometheus)"
    return subprocess.run([found, *args], capture_output=True, text=True, timeout=120, check=False)


def alerts() -> list[str]:
    return [r["alert"] for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]]


def test_promtool_checks_the_rules() -> None:
    proc = promtool("check", "rules", str(RULES))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"SUCCESS: {len(alerts())} rules found" in proc.stdout
    assert len(alerts()) >= 7


def test_every_alert_is_shown_firing_by_the_rule_tests() -> None:
    cases = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    fired = {t["alertname"] for case in cases for t in case["alert_rule_test"] if t.get("exp_alerts")}
    assert fired == set(alerts())


def test_promtool_unit_tests_pass() -> None:
    proc = promtool("test", "rules", str(RULE_TESTS))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_a_wrong_expectation_fails_promtool(tmp_path: Path) -> None:
    # The unit tests can fail: the same file with one expected value changed does.
    broken = RULE_TESTS.read_text().replace("10 failed handler runs", "11 failed handler runs")
    assert broken != RULE_TESTS.read_text()
    copy = tmp_path / "rules-test.yaml"
    copy.write_text(broken.replace("../../helm/recall-operator/files/prometheus-rules.yaml", str(RULES)))
    proc = promtool("test", "rules", str(copy))
    assert proc.returncode != 0 and "FAILED" in proc.stdout + proc.stderr
