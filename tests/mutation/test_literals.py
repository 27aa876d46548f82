"""The literal mutation pass (tests/mutation/literals.py): each operator makes exactly the expected mutants on
tiny sources, and nothing else. No mutant is run here (that is ``make mutate``); these tests are fast."""

from __future__ import annotations

import pytest

from tests.mutation.literals import mutants_of, regex_edits


def _mutated(source: str, operator: str | None = None) -> list[str]:
    """The mutated texts of ``source`` (one operator's, when named), in the order of the text."""
    return [m.apply(source) for m in mutants_of(source) if operator is None or m.operator == operator]


@pytest.mark.parametrize(("pattern", "expected"), [
    # a top-level alternation: each alternative goes with one bar
    ("a|b|c", ["b|c", "a|c", "a|b"]),
    # a group's alternatives; the group head ((?:, (?P<n>, (?<=) is not an alternative
    ("x(?:ab|cd)y", ["x(?:cd)y", "x(?:ab)y"]),
    ("(?P<u>USD|\\$)", ["(?P<u>\\$)", "(?P<u>USD)"]),
    ("(?<=\\n|:)x", ["(?<=:)x", "(?<=\\n)x"]),
    # nested levels: the outer alternation first, then the inner
    ("(a(b|c)|d)", ["(d)", "(a(b|c))", "(a(c)|d)", "(a(b)|d)"]),
    # an escaped bar or a bar inside a class is no alternation
    ("a\\|b", []),
    ("[|x]", ["[x]", "[|]"]),
    # class items: single characters, escapes and ranges, a leading ^ or ] kept
    ("[\\d,.]", ["[,.]", "[\\d.]", "[\\d,]"]),
    ("[a-z_]", ["[_]", "[a-z]"]),
    ("[^；;]", ["[^;]", "[^；]"]),
    ("[x]", []),
    ("[]a]", ["[a]", "[]]"]),
    # a trailing hyphen is a character, not a range
    ("[a-]", ["[-]", "[a]"]),
    # a character named by its code is one item, alone or as a range's bound (not a backslash and digits)
    ("[\\u4e00-\\u9fffA-Z]", ["[A-Z]", "[\\u4e00-\\u9fff]"]),
    ("[\\x41\\U0001F600\\N{DEGREE SIGN}]", ["[\\U0001F600\\N{DEGREE SIGN}]", "[\\x41\\N{DEGREE SIGN}]",
                                         "[\\x41\\U0001F600]"]),
])
def test_regex_edits_delete_each_alternative_and_each_class_item_once(pattern, expected):
    assert [new for _, new in regex_edits(pattern)] == expected


def test_regex_mutants_are_made_only_for_patterns_passed_to_re_or_named_there():
    source = ('import re\n'
              'SEP = r"a|b"\n'
              'OTHER = "c|d"\n'
              'X = re.compile(SEP)\n'
              'def f(t):\n'
              '    return re.sub("[xy]", "", t), "e|f"\n')
    assert _mutated(source, "regex-alt") == [source.replace('r"a|b"', "'b'"), source.replace('r"a|b"', "'a'")]
    assert _mutated(source, "regex-class") == [source.replace('"[xy]"', "'[y]'"), source.replace('"[xy]"', "'[x]'")]


def test_a_regex_mutant_that_does_not_compile_is_not_made():
    # without its first alternative, "(b)\\2" names a group that no longer exists: only "(a)" is made
    source = 'import re\nR = re.compile(r"(a)|(b)\\2")\n'
    assert _mutated(source, "regex-alt") == [source.replace('r"(a)|(b)\\2"', "'(a)'")]


@pytest.mark.parametrize(("literal", "expected"), [
    ('{"yes", "true", "对"}', ['{"true", "对"}', '{"yes", "对"}', '{"yes", "true"}']),
    ('("；", ";", ",")', ['(";", ",")', '("；", ",")', '("；", ";")']),
    # a pair stays a tuple
    ('("a", "b")', ['("b",)', '("a",)']),
    ('{"a": 1, "b": 2}', ['{"b": 2}', '{"a": 1}']),
    # a table of rows drops whole rows, never a row's cell
    ('(("k", 1e3), ("m", 1e6))', ['(("m", 1e6),)', '(("k", 1e3),)']),
    # not synonyms: one item, numbers only (a shape), names, a list
    ('("a",)', []),
    ('(0, 1)', []),
    ('(a, b)', []),
    ('["a", "b"]', []),
])
def test_drop_item_drops_each_item_of_a_literal_set_tuple_or_dict_of_constants(literal, expected):
    source = f"a = b = 0\nX = {literal}\n"
    assert _mutated(source, "drop-item") == [f"a = b = 0\nX = {e}\n" for e in expected]


def test_drop_item_leaves_dunder_all_alone():
    assert _mutated('__all__ = ("f", "g")\n') == []


@pytest.mark.parametrize(("call", "expected"), [
    ("html.escape(name)", "(name)"),
    ("escape(name, quote=True)", "(name)"),
    ("urllib.parse.quote(name)", "(name)"),
    ("shlex.quote(x + y)", "(x + y)"),
    ("str(name)", None),
    ("escape()", None),
])
def test_no_escape_replaces_each_escape_call_by_its_first_argument(call, expected):
    source = f"def f(name, x, y):\n    return {call}\n"
    assert _mutated(source, "no-escape") == ([] if expected is None else [source.replace(call, expected)])


@pytest.mark.parametrize(("line", "expected"), [
    # inside an f-string, on one line and on a continued line: the call alone is edited, nothing else there
    ('f"<h1>{html.escape(title)}</h1>"', ['f"<h1>{(title)}</h1>"']),
    ('f"<a>{x >= 2}</a>{escape(str(title))}"', ['f"<a>{x >= 2}</a>{(str(title))}"']),
    ('("<p>" f"{tex(title)} & {tex(x)}")', ['("<p>" f"{(title)} & {tex(x)}")', '("<p>" f"{tex(title)} & {(x)}")']),
    # a name bound to an escape function is one too, in an f-string or not
    ('[f"<td>{e(title)}</td>", e(x)]', ['[f"<td>{(title)}</td>", e(x)]', '[f"<td>{e(title)}</td>", (x)]']),
    # other calls in an f-string are left alone
    ('f"{str(title)}"', []),
])
def test_no_escape_reaches_escape_calls_in_f_strings_and_through_a_name_bound_to_one(line, expected):
    source = f"import html\ne = html.escape\ndef f(title, x):\n    return {line}\n"
    assert _mutated(source, "no-escape") == [source.replace(line, new) for new in expected]


@pytest.mark.parametrize(("source", "expected"), [
    # UPPER_CASE module constants: integers by 1, decimals by a unit of their last digit, exponents by 10
    ("TAIL = 12\n", ["TAIL = 13\n", "TAIL = 11\n"]),
    ("TOL = 0.05\n", ["TOL = 0.06\n", "TOL = 0.04\n"]),
    ("EPS = 1e-4\n", ["EPS = 0.001\n", "EPS = 1e-05\n"]),
    ("LIMIT: int = 0\n", ["LIMIT: int = 1\n", "LIMIT: int = (-1)\n"]),
    # lower-case names and booleans are not thresholds
    ("tail = 12\n", []),
    ("FLAG = True\n", []),
])
def test_shift_moves_each_threshold_constant_one_step_each_way(source, expected):
    assert _mutated(source, "shift") == expected


def test_shift_moves_a_number_compared_with_and_no_other_number():
    source = "def f(x):\n    return x[2] >= 3\n"
    assert _mutated(source, "shift") == [source.replace("3", "4"), source.replace("3", "2")]


@pytest.mark.parametrize(("comparison", "expected"), [
    ("x >= 3", "x > 3"),
    ("x > 3", "x >= 3"),
    ("x <= LIMIT", "x < LIMIT"),
    ("3 < x", "3 <= x"),
    ("x < -1", "x <= -1"),
    ("(x)>=3", "(x)>3"),
    # not with a constant: left alone
    ("x >= y", None),
    ("x == 3", None),
])
def test_flip_swaps_the_strictness_of_each_comparison_with_a_constant(comparison, expected):
    source = f"def f(x, y):\n    return {comparison}\n"
    assert _mutated(source, "flip") == ([] if expected is None else [source.replace(comparison, expected)])


def test_a_chained_comparison_flips_only_the_operator_next_to_the_constant():
    source = "def f(x, y):\n    return y <= x <= 1.0\n"
    assert _mutated(source, "flip") == [source.replace("x <= 1.0", "x < 1.0")]


def test_pragma_no_mutate_and_f_strings_are_left_alone():
    source = ('LIMIT = 3  # pragma: no mutate\n'
              'def f(x):\n'
              '    return f"{x >= 2}"\n')
    assert mutants_of(source) == []


def test_each_mutant_is_one_edit_that_compiles_and_is_distinct():
    source = ('import html, re\n'
              'WORDS = {"a", "b"}\n'
              'MIN = 8\n'
              'R = re.compile(r"(x|y)[ab]")\n'
              'def f(s):\n'
              '    return html.escape(s) if len(s) >= MIN else s\n')
    mutants = mutants_of(source)
    texts = [m.apply(source) for m in mutants]
    assert len(set(texts)) == len(texts) and source not in texts
    for text in texts:
        compile(text, "<mutant>", "exec")
    assert sorted({m.operator for m in mutants}) == ["drop-item", "flip", "no-escape", "regex-alt", "regex-class",
                                                     "shift"]
    # the text outside the edit is untouched, byte for byte
    for m in mutants:
        raw = source.encode()
        assert m.apply(source).encode().startswith(raw[: m.start])
        assert m.apply(source).encode().endswith(raw[m.end:])
