"""The registry's ``vllm:`` blocks and the ``vllm serve`` argument list built from them (pure, no vLLM)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finchain_tasks.finchain import prompts
from finchain_tasks.models.registry import RegistryError, VllmServe, load_registry
from finchain_tasks.models.vllm_args import (
    OVERHEAD,
    chat_template_path,
    memory_needed_gb,
    serve_args,
    served_name,
    shipped_chat_templates,
    tensor_parallel_size,
)

SHIPPED = load_registry()
OPEN = [m for m in SHIPPED.models.values() if m.open_weights and m.category != "local"]


def flag(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def test_every_open_weight_model_but_the_local_one_has_a_vllm_block():
    assert len(OPEN) == 15
    assert [m.name for m in OPEN if m.vllm is None] == []
    assert SHIPPED.models["local-gemma3-270m"].vllm is None  # llama.cpp serves it (serve-local)


@pytest.mark.parametrize("spec", OPEN, ids=lambda m: m.name)
def test_the_argument_list_of_every_open_registry_model(spec):
    args = serve_args(spec, port=8123, host="0.0.0.0", gpu_memory_gb=80)
    assert args[:2] == ["serve", spec.hf_id]
    assert flag(args, "--port") == "8123" and flag(args, "--host") == "0.0.0.0"
    # the name it answers to is the registry's litellm id without the provider, so litellm reaches it unchanged
    if spec.litellm_model.startswith("hosted_vllm/"):
        assert f"hosted_vllm/{flag(args, '--served-model-name')}" == spec.litellm_model
    else:
        assert flag(args, "--served-model-name") == spec.hf_id
    assert flag(args, "--tensor-parallel-size") == str(tensor_parallel_size(spec, 80))
    block = spec.vllm
    assert flag(args, "--revision") == block.revision == "main"
    assert flag(args, "--max-model-len") == str(block.max_model_len)
    assert int(block.max_model_len) > (spec.generation.max_tokens or prompts.MAX_NEW_TOKENS)
    assert flag(args, "--reasoning-parser") == block.reasoning_parser
    assert flag(args, "--quantization") == block.quantization
    assert flag(args, "--dtype") == block.dtype
    template = flag(args, "--chat-template")
    assert (template is None) == (block.chat_template is None)
    assert template is None or Path(template).is_file()
    assert len(args) % 2 == 0  # every flag has its value (no stray word after `serve MODEL`)


def test_reasoning_parsers_and_chat_templates_where_the_models_need_them():
    parsers = {m.name: m.vllm.reasoning_parser for m in OPEN if m.vllm.reasoning_parser}
    assert parsers == {"deepseek-r1": "deepseek_r1", "fin-r1": "deepseek_r1", "dianjin-r1": "deepseek_r1",
                       "qwen3-8b": "qwen3"}
    templates = {m.name for m in OPEN if m.vllm.chat_template}
    assert templates == {"wizardmath", "metamath"}


@pytest.mark.parametrize(("name", "memory", "tp"), [
    ("fin-r1", 24, 1), ("fin-r1", 16, 2), ("llama-3.1-8b-instruct", 80, 1),
    ("deepseek-r1", 141, 8), ("deepseek-r1", 80, 16), ("deepseek-v3.1", 80, 16)])
def test_tensor_parallel_size_by_gpu_memory(name, memory, tp):
    assert tensor_parallel_size(SHIPPED.models[name], memory) == tp


@given(params_b=st.floats(0.1, 2000), memory=st.floats(4, 300), quant=st.sampled_from([None, "fp8", "awq"]),
       dtype=st.sampled_from(["auto", "float32"]), util=st.floats(0.5, 1.0))
def test_the_rule_picks_the_smallest_power_of_two_that_holds_the_weights(params_b, memory, quant, dtype, util):
    spec = dataclasses.replace(SHIPPED.models["fin-r1"], params_b=params_b,
                               vllm=VllmServe(quantization=quant, dtype=dtype, gpu_memory_utilization=util))
    tp = tensor_parallel_size(spec, memory)
    needed, usable = memory_needed_gb(spec), memory * util
    assert tp & (tp - 1) == 0
    assert tp * usable >= needed * (1 - 1e-9)
    assert tp == 1 or (tp // 2) * usable < needed
    per_param = {None: 4 if dtype == "float32" else 2, "fp8": 1, "awq": 0.5}[quant]
    assert math.isclose(needed, params_b * per_param * OVERHEAD)


def test_a_fixed_tensor_parallel_size_wins_and_bad_memory_is_refused():
    spec = dataclasses.replace(SHIPPED.models["deepseek-r1"], vllm=VllmServe(tensor_parallel_size=4))
    assert tensor_parallel_size(spec, 80) == 4
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="GPU memory"):
            tensor_parallel_size(SHIPPED.models["fin-r1"], bad)
    with pytest.raises(ValueError, match="no `vllm` block"):
        tensor_parallel_size(SHIPPED.models["gpt-5"], 80)


def test_extra_arguments_come_last_and_the_served_name_of_an_api_hosted_model_is_its_hf_id():
    spec = SHIPPED.models["mathstral"]
    args = serve_args(spec, port=1, extra=["--tokenizer-mode", "mistral"], tensor_parallel=2)
    assert args[-2:] == ["--tokenizer-mode", "mistral"] and flag(args, "--tensor-parallel-size") == "2"
    assert served_name(SHIPPED.models["deepseek-r1"]) == "deepseek-ai/DeepSeek-R1"


def test_chat_templates_by_name_or_path(tmp_path):
    assert set(shipped_chat_templates()) == {"alpaca-cot"}
    own = tmp_path / "mine.jinja"
    own.write_text("{{ messages[0]['content'] }}", encoding="utf-8")
    assert chat_template_path(str(own)) == str(own)
    with pytest.raises(ValueError, match="unknown chat template 'chatml'.*alpaca-cot"):
        chat_template_path("chatml")
    with pytest.raises(ValueError, match="no such file"):
        chat_template_path(str(tmp_path / "absent.jinja"))


@pytest.mark.parametrize("trim", [True, False], ids=["as-transformers-renders", "plain-jinja"])
def test_the_alpaca_template_renders_the_wizardmath_prompt_with_our_system_prompt(trim):
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    text = Path(chat_template_path("alpaca-cot")).read_text(encoding="utf-8")
    template = ImmutableSandboxedEnvironment(trim_blocks=trim, lstrip_blocks=trim).from_string(text)
    rendered = template.render(messages=prompts.chat_messages("What is 2 + 2?"), add_generation_prompt=True,
                               bos_token="<s>", eos_token="</s>")
    assert rendered == ("<s>Below is an instruction that describes a task. Write a response that appropriately "
                        f"completes the request.\n\n{prompts.SYSTEM_PROMPT}\n\n### Instruction:\nWhat is 2 + 2?\n\n"
                        "### Response: Let's think step by step.")
    turn = template.render(messages=[{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"}],
                           add_generation_prompt=False, bos_token="", eos_token="</s>")
    assert turn.endswith("### Instruction:\nQ\n\n### Response: A</s>")


def _entry(vllm: str, extra: str = "") -> str:
    return ("models:\n  - {name: m, display_name: M, litellm_model: hosted_vllm/o/m, category: general, "
            f"open_weights: true, hf_id: o/m, api_base_env: M_BASE{extra}, vllm: {vllm}}}\n")


@pytest.mark.parametrize(("vllm", "extra", "message"), [
    ("{max_model_len: 4096, tensor_paralel_size: 2}", "",
     "vllm: unknown field 'tensor_paralel_size' (did you mean 'tensor_parallel_size'?)"),
    ("{dtype: bf16}", "", "vllm: dtype: unknown value 'bf16'"),
    ("{max_model_len: '4096'}", "", "vllm: max_model_len: expected an integer or null, got '4096'"),
    ("{max_model_len: 1024}", ", generation: {max_tokens: 1024}", "leaves no room for the prompt"),
    ("{tensor_parallel_size: 3}", "", "must be a power of two"),
    ("{gpu_memory_utilization: 1.5}", "", "gpu_memory_utilization: must be in (0, 1]"),
    ("{chat_template: chatml}", "", "chat_template: no shipped template 'chatml'"),
    ("{args: [--trust-remote-code]}", "", "vllm: args[0]: '--trust-remote-code' is not a vLLM option a registry"),
    ("{args: ['--trust-remote-code=true']}", "", "vllm: args[0]: '--trust-remote-code' is not a vLLM option"),
    ("{revision: 'main; rm -rf /'}", "", "revision: 'main; rm -rf /' is not a plain name"),
    ("{reasoning_parser: \"<b>x</b>\"}", "", "reasoning_parser: '<b>x</b>' is not a plain name"),
    ("{revision: ''}", "", "revision: '' is not a plain name"),
    ("{revision: mäin}", "", "revision: 'mäin' is not a plain name"),
    ("{gpu_memory_utilization: .nan}", "", "gpu_memory_utilization: expected a finite number"),
    ("{max_model_len: 1.0e+308}", "", "max_model_len: expected an integer or null, got 1e+308"),
    ("{max_model_len: 99999999999999999999}", "", "max_model_len: 99999999999999999999 is too large"),
])
def test_a_bad_vllm_block_is_one_line_naming_the_field(tmp_path, vllm, extra, message):
    path = tmp_path / "r.yaml"
    path.write_text(_entry(vllm, extra), encoding="utf-8")
    with pytest.raises(RegistryError) as err:
        load_registry(path)
    assert message in str(err.value) and "models[0] (m)" in str(err.value) and "\n" not in str(err.value)


def test_a_vllm_block_on_a_closed_model_is_refused(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("models:\n  - {name: c, display_name: C, litellm_model: openai/c, category: general, "
                    "open_weights: false, api_key_env: K, vllm: {}}\n", encoding="utf-8")
    with pytest.raises(RegistryError, match=r"models\[0\] \(c\): vllm: only an open-weights model with an hf_id"):
        load_registry(path)
