"""``numbers.normalize`` skips each LaTeX/Markdown substitution whose pattern needs a character the text lacks
(issue 44, item 3): on any text it returns what running every substitution returns."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorers import numbers as N

PIECES = st.sampled_from(["$", "$$", "\\", "\\frac{1}{2}", "\\dfrac{3}{4}", "\\text{ m}", "\\textbf{7}", "\\\\\n",
                          "\\begin{aligned}", "\\end{aligned}", "&=", "& =", "= &", "\\times", "\\$", "\\%", "{,}",
                          "１２", "＄", "\r\n", "x", " ", "=", "12,345.6", "a$b$", "$x$ ", "\n", "%", "\\left(",
                          "\\,", "&", "{", "}"])


def _every_substitution(text: str) -> str:
    """normalize as it ran before the guards: every substitution, whatever the text holds."""
    s = text.replace("\r\n", "\n").replace("{,}", ",").translate(N._TRANSLATE)
    s = N._DISPLAY_DOLLARS.sub("", s)
    s = N._INLINE_MATH.sub(r"\1", s)
    s = N._TEXT_CMD.sub(r"\1", s)
    s = N._BOLD_CMD.sub(r"**\1**", s)
    for _ in range(3):
        s, n = N._FRAC.subn(N._frac, s)
        if not n:
            break
    s = N._ENV.sub("", s)
    s = N._COMMAND.sub(N._command, s)
    return N._ALIGN_AMP.sub("", s)


@settings(max_examples=400)
@given(st.lists(PIECES | st.text(max_size=3), max_size=14).map("".join))
def test_normalize_with_guards_equals_every_substitution(text):
    assert N.normalize(text) == _every_substitution(text)
