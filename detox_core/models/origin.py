"""Where a model comes from: the model hub's reachability, local folders' identity, the device."""

from __future__ import annotations

import hashlib
import importlib.util
import socket
import time
from pathlib import Path

from detox_core import config

_HUB_STATE: dict[str, float | bool] = {}


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub answers (remembered for a minute).

    Without this check an offline machine spends most of a minute in the hub
    client's retries before a load fails.
    """
    if config.hub_offline():
        return False
    now = time.monotonic()
    if _HUB_STATE and now - float(_HUB_STATE["at"]) < 60:
        return bool(_HUB_STATE["ok"])
    host = config.hub_host()
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        ok = True
    except OSError:
        ok = False
    _HUB_STATE.update(ok=ok, at=now)
    return ok


def in_hub_cache(model_id: str) -> bool:
    """Whether the local Hugging Face cache holds a downloaded copy of ``model_id`` (a
    snapshot folder with files), found by listing folders: no weights are read."""
    try:
        # Imported here: the hub client only for a download or a cache lookup.
        from huggingface_hub.constants import HF_HUB_CACHE
    except ImportError:  # pragma: no cover - the hub client comes with transformers
        return False
    snapshots = Path(HF_HUB_CACHE) / f"models--{model_id.replace('/', '--')}" / "snapshots"
    try:
        return any(p.is_dir() and any(p.iterdir()) for p in snapshots.iterdir())
    except OSError:
        return False


def default_device() -> str:
    """CUDA when PyTorch sees a GPU; the CPU otherwise, and where PyTorch is not installed (the
    bare package: the embedded preset runs on numpy)."""
    if importlib.util.find_spec("torch") is None:
        return "cpu"
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def folder_fingerprint(folder: str | Path) -> str:
    """A local model folder's identity: the one its scores' signature names (:func:`revision`)
    and the on-disk cache keys its outputs by (:func:`detox_core.models.disk_cache.model_identity`).
    Every file's path inside the folder, size and modification time (nanoseconds), subfolders
    included (a sentence-transformers folder keeps its pooling there); no weights are read. A
    file saved over, even within the same second at the same size, changes it; the folder
    moved or copied with its files' times does not."""
    root = Path(folder)
    h = hashlib.sha1()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            st = p.stat()
            h.update(f"{p.relative_to(root).as_posix()}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def revision(source: str, local: bool) -> str | None:
    """A local model's identity in its scores' signature (None for a hub model: its commit
    is read from the loaded model)."""
    if not local:
        return None
    return "local-" + folder_fingerprint(source)


def hub_commit(model_id: str) -> str | None:
    """The commit of the local Hugging Face cache's copy of ``model_id`` (the snapshot
    its ``config.json`` lies in), or None when it is not cached."""
    try:
        # Imported here: the hub client only for a download or a cache lookup.
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - the hub client comes with transformers
        return None
    for name in ("config.json", "modules.json", "tokenizer_config.json"):
        found = try_to_load_from_cache(model_id, name)
        if isinstance(found, str) and "/snapshots/" in found.replace("\\", "/"):
            return found.replace("\\", "/").split("/snapshots/", 1)[1].split("/", 1)[0]
    return None
