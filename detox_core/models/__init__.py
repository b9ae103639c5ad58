"""Model loading and inference: one pool per process (:mod:`.pool`), where models come
from (:mod:`.origin`), the ONNX Runtime backend (:mod:`.onnx`), kinds registered by other
modules (:mod:`.kinds`) and the shared model of meaning (:mod:`.meaning`)."""

from detox_core.errors import ModelUnavailableError
from detox_core.models.origin import default_device, hub_reachable
from detox_core.models.kinds import CUSTOM_KINDS, CustomKind, register_kind
from detox_core.models.pool import Backend, Kind, ModelPool, Progress, default_pool

__all__ = ["CUSTOM_KINDS", "Backend", "CustomKind", "Kind", "ModelPool", "ModelUnavailableError", "Progress", "default_device", "default_pool",
           "hub_reachable", "register_kind"]
