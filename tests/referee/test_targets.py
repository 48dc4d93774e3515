"""Targets (issue 16): any positive multiple of 5 in muggins and all-fives, any positive whole
number in italian; the defaults stay and a bad target is refused quoting it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.fields import SettingError
from referee.rules import find_rules, validate_options


@pytest.mark.parametrize(("rules", "default"), [("muggins", 200), ("all-fives", 250), ("italian", 50)])
def test_the_defaults_stay(rules: str, default: int) -> None:
    assert validate_options(rules, {})["target"] == default


@given(st.sampled_from(["muggins", "all-fives"]), st.integers(-1000, 100_000))
def test_fives_games_play_to_any_positive_multiple_of_five(rules: str, target: int) -> None:
    if target > 0 and target % 5 == 0:
        assert find_rules(rules)({"target": target}).target == target
    else:
        with pytest.raises(SettingError, match=rf"options\.target: found {target} \(int\), "
                                               r"allowed a positive multiple of 5$"):
            validate_options(rules, {"target": target})


@given(st.integers(-1000, 10**7))
def test_italian_plays_to_any_positive_whole_number(target: int) -> None:
    if target > 0:
        assert find_rules("italian")({"target": target}).target == target
    else:
        with pytest.raises(SettingError, match=rf"found {target} \(int\), allowed an integer of at least 1"):
            validate_options("italian", {"target": target})


@pytest.mark.parametrize("value", [True, 200.0, "200"])
def test_a_target_must_be_an_integer(value: object) -> None:
    with pytest.raises(SettingError, match=r"allowed a positive multiple of 5"):
        validate_options("muggins", {"target": value})
