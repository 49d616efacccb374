# The two commands of the README:
#   make run    serve the shipped model locally on the embedded store and answer a question
#               (make run DOCS=FOLDER: that folder's documents alone, in a store of its own, searched by
#               BM25 and sentence embeddings mixed; RETRIEVAL=bm25: BM25 alone)
#   make test   install everything the tests need and run them
PYTHON ?= python3
VENV ?= .venv
PORT ?= 8080
BIN := $(VENV)/bin

.PHONY: run test fuzz audit bench load-test install-runtime install-docs install-test build-model lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The project itself too (no dependencies: they are requirements.txt's pins), editable, so that
# `function` imports from the checkout wherever the command runs.
$(VENV)/.runtime: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

# make run DOCS=FOLDER: the runtime, document ingestion (text extraction, sentence splitting) and the Lance
# index that hybrid retrieval keeps beside the folder's store; not PyTorch, transformers or the test tools
$(VENV)/.docs: $(VENV)/.runtime requirements-ingest.txt requirements-lance.txt
	$(BIN)/pip install --quiet -r requirements-ingest.txt -r requirements-lance.txt
	touch $@

$(VENV)/.test: requirements.txt requirements-test.txt requirements-ingest.txt requirements-lance.txt build_model/requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt -r build_model/requirements.txt -r requirements-ingest.txt -r requirements-lance.txt -r requirements-test.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(VENV)/.runtime $(VENV)/.docs

install-runtime: $(VENV)/.runtime
install-docs: $(VENV)/.docs
install-test: $(VENV)/.test

# From the repository root, as every checkout tool runs (harness/ is not in the wheel): the shipped
# artifact unless QA_ARTIFACT_DIR names another. DOCS=FOLDER: that folder, synced into its own store
# (scripts/serve_local.py; quoted for the shell, an apostrophe in it too); without it, the sample corpus.
run: $(if $(DOCS),$(VENV)/.docs,$(VENV)/.runtime)
	$(BIN)/python -m scripts.serve_local --port $(PORT)$(if $(DOCS), --docs '$(subst ','\'',$(DOCS))')$(if $(RETRIEVAL), --retrieval $(RETRIEVAL))

test: $(VENV)/.test
	$(BIN)/python -m pytest

# The property tests (request parsing, hostile HTTP input, Schemathesis from openapi.yaml, query terms) with
# ten times the examples, freshly random: run before touching the request format. `make test` runs them
# derandomised (the same examples every time: tests/support/fuzz.py).
FUZZ_TESTS := tests/test_hostile_input.py tests/test_request.py tests/test_retrieval_terms.py
fuzz: $(VENV)/.test
	QA_FUZZ=wide $(BIN)/python -m pytest $(FUZZ_TESTS)

# ruff (pyproject.toml's rules) on the Python code, shellcheck on every script (but records/: scripts kept as they ran), hadolint on the Dockerfile
lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/shellcheck $$(git ls-files '*.sh' ':!records/') .ci/run
	$(BIN)/hadolint Dockerfile

audit: $(VENV)/.test
	$(BIN)/python scripts/audit_deps.py requirements.txt
	$(BIN)/python scripts/audit_deps.py requirements-ingest.txt
	$(BIN)/python scripts/audit_deps.py requirements-lance.txt

# make bench: python -m bench serving (bench/README.md); on a fresh clone (no build/) the PyTorch
# and fp32 contenders serve stand-in weights of the artifact's shape.
# make bench BENCH_ARGS="--runs 2 --requests 20 --throughput-requests 20 --out /tmp/bench": a quick look
BENCH_ARGS ?= --runs 10
bench: $(VENV)/.test
	$(BIN)/pip install --quiet -r bench/requirements.txt
	$(BIN)/python -m bench serving --artifact artifact $(BENCH_ARGS)

load-test: $(VENV)/.test
	$(BIN)/python -m bench load --artifact artifact --clients 8 --seconds 60

build-model: $(VENV)/.test
	$(BIN)/python -m build_model

clean:
	rm -rf $(VENV) .data .pytest_cache build
