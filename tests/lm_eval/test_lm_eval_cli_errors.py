"""``finchain-lm-eval``'s plain errors and quiet log (issue 31): a misspelt ``--metadata`` option is named with its
close match, a missing lm-eval is one line, and lm-eval's per-task RULER notice is dropped for our tasks only."""

from __future__ import annotations

import logging
import sys

import pytest

from finchain_tasks.lm_eval.cli import check_metadata, main, metadata_options


def test_the_options_are_the_loaders_arguments():
    options = metadata_options()
    for name in ("finchain_seeds", "finchain_prm", "finchain_profile", "cflue_path", "cflue_n", "cflue_temperature"):
        assert name in options
    assert "finchain_run" not in options and "finchain_domain" not in options  # set by the leaves, not the user


@pytest.mark.parametrize("metadata, close", [
    ({"finchian_seeds": 2}, "finchain_seeds"),  # a letter slip outside our prefix
    ({"finchain_seed": 2}, "finchain_seeds"),
    ({"cflue_prm_zetta": 0.5}, "cflue_prm_zeta"),
    ({"finchain_colour": "blue"}, None),  # ours by its prefix, close to nothing
])
def test_a_misspelt_metadata_key_is_refused_naming_the_close_match(metadata, close):
    with pytest.raises(ValueError) as caught:
        check_metadata(metadata)
    message = str(caught.value)
    assert repr(next(iter(metadata))) in message and "finchain_seeds" in message and "\n" not in message
    assert (f"did you mean {close}?" in message) if close else "did you mean" not in message


@pytest.mark.parametrize("metadata", [None, {}, {"finchain_seeds": 2, "finchain_prm": "calc"},
                                      {"max_seq_lengths": [4096], "tokenizer": "gpt2"}, {"finchain_run": {}}])
def test_known_and_foreign_metadata_keys_pass(metadata):
    check_metadata(metadata)  # lm-eval's own (RULER's) keys are not ours to judge


def test_the_wrapper_stops_before_lm_eval_runs_with_one_line(capsys):
    code = main(["--tasks", "finchain_personal_finance_easy", "--model", "finchain-oracle",
                 "--metadata", '{"finchian_seeds": 2}'])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "did you mean finchain_seeds?" in err


def test_without_lm_eval_the_wrapper_says_which_extra_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "lm_eval", None)  # `import lm_eval` now raises ImportError
    assert main(["--tasks", "finchain"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("finchain-lm-eval: error: this needs lm-eval, which is not installed: "
                   "pip install 'finchain-tasks[lm-eval]'")


def test_lm_evals_custom_dataset_notice_is_dropped_for_our_tasks_only(caplog):
    import finchain_tasks.lm_eval  # noqa: F401  (installs the filter, as lm-eval's loading of our YAML does)

    logger = logging.getLogger("lm_eval.api.task")
    notice = ("{}: Custom kwargs can be passed to `--metadata` in console (as json string) or to the TaskManager."
              "\nFor example --metadata='{{\"max_seq_lengths\":[4096, 8192]}}'. For details see task Readme.")
    with caplog.at_level(logging.WARNING, logger="lm_eval"):
        for task in ("finchain_personal_finance_easy", "cflue_single_choice", "ruler_niah_single_1"):
            logger.warning(notice.format(task))
        logger.warning("finchain_personal_finance_easy: something else")
    shown = [r.getMessage().splitlines()[0][:46] for r in caplog.records]
    assert shown == ["ruler_niah_single_1: Custom kwargs can be pass", "finchain_personal_finance_easy: something else"]
