"""Registry files build ``vllm serve`` (and lm-eval) command lines from an allow-list (issue 40.1): every
spelling that would reach an option outside it is refused in one line naming the file, the entry and the field,
and remote code is asked for only on the user's own command line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from finchain_tasks.models.registry import RegistryError, load_registry
from finchain_tasks.models.vllm_args import ALLOWED_OPTIONS, checked_args, serve_args


def _registry(tmp_path, vllm: str = "{}", hf_id: str = "o/m", litellm: str = "hosted_vllm/o/m"):
    path = tmp_path / "r.yaml"
    path.write_text("models:\n  - {name: m, display_name: M, litellm_model: '" + litellm + "', category: general, "
                    "open_weights: true, hf_id: '" + hf_id + "', api_base_env: M_BASE, vllm: " + vllm + "}\n",
                    encoding="utf-8")
    return path


def _refusal(path) -> str:
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "models[0] (m)" in message
    return message


@pytest.mark.parametrize("args", [
    ["--trust-remote-code"], ["--trust_remote_code"], ["--trust-remote-code=1"], ["--trust-remote-code=true"],
    ["--trust-remote"], ["--trust"], ["--TRUST-REMOTE-CODE"], ["-T"], ["-O", "3"], ["-O3"],
    ["--config", "x.yaml"], ["--config=x.yaml"], ["--load-format", "pt"], ["--generation-config", "/tmp/x"],
    ["--max-num-seqs", "--trust-remote-code"], ["--max-num-seqs=-1"], ["--max-num-seqs", "1e9"],
    ["--seed", "1 --trust-remote-code"], ["--tool-call-parser", "-x"], ["--enforce-eager=1"],
    ["o/other-model"], ["--swap-space", "nan"], ["--max-num-seqs"], [" --trust-remote-code"],
    ["--dtype", "half"],
], ids=lambda a: " ".join(a))
def test_rule_registry_args_outside_the_allow_list_are_refused_naming_the_field(tmp_path, args):
    quoted = ", ".join("'" + a.replace("'", "''") + "'" for a in args)
    message = _refusal(_registry(tmp_path, "{args: [" + quoted + "]}"))
    assert "vllm: args[" in message


@pytest.mark.parametrize(("args", "argv"), [
    (["--enforce-eager"], ["--enforce-eager"]),
    (["--max-num-seqs", "64"], ["--max-num-seqs", "64"]),
    (["--max-num-seqs=064"], ["--max-num-seqs", "64"]),
    (["--pipeline-parallel-size", "2", "--distributed-executor-backend=ray"],
     ["--pipeline-parallel-size", "2", "--distributed-executor-backend", "ray"]),
    (["--swap-space", "4.5", "--seed", "0"], ["--swap-space", "4.5", "--seed", "0"]),
    (["--tool-call-parser", "hermes", "--enable-auto-tool-choice"],
     ["--tool-call-parser", "hermes", "--enable-auto-tool-choice"]),
], ids=lambda a: " ".join(a))
def test_rule_allowed_options_pass_written_out_in_full(tmp_path, args, argv):
    assert checked_args(args) == argv
    quoted = ", ".join(f"'{a}'" for a in args)
    spec = load_registry(_registry(tmp_path, "{args: [" + quoted + "]}")).model("m")
    built = serve_args(spec, port=1, tensor_parallel=1)
    assert built[-len(argv):] == argv


@pytest.mark.parametrize(("field", "value"), [
    ("hf_id", "--trust-remote-code"), ("hf_id", "o/--trust-remote-code"), ("hf_id", "o/m --trust-remote-code"),
    ("hf_id", "o/m\ttab"), ("litellm_model", "hosted_vllm/--trust-remote-code"),
    ("litellm_model", "hosted_vllm/o/m x"), ("litellm_model", "hosted_vllm/-o"),
    ("litellm_model", "openai/m,base_url=http://evil.example"),
])
def test_rule_a_model_id_starting_with_a_dash_or_holding_whitespace_is_refused(tmp_path, field, value):
    kwargs = {"hf_id": value} if field == "hf_id" else {"litellm": value}
    message = _refusal(_registry(tmp_path, **kwargs))
    assert f": {field}: " in message


def test_every_allowed_option_is_a_long_option_and_remote_code_is_not_among_them():
    assert all(name.startswith("--") and "_" not in name for name in ALLOWED_OPTIONS)
    assert not any("remote" in name or name == "--config" for name in ALLOWED_OPTIONS)


def test_remote_code_comes_only_from_the_users_command_line(tmp_path):
    spec = load_registry(_registry(tmp_path)).model("m")
    argv = serve_args(spec, port=1, tensor_parallel=1, extra=["--trust-remote-code"])
    assert argv[-1] == "--trust-remote-code" and argv.count("--trust-remote-code") == 1


def test_a_spec_built_outside_the_registry_is_checked_where_the_argv_is_built():
    vllm = SimpleNamespace(args=("--trust_remote_code",), dtype="auto", gpu_memory_utilization=0.9, revision=None,
                           quantization=None, max_model_len=None, reasoning_parser=None, chat_template=None,
                           tensor_parallel_size=1)
    spec = SimpleNamespace(name="x", hf_id="o/m", litellm_model="hosted_vllm/o/m", vllm=vllm, params_b=None)
    with pytest.raises(ValueError, match=r"vllm.args\[0\]"):
        serve_args(spec, port=1)
    spec = SimpleNamespace(**{**vars(spec), "vllm": SimpleNamespace(**{**vars(vllm), "args": ()}),
                              "hf_id": "--trust-remote-code"})
    with pytest.raises(ValueError, match="hf_id '--trust-remote-code' has a part starting with '-'"):
        serve_args(spec, port=1)


def test_lm_eval_model_args_refuse_a_served_id_that_would_add_an_argument():
    from finchain_tasks.runs.lm_eval_harness import model_args

    spec = SimpleNamespace(name="x", litellm_model="openai/m,base_url=http://evil.example")
    options = SimpleNamespace(max_connections=1, max_retries=1, timeout=None)
    with pytest.raises(ValueError, match="holds a comma"):
        model_args(spec, "http://127.0.0.1:1/v1", options)
