"""Model loading and inference: one pool per process (:mod:`.pool`), where models come
from (:mod:`.hub`), and the ONNX Runtime backend (:mod:`.onnx`)."""

from detox_core.errors import ModelUnavailableError
from detox_core.models.hub import default_device, hub_reachable
from detox_core.models.pool import Backend, Kind, ModelPool, Progress, default_pool

__all__ = ["Backend", "Kind", "ModelPool", "ModelUnavailableError", "Progress", "default_device", "default_pool",
           "hub_reachable"]
