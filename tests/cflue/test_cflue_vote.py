"""Best-of-N: the Selector interface and majority vote over scripted samples."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers.cflue.extract import INVALID, extract_answer
from scorers.cflue.vote import MajorityVote, Selector, winning_index

VOTE = MajorityVote()


def test_majority_vote_is_a_selector():
    assert isinstance(VOTE, Selector)
    assert VOTE.name == "majority_vote"


@pytest.mark.parametrize(("samples", "index"), [
    (["答案：A", "答案：B", "答案：B"], 1),                    # plain majority, first carrier of B
    (["答案：B", "B", "**答案：B**", "答案：A"], 0),            # formats of the same answer vote together
    (["答案：A", "答案：B", "答案：B", "答案：A"], 0),            # tie A/B: A appeared first
    (["答案：B", "答案：A", "答案：A", "答案：B"], 0),            # tie: now B appeared first
    (["我不知道", "答案：C", "乱码"], 1),                        # one valid answer beats any number of invalid
    (["我不知道", "??", "答案：E?"], 2),                         # the default extractor allows A-F
    (["我不知道", "??", "无"], 0),                               # all invalid: index 0
    (["答案：D"], 0),                                            # a single sample
    (["无法判断", "无法判断", "答案：ACD", "答案：AC", "答案：ACD"], 2),  # invalid majority never wins
])
def test_scripted_votes(samples, index):
    assert VOTE.select("cflue/0-test", samples) == index


def test_per_question_extractor_restricts_letters():
    options = {"q1": "ABCD"}
    vote = MajorityVote(lambda qid, text: extract_answer(text, "robust", options[qid]))
    assert vote.answers("q1", ["答案：E", "答案：E", "答案：B"]) == [INVALID, INVALID, "B"]
    assert vote.select("q1", ["答案：E", "答案：E", "答案：B"]) == 2


def test_no_candidates_is_an_error():
    with pytest.raises(ValueError, match="q9: no candidates"):
        VOTE.select("q9", [])
    with pytest.raises(ValueError):
        winning_index([])


answers = st.lists(st.sampled_from(["A", "B", "C", "AB", INVALID]), min_size=1, max_size=16)


@settings(max_examples=300, deadline=None)
@given(answers)
def test_winner_is_a_most_frequent_valid_answer_at_its_first_position(votes):
    index = winning_index(votes)
    valid = [a for a in votes if a != INVALID]
    if not valid:
        assert index == 0
        return
    winner = votes[index]
    assert winner != INVALID
    assert valid.count(winner) == max(valid.count(a) for a in valid)
    assert votes.index(winner) == index
    tied_first = min(votes.index(a) for a in set(valid) if valid.count(a) == valid.count(winner))
    assert index == tied_first


@settings(max_examples=200, deadline=None)
@given(answers, st.randoms())
def test_unique_majority_is_invariant_to_order_and_to_extra_invalid_samples(votes, rnd):
    valid = [a for a in votes if a != INVALID]
    counts = sorted((valid.count(a) for a in set(valid)), reverse=True)
    if not valid or (len(counts) > 1 and counts[0] == counts[1]):
        return  # ties are broken by order on purpose
    winner = votes[winning_index(votes)]
    shuffled = list(votes)
    rnd.shuffle(shuffled)
    assert shuffled[winning_index(shuffled)] == winner
    assert (shuffled + [INVALID] * 3)[winning_index(shuffled + [INVALID] * 3)] == winner


class FirstValid:
    """A second Selector, as a reward-model selector would be: the interface is structural."""

    name = "first_valid"

    def select(self, question_id, candidates):
        return next((i for i, c in enumerate(candidates) if extract_answer(c, "robust") != INVALID), 0)


def test_other_selectors_fit_the_interface():
    selector = FirstValid()
    assert isinstance(selector, Selector)
    assert selector.select("q", ["??", "答案：B"]) == 1
