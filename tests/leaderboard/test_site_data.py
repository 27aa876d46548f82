"""The site's sample data layout without a browser: one chunk per template, templateless samples (CFLUE) in
runs of CHUNK_SIZE, file names that never carry log text, and the size line the build prints."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.leaderboard.site import CHUNK_SIZE, sample_chunks, size_summary, write_samples
from tests.leaderboard import sitedata


def _sample(sid, template=None):
    return {"id": sid, "domain": "d", "topic": "t", "template": template, "level": "easy", "question": "q",
            "gold_steps": [], "gold_answer": None, "models": []}


def test_chunks_group_templates_and_cut_the_rest_in_runs():
    samples = {f"finchain/d/t/a/{k}": _sample(f"finchain/d/t/a/{k}", "a") for k in range(3)}
    samples |= {f"finchain/d/t/b/{k}": _sample(f"finchain/d/t/b/{k}", "b") for k in range(2)}
    samples |= {f"cflue/{k:03d}": _sample(f"cflue/{k:03d}") for k in range(CHUNK_SIZE + 1)}
    chunks = sample_chunks(samples)
    # by hand: template a, template b, then 50 CFLUE questions and the one left over
    assert list(chunks) == ["0000", "0001", "0002", "0003"]
    assert [len(ids) for ids in chunks.values()] == [3, 2, CHUNK_SIZE, 1]
    assert chunks["0001"] == ["finchain/d/t/b/0", "finchain/d/t/b/1"]


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=20), st.one_of(st.none(), st.text(max_size=10)), max_size=60))
def test_every_sample_is_in_exactly_one_chunk_and_names_are_digits(raw):
    samples = {sid: _sample(sid, template) for sid, template in raw.items()}
    chunks = sample_chunks(samples)
    flat = [sid for ids in chunks.values() for sid in ids]
    assert sorted(flat) == sorted(samples) and len(flat) == len(set(flat))
    assert all(re.fullmatch(r"[0-9]{4}", name) for name in chunks)


def test_the_summary_gives_the_sizes_of_what_was_written(tmp_path):
    """(A rebuild's stale chunks are removed by write_site, from its marker: tests/leaderboard/test_site_folder.py.)"""
    (tmp_path / "data.js").write_text("window.LB = {};\n")
    sizes = write_samples(tmp_path, {"x/0": _sample("x/0", "t0")})
    assert sorted(p.name for p in (tmp_path / "samples").iterdir()) == ["0000.js", "index.js"]
    assert sizes == {f"samples/{p.name}": p.stat().st_size for p in (tmp_path / "samples").iterdir()}
    assert list(sitedata.samples(tmp_path)) == ["x/0"]
    line = size_summary(tmp_path)
    chunk = (tmp_path / "samples" / "0000.js").stat().st_size
    assert f"data.js {16 / 1024:,.1f} KiB" in line and f"1 chunk(s), largest {chunk / 1024:,.1f} KiB" in line
