"""``--limit N`` takes a representative sample: the stratified order of :mod:`finchain_tasks.finchain.sampling`, used by
the Inspect task's dataset, the lm-eval leaves and ``finchain bench --harness lm-eval``."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from finchain_tasks.finchain.sampling import leaf_counts, round_robin, stratified_order

ITEMS = st.lists(st.tuples(st.sampled_from("ABCD"), st.sampled_from(["easy", "mid", "hard"]),
                           st.sampled_from("tuvw"), st.integers(0, 5)), unique=True, max_size=80)


def _balanced(prefix, order, part) -> bool:
    """Among the values of ``part`` that still have items after ``prefix``, the prefix's counts differ by at most
    one: the round-robin property, checked by counting."""
    seen = Counter(part(x) for x in prefix)
    counts = [seen[v] for v in {part(x) for x in order[len(prefix):]}]
    return not counts or max(counts) - min(counts) <= 1


@settings(max_examples=60, deadline=None)
@given(ITEMS, st.integers(0, 3))
def test_every_prefix_is_balanced_over_domains_and_within_a_domain_over_levels(items, seed):
    order = stratified_order(items, lambda x: x[:3], seed)
    assert sorted(order) == sorted(items)
    for k in range(len(order) + 1):
        assert _balanced(order[:k], order, lambda x: x[0])
        for domain in {x[0] for x in order}:
            sub = [x for x in order if x[0] == domain]
            within = [x for x in order[:k] if x[0] == domain]
            assert _balanced(within, sub, lambda x: x[1])
    for template in {x[:3] for x in items}:  # a template's items keep their given (seed) order
        assert [x for x in order if x[:3] == template] == [x for x in items if x[:3] == template]


@settings(max_examples=40, deadline=None)
@given(ITEMS, st.integers(0, 3), st.integers(0, 80))
def test_a_global_prefix_restricted_to_a_leaf_is_a_prefix_of_that_leafs_own_order(items, seed, limit):
    """What lets lm-eval (per-leaf datasets) and Inspect (one dataset) choose the same problems."""
    order = stratified_order(items, lambda x: x[:3], seed)
    counts = leaf_counts(order, lambda x: x[:2], limit)
    assert sum(counts.values()) == min(limit, len(items))
    for leaf, n in counts.items():
        own = stratified_order([x for x in items if x[:2] == leaf], lambda x: x[:3], seed)
        assert [x for x in order[:limit] if x[:2] == leaf] == own[:n]


def test_round_robin_and_seeds():
    assert round_robin([[1, 2, 3], [4], [5, 6]]) == [1, 4, 5, 2, 6, 3]
    items = [(d, lv, t, s) for d in "AB" for lv in ("easy", "hard") for t in "xy" for s in range(2)]
    first = stratified_order(items, lambda x: x[:3], 0)
    assert stratified_order(items, lambda x: x[:3], 0) == first
    assert any(stratified_order(items, lambda x: x[:3], s) != first for s in range(1, 6))
    assert {x[0] for x in first[:2]} == {"A", "B"} and {x[:2] for x in first[:4]} == {
        (d, lv) for d in "AB" for lv in ("easy", "hard")}


def test_the_inspect_task_and_the_lm_eval_leaves_are_in_the_stratified_order():
    """``--limit 2 × domains`` of the Inspect dataset covers every domain and more than one template per
    domain; an lm-eval leaf's first documents are distinct templates, not seeds of its first one."""
    from finchain_tasks.engine import all_templates
    from finchain_tasks.inspect.tasks import finchain
    from finchain_tasks.lm_eval.dataset import load_finchain

    domains = {t.domain for t in all_templates().values()}
    task = finchain(seeds=2)
    prefix = list(task.dataset)[: 2 * len(domains)]
    assert {s.metadata["domain"] for s in prefix} == domains
    assert len({s.metadata["template"] for s in prefix}) == len(prefix)
    assert task.metadata["sample_order"]["seed"] == 0
    domain = sorted(domains)[0]
    level = next(t.level for t in all_templates().values() if t.domain == domain)
    leaf = load_finchain(domain, level, finchain_seeds=3)["test"]
    templates = [row["id"].rsplit("/", 1)[0] for row in leaf][:3]
    n_templates = sum(1 for t in all_templates().values() if (t.domain, t.level) == (domain, level))
    assert len(set(templates)) == min(3, n_templates)
