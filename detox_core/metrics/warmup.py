"""The server's warm-up: the default preset's models, and those of every preset whose
models are all on this machine, loaded in a background thread when the server starts.

Loading them during a visitor's request stalls the whole server, not only that request:
building the embedded preset's language identifier (lingua) holds Python's GIL for about
a second and jieba's dictionary for about 0.4 s, and every session waits meanwhile.
``python -m detox_core serve`` starts the warm-up before Streamlit serves anyone; a server
started with ``streamlit run app.py`` starts it on its first session (:func:`start` is
idempotent: one warm-up per process).

What is warmed, in order: first what the app's pages need before any model (the steps a
caller gives :func:`start`: :func:`detox_core.ui.app.warming.app_steps` imports the pages'
modules and prepares the default corpus, so the first visitor of a fresh process does
not pay for them), then the default preset (its :meth:`Preset.warm_steps`), then every
other registered preset that can run here (:meth:`Preset.unavailable`) and whose models,
and the models they are read with (:attr:`Preset.companions`), are all local: a mapped
folder, a ``DETOX_MODEL_DIR`` sub-folder or the local Hugging Face cache. A preset with a
model that would come from the model hub is left for its first score: the warm-up never
downloads.

The state (:class:`State`, an immutable snapshot) can be read from any thread: what is
warming, each preset's steps done out of its total, why a preset was skipped or failed.
A step that fails is recorded, never raised: that preset's other steps are skipped, the
next preset goes on, and its first score meets the error with its own message.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from detox_core import config
from detox_core.errors import DataMissingError, DetoxError, ModelUnavailableError
from detox_core.metrics.registry import ROLE_WORDS, preset_class, preset_names
from detox_core.models import ModelPool, default_pool
from detox_core.models.origin import in_hub_cache

log = logging.getLogger(__name__)

Status = Literal["waiting", "warming", "ready", "failed", "skipped"]
Step = tuple[str, Callable[[], object]]
#: The warm-up thread's name (log records from it can be told apart).
THREAD_NAME = "detox-warmup"


@dataclass(frozen=True)
class Item:
    """One preset of the warm-up.

    Attributes:
        preset: the preset's registered name.
        label: how pages name it.
        steps: what is loaded, in order, in words.
        done: steps finished.
        status: ``waiting``, ``warming``, ``ready``, ``failed`` or ``skipped`` (its data
            is missing: the embedded models are not trained; the pages say so elsewhere).
        reason: why it failed or was skipped, in words.
        seconds: how long it took, once over.
    """

    preset: str
    label: str
    steps: tuple[str, ...]
    done: int = 0
    status: Status = "waiting"
    reason: str | None = None
    seconds: float | None = None

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def step(self) -> str | None:
        """The step under way (None unless warming)."""
        return self.steps[self.done] if self.status == "warming" and self.done < self.total else None


@dataclass(frozen=True)
class State:
    """A snapshot of the warm-up.

    Attributes:
        started: :func:`start` was called in this process.
        planned: the presets to warm are known (:attr:`items`).
        finished: every item is over (ready, failed or skipped).
        items: the presets warmed, in order.
        left_out: ``(preset, why)`` of the presets not warmed (a model from the hub, a
            preset that cannot run here).
        seconds: how long the whole warm-up took, once finished.
        preparing: the app step under way before the presets (None otherwise).
    """

    started: bool = False
    planned: bool = False
    finished: bool = False
    items: tuple[Item, ...] = ()
    left_out: tuple[tuple[str, str], ...] = ()
    seconds: float | None = None
    preparing: str | None = None

    @property
    def warming(self) -> bool:
        return self.started and not self.finished

    @property
    def current(self) -> Item | None:
        """The preset warming now."""
        return next((i for i in self.items if i.status == "warming"), None)

    @property
    def errors(self) -> dict[str, str]:
        """preset -> why it could not be warmed (a load that failed)."""
        return {i.preset: i.reason or "" for i in self.items if i.status == "failed"}

    @property
    def ready(self) -> list[Item]:
        return [i for i in self.items if i.status == "ready"]

    @property
    def done(self) -> int:
        return sum(i.done for i in self.items)

    @property
    def total(self) -> int:
        return sum(i.total for i in self.items)

    def item(self, preset: str) -> Item | None:
        return next((i for i in self.items if i.preset == preset), None)

    def pending(self, preset: str) -> bool:
        """Whether ``preset``'s models are still to be warmed: waiting for their turn or
        warming (False before the warm-up has listed its presets)."""
        item = self.item(preset)
        return item is not None and item.status in ("waiting", "warming")

    def line(self) -> str:
        """The state in one line of plain text ("" before :func:`start`, and after a
        warm-up that had nothing to warm)."""
        if not self.started:
            return ""
        if not self.finished:
            now = self.current
            if now is None:
                return f"Preparing the app: {self.preparing}…" if self.preparing else "Warming models…"
            after = sum(1 for i in self.items if i.status == "waiting")
            return (f"Warming models: {now.label} {now.done}/{now.total}" + (f" · {now.step}" if now.step else "")
                    + (f" · then {after} more preset{'s' if after > 1 else ''}" if after else ""))
        if not self.ready:
            return ""
        took = f" ({self.seconds:.0f} s)" if self.seconds is not None else ""
        return "Models warm: " + ", ".join(i.label for i in self.ready) + took


def is_local(pool: ModelPool, model_id: str) -> bool:
    """Whether ``model_id`` loads without a download: a local folder that exists (mapped,
    under ``DETOX_MODEL_DIR``, or the id is a folder) or a copy in the Hugging Face cache.
    Found by listing folders: no weights are read, the hub is not asked."""
    where, local = pool.resolve(model_id)
    return Path(where).is_dir() if local else in_hub_cache(model_id)


def reason(err: BaseException) -> str:
    """Why a step failed, in words for the pages (first line, at most 300 characters)."""
    if isinstance(err, ModelUnavailableError):
        what = ROLE_WORDS.get(err.role or "", "model")
        text = f"the {what} ({err.model_id}) could not be loaded: {err.reason}"
    elif isinstance(err, DetoxError):
        text = str(err)
    else:
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        text = f"{type(err).__name__}: {first}" if first else type(err).__name__
    text = text.rstrip(" .:;,")  # the pages end the sentence
    return text if len(text) <= 300 else text[:299] + "…"


def plan(pool: ModelPool,
         presets: Sequence[str] | None = None) -> tuple[list[tuple[Item, list[Step]]], list[tuple[str, str]]]:
    """The presets to warm, each with its steps, and ``(preset, why)`` of those left out.

    Args:
        pool: the pool the models load into (the app's is :func:`default_pool`).
        presets: the presets to consider, in order (default: every registered one, the
            default preset first).
    """
    todo: list[tuple[Item, list[Step]]] = []
    left_out: list[tuple[str, str]] = []
    for name in presets if presets is not None else preset_names():
        try:
            cls = preset_class(name)
            why = cls.unavailable()
            if why:
                left_out.append((name, why))
                continue
            steps: list[Step] = list(cls.warm_steps())
            remote: list[str] = []
            for role, model_id in cls.default_models().items():
                kind = cls.model_kinds.get(role)
                companion = cls.companions.get(role)
                remote += [m for m in (model_id, companion) if m and not is_local(pool, m)]
                if kind is not None:
                    steps.append((ROLE_WORDS.get(role, f"{role.upper()} model"),
                                  lambda m=model_id, k=kind, r=role, c=companion: pool.get(m, k, r, tokenizer=c)))
        except Exception as err:  # noqa: BLE001 - a preset that cannot even say what it needs is left out
            left_out.append((name, reason(err)))
            continue
        if remote:
            left_out.append((name, f"{', '.join(remote)} would come from the model hub"))
        elif steps:
            todo.append((Item(name, cls.display(), tuple(label for label, _ in steps)), steps))
    return todo, left_out


class Warmup:
    """The warm-up of one process (see the module's note); thread-safe.

    Args:
        pool: the pool to load models into (default: :func:`default_pool`, found in the
            warm-up's thread).
        presets: the presets to consider, in order (default: every registered one).
    """

    def __init__(self, pool: ModelPool | None = None, presets: Sequence[str] | None = None) -> None:
        self._pool = pool
        self._presets = list(presets) if presets is not None else None
        self._cond = threading.Condition()
        self._state = State()
        self._thread: threading.Thread | None = None

    def start(self, delay: float = 0.0, app_steps: Sequence[Step] = ()) -> bool:
        """Start warming in a background thread, once; True when this call started it.

        ``delay``: seconds the thread waits first (a page that starts it draws meanwhile).
        ``app_steps``: ``(label, callable)`` run first, before any preset: what the pages
        need before a model (one that fails is logged and skipped: it only costs the first
        visitor the time it would have saved)."""
        with self._cond:
            if self._thread is not None:
                return False
            self._state = State(started=True)
            self._thread = threading.Thread(target=self._work, args=(delay, tuple(app_steps)), name=THREAD_NAME,
                                            daemon=True)
        self._thread.start()
        return True

    def state(self) -> State:
        with self._cond:
            return self._state

    def wait(self, preset: str | None = None, timeout: float | None = None) -> State:
        """Wait until the warm-up is over, or with ``preset``, until that preset is no
        longer warming (one still waiting for its turn, or not listed yet, is not waited
        for: its first score loads it); at most ``timeout`` seconds. Returns the state then."""
        def over() -> bool:
            s = self._state
            if not s.warming:
                return True
            if preset is None:
                return False
            item = s.item(preset)
            return item is None or item.status != "warming"

        with self._cond:
            self._cond.wait_for(over, timeout)
            return self._state

    def _set(self, **changes) -> None:
        with self._cond:
            self._state = replace(self._state, **changes)
            self._cond.notify_all()

    def _set_item(self, index: int, **changes) -> None:
        with self._cond:
            items = list(self._state.items)
            items[index] = replace(items[index], **changes)
            self._state = replace(self._state, items=tuple(items))
            self._cond.notify_all()

    def _work(self, delay: float, app_steps: tuple[Step, ...] = ()) -> None:
        t0 = time.monotonic()
        if delay > 0:
            time.sleep(delay)
        for label, step in app_steps:
            self._set(preparing=label)
            started = time.monotonic()
            try:
                step()
            except Exception as err:  # noqa: BLE001 - a speed-up only: the page does it itself
                log.warning("warm-up: %s failed: %s", label, err)
            log.info("warm-up: %s took %.1f s", label, time.monotonic() - started)
        self._set(preparing=None)
        try:
            todo, left_out = plan(self._pool or default_pool(), self._presets)
        except Exception as err:  # noqa: BLE001 - the registry itself failed: shown, not raised
            log.exception("warm-up: could not list the presets")
            todo, left_out = [], [("*", reason(err))]
        self._set(planned=True, items=tuple(item for item, _ in todo), left_out=tuple(left_out))
        for index, (item, steps) in enumerate(todo):
            self._run_item(index, item, steps)
        self._set(finished=True, seconds=time.monotonic() - t0)
        log.info("warm-up finished in %.1f s: %s", time.monotonic() - t0, self.state().line())

    def _run_item(self, index: int, item: Item, steps: list[Step]) -> None:
        t0 = time.monotonic()
        self._set_item(index, status="warming")
        for done, (label, step) in enumerate(steps):
            try:
                step()
            except DataMissingError as err:  # not trained, data not fetched: said where it matters
                self._set_item(index, status="skipped", reason=reason(err), seconds=time.monotonic() - t0)
                return
            except Exception as err:  # noqa: BLE001 - recorded and shown, never raised into a page
                log.warning("warm-up: %s: %s failed: %s", item.preset, label, err)
                self._set_item(index, status="failed", reason=reason(err), seconds=time.monotonic() - t0)
                return
            self._set_item(index, done=done + 1)
        self._set_item(index, status="ready", seconds=time.monotonic() - t0)


_DEFAULT: Warmup | None = None
_DEFAULT_LOCK = threading.Lock()


def default_warmup() -> Warmup:
    """The process's warm-up (every registered preset, the process-wide pool)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Warmup()
        return _DEFAULT


def start(delay: float = 0.0, app_steps: Sequence[Step] = ()) -> bool:
    """Start the process's warm-up unless it has started or ``DETOX_WARMUP=0`` switches it
    off; True when this call started it. ``app_steps``: see :meth:`Warmup.start`."""
    if not config.warmup_enabled():
        return False
    return default_warmup().start(delay, app_steps)


_ONE_PRESET: dict[str, Warmup] = {}


def warm_preset(preset: str, delay: float = 1.5) -> Warmup:
    """One preset's models warming in a background thread, once per process: what a page
    starts while the user types when the process's warm-up is off (``DETOX_WARMUP=0``).
    ``delay``: the page draws first, and a score asked for at once loads the models itself
    (with its spinner) instead of waiting behind the thread. Failures are left for the
    first score to report."""
    with _DEFAULT_LOCK:
        warmup = _ONE_PRESET.setdefault(preset, Warmup(presets=[preset]))
    warmup.start(delay)
    return warmup


def state() -> State:
    """The process's warm-up state (reading it starts nothing)."""
    return default_warmup().state()


def wait(preset: str | None = None, timeout: float | None = None) -> State:
    """:meth:`Warmup.wait` of the process's warm-up."""
    return default_warmup().wait(preset, timeout)
