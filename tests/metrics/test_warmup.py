"""The server's warm-up (detox_core.metrics.warmup): its state goes from warming to finished, a
failing step is recorded and never raised, it starts once however often it is asked, and
only presets whose models are all on this machine are warmed (never a hub download)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from detox_core.metrics import warmup
from detox_core.errors import DataMissingError, ModelUnavailableError
from detox_core.metrics import Preset, register_preset, unregister_preset
from detox_core.models import ModelPool


def toy_preset(name: str, steps=(), models: dict[str, str] | None = None, companions: dict[str, str] | None = None,
               unavailable: str | None = None) -> type[Preset]:
    """A registered preset whose warm-up runs ``steps`` and loads ``models`` (role -> id)."""
    attrs = {
        "name": name, "version": "1", "title": f"Toy {name}", "label": f"Toy {name}",
        "model_kinds": {role: "classifier" for role in models or {}},
        "companions": dict(companions or {}),
        "warm_steps": classmethod(lambda cls: list(steps)),
        "default_models": classmethod(lambda cls: dict(models or {})),
        "unavailable": classmethod(lambda cls: unavailable),
        "score": lambda self, *a, **k: pd.DataFrame(),
    }
    return register_preset(type(f"Toy_{name}", (Preset,), attrs))


@pytest.fixture
def toys():
    names: list[str] = []

    def add(name: str, **kw) -> str:
        toy_preset(name, **kw)
        names.append(name)
        return name

    yield add
    for name in names:
        unregister_preset(name)


class RecordingPool(ModelPool):
    """A pool that records what the warm-up asks it to load, loading nothing."""

    def __init__(self, **kw) -> None:
        super().__init__(device="cpu", backend="torch", **kw)
        self.loaded: list[tuple] = []

    def get(self, model_id, kind, role=None, source=None, tokenizer=None):
        self.loaded.append((model_id, kind, role, tokenizer))


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No model folder and an empty Hugging Face cache: every hub id would be a download."""
    monkeypatch.delenv("DETOX_MODEL_DIR", raising=False)
    monkeypatch.delenv("DETOX_MODEL_MAP", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    return tmp_path


def test_the_state_goes_from_warming_to_finished(toys, offline):
    gate, reached = threading.Event(), threading.Event()
    done: list[str] = []

    def slow() -> None:
        reached.set()
        assert gate.wait(30)
        done.append("b")

    name = toys("toy-slow", steps=[("first part", lambda: done.append("a")), ("second part", slow)])
    w = warmup.Warmup(RecordingPool(), presets=[name])
    assert w.state() == warmup.State() and w.state().line() == ""
    assert w.start()
    assert reached.wait(30)
    state = w.state()
    assert state.started and state.planned and state.warming and not state.finished
    assert state.current.preset == name and (state.current.done, state.current.total) == (1, 2)
    assert state.pending(name) and state.current.step == "second part"
    assert state.line() == "Warming models: Toy toy-slow 1/2 · second part"
    gate.set()
    state = w.wait(timeout=30)
    assert state.finished and not state.warming and not state.pending(name)
    assert done == ["a", "b"] and [i.status for i in state.items] == ["ready"]
    assert (state.done, state.total) == (2, 2) and state.seconds is not None
    assert state.line().startswith("Models warm: Toy toy-slow (")


def test_a_failing_step_is_recorded_not_raised_and_the_next_preset_goes_on(toys, offline):
    ran: list[str] = []

    def boom() -> None:
        raise RuntimeError("the weights are *damaged*\nsecond line")

    def missing() -> None:
        raise DataMissingError("the embedded models are not trained")

    bad = toys("toy-bad", steps=[("loads", boom), ("never", lambda: ran.append("never"))])
    untrained = toys("toy-untrained", steps=[("loads", missing)])
    good = toys("toy-good", steps=[("loads", lambda: ran.append("good"))])
    w = warmup.Warmup(RecordingPool(), presets=[bad, untrained, good])
    w.start()
    state = w.wait(timeout=30)
    assert state.finished and ran == ["good"]
    assert state.errors == {bad: "RuntimeError: the weights are *damaged*"}
    assert state.item(bad).status == "failed" and state.item(bad).done == 0
    # Data that is not there is not a warming failure: the pages say so where it matters.
    assert state.item(untrained).status == "skipped" and untrained not in state.errors
    assert "not trained" in state.item(untrained).reason
    assert [i.preset for i in state.ready] == [good]


def test_a_model_that_cannot_load_is_named_with_its_role(toys, offline):
    def fails() -> None:
        raise ModelUnavailableError("org/model", "the folder /x does not exist", "sta")

    name = toys("toy-model", steps=[("loads", fails)])
    w = warmup.Warmup(RecordingPool(), presets=[name])
    w.start()
    assert w.wait(timeout=30).errors == {
        name: "the toxicity classifier (org/model) could not be loaded: the folder /x does not exist"}


def test_it_starts_once_however_often_and_from_however_many_threads(toys, offline):
    calls: list[int] = []
    name = toys("toy-once", steps=[("loads", lambda: calls.append(1))])
    w = warmup.Warmup(RecordingPool(), presets=[name])
    barrier = threading.Barrier(8)
    started: list[bool] = []

    def ask() -> None:
        barrier.wait()
        started.append(w.start())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    w.wait(timeout=30)
    assert sorted(started) == [False] * 7 + [True]
    assert not w.start() and calls == [1]


def test_the_process_warmup_is_one(monkeypatch, toys, offline):
    monkeypatch.delenv("DETOX_WARMUP", raising=False)
    monkeypatch.setattr(warmup, "_DEFAULT", None)
    first = warmup.default_warmup()
    assert warmup.default_warmup() is first
    assert warmup.state() == warmup.State()  # reading it starts nothing
    monkeypatch.setattr(first, "_presets", [toys("toy-default", steps=[("loads", lambda: None)])])
    monkeypatch.setattr(first, "_pool", RecordingPool())
    assert warmup.start() and not warmup.start()
    assert warmup.wait(timeout=30).finished


def test_only_presets_whose_models_are_all_local_are_warmed(toys, offline):
    local = offline / "models" / "org__local-sta"
    local.mkdir(parents=True)
    companion = offline / "models" / "org__local-tokenizer"
    companion.mkdir(parents=True)
    pool = RecordingPool(model_map={"org/local-sta": str(local), "org/local-tokenizer": str(companion)})
    on_disk = toys("toy-local", models={"sta": "org/local-sta"}, companions={"sta": "org/local-tokenizer"})
    hub = toys("toy-hub", models={"sta": "org/local-sta", "sim": "org/only-on-the-hub"})
    hub_tokenizer = toys("toy-hub-tokenizer", models={"sta": "org/local-sta"},
                         companions={"sta": "org/tokenizer-on-the-hub"})
    gone = toys("toy-gone", models={"sta": "org/mapped-gone"})
    pool.map_model("org/mapped-gone", str(offline / "no-such-folder"))
    closed = toys("toy-closed", models={"sta": "org/local-sta"}, unavailable="no endpoint configured")
    w = warmup.Warmup(pool, presets=[on_disk, hub, hub_tokenizer, gone, closed])
    w.start()
    state = w.wait(timeout=30)
    assert [i.preset for i in state.ready] == [on_disk]
    assert state.item(on_disk).steps == ("toxicity classifier",)
    assert pool.loaded == [("org/local-sta", "classifier", "sta", "org/local-tokenizer")]  # nothing else loaded
    left_out = dict(state.left_out)
    assert set(left_out) == {hub, hub_tokenizer, gone, closed}
    assert left_out[hub] == "org/only-on-the-hub would come from the model hub"
    assert left_out[hub_tokenizer] == "org/tokenizer-on-the-hub would come from the model hub"
    assert left_out[closed] == "no endpoint configured"


def test_a_model_in_the_local_hub_cache_is_warmed(toys, offline):
    import huggingface_hub.constants as hub_constants

    snapshot = offline / "hf-cache" / "models--org--cached" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    hub_constants.HF_HUB_CACHE = str(offline / "hf-cache")  # restored by the fixture's monkeypatch
    pool = RecordingPool()
    name = toys("toy-cached", models={"fl": "org/cached"})
    w = warmup.Warmup(pool, presets=[name])
    w.start()
    assert [i.preset for i in w.wait(timeout=30).ready] == [name]
    assert pool.loaded == [("org/cached", "classifier", "fl", None)]


def test_a_real_tiny_model_is_loaded_into_the_pool(toys, offline, tiny_models):
    pool = ModelPool(device="cpu", backend="torch", model_map={"org/tiny-sta": str(tiny_models["sta"])})
    name = toys("toy-tiny", models={"sta": "org/tiny-sta"})
    w = warmup.Warmup(pool, presets=[name])
    w.start()
    assert w.wait(timeout=120).item(name).status == "ready"
    assert pool.locate("org/tiny-sta") == "loaded"  # the first score finds it loaded


def test_waiting_for_a_preset_waits_only_while_it_warms(toys, offline):
    gate, reached = threading.Event(), threading.Event()

    def slow() -> None:
        reached.set()
        assert gate.wait(30)

    first = toys("toy-first", steps=[("loads", slow)])
    second = toys("toy-second", steps=[("loads", lambda: None)])
    w = warmup.Warmup(RecordingPool(), presets=[first, second])
    w.start()
    assert reached.wait(30)
    # The second preset is waiting for its turn: its first score would load it itself.
    assert w.wait(second, timeout=0.1).item(second).status == "waiting"
    assert w.state().pending(second)
    assert w.wait(first, timeout=0.2).item(first).status == "warming"  # timed out: still warming
    gate.set()
    assert w.wait(first, timeout=30).item(first).status == "ready"
    assert w.wait(timeout=30).finished


def test_the_embedded_preset_warms_in_named_steps():
    from detox_core.metrics import preset_class

    steps = [label for label, _ in preset_class("embedded").warm_steps()]
    assert steps == ["trained heads", "model of meaning", "language identifier", "Chinese and Japanese segmenters"]


def test_the_embedded_preset_warms_on_its_shipped_heads(trained, monkeypatch):
    from detox_core.metrics.embedded import heads

    monkeypatch.setattr(heads, "_LOADED", {})
    w = warmup.Warmup(RecordingPool(), presets=["embedded"])
    w.start()
    state = w.wait(timeout=120)
    assert state.item("embedded").status == "ready", state
    assert state.item("embedded").done == 4 and heads._LOADED


def test_detox_warmup_0_switches_it_off(monkeypatch, toys, offline):
    monkeypatch.setattr(warmup, "_DEFAULT", None)
    monkeypatch.setenv("DETOX_WARMUP", "0")
    assert not warmup.start() and not warmup.state().started
    monkeypatch.setenv("DETOX_WARMUP", "maybe")
    from detox_core.errors import DetoxInputError

    with pytest.raises(DetoxInputError, match="DETOX_WARMUP"):
        warmup.start()


def test_the_app_steps_run_first_and_one_that_fails_does_not_stop_the_models(toys, offline, caplog):
    order: list[str] = []
    gate, reached = threading.Event(), threading.Event()

    def pages() -> None:
        reached.set()
        assert gate.wait(30)
        order.append("pages")

    def broken() -> None:
        raise RuntimeError("the corpus file is damaged")

    name = toys("toy-after-app", steps=[("loads", lambda: order.append("model"))])
    w = warmup.Warmup(RecordingPool(), presets=[name])
    w.start(app_steps=[("the pages' code", pages), ("the default corpus", broken)])
    assert reached.wait(30)
    state = w.state()
    # While the app's steps run the sidebar says so, and no model has started yet.
    assert state.warming and state.preparing == "the pages' code" and order == []
    assert state.line() == "Preparing the app: the pages' code…"
    gate.set()
    state = w.wait(timeout=30)
    assert order == ["pages", "model"] and state.preparing is None
    assert [i.status for i in state.items] == ["ready"] and state.errors == {}  # not a preset's failure
    assert any("the default corpus failed" in r.getMessage() for r in caplog.records)
