"""The suite's one timeout scale: FINCHAIN_TEST_TIMEOUT_SCALE stretches every hang guard, and a bad value is an
error, not a silent default."""

import pytest

from tests.support.timeouts import SCALE_ENV, limit


@pytest.mark.parametrize(("raw", "expected"), [(None, 30.0), ("", 30.0), ("1", 30.0), ("2.5", 75.0), (" 4 ", 120.0),
                                               ("0.5", 15.0)])
def test_the_scale_multiplies_every_limit(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv(SCALE_ENV, raising=False)
    else:
        monkeypatch.setenv(SCALE_ENV, raw)
    assert limit(30) == expected


@pytest.mark.parametrize("raw", ["abc", "0", "-1", "nan", "inf"])
def test_a_scale_that_is_not_a_positive_number_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv(SCALE_ENV, raw)
    with pytest.raises(ValueError, match=SCALE_ENV):
        limit(30)
