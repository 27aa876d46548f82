"""lm-eval's notices about our own tasks that tell a user nothing: filtered from lm-eval's log.

lm-eval 0.4.13 logs a WARNING for every task whose data comes from a ``custom_dataset`` function, with a RULER
example (``--metadata='{"max_seq_lengths":[4096, 8192]}'``): a full FinChain run printed it 36 times, once per
leaf, about options that are not ours. Only that notice, and only for our tasks (``finchain_*``, ``cflue_*``),
is dropped; every other lm-eval message, and the same notice for anyone else's task, passes.
"""

from __future__ import annotations

import logging

NOTICE = "Custom kwargs can be passed to `--metadata`"
LOGGER = "lm_eval.api.task"
OUR_PREFIXES = ("finchain_", "cflue_")


class CustomDatasetNotice(logging.Filter):
    """Drops lm-eval's custom-dataset notice for our tasks."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot format itself is not ours to judge
            return True
        task, _, rest = message.partition(":")
        return not (NOTICE in rest and task.strip().startswith(OUR_PREFIXES))


def install() -> None:
    """Add the filter to lm-eval's task logger once (idempotent: imports may run it again)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(f, CustomDatasetNotice) for f in logger.filters):
        logger.addFilter(CustomDatasetNotice())
