"""Model kinds the pool loads and runs through registered code (xCOMET, causal LMs,
BERTScore's layer embeddings...): the pool keeps them shared, locked and memoised like its
own classifiers and encoders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CustomKind:
    """A model kind the pool does not know itself (xCOMET, causal LMs, BERTScore layers...).

    Attributes:
        load: fills ``loaded.model`` (and ``tokenizer``, ``revision``...) from
            ``loaded.source``; ``cache_only`` says not to reach the hub. It places the model
            on ``loaded.device`` in ``loaded.dtype``. Raise any exception for a model that
            cannot load: the pool turns it into :class:`ModelUnavailableError`.
        run: computes one array per item of a batch (items are strings, the memo keys).
    """

    load: Callable[[Any, bool], None]
    run: Callable[[Any, list[str]], list[np.ndarray]]


#: kind name -> how the pool loads and runs it (see :func:`register_kind`).
CUSTOM_KINDS: dict[str, CustomKind] = {}


def register_kind(name: str, kind: CustomKind) -> None:
    """Let the pool load and run models of kind ``name`` (shared, memoised, locked like the rest)."""
    CUSTOM_KINDS[name] = kind
