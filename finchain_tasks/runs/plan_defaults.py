"""The stated defaults a bill (``finchain bench --plan``) falls back on, in one place, each with its reason.

A plan prefers measurements: output tokens and seconds per request from the model's earlier runs in the run
directory (its summary, else its response cache). Without them it uses the figures below and says so in every
row it prices with them. They are planning figures, not promises: the range beside each default is what the
plan's low and high costs use.

Output tokens per request (a FinChain answer: steps, then a final line). Grounded where we have data: the
FinChain authors' own outputs (results/metamath_13b.jsonl, 2,700 answers) measure 198 o200k tokens on average,
10th-90th percentile 50-302; financeconnect_13b 124 (45-215). Chat models of the frontier write longer steps; a
reasoning model (the registry gives those ``max_tokens`` of 4096 or more, see its header) bills its hidden
reasoning as output too. Every figure is capped at the request's ``max_tokens``.

Wall time: the registry holds no rate limits, so each provider gets a default below (requests per minute of a
low paid tier, and a per-request speed); a model's time is ``max(requests / rpm, requests x seconds per request
/ connections)``. Models run side by side in eval-set (one connection pool each), so a bench takes as long as its
slowest model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class OutputGuess:
    """Output tokens per request: the expected figure and the range the low and high costs use."""

    expected: int
    low: int
    high: int
    why: str


OUTPUT_DEFAULTS: dict[str, OutputGuess] = {
    "frontier": OutputGuess(400, 150, 1000, "frontier chat model"),
    "finance": OutputGuess(400, 150, 1000, "finance chat model"),
    "math": OutputGuess(200, 50, 400, "math model (cf. MetaMath-13B: 198)"),
    "general": OutputGuess(400, 150, 1000, "general chat model"),
    "local": OutputGuess(256, 100, 256, "local model, writes to max_tokens"),
    "other": OutputGuess(400, 150, 1000, "model not in the registry"),
}
REASONING = OutputGuess(2500, 600, 8192, "reasoning model (thinking billed)")
"""The guess for a model whose registry ``max_tokens`` is at least :data:`REASONING_MAX_TOKENS`."""
REASONING_MAX_TOKENS = 4096


def output_guess(category: str, max_tokens: Optional[int]) -> OutputGuess:
    """The default for a model's category (a reasoning model's when its registry budget says so), capped at
    the request's ``max_tokens``."""
    guess = REASONING if (max_tokens or 0) >= REASONING_MAX_TOKENS else OUTPUT_DEFAULTS.get(category,
                                                                                             OUTPUT_DEFAULTS["other"])
    if max_tokens:
        guess = OutputGuess(min(guess.expected, max_tokens), min(guess.low, max_tokens), min(guess.high, max_tokens),
                            guess.why)
    return guess


@dataclass(frozen=True)
class Throughput:
    """A provider's default limits and speed, for wall time."""

    rpm: Optional[int]  # requests per minute; None: no published limit (a self-hosted server)
    tokens_per_s: float  # output tokens per second of one request
    first_token_s: float  # seconds before the first output token
    why: str

    def seconds_per_request(self, output_tokens: float) -> float:
        return self.first_token_s + output_tokens / self.tokens_per_s


THROUGHPUT: dict[str, Throughput] = {
    "openai": Throughput(500, 80.0, 0.6, "OpenAI tier 1, 500 rpm"),
    "anthropic": Throughput(50, 60.0, 1.0, "Anthropic tier 1, 50 rpm"),
    "gemini": Throughput(150, 100.0, 1.0, "Gemini tier 1, 150 rpm"),
    "xai": Throughput(480, 60.0, 0.8, "xAI, 480 rpm"),
    "deepseek": Throughput(None, 30.0, 1.5, "DeepSeek, no rpm limit"),
    "deepinfra": Throughput(None, 40.0, 1.0, "DeepInfra, no rpm limit"),
    "hosted_vllm": Throughput(None, 40.0, 0.3, "self-hosted (vLLM, 7-8B, 1 GPU)"),
}
DEFAULT_THROUGHPUT = Throughput(60, 30.0, 1.0, "unknown provider, 60 rpm")
LOCAL_THROUGHPUT = Throughput(None, 36.0, 1.0, "local model, 2 CPU cores")
DEFAULT_CONNECTIONS = 10
"""Inspect's default connections per model (``inspect_ai._util.constants.DEFAULT_MAX_CONNECTIONS``)."""


def throughput(provider: str, local: bool) -> Throughput:
    return LOCAL_THROUGHPUT if local else THROUGHPUT.get(provider, DEFAULT_THROUGHPUT)
