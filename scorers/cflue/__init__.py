"""CFLUE scoring, host-free: answer extraction, metrics, and Best-of-N selection.

Importing is cheap; jieba (for the analysis BLEU/ROUGE) is imported only when those run.
"""

from scorers.cflue.extract import INVALID, extract_answer
from scorers.cflue.vote import MajorityVote, Selector

__all__ = ["INVALID", "MajorityVote", "Selector", "extract_answer"]
