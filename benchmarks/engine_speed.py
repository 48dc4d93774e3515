"""Games per second: our engine against the PyPI `dominoes` engine on the game both implement.

The shared game is 4 players, all 28 tiles dealt (7 each), no boneyard, block play, the first
player leading any tile: `turkish` with 4 players in our engine. Both engines deal from a
shuffle, list the legal moves at every turn and apply a randomly chosen one until the hand ends.
Then our four rule sets play whole hands (random players, dealt by the engine, scoring included).

    python -m benchmarks.engine_speed [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import dominoes

from referee.hand import HandState
from referee.match import deal
from referee.rules import RuleSet, find_rules
from referee.tiles import full_set

NAMES = ("a", "b", "c", "d")


# Both engines' players pick uniformly with the same cheap draw, so the harness costs both alike.
def dominoes_game(rng: random.Random) -> None:
    del rng  # dominoes shuffles with the global `random`; it is seeded in rate()
    game = dominoes.Game.new()
    uniform = random.random
    while game.result is None:
        moves = game.valid_moves
        game.make_move(*moves[int(uniform() * len(moves))])


BLOCK_RULES = find_rules("turkish")()


def our_block_game(rng: random.Random) -> None:
    rules = BLOCK_RULES
    tiles = list(full_set(6))
    rng.shuffle(tiles)
    hand = HandState(rules, NAMES, lead=0, dealt=[tiles[i:i + 7] for i in range(0, 28, 7)], boneyard=[])
    uniform = rng.random
    while hand.status is None:
        moves = hand.legal_moves()
        hand.push(moves[int(uniform() * len(moves))])


def our_hand(rules: RuleSet, players: int) -> Callable[[random.Random], None]:
    names = NAMES[:players]

    def play(rng: random.Random) -> None:
        dealt, boneyard = deal(rules, players, rng)
        lead = rules.lead_seat(0, players, None, None)
        hand = HandState(rules, names, lead=lead, dealt=dealt, boneyard=boneyard)
        choice = rng.choice
        while hand.status is None:
            hand.push(choice(hand.legal_moves()))
        if hand.status is not None:
            [hand.pips(seat) for seat in range(players)]

    return play


def rate(game: Callable[[random.Random], None], seconds: float, seed: int = 1) -> float:
    """Games per second over about `seconds` of play."""
    rng = random.Random(seed)
    random.seed(seed)
    played, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            game(rng)
        played += 20
        now = time.perf_counter()
        if now >= deadline:
            return played / (now - start)


def best_rates(games: list[Callable[[random.Random], None]], seconds: float, rounds: int = 5) -> list[float]:
    """Best rate of each game over `rounds` interleaved runs, so a busy machine slows both alike."""
    best = [0.0] * len(games)
    for round_no in range(rounds):
        for index, game in enumerate(games):
            best[index] = max(best[index], rate(game, seconds / rounds, seed=round_no + 1))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    args = parser.parse_args()
    theirs, ours = best_rates([dominoes_game, our_block_game], args.seconds)
    print(f"4-player block game, random moves, {args.seconds:g} s each (best of 5 interleaved runs)")
    print(f"  dominoes (PyPI)       : {theirs:10.0f} games/s")
    print(f"  domino-referee engine : {ours:10.0f} games/s")
    print(f"  ratio ours/dominoes   : {ours / theirs:10.2f}x")
    print("our rule sets, one whole hand each (deal, random legal moves, pip count):")
    for name, players in (("turkish", 4), ("italian", 2), ("muggins", 4), ("all-fives", 4), ("muggins", 2)):
        rules = find_rules(name)()
        hands = best_rates([our_hand(rules, players)], args.seconds / 2)[0]
        print(f"  {name:9} {players} players: {hands:10.0f} hands/s")


if __name__ == "__main__":
    main()
