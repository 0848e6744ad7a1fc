"""The memory panel in a real headless Chromium, against the local control plane with the operator running.

The dev history is loaded into a namespace (catalog, contradictions, the
Redis migration, past incidents with their confirmed outcomes), then new
incidents page: one on a contradicted fix, one whose memories a migration
made stale, and one no one has seen before whose title is hostile HTML. A
second test runs a plan: dry-run, a person's Approval, the Jobs. `recall panel` runs as a
process of its own with the test's kubeconfig; Chromium (Debian's, through
its own chromedriver: nothing is downloaded) opens each page, and what it
shows is compared with the objects' status read by kubectl. Screenshots go
to the test's temporary folder; with RECALL_PANEL_SCREENSHOT=PATH the
incident page's screenshot is also written there (the README's image).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit import GROUP_VERSION, KubeEnv, cart_runbook, execution_operator, kept_default_registry
from recall_operator.domain.execution import TERMINAL
from recall_operator.kube import jobs as jobkit
from recall_operator_dev.demo import apply, history_steps, load_history, read_history, wait_for
from support import free_port, history, stop_process, wait_http_ok

pytestmark = pytest.mark.integration

DEADLINE_S = 180.0
CONTRADICTED = "inc-0051"  # kafka-orders: the poll-tuning contradiction is open
STALE = "inc-0052"  # redis: the migration to ElastiCache made older fixes stale
HOSTILE = "inc-hostile"
HOSTILE_TITLE = ("<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
                 " ledger export <b>stuck</b>")


def _browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("Debian's chromium and chromium-driver are needed: run scripts/system-deps.sh as root",
                    pytrace=False)
    return chromium, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = _browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    # Both paths are given, so Selenium Manager never looks for (or downloads) a browser or a driver.
    session = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    session.set_page_load_timeout(60)
    try:
        yield session
    finally:
        session.quit()


def _manifest(name: str) -> dict[str, Any]:
    """An incident of the dev history as it paged: no outcome yet."""
    event = next(e for e in read_history(history("dev"))
                 if e["type"] == "incident" and e["object"]["metadata"]["name"] == name)
    return json.loads(json.dumps(event["object"]))


def _get(kubectl: Any, namespace: str, kind: str, name: str) -> dict[str, Any]:
    return json.loads(kubectl("get", kind, name, "-n", namespace, "-o", "json", check=True).stdout)


def _triaged(kubectl: Any, namespace: str, name: str) -> dict[str, Any]:
    return wait_for(f"a recommendation on {name}",
                    lambda: (o := _get(kubectl, namespace, "incidents.recall.dev", name))
                    .get("status", {}).get("recommendation", {}).get("mode") and o, timeout=DEADLINE_S)


@pytest.fixture
def panel(cluster: Any, namespace: str) -> Iterator[str]:
    """`recall panel` for the test's namespace, as its own process, on a loopback port."""
    port = free_port()
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall_operator.cli", "panel", "--port", str(port), "--namespace", namespace],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_http_ok(f"{url}/healthz", proc, timeout=60):
            stop_process(proc)
            pytest.fail(f"recall panel did not start: {proc.stdout.read() if proc.stdout else ''}")
        yield url
    finally:
        stop_process(proc)
        output = proc.stdout.read() if proc.stdout else ""
        assert "Traceback" not in output, output


def _open_incident(browser: Any, kubectl: Any, panel: str, namespace: str, name: str) -> dict[str, Any]:
    """Open the incident's page; its status, read before and after the page was made and the same both times.

    The operator re-evaluates open incidents as memory grows, so a status read
    earlier may no longer be the one the page shows.
    """
    for _ in range(10):
        before = _get(kubectl, namespace, "incidents.recall.dev", name)["status"]
        browser.get(f"{panel}/ns/{namespace}/incidents/{name}")
        after = _get(kubectl, namespace, "incidents.recall.dev", name)["status"]
        if before == after:
            return after
    raise AssertionError(f"the status of {name} kept changing")


def _full_screenshot(browser: Any, path: Path) -> Path:
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, max(800, min(int(height), 6000)))
    browser.save_screenshot(str(path))
    browser.set_window_size(1280, 1000)
    return path


def _text(browser: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.CSS_SELECTOR, css).text).strip()


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return "-" if value is None else str(value)


def _assert_inert(browser: Any) -> None:
    """Nothing the page carries runs: no script or img element came from the data, and the title is the panel's."""
    from selenium.webdriver.common.by import By

    assert browser.find_elements(By.TAG_NAME, "script") == []
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert "pwned" not in browser.title
    logs = browser.get_log("browser") if hasattr(browser, "get_log") else []
    assert not [entry for entry in logs if "pwned" in str(entry)]


def _check_incident_page(browser: Any, status: dict[str, Any]) -> None:
    """Every number the page shows for the recommendation and each match equals the Incident's status."""
    from selenium.webdriver.common.by import By

    rec = status["recommendation"]
    assert _text(browser, "#mode") == rec["mode"].upper()  # CSS shows it in capitals; the text is the mode
    assert _text(browser, "#similarity") == _num(rec["similarity"])
    assert _text(browser, "#actionability") == _num(rec["actionability"])
    if rec.get("runbook"):
        assert _text(browser, "#runbook") == rec["runbook"]
    warnings = [w.text for w in browser.find_elements(By.CSS_SELECTOR, "#warnings li")]
    assert warnings == [f"Warning: {w}" for w in rec.get("warnings") or []]
    matches = status.get("matches") or []
    shown = browser.find_elements(By.CSS_SELECTOR, "article.match")
    assert len(shown) == len(matches)
    for article, match in zip(shown, matches, strict=True):
        assert article.get_attribute("data-incident") == match["incident"]
        assert article.find_element(By.CSS_SELECTOR, "[data-field=similarity]").text == _num(match["similarity"])
        assert article.find_element(By.CSS_SELECTOR, "[data-field=outcome]").text == match["outcome"].upper()
        for term, points in match["breakdown"].items():
            row = article.find_element(By.CSS_SELECTOR, f"tr[data-term='{term}'] [data-field=points]")
            assert row.text == f"{round(float(points), 1):+g}", (match["incident"], term)
        ruled = [li.text for li in article.find_elements(By.CSS_SELECTOR, ".ruled-out li")]
        assert ruled == [f"ruled out: {r}" for r in match.get("ruledOut") or []]
        actions = [li.text for li in article.find_elements(By.CSS_SELECTOR, ".actions li")]
        assert actions == [f"{a['result'].upper()} {a['action']}" for a in match.get("actions") or []]


def test_the_panel_shows_the_evidence_the_status_holds(
    operator: Any, kubectl: Any, namespace: str, panel: str, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    steps, _ = history_steps(read_history(history("dev")), stop_before=CONTRADICTED)
    load_history(kubectl, namespace, steps, timeout=DEADLINE_S)
    for name in (CONTRADICTED, STALE):
        apply(kubectl, namespace, _manifest(name))
    apply(kubectl, namespace, {
        "apiVersion": GROUP_VERSION, "kind": "Incident", "metadata": {"name": HOSTILE},
        "spec": {"service": "ledger-batch", "severity": "low", "title": HOSTILE_TITLE,
                 "description": "</td></tr></table><script>document.title='pwned'</script> nightly export wedged"},
    })
    new = (CONTRADICTED, STALE, HOSTILE)
    for name in new:
        _triaged(kubectl, namespace, name)

    # -- the table: filterable, its numbers the status's, the novel incident said in words
    def listed() -> list[dict[str, Any]]:
        return json.loads(kubectl("get", "incidents.recall.dev", "-n", namespace, "-o", "json", check=True).stdout)["items"]

    for _ in range(10):  # the table and the statuses as of one moment (re-evaluation moves them)
        before = listed()
        browser.get(f"{panel}/incidents")
        if listed() == before:
            break
    else:
        raise AssertionError("the incidents' statuses kept changing")
    _full_screenshot(browser, tmp_path / "incidents.png")
    _assert_inert(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#incidents tbody tr[data-incident]")
    assert len(rows) == len(before)
    for obj in before:
        name = obj["metadata"]["name"]
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-incident='{namespace}/{name}']")
        rec = (obj.get("status") or {}).get("recommendation") or {}
        assert row.find_element(By.CSS_SELECTOR, "[data-field=similarity]").text == _num(rec.get("similarity")), name
        assert row.find_element(By.CSS_SELECTOR, "[data-field=actionability]").text == _num(rec.get("actionability"))
        assert row.find_element(By.CSS_SELECTOR, "[data-field=mode]").text.startswith(
            (rec.get("mode") or ("resolved" if obj["spec"].get("resolution") else "not triaged")).upper())
        assert row.find_element(By.CSS_SELECTOR, "[data-field=service]").text == obj["spec"]["service"]
    hostile = next(o for o in before if o["metadata"]["name"] == HOSTILE)
    assert hostile["status"]["recommendation"]["mode"] == "novel"
    hostile_row = browser.find_element(By.CSS_SELECTOR, f"tr[data-incident='{namespace}/{HOSTILE}']")
    assert "novel incident: nothing in memory is close" in hostile_row.text
    assert HOSTILE_TITLE in hostile_row.text  # the markup shows as text
    Select(browser.find_element(By.ID, "filter-mode")).select_by_value("novel")
    browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for("the filtered table", lambda: "mode=novel" in browser.current_url)
    modes = {e.text.split()[0] for e in browser.find_elements(By.CSS_SELECTOR, "#incidents [data-field=mode]")}
    assert modes == {"NOVEL"}
    assert browser.find_elements(By.CSS_SELECTOR, f"tr[data-incident='{namespace}/{HOSTILE}']")
    browser.get(f"{panel}/incidents?service=kafka-orders")
    services = {e.text for e in browser.find_elements(By.CSS_SELECTOR, "#incidents [data-field=service]")}
    assert services == {"kafka-orders"}

    # -- the hostile, novel incident: inert, and it says it is novel
    status = _open_incident(browser, kubectl, panel, namespace, HOSTILE)
    _full_screenshot(browser, tmp_path / "incident-hostile.png")
    _assert_inert(browser)
    assert _text(browser, "#incident-title") == HOSTILE_TITLE
    assert "NOVEL: nothing in memory is close enough" in _text(browser, "#mode-words")
    _check_incident_page(browser, status)

    # -- the contradicted incident: five matches, both claims side by side, and the side it resembles
    status = _open_incident(browser, kubectl, panel, namespace, CONTRADICTED)
    shot = _full_screenshot(browser, tmp_path / f"incident-{CONTRADICTED}.png")
    _check_incident_page(browser, status)
    assert len(status["matches"]) == 5
    contradiction = _get(kubectl, namespace, "contradictions.recall.dev", "kafka-orders-poll-tuning")
    section = browser.find_element(By.ID, "contradiction-kafka-orders-poll-tuning")
    claims = [c.text for c in section.find_elements(By.CSS_SELECTOR, ".claim p")]
    assert claims == [c["claim"] for c in contradiction["spec"]["claims"]]
    assert len(claims) >= 2
    # Which side this incident resembles, when the decision chain said so (its reasons carry the line).
    side = next((r for r in status["recommendation"].get("reasons") or []
                 if r.startswith("contradiction kafka-orders-poll-tuning: this incident resembles the side of")), None)
    resembled = [c.find_element(By.TAG_NAME, "h3").text
                 for c in section.find_elements(By.CSS_SELECTOR, ".claim.resembled")]
    if side is not None:
        assert section.find_element(By.CSS_SELECTOR, ".resembles").text == side
        assert resembled and all(t.endswith("this incident resembles this side") for t in resembled)
        assert all(t.split()[0] in side for t in resembled)
    else:
        assert resembled == []
        assert "did not say which side" in section.find_element(By.CSS_SELECTOR, ".resembles").text
    if os.environ.get("RECALL_PANEL_SCREENSHOT"):  # the README's image: the top of the page, where the evidence starts
        browser.set_window_size(1280, 2500)
        browser.save_screenshot(os.environ["RECALL_PANEL_SCREENSHOT"])
        browser.set_window_size(1280, 1000)
    assert shot.stat().st_size > 10_000

    # -- the stale one: "adjusted from X to Y because ..."
    status = _open_incident(browser, kubectl, panel, namespace, STALE)
    _full_screenshot(browser, tmp_path / f"incident-{STALE}.png")
    _check_incident_page(browser, status)
    stale = [m for m in status["matches"] if m.get("stale")]
    assert stale, "the migration made a recalled fix stale"
    stale_text = _text(browser, "#stale")
    for m in stale:
        assert f"migration {m['stale']['migration']}" in stale_text
    for line in [w for w in status["recommendation"]["warnings"] if "adjusted from" in w]:
        assert line in stale_text

    # -- a runbook: its record as Runbook.status holds it, the outcomes behind it drawn on the server
    runbook = "k8s-rollback-deploy"
    record = _get(kubectl, namespace, "runbooks.recall.dev", runbook).get("status") or {}
    everything = listed()
    browser.get(f"{panel}/ns/{namespace}/runbooks/{runbook}")
    _full_screenshot(browser, tmp_path / "runbook.png")
    assert _text(browser, "#win-rate") == _num(record.get("winRate"))
    assert _text(browser, "#times-executed") == _num(record.get("timesExecuted") or 0)
    assert _text(browser, "#times-succeeded") == _num(record.get("timesSucceeded") or 0)
    assert _text(browser, "#times-failed") == _num(record.get("timesFailed") or 0)
    from recall_operator.panel.views import runbook_outcomes

    outcomes = runbook_outcomes(runbook, everything)
    assert outcomes, "the dev history's rollbacks name the runbook"
    chart = browser.find_element(By.ID, "win-rate-chart")
    assert len(chart.find_elements(By.CSS_SELECTOR, ".pt")) == len(outcomes)
    table = browser.find_elements(By.CSS_SELECTOR, "#outcomes tbody tr")
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in table] == [p.incident for p in outcomes]
    recommended = {a.text for a in browser.find_elements(By.CSS_SELECTOR, "#recommended tbody tr td:first-child a")}
    assert recommended == {o["metadata"]["name"] for o in everything
                           if ((o.get("status") or {}).get("recommendation") or {}).get("runbook") == runbook}

    # -- memory health
    browser.get(f"{panel}/memory")
    _full_screenshot(browser, tmp_path / "memory.png")
    assert _text(browser, "#backend") == "embedded"
    assert _text(browser, "#outbox-depth") == "0"
    assert browser.find_element(By.CSS_SELECTOR, "[data-count=incidents]").text == str(len(listed()))
    consolidated = sum(1 for o in listed() if ((o.get("status") or {}).get("memory") or {}).get("writtenAt"))
    assert browser.find_element(By.CSS_SELECTOR, "[data-count='outcomes in memory']").text == str(consolidated)

    # -- stable links; another namespace is not shown
    browser.get(f"{panel}/ns/{namespace}/incidents/no-such-incident")
    assert "no Incident no-such-incident" in _text(browser, "#problem")
    browser.get(f"{panel}/ns/kube-system/incidents/{CONTRADICTED}")
    assert "does not show the namespace kube-system" in _text(browser, "#problem")
    for png in ("incidents.png", "incident-hostile.png", f"incident-{STALE}.png", "runbook.png", "memory.png"):
        assert (tmp_path / png).stat().st_size > 10_000, png


def test_the_panel_shows_the_dry_run_the_approval_and_the_jobs(
    kubectl: Any, namespace: str, panel: str, browser: Any, tmp_path: Path
) -> None:
    """A plan run by the execution handlers: who approved it and when, each step's dry-run and Jobs, as status holds them.

    The recommendation is written into status as triage would write it (sealed
    with the test operators' key), so the plan does not depend on what recall
    would recommend; only the execution handlers run.
    """
    from selenium.webdriver.common.by import By

    env = KubeEnv(kubectl, namespace)
    incident, spec = "inc-cart", {"service": "cart", "title": "cart p99 latency over 2s", "severity": "high",
                                  "symptoms": ["latency-spike"]}
    runbook = cart_runbook()
    env.create_runbook("cart-hot-keys", runbook)
    env.create_incident(incident, spec)
    plan_hash = env.recommend(incident, spec, "cart-hot-keys", runbook)
    with kept_default_registry(), execution_operator(namespace):
        wait_for("the dry-run", lambda: env.dry_run_of(incident, plan_hash), timeout=DEADLINE_S)
        browser.get(f"{panel}/ns/{namespace}/incidents/{incident}")
        assert _text(browser, "#approve-command") == f"kubectl recall approve {incident} -n {namespace}"
        env.approve_plan(incident, "inc-cart-alice", plan_hash, approver="alice")
        wait_for("the run to finish", lambda: env.status_field(incident, "execution").get("state")
                 in TERMINAL, timeout=DEADLINE_S)
    status = _open_incident(browser, kubectl, panel, namespace, incident)
    _full_screenshot(browser, tmp_path / "incident-executed.png")
    assert _text(browser, "#execution-state") == status["execution"]["state"]
    assert browser.find_elements(By.ID, "approve-command") == [], "this plan is approved already"
    approvals = browser.find_element(By.ID, "approvals")
    approval = _get(kubectl, namespace, "approvals.recall.dev", "inc-cart-alice")
    cells = [td.text for td in approvals.find_elements(By.CSS_SELECTOR, "tbody tr td")]
    assert cells[:2] == ["alice", "approve"]
    assert cells[3].startswith(plan_hash[:12])
    assert cells[4].startswith(approval["status"]["state"])
    dry = {s["name"]: s["result"] for s in status["dryRun"]["steps"]}
    ran = {s["name"]: s["result"] for s in status["execution"]["steps"]}
    jobs = env.list_jobs(f"{jobkit.LABEL_INCIDENT}={incident}")
    assert jobs
    rows = browser.find_elements(By.CSS_SELECTOR, "tr[data-step]")
    assert [r.get_attribute("data-step") for r in rows] == [s["name"] for s in runbook["steps"]]
    for row in rows:
        name = row.get_attribute("data-step")
        assert row.find_element(By.CSS_SELECTOR, "[data-field=dry-run]").text == dry.get(name, "not run")
        assert row.find_element(By.CSS_SELECTOR, "[data-field=run]").text == ran.get(name, "not run")
        for job in jobs:
            if job["metadata"]["labels"][jobkit.LABEL_STEP] == name:
                assert job["metadata"]["name"] in row.text
    assert (tmp_path / "incident-executed.png").stat().st_size > 10_000


def test_the_panel_never_writes(cluster: Any, namespace: str, panel: str) -> None:
    """Only GET is served: a POST, PUT or DELETE anywhere is refused, and the response forbids scripts."""
    import urllib.error
    import urllib.request

    for method in ("POST", "PUT", "DELETE", "PATCH"):
        request = urllib.request.Request(f"{panel}/ns/{namespace}/incidents/x", data=b"{}", method=method)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        assert err.value.code == 405
    with urllib.request.urlopen(f"{panel}/incidents", timeout=10) as resp:
        assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
        assert "script-src" not in resp.headers["Content-Security-Policy"]


def test_recall_run_serves_the_panel_beside_the_operator(cluster: Any, kubectl: Any, namespace: str,
                                                         tmp_path: Path) -> None:
    """`recall run --panel-port N`: the operator triages, and the panel beside it shows the answer."""
    import urllib.request

    port = free_port()
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig)}
    log = (tmp_path / "operator.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "recall_operator.cli", "run", "--namespace", namespace, "--memory", "embedded",
         "--memory-path", str(tmp_path / "memory.sqlite3"), "--panel-port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        assert wait_http_ok(f"http://127.0.0.1:{port}/healthz", proc, timeout=60), (tmp_path / "operator.log").read_text()
        apply(kubectl, namespace, {"apiVersion": GROUP_VERSION, "kind": "Incident", "metadata": {"name": "inc-one"},
                                   "spec": {"service": "ledger-batch", "title": "nightly ledger export wedged"}})
        mode = _triaged(kubectl, namespace, "inc-one")["status"]["recommendation"]["mode"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ns/{namespace}/incidents/inc-one", timeout=10) as resp:
            page = resp.read().decode()
        assert 'id="mode">' + mode + "<" in page and "nightly ledger export wedged" in page
    finally:
        stop_process(proc)
        log.close()
    assert "Traceback" not in (tmp_path / "operator.log").read_text()
