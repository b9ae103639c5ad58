"""The ONNX Runtime backend: export a transformer once, fuse it, open a CPU session.

Same numbers as PyTorch within 1e-4; kept under ``data/models/onnx`` by a hash of the
weights, so an export is redone only when they change.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def onnx_session(model: Any, loaded: Any, cache_dir: Path) -> Any:
    """Export ``model`` (a loaded model record's torch module) to ONNX once, cached under
    ``cache_dir`` by content hash, and open an ONNX Runtime session on it."""
    # Imported here: optional: the ONNX backend, used when installed.
    import onnxruntime as ort
    import torch

    digest = content_hash(model)
    folder = cache_dir / f"{loaded.model_id.replace('/', '__')}-{loaded.kind}-{digest}"
    path = folder / "model.onnx"
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in loaded.tokenizer.model_input_names]
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        sample = loaded.tokenizer(["a b", "c"], padding=True, return_tensors="pt")
        args = tuple(sample[n] for n in names)
        outputs = ["logits"] if loaded.kind == "classifier" else ["pooler_output"]

        class _Wrap(torch.nn.Module):
            def __init__(self, inner: Any) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, *tensors: Any) -> Any:
                out = self.inner(**dict(zip(names, tensors)))
                return out.logits if loaded.kind == "classifier" else out.pooler_output

        tmp = folder / "model.onnx.part"
        with torch.inference_mode(False), torch.no_grad():
            torch.onnx.export(
                _Wrap(model), args, str(tmp), input_names=names, output_names=outputs,
                dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names}, outputs[0]: {0: "batch"}},
                opset_version=17, dynamo=False,
            )
        optimise_transformer(tmp, model.config)
        os.replace(tmp, path)
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    loaded.input_names = tuple(i.name for i in session.get_inputs())
    return session


def optimise_transformer(path: Path, config: Any) -> None:
    """Fuse attention, layer norm and GELU with ONNX Runtime's transformer optimiser
    (fp32 kept: the scores stay those of PyTorch within 1e-5). Skipped silently for
    architectures it does not know."""
    try:
        # Imported here: optional: the ONNX backend, used when installed.
        from onnxruntime.transformers import optimizer
    except ImportError:
        return
    model_type = {"bert": "bert", "xlm-roberta": "bert", "roberta": "bert"}.get(getattr(config, "model_type", ""))
    if model_type is None:
        return
    try:
        opt = optimizer.optimize_model(
            str(path), model_type=model_type, num_heads=config.num_attention_heads, hidden_size=config.hidden_size,
            opt_level=1, use_gpu=False,
        )
        opt.save_model_to_file(str(path))
    except Exception as err:  # an unfused model still runs correctly
        log.warning("ONNX transformer optimisation skipped: %s", err)


def content_hash(model: Any) -> str:
    """Hash of the weights, so that an ONNX export is redone when they change."""
    h = hashlib.sha1()
    state = model.state_dict()
    for name in sorted(state)[:8] + sorted(state)[-8:]:
        t = state[name].detach().float().cpu().flatten()
        h.update(name.encode())
        h.update(t[:: max(1, t.numel() // 1024)].numpy().tobytes())
    h.update(str(sum(t.numel() for t in state.values())).encode())
    return h.hexdigest()[:12]
