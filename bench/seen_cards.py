"""How often the cards seen face up catch a reveal entered wrong: plays many games with a real, shuffled deck
(``tests/assistant/realdeck.py``), and at every call tries each one-card misreading of the real cards (one card read as
another claimable rank, as a mis-tap or the camera's misreading would give) against the referee's checks. Prints the
share of misreadings caught, by the seen cards (a misfit said) and by the deck alone (more of a rank than are in play,
refused), and how many (player, rank) pairs the seen cards bound at most in a game, as a median.

    .venv/bin/python bench/seen_cards.py [--games 400] [--players 4]

A real reveal is never flagged: the games assert it at every call. No target: a figure to compare changes by.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant import CLAIMABLE, ImpossibleReveal, Rank, Rules  # noqa: E402
from assistant.game import Game, check_reveal, seen_conflict  # noqa: E402
from tests.assistant.realdeck import play_a_real_game  # noqa: E402

#: The house rules the games are played under: the README's defaults, and with fours laid out and two decks.
RULE_SETS = {
    "defaults": Rules(),
    "fours laid out": Rules(four_of_a_kind=True),
    "two decks": Rules(decks=2, max_cards=None),
}


class Tally:
    """Misreadings tried, and how each was caught."""

    def __init__(self) -> None:
        self.tried = self.by_seen = self.by_deck = 0

    def misreadings(self, game: Game, real: tuple[Rank, ...]) -> None:
        """Each card of ``real`` read as each other claimable rank, checked as the referee checks a reveal."""
        player = game.last_play.player
        for i, card in enumerate(real):
            for rank in CLAIMABLE:
                if rank is card:
                    continue
                read = real[:i] + (rank,) + real[i + 1:]
                self.tried += 1
                try:
                    check_reveal(game, read)
                except ImpossibleReveal:
                    self.by_deck += 1
                    continue
                self.by_seen += seen_conflict(game, player, read) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{args.games} games of {args.players} players per rule set, every one-card misreading at every call")
    for name, rules in RULE_SETS.items():
        tally = Tally()
        bounds = [play_a_real_game(rules, args.players, seed, on_call=tally.misreadings)[1]
                  for seed in range(args.games)]
        caught = tally.by_seen + tally.by_deck
        print(f"{name:>15}: {tally.tried} misreadings, caught {caught / tally.tried:.1%} "
              f"(seen cards {tally.by_seen / tally.tried:.1%}, deck alone {tally.by_deck / tally.tried:.1%}); "
              f"pairs bound, median of the games' most: {statistics.median(bounds)}")


if __name__ == "__main__":
    main()
