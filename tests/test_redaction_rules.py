"""The rules of finchain_tasks/plumbing/redaction.py, one table per rule, inputs at each rule's edges (issue 39.3).

Which names are secret (every key word, whole words only, ``auth`` as a prefix), which values count as secrets
(at least ``MIN_SECRET`` characters, no surrounding spaces, plus the last ``TAIL`` characters of a longer one),
and every form a key takes in what is written: raw, JSON-escaped, inside an exception's message, body, text or
provider response.
"""

from __future__ import annotations

import json

import pytest

from finchain_tasks.plumbing import redaction
from finchain_tasks.plumbing.redaction import (
    MIN_SECRET,
    REDACTED,
    TAIL,
    configured_secrets,
    is_secret_name,
    redact,
    redact_exception,
    write_redacted,
)

KEY_WORDS = ["api_key", "apikey", "key", "secret", "token", "password", "passwd", "credential",
             "credentials", "authorization"]


@pytest.mark.parametrize("word", KEY_WORDS + ["API_KEY", "Token", "apiKey"])
@pytest.mark.parametrize("shape", ["{}", "x_{}", "{}_x", "x_{}_y"])
def test_rule_a_name_is_secret_when_one_of_its_underscore_words_is_a_key_word(word, shape):
    assert is_secret_name(shape.format(word))


@pytest.mark.parametrize("name", ["auth", "auth_header", "AUTHX", "authentication"])
def test_rule_a_name_that_starts_with_auth_is_secret(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", [
    "max_tokens", "keys", "monkey", "keyword", "secrets", "tokenizer", "passwords", "oauth_url",
    "x_auth", "api_base", "top_k", "credentialsx", "xkey", "", "api-key",
])
def test_rule_whole_words_only_and_auth_only_as_a_prefix(name):
    assert not is_secret_name(name)


def test_rule_a_name_that_is_not_a_string_is_read_as_its_text():
    assert is_secret_name(type("N", (), {"__str__": lambda self: "api_key"})()) and not is_secret_name(12)


@pytest.fixture
def clean_env(monkeypatch):
    """No secret-named variable of the machine, and no registry names: only what a test sets counts."""
    import os

    for name in list(os.environ):
        if is_secret_name(name):
            monkeypatch.delenv(name)
    monkeypatch.setattr(redaction, "_registry_key_names", lambda: frozenset())
    return monkeypatch


@pytest.mark.parametrize(("value", "expected"), [
    # the documented minimum, written out: a test relative to MIN_SECRET would move with it
    ("a" * 7, set()),  # shorter than the minimum: a placeholder ("EMPTY", "none")
    ("b" * 8, {"b" * 8}),  # the minimum itself is a secret
    (" " + "c" * 10, set()),  # surrounding spaces: not a key as sent
    ("d" * 10 + "\n", set()),
    ("e" * 12, {"e" * 12}),  # exactly TAIL long: no separate tail
    ("0123456789abcdef", {"0123456789abcdef", "456789abcdef"}),  # longer: its last TAIL characters too
])
def test_rule_a_secret_is_at_least_min_secret_long_unpadded_and_its_tail_counts(clean_env, value, expected):
    assert (MIN_SECRET, TAIL) == (8, 12)  # the figures redaction.py documents
    clean_env.setenv("SOME_API_KEY", value)
    assert configured_secrets() == expected


def test_rule_secrets_come_from_secret_named_variables_registry_names_and_extra_values(clean_env):
    clean_env.setenv("A_TOKEN", "token-value1")
    clean_env.setenv("PLAIN_SETTING", "not-a-secret-value")
    clean_env.setenv("MY_PROVIDER_VAR", "registry-val")
    clean_env.setattr(redaction, "_registry_key_names", lambda: frozenset({"MY_PROVIDER_VAR"}))
    assert configured_secrets(["extra-secret", None, "short"]) == {
        "token-value1", "registry-val", "extra-secret"}


@pytest.mark.parametrize(("text", "expected"), [
    ("key sk-0123456789abcdef end", f"key {REDACTED} end"),  # raw
    ("shown as ...456789abcdef", f"shown as ...{REDACTED}"),  # the tail alone
    ("sk-0123456789abcdefsk-0123456789abcdef", REDACTED * 2),  # every occurrence
    ("", ""),
    ("nothing here", "nothing here"),
])
def test_rule_redact_replaces_the_whole_key_before_its_tail(text, expected):
    assert redact(text, {"sk-0123456789abcdef", "456789abcdef"}) == expected


@pytest.mark.parametrize("secret", ['pa"ss\\word-1', "tab\there-key", "ключ-секрет-1"])
def test_rule_redact_takes_the_json_escaped_form_of_a_key(secret):
    written = json.dumps({"key": secret, "raw": secret}, ensure_ascii=True)
    assert json.dumps(secret)[1:-1] != secret  # each of these is written otherwise in JSON
    assert redact(written, {secret}) == json.dumps({"key": REDACTED, "raw": REDACTED})
    assert redact(f"raw {secret}", {secret}) == f"raw {REDACTED}"


@pytest.mark.parametrize("key", ["0123-key-" + "z" * 12, "sk-" + "9" * 10 + "a" * 12, "Z" * 13])
def test_rule_redact_takes_the_longest_form_first_whatever_their_letters(key):
    """The whole key goes before its tail even when the tail sorts first as text: else the key's head
    would be left beside the redaction mark."""
    tail = key[-12:]  # the first key's tail sorts after it as text, the others' before it
    assert redact(f"[{key}] [{tail}]", configured_secrets_of(key)) == f"[{REDACTED}] [{REDACTED}]"


def configured_secrets_of(key: str) -> set[str]:
    """What ``configured_secrets`` makes of one key: the key and its last ``TAIL`` characters."""
    return {key, key[-TAIL:]}


def test_rule_redact_without_secrets_returns_the_text_unchanged():
    assert redact("sk-0123456789abcdef", set()) == "sk-0123456789abcdef"


def test_rule_redact_reads_the_environment_when_given_no_secrets(clean_env):
    clean_env.setenv("SOME_API_KEY", "sk-from-the-env-42")
    assert redact("a sk-from-the-env-42 b") == f"a {REDACTED} b"


class _ProviderError(Exception):
    def __init__(self, *args, **attrs):
        super().__init__(*args)
        self.__dict__.update(attrs)


class _ReadOnly(Exception):
    @property
    def message(self):
        return "fixed sk-0123456789abcdef"


SECRET = "sk-0123456789abcdef"


@pytest.mark.parametrize("attr", ["message", "body", "text", "llm_provider_response"])
def test_rule_an_exception_loses_the_key_from_each_text_attribute(attr):
    exc = redact_exception(_ProviderError("x", **{attr: f"401: {SECRET}"}), {SECRET})
    assert getattr(exc, attr) == f"401: {REDACTED}"


@pytest.mark.parametrize("attr", ["message", "body", "text", "llm_provider_response"])
def test_rule_an_exception_loses_the_key_from_each_dict_attribute(attr):
    exc = redact_exception(_ProviderError("x", **{attr: {"error": {"msg": SECRET, "n": 1}}}), {SECRET})
    assert getattr(exc, attr) == {"error": {"msg": REDACTED, "n": 1}}


def test_rule_an_exception_loses_the_key_from_its_string_args_and_keeps_the_others():
    exc = redact_exception(_ProviderError(f"bad {SECRET}", 401, None), {SECRET})
    assert exc.args == (f"bad {REDACTED}", 401, None) and str(exc) == f"('bad {REDACTED}', 401, None)"


def test_rule_a_read_only_attribute_is_left_and_the_rest_still_redacted():
    exc = _ReadOnly(f"bad {SECRET}")
    exc.body = SECRET
    redact_exception(exc, {SECRET})
    assert exc.args == (f"bad {REDACTED}",) and exc.body == REDACTED


def test_rule_an_exception_with_no_secrets_configured_is_returned_as_it_is(clean_env):
    exc = _ProviderError(f"bad {SECRET}", body=SECRET)
    assert redact_exception(exc) is exc and exc.args == (f"bad {SECRET}",) and exc.body == SECRET


def test_rule_write_redacted_writes_utf8_without_the_key(clean_env, tmp_path):
    clean_env.setenv("SOME_API_KEY", SECRET)
    write_redacted(tmp_path / "r.md", f"é {SECRET}")
    assert (tmp_path / "r.md").read_bytes() == f"é {REDACTED}".encode()
