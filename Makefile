# The two commands a new user runs on a fresh machine:
#   make demo   local control plane + operator + a sample history, then a new incident
#   make test   everything, against the real kube-apiserver and a real Hindsight server
# Both set themselves up: virtual environment, packages, the control-plane build.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test unit lint replay bench testbin system-deps lock clean

# constraints.txt pins what the two pyproject.toml files' ranges resolved to
# (scripts/lock.sh). The operator, and beside it the dev tooling (dev/: the
# local control plane, the demo, the benchmarks), its own distribution.
$(STAMP): pyproject.toml dev/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test,hindsight-server,lint]' -e ./dev
	touch $(STAMP)

venv: $(STAMP)

# Everything: the control plane and the chart validators the tests run.
testbin:
	scripts/testbin.sh all

system-deps:
	scripts/system-deps.sh

# Only the control plane the demo runs (helm and the chart validators are for
# the tests); a first build says what it builds and how far along it is.
demo: $(STAMP)
	@dir=$$(scripts/testbin.sh demo) && RECALL_TESTBIN="$$dir" $(BIN)/recall demo

test: $(STAMP) testbin system-deps lint
	$(BIN)/python -m pytest -ra -p no:cacheprovider

unit: $(STAMP)
	$(BIN)/python -m pytest -ra -q tests/unit

# The chart's own validators (helm lint, kubeconform, kube-score) need the
# control-plane build and run in tests/integration/test_helm.py and
# test_chart_validators.py; the alert rules need only promtool. ruff looks for
# bugs (not style) over the whole tree; mypy checks domain/ and memory/ strictly,
# the rest of the operator, Kopf handlers included, and the dev tooling at its
# defaults (both configured in pyproject.toml).
lint: $(STAMP) system-deps
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/hadolint Dockerfile
	promtool check rules helm/recall-operator/files/prometheus-rules.yaml
	promtool test rules tests/monitoring/rules-test.yaml

# Every history the repository carries, unless DATASET names others.
DATASET ?= $(sort $(wildcard datasets/*/history.jsonl datasets/blind/*/history.jsonl))

replay: $(STAMP)
	$(BIN)/recall replay $(DATASET)

bench: $(STAMP) testbin
	$(BIN)/recall bench --quick

lock:
	scripts/lock.sh

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
