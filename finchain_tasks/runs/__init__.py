"""Runs: benchmark models on FinChain through Inspect's eval-set, resumably, with a response cache,
a summary and a report, all inside one run directory.

Layout of a run directory::

    <run-dir>/logs/            Inspect's eval-set log dir (.eval logs, eval-set.json)
    <run-dir>/responses.sqlite the response cache (a re-run never re-sends a request that succeeded)
    <run-dir>/run.json         what was asked for: models, task sets, options, sessions (never a key)
    <run-dir>/summary.json     the summary read back from the logs
    <run-dir>/report.md, report.html
    <run-dir>/lm_eval/<model>/<task set>/   ``--harness lm-eval``: lm-eval's results and samples, status.json

lm-eval's response cache (``--use_cache``, pickles) is *not* in the run directory: it lives in the user's
cache directory, keyed by run (:func:`finchain_tasks.runs.lm_eval_harness.cache_prefix`; docs/security.md).

Cheap to import: Inspect, litellm and rich load inside the functions that need them.
"""

LOGS = "logs"
CACHE = "responses.sqlite"
MANIFEST = "run.json"
SUMMARY = "summary.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
LM_EVAL = "lm_eval"
LM_EVAL_CACHE = "lm_eval_cache"
