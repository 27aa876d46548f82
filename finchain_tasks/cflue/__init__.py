"""CFLUE knowledge questions (Chinese financial qualification exams): loader and prompts.

Host-free core: lm-eval and Inspect tasks wrap these. Importing is cheap (stdlib only); answer
extraction, metrics and Best-of-N live in :mod:`scorers.cflue`.
"""

from finchain_tasks.cflue.loader import (
    MULTI,
    QUESTION_TYPES,
    SAMPLE_PATH,
    SINGLE,
    TRUE_FALSE,
    CflueData,
    CflueDataError,
    CflueRecord,
    load_cflue,
    select,
)

__all__ = ["MULTI", "QUESTION_TYPES", "SAMPLE_PATH", "SINGLE", "TRUE_FALSE", "CflueData", "CflueDataError",
           "CflueRecord", "load_cflue", "select"]
