"""Prompt tokens of rendered chat prompts, counted with the model's own tokenizer where this machine has it.

The bill of ``finchain bench --plan`` needs each model's prompt tokens before a request is sent. Which counter a
model gets, best first, and never a download (the plan runs offline):

1. ``tiktoken`` for an OpenAI model whose name tiktoken knows (``gpt-5`` -> o200k_base), also behind a proxy's
   base URL: exact. tiktoken's encoding files are found offline (litellm ships o200k_base and cl100k_base; see
   ``finchain_tasks._registry``).
2. The Hugging Face tokenizer of an open model (``hf_id``) when it is already in the local HF cache, with its own
   chat template: exact for a server that uses that template (vLLM does by default).
3. Otherwise an approximation, marked ``≈``: per text, the larger of its o200k_base tokens and
   ``ceil(characters / 4)``. Neither rule alone serves: tokenizers that split numbers into single digits (Gemma,
   Qwen, Mistral, Llama 2) count FinChain's number-heavy English above o200k_base, where characters / 4 is close
   (measured on the local model's run: o200k_base -9.3%, chars/4 -3.9%, the larger -3.9% against Gemma's own
   count); in Chinese (CFLUE) one character is about one token and characters / 4 would count a quarter. A bill
   should not under-count. Without any tiktoken encoding, ``ceil(characters / 4)`` alone.

Counts 1 and 3 add OpenAI's chat accounting: 3 tokens per message and 3 to prime the reply (what the OpenAI API
reports as ``prompt_tokens`` beyond the texts). Identical texts (the system prompt of every sample) are counted
once. Heavy imports (tiktoken, transformers) happen inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

MESSAGE_OVERHEAD = 3
"""Tokens each chat message costs beyond its text (OpenAI's accounting)."""
REPLY_PRIMING = 3
"""Tokens every chat prompt costs to prime the assistant's reply (OpenAI's accounting)."""
CHARS_PER_TOKEN = 4
"""The last-resort approximation: one token per four characters."""
APPROX_ENCODING = "o200k_base"
"""The encoding that (with characters / 4) approximates a tokenizer this machine does not have."""

Messages = Sequence[dict[str, str]]
"""A rendered prompt: ``[{"role": ..., "content": ...}]``."""


@dataclass
class Counter:
    """Counts the prompt tokens of rendered prompts for one tokenizer."""

    name: str  # what the plan shows: "tiktoken o200k_base", "hf Qwen/Qwen3-8B", "≈ o200k_base", "≈ chars/4"
    exact: bool
    _text: Optional[Callable[[str], int]] = None  # tokens of one text (tiktoken and the approximations)
    _chat: Optional[Callable[[Messages], int]] = None  # tokens of one whole prompt (an HF chat template)
    _memo: dict[str, int] = field(default_factory=dict)

    def count(self, messages: Messages) -> int:
        """The prompt tokens of one request."""
        if self._chat is not None:
            return self._chat(messages)
        total = REPLY_PRIMING
        for message in messages:
            text = message.get("content") or ""
            if text not in self._memo:
                self._memo[text] = self._text(text) if self._text else 0
            total += self._memo[text] + MESSAGE_OVERHEAD
        return total

    def total(self, prompts: Sequence[Messages]) -> int:
        return sum(self.count(p) for p in prompts)


def chars_counter() -> Counter:
    return Counter("≈ chars/4", False, _text=lambda text: math.ceil(len(text) / CHARS_PER_TOKEN))


def _tiktoken_encoding(name: str) -> Any:
    """A tiktoken encoding found offline, or None (not installed, or its file would need a download)."""
    try:
        import tiktoken

        from finchain_tasks._registry import offline_tiktoken  # points tiktoken at the files litellm ships

        offline_tiktoken()
        return tiktoken.get_encoding(name)
    except Exception:  # no tiktoken, or the encoding file is not on this machine: an approximation serves
        return None


def _tiktoken_name(spec: Any) -> Optional[str]:
    """The tiktoken encoding of an OpenAI model served by OpenAI (no base URL of its own), or None."""
    provider, _, bare = spec.litellm_model.partition("/")
    if provider != "openai" or spec.local is not None:
        return None
    try:
        import tiktoken

        return tiktoken.encoding_name_for_model(bare)
    except (ImportError, KeyError):
        return None


def _encoder(encoding: Any) -> Callable[[str], int]:
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def _hf_counter(hf_id: str, cache_dir: Optional[str] = None) -> Optional[Counter]:
    """The Hugging Face tokenizer of ``hf_id`` when its files are in the local cache (never downloaded)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        if not isinstance(try_to_load_from_cache(hf_id, "tokenizer_config.json", cache_dir=cache_dir), str):
            return None
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(hf_id, local_files_only=True, cache_dir=cache_dir)
    except Exception:  # not cached, or a tokenizer transformers cannot load offline: an approximation serves
        return None
    if getattr(tokenizer, "chat_template", None):
        def chat(messages: Messages) -> int:
            ids = tokenizer.apply_chat_template([dict(m) for m in messages], add_generation_prompt=True,
                                                tokenize=True)
            return len(ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids)

        return Counter(f"hf {hf_id}", True, _chat=chat)
    # no chat template: the server supplies one (e.g. --chat-template); count the texts, approximate the frame
    return Counter(f"hf {hf_id} (texts; ≈ frame)", False,
                   _text=lambda text: len(tokenizer.encode(text, add_special_tokens=False)))


class Counters:
    """One counter per tokenizer for a plan (a tokenizer loads once, however many models share it)."""

    def __init__(self, hf_cache: Optional[str] = None) -> None:
        self._made: dict[str, Optional[Counter]] = {}
        self.hf_cache = hf_cache  # None: the Hugging Face default cache

    def _get(self, key: str, make: Callable[[], Optional[Counter]]) -> Optional[Counter]:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def for_model(self, spec: Any) -> Counter:
        """The best counter this machine has for ``spec`` (see the module docstring)."""
        name = _tiktoken_name(spec)
        if name:
            exact = self._get(f"tiktoken:{name}", lambda: _tiktoken_counter(name, f"tiktoken {name}", True))
            if exact is not None:
                return exact
        hf_id = getattr(spec, "hf_id", None)
        if hf_id:
            counter = self._get(f"hf:{hf_id}", lambda: _hf_counter(hf_id, self.hf_cache))
            if counter is not None:
                return counter
        approx = self._get("approx", approx_counter)
        return approx if approx is not None else self._get("chars", chars_counter)  # type: ignore[return-value]


def approx_counter() -> Optional[Counter]:
    """The larger of o200k_base and characters / 4, per text (see the module docstring); None without tiktoken."""
    encoding = _tiktoken_encoding(APPROX_ENCODING)
    if encoding is None:
        return None
    return Counter(f"≈ max({APPROX_ENCODING}, chars/4)", False,
                   _text=lambda text: max(len(encoding.encode(text, disallowed_special=())),
                                          math.ceil(len(text) / CHARS_PER_TOKEN)))


def _tiktoken_counter(name: str, label: str, exact: bool) -> Optional[Counter]:
    encoding = _tiktoken_encoding(name)
    return None if encoding is None else Counter(label, exact, _text=_encoder(encoding))
