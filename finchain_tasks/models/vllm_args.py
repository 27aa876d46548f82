"""The ``vllm serve`` argument list of a registry model: pure functions of its ``vllm:`` block, no vLLM import.

Tensor-parallel size by GPU memory (when the registry does not fix ``tensor_parallel_size``)::

    weights (GB)  = params_b x bytes per parameter          (fp8: 1; awq/gptq/bitsandbytes: 0.5;
                                                              float32: 4; else 2 for bfloat16/float16)
    needed (GB)   = weights x OVERHEAD (1.25)               (room for the KV cache, activations, CUDA graphs)
    usable (GB)   = per-GPU memory x gpu_memory_utilization (0.9 by default, as vLLM's own default)
    TP            = the smallest power of two with TP x usable >= needed

So a 7-8B model in bfloat16 (17.5-20 GB needed) runs on one 24 GB GPU; DeepSeek-R1 (671B, fp8: 839 GB) needs
TP 8 on H200s (141 GB) and 16 on 80 GB GPUs, which is beyond one 8-GPU node (see docs/running-the-matrix.md,
"Beyond one node"). A model without ``params_b`` gets TP 1.

Flag names were checked against vLLM's engine-argument and reasoning-output docs (``--tensor-parallel-size``,
``--max-model-len``, ``--chat-template``, ``--reasoning-parser``, ``--dtype``, ``--quantization``,
``--revision``, ``--served-model-name``, ``--port``, ``--host``, ``--gpu-memory-utilization``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Optional

OVERHEAD = 1.25
"""Memory needed per byte of weights: the weights plus a quarter for the KV cache, activations and CUDA graphs."""
DEFAULT_GPU_MEMORY_GB = 80.0
"""Per-GPU memory assumed when none is given and none can be read (an A100/H100 80 GB)."""
QUANTIZED_BYTES = {"fp8": 1.0, "fbgemm_fp8": 1.0, "ptpc_fp8": 1.0, "awq": 0.5, "awq_marlin": 0.5, "gptq": 0.5,
                   "gptq_marlin": 0.5, "bitsandbytes": 0.5, "gguf": 0.5}
DTYPE_BYTES = {"float32": 4.0, "float": 4.0}
"""Bytes per parameter; every other dtype (auto, bfloat16, float16, half) counts 2."""
HOSTED_VLLM = "hosted_vllm/"
CHAT_TEMPLATE_SUFFIX = ".jinja"


def bytes_per_param(block: Any) -> float:
    """Weight bytes per parameter: the quantisation's when it has one, else the dtype's."""
    if block.quantization:
        return QUANTIZED_BYTES.get(block.quantization, 2.0)
    return DTYPE_BYTES.get(block.dtype, 2.0)


def memory_needed_gb(spec: Any) -> Optional[float]:
    """GB of GPU memory the rule asks for (weights x OVERHEAD); None when ``params_b`` is unknown."""
    if spec.params_b is None or spec.vllm is None:
        return None
    return spec.params_b * bytes_per_param(spec.vllm) * OVERHEAD


def tensor_parallel_size(spec: Any, gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB) -> int:
    """The registry's ``tensor_parallel_size`` when it fixes one, else the memory rule of the module docstring."""
    if spec.vllm is None:
        raise ValueError(f"model {spec.name!r} has no `vllm` block: it is not served by vLLM")
    if spec.vllm.tensor_parallel_size is not None:
        return spec.vllm.tensor_parallel_size
    if not gpu_memory_gb > 0 or math.isinf(gpu_memory_gb):
        raise ValueError(f"GPU memory must be a positive number of GB, not {gpu_memory_gb!r}")
    needed = memory_needed_gb(spec)
    if needed is None:
        return 1
    gpus = needed / (gpu_memory_gb * spec.vllm.gpu_memory_utilization)
    return 1 << max(0, math.ceil(math.log2(gpus))) if gpus > 1 else 1


def served_name(spec: Any) -> str:
    """The name the server answers to: the litellm id without ``hosted_vllm/`` (so the registry's litellm id
    reaches it unchanged), else the Hugging Face id."""
    if spec.litellm_model.startswith(HOSTED_VLLM):
        return spec.litellm_model[len(HOSTED_VLLM):]
    return str(spec.hf_id)


def shipped_chat_templates() -> dict[str, Path]:
    """name -> file of the chat templates shipped in ``finchain_tasks/data/chat_templates``."""
    folder = resources.files("finchain_tasks.data").joinpath("chat_templates")
    return {Path(p.name).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(CHAT_TEMPLATE_SUFFIX)}


def is_shipped_name(value: str) -> bool:
    """A bare name (no folder, no suffix) names a shipped template; anything else is a path."""
    return "/" not in value and "\\" not in value and not value.endswith(CHAT_TEMPLATE_SUFFIX)


def chat_template_path(value: str) -> str:
    """The file ``--chat-template`` gets: a shipped template by name, or the path as given (checked to exist)."""
    if is_shipped_name(value):
        shipped = shipped_chat_templates()
        if value not in shipped:
            raise ValueError(f"unknown chat template {value!r} (shipped: {', '.join(sorted(shipped))}; or give a path "
                             f"ending in {CHAT_TEMPLATE_SUFFIX})")
        return str(shipped[value])
    if not Path(value).expanduser().is_file():
        raise ValueError(f"chat template {value}: no such file")
    return str(Path(value).expanduser())


def serve_args(spec: Any, *, port: int, host: str = "127.0.0.1", gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB,
               tensor_parallel: Optional[int] = None, extra: Sequence[str] = ()) -> list[str]:
    """``serve <hf_id> --served-model-name ... --port ...`` for the ``vllm`` executable (without it).
    ``tensor_parallel`` overrides the rule; ``extra`` (the command line's) comes last, so it wins."""
    block = spec.vllm
    tp = tensor_parallel or tensor_parallel_size(spec, gpu_memory_gb)
    args = ["serve", str(spec.hf_id), "--served-model-name", served_name(spec), "--host", host, "--port", str(port),
            "--tensor-parallel-size", str(tp), "--dtype", block.dtype,
            "--gpu-memory-utilization", f"{block.gpu_memory_utilization:g}"]
    optional = (("--revision", block.revision), ("--quantization", block.quantization),
                ("--max-model-len", block.max_model_len), ("--reasoning-parser", block.reasoning_parser),
                ("--chat-template", chat_template_path(block.chat_template) if block.chat_template else None))
    for flag, value in optional:
        if value is not None:
            args += [flag, str(value)]
    return [*args, *block.args, *extra]
