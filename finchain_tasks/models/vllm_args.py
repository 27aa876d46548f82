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
import re
from collections.abc import Callable, Sequence
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


# ------------------------------------------------------------------------------------------ the allow-list
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")


def _count(minimum: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not re.fullmatch(r"[0-9]{1,12}", value) or int(value) < minimum:
            raise ValueError(f"expected a whole number of at least {minimum}, got {value!r}")
        return str(int(value))
    return check


def _amount(value: str) -> str:
    if not re.fullmatch(r"[0-9]{1,9}(\.[0-9]{1,9})?", value):
        raise ValueError(f"expected a number of at least 0, got {value!r}")
    return f"{float(value):g}"


def _one_of(*choices: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
        return value
    return check


def _plain_name(value: str) -> str:
    if not _PLAIN_VALUE.match(value):
        raise ValueError(f"expected a plain name (letters, digits, . _ : -), got {value!r}")
    return value


FLAG = None
"""An allowed option that takes no value."""

ALLOWED_OPTIONS: dict[str, Optional[Callable[[str], str]]] = {
    "--pipeline-parallel-size": _count(1), "--data-parallel-size": _count(1),
    "--distributed-executor-backend": _one_of("mp", "ray"),
    "--max-num-seqs": _count(1), "--max-num-batched-tokens": _count(1), "--max-seq-len-to-capture": _count(1),
    "--block-size": _count(1), "--seed": _count(0), "--max-logprobs": _count(0),
    "--swap-space": _amount, "--cpu-offload-gb": _amount,
    "--kv-cache-dtype": _one_of("auto", "fp8", "fp8_e4m3", "fp8_e5m2"),
    "--tokenizer-mode": _one_of("auto", "slow", "mistral"),
    "--load-format": _one_of("auto", "safetensors", "mistral"),  # never pt/npcache: pickles
    "--config-format": _one_of("auto", "hf", "mistral"),
    "--generation-config": _one_of("auto", "vllm"),  # never a folder of the file's choosing
    "--tool-call-parser": _plain_name, "--uvicorn-log-level": _one_of("debug", "info", "warning", "error"),
    "--enforce-eager": FLAG, "--enable-prefix-caching": FLAG, "--no-enable-prefix-caching": FLAG,
    "--enable-chunked-prefill": FLAG, "--enable-auto-tool-choice": FLAG, "--disable-log-requests": FLAG,
    "--disable-log-stats": FLAG,
}
"""The ``vllm serve`` options a registry's ``vllm.args`` may hold, each with the check of its value (``FLAG``:
none). An allow-list, not a deny-list: vLLM reads ``_`` as ``-``, accepts unambiguous abbreviations and short
forms, and reads further arguments from a ``--config`` file, so no list of forbidden spellings can be complete.
Anything else (``--trust-remote-code`` in any spelling above all) is refused; the user may still pass any
option after ``--`` on the command line."""

_AS_FIELDS = {"--dtype": "dtype", "--quantization": "quantization", "--max-model-len": "max_model_len",
              "--revision": "revision", "--chat-template": "chat_template", "--reasoning-parser": "reasoning_parser",
              "--tensor-parallel-size": "tensor_parallel_size",
              "--gpu-memory-utilization": "gpu_memory_utilization"}


def checked_args(args: Sequence[str], field: str = "args") -> list[str]:
    """``args`` (a registry's ``vllm.args``) as ``vllm serve`` gets them, every option on the allow-list
    (:data:`ALLOWED_OPTIONS`) written out in full with a checked value; anything else raises ValueError, one
    line naming ``field[i]``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word, where = args[i], f"{field}[{i}]"
        if not isinstance(word, str):
            raise ValueError(f"{where}: expected a string, got {word!r}")
        name, has_value, value = word.partition("=")
        if name in _AS_FIELDS:
            raise ValueError(f"{where}: {name} is set by the block's own field `{_AS_FIELDS[name]}`, not in args")
        if name not in ALLOWED_OPTIONS:
            shown = name if len(name) <= 60 else f"{name[:59]}…"
            raise ValueError(f"{where}: {shown!r} is not a vLLM option a registry may set (allowed: "
                             f"{', '.join(ALLOWED_OPTIONS)}; pass anything else after -- on the command line)")
        check = ALLOWED_OPTIONS[name]
        if check is FLAG:
            if has_value:
                raise ValueError(f"{where}: {name} takes no value")
            out.append(name)
            i += 1
            continue
        if not has_value:
            if i + 1 >= len(args) or not isinstance(args[i + 1], str):
                raise ValueError(f"{where}: {name} needs a value")
            value, i = args[i + 1], i + 1
        try:
            out += [name, check(value)]
        except ValueError as exc:
            raise ValueError(f"{where}: {name}: {exc}") from None
        i += 1
    return out


_SPACE = re.compile(r"[\s\x00-\x1f\x7f]")


def model_id_problem(value: str) -> Optional[str]:
    """Why ``value`` cannot be a model id on a command line (a part starting with ``-`` would be read as an
    option, whitespace or a control character splits or hides it, a comma splits lm-eval's ``--model_args``),
    or None."""
    if not value:
        return "is empty"
    if _SPACE.search(value):
        return "holds whitespace or a control character"
    if any(part.startswith("-") for part in value.split("/")):
        return "has a part starting with '-' (it would be read as an option)"
    if "," in value:
        return "holds a comma"
    return None


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
    ``tensor_parallel`` overrides the rule; ``extra`` (the command line's, the only place remote code can be
    asked for) comes last, so it wins. The registry's ``args`` pass the allow-list (:func:`checked_args`)."""
    block = spec.vllm
    for what, value in (("hf_id", str(spec.hf_id)), ("served name", served_name(spec))):
        problem = model_id_problem(value)
        if problem:
            raise ValueError(f"model {spec.name!r}: {what} {value[:80]!r} {problem}")
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
    return [*args, *checked_args(block.args, "vllm.args"), *extra]
