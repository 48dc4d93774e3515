"""Hypothesis strategies for the engine's property tests: rule sets with their options."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


@st.composite
def rule_setups(draw: st.DrawFn) -> tuple[str, int, dict[str, Any]]:
    """(rules, players, options) covering every option of every rule set."""
    name = draw(st.sampled_from(["turkish", "italian", "muggins", "all-fives"]))
    players = 2 if name == "italian" else draw(st.integers(2, 4))
    max_pip = draw(st.sampled_from([6, 6, 6, 9]))
    options: dict[str, Any] = {"max_pip": max_pip}
    total = (max_pip + 1) * (max_pip + 2) // 2
    if name == "turkish":
        options["hand_size"] = 5 if players * 7 > total else draw(st.sampled_from([5, 7]))
        options["hands"] = draw(st.integers(1, 2))
        options["double_blank"] = draw(st.sampled_from([0, 20]))
    else:
        options["hand_size"] = draw(st.one_of(st.none(), st.integers(1, min(9, total // players))))
        if options["hand_size"] is None and players * 7 > total:
            options["hand_size"] = 5
        options["no_double"] = draw(st.sampled_from(["redeal", "heaviest"]))
    if name == "italian":
        options["target"] = draw(st.sampled_from([10, 30]))
    if name in ("muggins", "all-fives"):
        options["points_per_five"] = draw(st.booleans())
        options["blocked_tie"] = draw(st.sampled_from(["split", "nobody"]))
    if name == "muggins":
        options["target"] = 150
        for key in ("reserve", "must_play", "play_again", "no_scoring_domino"):
            options[key] = draw(st.booleans())
    if name == "all-fives":
        options["target"] = 100
        options["round_going_out"] = draw(st.booleans())
        options["blocked"] = draw(st.sampled_from(["nobody", "muggins"]))
        options["stuck_ends_hand"] = draw(st.booleans())
    return name, players, options
