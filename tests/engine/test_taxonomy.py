"""The taxonomy file loads as intended: every topic is exactly a name and a scope (issue 11)."""

import re
from importlib import resources

import yaml

from finchain_tasks.finchain.taxonomy import domains

TEXT = resources.files("finchain_tasks.data").joinpath("taxonomy.yaml").read_text("utf-8")
RAW = yaml.safe_load(TEXT)
# Read the scopes a second way, from the text itself, so a YAML mis-split cannot hide.
LINE = re.compile(r'^    (\w+): \{name: "([^"]+)", scope: "([^"]+)"\}$', re.M)


def test_every_topic_is_exactly_a_name_and_a_scope():
    for dom_id, dom in RAW.items():
        for topic_id, topic in dom["topics"].items():
            where = f"{dom_id}/{topic_id}"
            assert set(topic) == {"name", "scope"}, f"{where} loads as {topic!r}"
            assert all(isinstance(v, str) and v.strip() for v in topic.values()), where


def test_scopes_keep_their_commas():
    from_text = {m.group(1): (m.group(2), m.group(3)) for m in LINE.finditer(TEXT)}
    loaded = {t.id: (t.name, t.scope) for d in domains().values() for t in d.topics}
    assert len(from_text) == len(loaded) == 58
    assert loaded == from_text
    assert domains()["accounting_and_financial_reporting"].topics[0].scope.startswith(
        "accounting equation, working capital items,")
