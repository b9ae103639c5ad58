# detox-dashboard: the two commands of the README are `make run` and `make test`.
# Both create .venv in the project, install requirements.txt (the tests also requirements-test.txt)
# and the package itself (editable: the `detox` command) into it (again only when a file changes),
# fetch the data (from ../shared/data/russe2022 when it is there,
# else from the public sources) and build the toxic lexicons. The embedded preset's trained
# heads ship with the package: no training step. When the data cannot be had they say what
# is missing and go on: the app still starts.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.requirements-installed
TEST_STAMP := $(VENV)/.test-requirements-installed
PORT   ?= 8501
# `make run` answers this machine only; a shared server sets its address (and an organizer
# password) itself: `make run ADDRESS=0.0.0.0`, or deploy/ (README: Deploying for a shared task).
ADDRESS ?= 127.0.0.1
# The isolated environment of the xCOMET-lite equivalence test (unbabel-comet needs
# numpy < 2 and transformers < 5): tests/metrics/test_textdetox2025.py runs it.
# Every package the app and the tests install, at the version CI tested (what the pins bring in
# too): `make setup`, the Docker image and .ci/install_check install with it. `make lock` rewrites it.
LOCK := deploy/constraints.txt
COMET_VENV  := .venv-comet
COMET_REQS  := tests/comet/requirements.txt
COMET_STAMP := $(COMET_VENV)/.requirements-installed

.PHONY: run test heads check-heads setup data e2e screenshots bench clean lock docs

run: $(STAMP) data
	$(BIN)/python -m detox_core serve --server.port $(PORT) --server.address $(ADDRESS)

# Two workers (pytest-xdist), a module's tests on one of them (its app server and browser start
# once); the 25 slowest steps are listed at the end, so CI's log shows where the time goes.
TEST_WORKERS ?= 2
test: setup data
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25

# The shipped heads of the offline preset (detox_core/metrics/embedded/trained/) rebuilt from the pinned data
# (detox_core/metrics/embedded/pins.json: each file's SHA-256, checked before any training), byte for byte the
# same when the data is; then measured against people on the RUSSE-2022 human sample (heads.json);
# and Live scoring's "unrelated" ceilings per language (detox_core/live/unrelated_ceilings.json).
heads: setup data
	$(BIN)/python -m detox_core train-embedded --ship
	$(BIN)/python -m detox_core agreement --ship
	$(BIN)/python -m detox_core ceilings

# The shipped heads of the offline preset rebuilt from a tenth of the data and compared with them:
# minutes of training, so not a step of `make test` (CI); run it when the heads or their training change.
check-heads: setup data
	DETOX_CHECK_HEADS=1 $(BIN)/python -m pytest tests/embedded/test_heads.py -k rebuild_on_a_subsample

setup: $(STAMP) $(TEST_STAMP) $(COMET_STAMP)

$(STAMP): requirements.txt $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $(STAMP)

# The tests' tools (pytest, Playwright's driver, bert-score): not in the app's image.
$(TEST_STAMP): requirements-test.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -r requirements-test.txt -c $(LOCK)
	@touch $(TEST_STAMP)

$(COMET_STAMP): $(COMET_REQS)
	@test -x $(COMET_VENV)/bin/python || $(PYTHON) -m venv $(COMET_VENV)
	$(COMET_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(COMET_VENV)/bin/python -m pip install --quiet -r $(COMET_REQS)
	@touch $(COMET_STAMP)

data: $(STAMP)
	@$(BIN)/python -m detox_core fetch-data --quiet || \
		echo "fetch-data: some files are missing or the lexicons failed (see above); continuing without them."

# Rewrite deploy/constraints.txt: requirements-test.txt resolved in a fresh environment (torch's
# CPU build, as the README installs it), every package at the version pip chose.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
		|| .venv-lock/bin/python -m pip install --quiet torch==2.13.0
	.venv-lock/bin/python -m pip install --quiet -r requirements-test.txt
	( echo "# Every package of requirements-test.txt (the app's and the tests'), with what they bring in, at the"; \
	  echo "# version the tests passed with: written by \`make lock\`; \`make setup\`, deploy/Dockerfile and"; \
	  echo "# .ci/install_check install with it (-c). torch: its CPU or CUDA build by how it is installed."; \
	  .venv-lock/bin/python -m pip freeze --exclude-editable | sed -E 's/^(torch==[^+]*)\+.*/\1/' | sort -f ) > $(LOCK)
	rm -rf .venv-lock

# Browser tests only (needs Debian's chromium: apt-get install chromium).
e2e: setup data
	$(BIN)/python -m pytest -m e2e tests/e2e

# Take every screenshot the docs show (docs/screenshots.py lists them), at 1400 and 800 px, from the
# running app in headless Chromium, into docs/site_src/guide/img/ with screenshots.json: the digest
# of the files each page is drawn from, which tests/docs/test_screenshots.py checks. ONLY="name ..."
# re-takes those pictures' scenes alone.
screenshots: $(TEST_STAMP) data
	$(BIN)/python docs/take_screenshots.py $(if $(ONLY),--only $(ONLY))

# The docs site (docs/mkdocs.yml) into build/docs-site/, strictly: a broken link fails (tests/docs/ too).
docs: $(TEST_STAMP)
	$(BIN)/python -m mkdocs build --strict -f docs/mkdocs.yml

bench: setup data
	$(BIN)/python benchmarks/bench_cold_start.py
	$(BIN)/python benchmarks/bench_first_score.py
	$(BIN)/python benchmarks/bench_corpus_search.py
	$(BIN)/python benchmarks/bench_embedded_multilingual.py
	$(BIN)/python benchmarks/bench_live.py
	$(BIN)/python benchmarks/bench_scoring.py
	$(BIN)/python benchmarks/bench_gpu.py --keep data/cache/bench-models
	$(BIN)/python benchmarks/bench_process.py --keep data/cache/bench-models
	$(BIN)/python benchmarks/bench_textdetox2024.py
	$(BIN)/python benchmarks/bench_textdetox2025.py
	$(BIN)/python benchmarks/bench_annotation.py
	$(BIN)/python benchmarks/bench_load.py
	$(BIN)/python benchmarks/bench_live_browser.py
	$(BIN)/python benchmarks/bench_first_ranking.py
	$(BIN)/python benchmarks/bench_pages.py

clean:
	rm -rf $(VENV) $(COMET_VENV) .pytest_cache
