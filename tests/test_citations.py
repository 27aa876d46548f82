"""The README cites FinChain with its arXiv identifier and link, and CFLUE's paper wherever CFLUE is used (issue 45,
item 5): the README's citation section and the CFLUE tasks' own page."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CITATION = (REPO / "README.md").read_text(encoding="utf-8").split("## Citation", 1)[1]


@pytest.mark.parametrize("page, needed", [
    ("README.md#citation", ["arXiv:2506.02515", "https://arxiv.org/abs/2506.02515", "@article{xie2025finchain",
                            "@inproceedings{zhu2024cflue", "https://arxiv.org/abs/2405.10542"]),
    ("finchain_tasks/cflue/README.md", ["https://arxiv.org/abs/2405.10542", "README.md#citation"]),
])
def test_rule_each_paper_is_cited_with_its_arxiv_link_where_its_data_is_used(page, needed):
    text = CITATION if page.endswith("#citation") else (REPO / page).read_text(encoding="utf-8")
    assert [n for n in needed if n not in text] == []
