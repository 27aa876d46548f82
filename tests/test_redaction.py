"""One rule decides which argument names are secrets, for logs, result files and cache keys alike."""

import pytest

from finchain_tasks.redaction import is_secret_name


@pytest.mark.parametrize("name", ["api_key", "OPENAI_API_KEY", "apikey", "key", "access_token", "auth_token",
                                  "authorization", "Authorization", "password", "client_secret", "credentials"])
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["max_tokens", "top_k", "temperature", "api_base", "base_url", "model",
                                  "keyword", "monkey", "tokenizer_backend"])
def test_ordinary_parameters(name):
    assert not is_secret_name(name)
