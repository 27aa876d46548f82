"""The model registry: the shipped file, one-line errors naming file/entry/field, user extension, keys, prices."""

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchain_tasks.cli.main import app
from finchain_tasks.cli.main import console as cli_console
from finchain_tasks.models.registry import (
    CATEGORIES,
    KEYLESS_PLACEHOLDER,
    ModelSpec,
    Price,
    RegistryError,
    api_key,
    generation_params,
    litellm_kwargs,
    load_registry,
    merge_registries,
    missing_env,
    missing_key,
    resolve_model,
    resolve_price,
)
from tests.support.timeouts import limit

REPO = Path(__file__).resolve().parents[2]
PAPER_MODELS = 26


@pytest.fixture(scope="module")
def shipped():
    return load_registry()


def write(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------ the shipped file
def test_shipped_registry_has_the_paper_models_and_the_local_one(shipped):
    assert len(shipped.models) >= PAPER_MODELS + 1
    assert {m.category for m in shipped.models.values()} == set(CATEGORIES)
    paper = shipped.leaderboards["paper26"]
    assert len(paper.models) == PAPER_MODELS and paper.task_sets == ("finchain",)
    local = shipped.models["local-gemma3-270m"]
    assert local.category == "local" and local.api_key_env is None and local.local is not None
    assert set(shipped.task_sets) >= {"finchain", "finchain_fresh", "cflue"}


def test_every_shipped_model_is_complete(shipped):
    for m in shipped.models.values():
        assert m.display_name and "/" in m.litellm_model
        assert m.api_key_env or m.api_base_env, f"{m.name}: neither a key nor a base URL"
        if m.open_weights and m.category != "local":
            assert m.hf_id and m.hf_id.count("/") == 1, m.name


def test_top_level_registry_yaml_is_the_shipped_file():
    """One source of truth: the repository's registry.yaml is the package data file itself."""
    top, packaged = REPO / "registry.yaml", REPO / "finchain_tasks" / "data" / "registry.yaml"
    assert top.is_symlink() and top.resolve() == packaged.resolve()
    assert load_registry(top).models == load_registry().models


def test_no_price_is_zero_and_unknown_stays_unknown(shipped):
    for m in shipped.models.values():
        assert m.price is None or (m.price.input > 0 and m.price.output > 0), m.name
        price = resolve_price(m)
        assert price is None or (price.input > 0 and price.output > 0), m.name
    assert resolve_price(shipped.models["fin-r1"]) is None  # self-hosted: cost unknown, not 0
    assert resolve_price(shipped.models["gpt-5"]).source.startswith("litellm")


def test_registry_prices_only_where_litellm_has_none(shipped):
    """Prices come from litellm's map first; the registry fills gaps only (else two sources could disagree)."""
    import litellm

    for m in shipped.models.values():
        if m.price is not None:
            entry = litellm.model_cost.get(m.litellm_model) or litellm.model_cost.get(m.litellm_model.split("/", 1)[1])
            assert not (entry and entry.get("input_cost_per_token")), f"{m.name}: litellm prices it; drop `price`"
            assert resolve_price(m) == m.price


def test_a_zero_price_in_litellms_map_counts_as_unknown(monkeypatch):
    import litellm

    monkeypatch.setitem(litellm.model_cost, "openai/finchain-retired", {
        "litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 0.0, "output_cost_per_token": 0.0})
    spec = ModelSpec("r", "R", "openai/finchain-retired", "frontier", False, api_key_env="OPENAI_API_KEY")
    assert resolve_price(spec) is None
    with_price = ModelSpec("r", "R", "openai/finchain-retired", "frontier", False, price=Price(1.0, 2.0))
    assert resolve_price(with_price) == Price(1.0, 2.0)


# ------------------------------------------------------------------------------------------ errors: one line each
GOOD_MODEL = """\
  - name: m1
    display_name: M1
    litellm_model: openai/m1
    category: frontier
    open_weights: false
    api_key_env: OPENAI_API_KEY
"""

ERRORS = {
    "unknown model field": (
        GOOD_MODEL + "    temprature: 0\n",
        "models[0] (m1): unknown field 'temprature'"),
    "unknown generation field": (
        GOOD_MODEL + "    generation: {temprature: 0}\n",
        "models[0] (m1): generation: unknown field 'temprature' (did you mean 'temperature'?)"),
    "unknown category": (
        GOOD_MODEL.replace("frontier", "frontiers"),
        "models[0] (m1): category: unknown value 'frontiers' (expected frontier | finance | math | general | local)"),
    "wrong type": (
        GOOD_MODEL + "    params_b: seven\n",
        "models[0] (m1): params_b: expected a number or null, got 'seven'"),
    "missing field": (
        GOOD_MODEL.replace("    litellm_model: openai/m1\n", ""),
        "models[0] (m1): missing field 'litellm_model'"),
    "duplicate name": (
        GOOD_MODEL + GOOD_MODEL,
        "models[1] (m1): name: duplicate model name 'm1'"),
    "zero price": (
        GOOD_MODEL + "    price: {input: 0, output: 0}\n",
        "models[0] (m1): price: must be positive (an unknown price is left out, never 0)"),
    "open weights without hub id": (
        GOOD_MODEL.replace("open_weights: false", "open_weights: true"),
        "models[0] (m1): hf_id: an open-weights model names its Hugging Face repository"),
    "bad env name": (
        GOOD_MODEL.replace("OPENAI_API_KEY", "sk-123"),
        "models[0] (m1): api_key_env: 'sk-123' is not an environment variable name"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_each_model_error_is_one_line_naming_file_entry_and_field(tmp_path, case):
    body, expected = ERRORS[case]
    path = write(tmp_path, "models:\n" + body)
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    assert str(err.value) == f"{path}: {expected}"
    assert "\n" not in str(err.value)


FILE_ERRORS = {
    "leaderboard names an unknown model": (
        "models:\n" + GOOD_MODEL + "leaderboards:\n  b: {title: B, models: [m1, m1x], task_sets: []}\n",
        "leaderboards.b: models: unknown model 'm1x' (did you mean 'm1'?)"),
    "leaderboard names an unknown task set": (
        "models:\n" + GOOD_MODEL + "leaderboards:\n  b: {title: B, models: [m1], task_sets: [finchian]}\n",
        "leaderboards.b: task_sets: unknown task set 'finchian'"),
    "unknown top-level field": (
        "modles: []\n", "unknown top-level field 'modles' (expected one of version, extends, models, task_sets, "
        "leaderboards)"),
    "unknown task-set field": (
        "task_sets:\n  t: {task: finchain, seeds: 3}\n", "task_sets.t: unknown field 'seeds'"),
    "duplicate yaml key": (
        "task_sets:\n  t: {task: finchain}\n  t: {task: cflue}\n", "line 3: duplicate key 't'"),
    "not yaml": ("models: [\n", None),
}


@pytest.mark.parametrize("case", sorted(FILE_ERRORS))
def test_file_level_errors_are_one_line(tmp_path, case):
    text, expected = FILE_ERRORS[case]
    path = write(tmp_path, text)
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    if expected is None:
        assert "not valid YAML" in message
    else:
        assert message == f"{path}: {expected}"


def test_the_shipped_file_is_named_in_its_own_errors(tmp_path, monkeypatch):
    import finchain_tasks.models.registry as registry

    broken = registry.default_registry_text().replace("category: math", "category: maths", 1)
    monkeypatch.setattr(registry, "default_registry_text", lambda: broken)
    with pytest.raises(RegistryError, match=r"^registry\.yaml \(shipped\): models\[\d+\] \(wizardmath\): category:"):
        load_registry()


# ------------------------------------------------------------------------------------------ user registries
def test_user_registry_extends_the_shipped_one_and_overrides_by_name(tmp_path, shipped):
    path = write(tmp_path, """\
        extends: default
        models:
          - name: gpt-5
            display_name: GPT-5 via my proxy
            litellm_model: openai/gpt-5
            category: frontier
            open_weights: false
            api_key_env: MY_PROXY_KEY
            api_base: https://proxy.example/v1
          - name: my-model
            display_name: Mine
            litellm_model: hosted_vllm/me/mine-7b
            category: finance
            params_b: 7
            open_weights: true
            hf_id: me/mine-7b
            api_base_env: MY_MODEL_API_BASE
        leaderboards:
          mine: {title: Mine vs GPT-5, models: [gpt-5, my-model], task_sets: [finchain]}
        """)
    reg = load_registry(path)
    assert list(reg.models)[:len(shipped.models)] == list(shipped.models)  # shipped order kept
    assert list(reg.models)[-1] == "my-model" and len(reg.models) == len(shipped.models) + 1
    assert reg.models["gpt-5"].display_name == "GPT-5 via my proxy"
    assert reg.models["gpt-5"].generation.temperature == 0.0  # replaced as a whole, not field by field
    assert reg.models["gpt-4.1"] == shipped.models["gpt-4.1"]
    assert set(reg.leaderboards) == {"paper26", "local", "mine"}
    assert reg.sources == ("registry.yaml (shipped)", str(path))


def test_extends_a_path_relative_to_the_file_and_rejects_cycles(tmp_path):
    write(tmp_path, "extends: default\nmodels:\n" + GOOD_MODEL, name="base.yaml")
    top = write(tmp_path, "extends: base.yaml\nleaderboards:\n  b: {title: B, models: [m1, gpt-5], task_sets: []}\n")
    assert set(load_registry(top).leaderboards["b"].models) == {"m1", "gpt-5"}
    write(tmp_path, "extends: b.yaml\n", name="a.yaml")
    write(tmp_path, "extends: a.yaml\n", name="b.yaml")
    with pytest.raises(RegistryError, match=r"extends: circular"):
        load_registry(tmp_path / "a.yaml")
    missing = write(tmp_path, "extends: nowhere.yaml\n", name="c.yaml")
    with pytest.raises(RegistryError, match=r"c\.yaml: extends: .*nowhere\.yaml: no such registry file"):
        load_registry(missing)


def test_a_standalone_user_registry_does_not_see_shipped_models(tmp_path):
    board = "leaderboards:\n  b: {title: B, models: [gpt-5], task_sets: []}\n"
    path = write(tmp_path, "models:\n" + GOOD_MODEL + board)
    with pytest.raises(RegistryError, match=r"leaderboards\.b: models: unknown model 'gpt-5'"):
        load_registry(path)


def test_merge_registries_later_wins(tmp_path, shipped):
    mine = load_registry(write(tmp_path, "models:\n" + GOOD_MODEL.replace("m1", "gpt-4.1")))
    merged = merge_registries(shipped, mine)
    assert merged.models["gpt-4.1"].display_name == "M1" and shipped.models["gpt-4.1"].display_name == "GPT-4.1"
    assert list(merged.models) == list(shipped.models)


# ------------------------------------------------------------------------------------------ resolving and calling
def test_resolve_model_by_name_by_litellm_id_or_ad_hoc(shipped):
    assert resolve_model("claude-sonnet-4.5", shipped).display_name == "Claude Sonnet 4.5"
    assert resolve_model("anthropic/claude-sonnet-4-5-20250929", shipped).name == "claude-sonnet-4.5"
    ad_hoc = resolve_model("openrouter/some/model", shipped)
    assert ad_hoc.category == "other" and ad_hoc.litellm_model == "openrouter/some/model"
    with pytest.raises(ValueError, match=r"unknown model 'gpt5'.*did you mean gpt-5"):
        resolve_model("gpt5", shipped)


def test_missing_key_and_base_name_the_variable(shipped, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("FINCHAIN_FIN_R1_API_BASE", raising=False)
    assert missing_key(shipped.models["gpt-5"]) == "OPENAI_API_KEY"
    assert missing_key(shipped.models["fin-r1"]) is None and missing_env(shipped.models["fin-r1"]) == [
        "FINCHAIN_FIN_R1_API_BASE"]
    assert missing_env(shipped.models["local-gemma3-270m"]) == []
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    assert missing_key(shipped.models["gpt-5"]) is None


def test_litellm_kwargs_apply_per_model_params_and_never_hold_a_key(shipped, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    monkeypatch.setenv("FINCHAIN_FIN_R1_API_BASE", "http://gpu-box:8000/v1")
    task = {"temperature": 0.0, "max_tokens": 1024, "stop": ["\n\nProblem:"]}
    gpt5 = litellm_kwargs(shipped.models["gpt-5"], **task)
    assert gpt5 == {"model": "openai/gpt-5", "max_tokens": 8192, "drop_params": True}
    assert generation_params(shipped.models["gpt-5"], **task)[1] == ["temperature", "stop"]
    fin = litellm_kwargs(shipped.models["fin-r1"], **task)
    assert fin["api_base"] == "http://gpu-box:8000/v1" and fin["temperature"] == 0.0 and fin["stop"]
    for spec in shipped.models.values():
        assert "sk-test-secret-123" not in repr(litellm_kwargs(spec, **task))
    assert api_key(shipped.models["gpt-5"]) == "sk-test-secret-123"  # read at call time, from the env
    # a keyless local server gets a placeholder, never the OpenAI key that happens to be in the environment
    assert api_key(shipped.models["local-gemma3-270m"]) == KEYLESS_PLACEHOLDER


# ------------------------------------------------------------------------------------------ the CLI
def test_models_command_lists_models_and_key_status_without_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-456")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(cli_console, "_width", 200)  # not whatever terminal the test runner has
    result = CliRunner().invoke(app, ["models"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 3}
    assert "yes" in lines["gpt-5"] and "set ANTHROPIC_API_KEY" in lines["claude-sonnet-4.5"]
    assert len(lines) >= PAPER_MODELS + 1 and "sk-test-secret-456" not in result.output


def test_models_command_reports_a_bad_registry_in_one_line(tmp_path):
    path = write(tmp_path, "models:\n" + GOOD_MODEL + "    temprature: 0\n")
    result = CliRunner().invoke(app, ["models", "--registry", str(path)])
    assert result.exit_code == 2
    assert "unknown field 'temprature'" in " ".join(result.output.split())


# ------------------------------------------------------------------------------------------ hostile files
def _laughs(levels: int, width: int = 10, use: str = "    notes: *l{last}\n") -> str:
    """The "billion laughs" shape: each anchor lists ``width`` aliases of the previous one, so the last one
    stands for width**levels strings while the file stays a few hundred bytes."""
    lines = ["x0: &l0 lol"]
    for i in range(1, levels + 1):
        lines.append(f"x{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    # the anchors ride in a model's `extra` mapping (free-form values), the alias in its `notes`
    extra = "    generation:\n      extra:\n" + "".join(f"        {line}\n" for line in lines)
    return "models:\n" + GOOD_MODEL + extra + use.format(last=levels)


def test_yaml_aliases_are_refused_before_anything_expands(tmp_path):
    import tracemalloc

    path = write(tmp_path, _laughs(6))  # 10**6 strings once expanded; its repr alone would be ~7 MB
    assert path.stat().st_size < 1000
    tracemalloc.start()
    try:
        with pytest.raises(RegistryError) as err:
            load_registry(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(err.value).startswith(f"{path}: line ") and "aliases" in str(err.value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200
    assert peak < 2_000_000, f"refusing a 1 kB file took {peak / 1e6:.1f} MB"


@pytest.mark.slow
def test_the_billion_laughs_file_is_refused_under_a_memory_cap(tmp_path):
    """The full shape (10**9 strings) in a process capped at 1 GB of address space: refused, not expanded."""
    import subprocess
    import sys

    path = write(tmp_path, _laughs(9))
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from finchain_tasks.models.registry import load_registry, RegistryError\n"
            f"try:\n    load_registry({str(path)!r})\nexcept RegistryError as e:\n    print('refused:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit(300),
                          cwd=REPO, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "aliases" in done.stdout


HOSTILE = {
    "complex key": ("task_sets:\n  ? [a, b]\n  : {task: finchain}\n",
                    "line 2: a mapping key must be a plain name, not a sequence"),
    "mapping key": ("task_sets:\n  ? {a: 1}\n  : {task: finchain}\n",
                    "line 2: a mapping key must be a plain name, not a mapping"),
    "nan temperature": ("models:\n" + GOOD_MODEL + "    generation: {temperature: .nan}\n",
                        "models[0] (m1): generation: temperature: expected a finite number, got nan"),
    "infinite size": ("models:\n" + GOOD_MODEL + "    params_b: .inf\n",
                      "models[0] (m1): params_b: expected a finite number, got inf"),
    "negative infinite price": ("models:\n" + GOOD_MODEL + "    price: {input: -.inf, output: 1}\n",
                                "models[0] (m1): price: input: expected a finite number, got -inf"),
    "huge max_tokens": ("models:\n" + GOOD_MODEL + "    generation: {max_tokens: " + "9" * 40 + "}\n",
                        f"models[0] (m1): generation: max_tokens: {'9' * 19}… is too large (at most {2**53})"),
    "deep nesting": ("models: " + "[" * 5000 + "]" * 5000 + "\n", "line 1: nested deeper than 64 levels"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_registry_values_are_one_line_errors_naming_the_field(tmp_path, case):
    text, expected = HOSTILE[case]
    path = write(tmp_path, text)
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    assert str(err.value) == f"{path}: {expected}"


def test_a_100k_digit_number_is_one_short_line(tmp_path):
    path = write(tmp_path, "models:\n" + GOOD_MODEL + "    params_b: " + "7" * 100_000 + "\n")
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    message = str(err.value)
    assert message.startswith(f"{path}: a number is too long") and len(message) < 300 and "\n" not in message


def test_models_command_refuses_an_alias_file_in_one_line(tmp_path):
    path = write(tmp_path, _laughs(3))
    result = CliRunner().invoke(app, ["models", "--registry", str(path)])
    assert result.exit_code == 2
    assert "YAML aliases (*name) are not allowed" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_models_command_is_readable_at_80_columns(monkeypatch, shipped):
    """Every model name and every variable still to set is printed whole on the model's row (or the line below
    it, never cut), and no line is wider than the terminal."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(cli_console, "_width", 80)
    for spec in shipped.models.values():
        for env in (spec.api_key_env, spec.api_base_env):
            if env:
                monkeypatch.delenv(env, raising=False)
    result = CliRunner().invoke(app, ["models"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    for spec in shipped.models.values():
        (row,) = [i for i, line in enumerate(lines) if line.split() and line.split()[0] == spec.name]
        shown = " ".join(lines[row:row + 2]).split()
        assert spec.category in shown
        for env in missing_env(spec):
            assert env in shown, f"{spec.name}: {env} is not printed whole"


def test_the_entries_are_pydantic_validated_with_one_strict_config():
    """Issue 31: the registry's hand-written type checks gave way to pydantic; its dataclasses carry the strict
    configuration, so any pydantic reader (a JSON schema for editors, say) applies the registry's own rules."""
    from pydantic import TypeAdapter

    from finchain_tasks.models.registry import Generation

    schema = TypeAdapter(ModelSpec).json_schema()
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]["category"]["enum"]) == {"frontier", "finance", "math", "general", "local"}
    generation = TypeAdapter(Generation)
    for bad in ({"temperature": "0.5"}, {"drop_params": 1}, {"temperature": float("nan")}, {"temprature": 0}):
        with pytest.raises(ValueError):
            generation.validate_python(bad)
