"""Which key a ``provider/model`` id needs, and which calls need none, known without importing litellm.

A run that cannot start for want of a key should say so in a second, not after loading Inspect, litellm and
the embedder (seconds of CPU, tens on a busy machine). The table holds the key variables litellm's
``validate_environment`` names for the common providers (any one of a provider's names will do, as there);
a provider not listed is left to litellm at call time. A call needs no key when litellm answers it itself
(``mock_response``) or when it goes to a server on this machine (a loopback ``api_base``)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import urlsplit

PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",), "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "groq": ("GROQ_API_KEY",), "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",), "together_ai": ("TOGETHERAI_API_KEY",), "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY",), "fireworks_ai": ("FIREWORKS_AI_API_KEY",), "openrouter": ("OPENROUTER_API_KEY",),
    "perplexity": ("PERPLEXITYAI_API_KEY",), "huggingface": ("HUGGINGFACE_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",), "deepinfra": ("DEEPINFRA_API_KEY",), "nvidia_nim": ("NVIDIA_NIM_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",), "dashscope": ("DASHSCOPE_API_KEY",), "replicate": ("REPLICATE_API_KEY",),
    "ai21": ("AI21_API_KEY",), "nebius": ("NEBIUS_API_KEY",), "novita": ("NOVITA_API_KEY",),
    "hosted_vllm": (), "ollama": (),
}
"""litellm provider -> its key variables (empty: a self-hosted server's provider, no key)."""
MOCK = "mock_response"
LOOPBACK = "a server on this machine"


def is_loopback(base_url: Optional[str]) -> bool:
    """Whether ``base_url`` names this machine (127.0.0.0/8, ::1, localhost): no bill, no provider key."""
    if not base_url:
        return False
    host = urlsplit(base_url if "//" in base_url else f"//{base_url}").hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def keyless_reason(base_url: Optional[str], model_args: Mapping[str, Any]) -> Optional[str]:
    """Why a call needs no key at all, or None: litellm's ``mock_response`` sends no request; a loopback base
    URL is a server on this machine."""
    if "mock_response" in model_args:
        return MOCK
    if is_loopback(base_url):
        return LOOPBACK
    return None


def missing_provider_key(litellm_id: str) -> Optional[list[str]]:
    """The key variables ``litellm_id``'s provider needs when none of them is set; ``[]`` when one is set or
    none is needed; None when the provider is not in :data:`PROVIDER_KEYS` (litellm decides)."""
    provider = litellm_id.partition("/")[0]
    if provider not in PROVIDER_KEYS:
        return None
    names = PROVIDER_KEYS[provider]
    return [] if not names or any(os.environ.get(n) for n in names) else list(names)
