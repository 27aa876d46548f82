"""The task version moves whenever scores stop being comparable."""

from finchain_tasks.finchain import versioning


def test_recorded_fingerprint_matches_the_current_definition():
    recorded = versioning.recorded()
    assert recorded["fingerprint"] == versioning.fingerprint(), (
        "templates, prompts or ChainEval defaults changed: bump `version` in "
        "finchain_tasks/data/task_version.yaml and record the new fingerprint "
        f"{versioning.fingerprint()}"
    )


def test_fingerprint_reacts_to_a_prompt_change(monkeypatch):
    from finchain_tasks.finchain import prompts

    before = versioning.fingerprint()
    versioning.fingerprint.cache_clear()
    monkeypatch.setattr(prompts, "SYSTEM_PROMPT", prompts.SYSTEM_PROMPT + " Be brief.")
    try:
        assert versioning.fingerprint() != before
    finally:
        versioning.fingerprint.cache_clear()


def test_version_is_a_string():
    assert versioning.task_version() == str(versioning.recorded()["version"])
