"""The FinChain prompt: one source for both hosts (changing it changes the task version)."""

from __future__ import annotations

SYSTEM_PROMPT = (
    "You are a careful financial analyst. Solve the problem step by step. Write each step on its own "
    "line as 'Step k: <what you compute> = <result>', carrying units ($, %) on every result. "
    "Do not round intermediate results to fewer than four significant figures. "
    "End with a line 'Final answer: <value>'."
)

USER_TEMPLATE = "{question}"

COMPLETION_TEMPLATE = (
    "Solve the following financial problem step by step. Write each step on its own line as "
    "'Step k: <what you compute> = <result>', and end with a line 'Final answer: <value>'.\n\n"
    "Problem: {question}\n\nSolution:\nStep 1:"
)
"""For base models with no chat template: the answer is primed to start with the first step."""

STOP_SEQUENCES = ("\n\nProblem:", "<|im_end|>", "</s>")
MAX_NEW_TOKENS = 1024


def chat_messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": USER_TEMPLATE.format(question=question)}]


def completion_prompt(question: str) -> str:
    return COMPLETION_TEMPLATE.format(question=question)
