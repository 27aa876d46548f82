"""CFLUE prompts: one source of the prompt text for both hosts (changing it changes scores).

The zero-shot prompts follow the official CFLUE ones (an expert persona; single-choice asks for
exactly one option letter, multiple-choice says several options may be correct, true/false uses the
single-choice prompt; both ask for an "答案：" line then a "解析：" line). The wording here is our
own, written to that description. The chain-of-thought variant asks for the analysis first and the
answer line last, so the answer is conditioned on the reasoning; extraction's "last answer line
wins" rule (robust mode) reads it, and the analysis metrics read the "解析：" part of either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finchain_tasks.cflue.loader import MULTI

SYSTEM_PROMPT = "你是一名金融领域的专家，熟悉各类金融从业资格考试的知识。"

_HEADER = "以下是中国{exam}考试中的一道{task}。"
_SINGLE_RULE = "请从选项中选出唯一正确的答案，只返回一个选项字母。"
_MULTI_RULE = "本题可能有多个正确选项，请选出所有正确的选项，并返回全部正确选项的字母。"
_FORMAT = "请严格按照以下格式分两行输出：\n答案：<选项字母>\n解析：<对答案的解释>"
_COT_FORMAT = ("请先逐步分析题目和每个选项，再给出答案。请严格按照以下格式输出：\n"
               "解析：<逐步分析过程>\n答案：<选项字母>\n最后一行必须是“答案：”开头的答案行。")

MAX_NEW_TOKENS = 512
COT_MAX_NEW_TOKENS = 1024
STOP_SEQUENCES: tuple[str, ...] = ()
"""No stop sequences: the analysis after the answer line is scored too (BLEU/ROUGE)."""


def format_choices(choices: Mapping[str, str]) -> str:
    """``A. 选项一`` lines in letter order."""
    return "\n".join(f"{letter}. {text}" for letter, text in sorted(choices.items()))


def instruction(task: str, *, cot: bool = False) -> str:
    """The answering rule for a question type: multiple-choice has its own, the others the single one."""
    rule = _MULTI_RULE if task == MULTI else _SINGLE_RULE
    return f"{rule}\n{_COT_FORMAT if cot else _FORMAT}"


def render_prompt(question: str, choices: Mapping[str, str], task: str, exam: str = "", *, cot: bool = False) -> str:
    """The user prompt: header, answering rule and format, then the question and its options."""
    header = _HEADER.format(exam=exam or "金融资格", task=task)
    return f"{header}{instruction(task, cot=cot)}\n\n题目：{question}\n{format_choices(choices)}"


def record_prompt(record: Any, *, cot: bool = False) -> str:
    """:func:`render_prompt` for a :class:`~finchain_tasks.cflue.loader.CflueRecord`."""
    return render_prompt(record.question, record.choices, record.task, record.exam, cot=cot)


def chat_messages(record: Any, *, cot: bool = False) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": record_prompt(record, cot=cot)}]


def prompt_texts() -> list[str]:
    """Every constant that shapes a prompt, for a task-version fingerprint."""
    return [SYSTEM_PROMPT, _HEADER, _SINGLE_RULE, _MULTI_RULE, _FORMAT, _COT_FORMAT]
