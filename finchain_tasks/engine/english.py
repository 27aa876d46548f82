"""Small pieces of English a template should not get wrong: possessives and "a"/"an" before a number.

"Pinnacle Foods's margin" and "a 8% coupon" slipped into dozens of questions because a template writes
``"{company}'s"`` or ``"a {rate}"`` before it knows what will be drawn. The builder passes every question
and step description through :func:`tidy`, and offers :func:`possessive` and :func:`article` for text a
template assembles itself; the verifier flags what is left (rule "text").
"""

from __future__ import annotations

import re

from finchain_tasks.engine.names import PEOPLE

PLURAL_POSSESSIVE = re.compile(r"\b(?!(?:" + "|".join(name for name in PEOPLE if name.endswith("s"))
                               + r")'s)((?:[A-Z][\w&.-]* )*[A-Z][\w&.-]*(?<!s)s)'s\b")
""""Pinnacle Foods's": a plural-looking name with "'s" (a person's name such as Lucas keeps it)."""
_ARTICLE_NUMBER = re.compile(r"\b(a|an|A|An) ([$€£¥]?)(\d[\d,]*(?:\.\d+)?)")
WRONG_ARTICLE = re.compile(r"\b(?:a|A) [$€£¥]?(?:8|11(?![\d])|18(?![\d])|11,|18,|11\.|18\.)|"
                           r"\b(?:an|An) [$€£¥]?(?!8|11(?![\d])|18(?![\d])|11[,.]|18[,.])\d")
""""a 8%", "a 11-year", "an 5%": what :func:`tidy` corrects and the verifier reports if it survives."""
_PERSONAL = frozenset(name.split()[-1] for name in PEOPLE)


def possessive(name: str) -> str:
    """``name``'s possessive: "Pinnacle Foods'" for a plural-looking firm, "Lucas's" or "Maya's" for a person."""
    last = name.split()[-1] if name.split() else name
    if name.endswith("s") and last not in _PERSONAL and not name.endswith("ss"):
        return f"{name}'"
    return f"{name}'s"


def takes_an(number: str) -> bool:
    """Whether a number is read with a vowel sound first: 8, 11, 18, 80-89, 800-899, 8,000, 11,000, 18.5."""
    digits = number.lstrip("$€£¥")
    head = re.match(r"\d+", digits)
    if head is None:
        return False
    group = head.group(0)
    return group.startswith("8") or group in ("11", "18")


def article(text: str) -> str:
    """``text`` with the indefinite article it takes: "an 8% coupon", "a 7% coupon", "an 11-year bond"."""
    word = text.lstrip()
    if word[:1].isdigit() or word[:1] in "$€£¥":
        return f"{'an' if takes_an(word) else 'a'} {text}"
    return f"{'an' if word[:1].lower() in 'aeio' else 'a'} {text}"


def _fix_article(match: re.Match[str]) -> str:
    said, symbol, number = match.groups()
    right = "an" if takes_an(number) else "a"
    if said[0].isupper():
        right = right.capitalize()
    return f"{right} {symbol}{number}"


def tidy(text: str) -> str:
    """Correct the article before a number and the possessive of a plural-looking name in ``text``."""
    text = _ARTICLE_NUMBER.sub(_fix_article, text)
    if "'s" not in text:  # the possessive pattern needs one; its scan is most of a draw's text work
        return text
    return PLURAL_POSSESSIVE.sub(lambda m: possessive(m.group(1)), text)
