"""The rules engine: the state of a sitting, derived event by event.

Every event goes through :func:`advance`, which returns a new :class:`State` and never touches the
old one. That single mechanism gives all-or-nothing changes (an illegal event raises before
anything is kept), undo (go back to the previous state), replay and crash recovery (apply the
stored log from the start).
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .cards import Rank, card_count, last_cards, step
from .errors import CheatError, IllegalAction, ImpossibleReveal
from .events import Call, Event, FourOfAKind, NewGame, NoCall, Pass, Play, Winner
from .rules import MIN_PLAYERS, RANKED_POINTS, CountRule, Order, Rules, TableKind
from .seen import Seen, count, elsewhere, emptied, forget, laid_down, laid_out, picked_up, where


def who(name: str) -> str:
    """A player's name as a message says it: quoted where spaces or unseen characters would hide what it is, so that
    "Ann" and "Ann " in one transcript read as two names ("it is Ann's turn, not "Ann "'s"), not as one. "Zoë" typed
    as an e and a combining diaeresis reads as "Zoë" too, and is another string: its marks are written as escapes."""
    composed = unicodedata.normalize("NFC", name) == name
    shows = all(c.isprintable() or c in _JOINERS for c in name)
    if shows and composed and name == " ".join(name.split()):
        return name
    # quoted, and only what does not show written as an escape ("Zoë\u200b", "Ann\tLee", "Zoe\u0308"): the rest as
    # it reads
    return '"' + "".join(json.dumps(c)[1:-1] if _hides(c, composed) else c for c in name) + '"'


def _hides(c: str, composed: bool) -> bool:
    """Whether a character of a name would hide what the name is, were it printed as it is: it does not show; or, in
    a name not in composed form (NFC), it is what that form writes otherwise: a mark on the letter before it (a
    combining diaeresis, a Bengali vowel's second part), a letter with a twin (the Kelvin sign's K), or a Korean
    syllable's part."""
    if not (c.isprintable() or c in _JOINERS) or c in '"\\':
        return True
    return not composed and (unicodedata.category(c).startswith("M") or unicodedata.normalize("NFC", c) != c
                             or 0x1100 <= ord(c) <= 0x11FF)


#: The zero-width non-joiner and joiner: part of how a Persian name or a family emoji is written, not hidden.
_JOINERS = "\u200c\u200d"



def _of_rank(rank: Rank, n: int) -> str:
    """'1 joker', '2 cards of rank A'."""
    if rank is Rank.JOKER:
        return "1 joker" if n == 1 else f"{n} jokers"
    return f"{card_count(n)} of rank {rank.value}"


def _at_most(n: int) -> str:
    return "none" if n <= 0 else f"only {n}"


def _in_play(n: int) -> str:
    """'none is', 'only 1 is', 'only 3 are' (in play)."""
    return "none is" if n == 0 else "only 1 is" if n == 1 else f"only {n} are"


@dataclass(frozen=True)
class Claim:
    """What a player said they laid down: "three 7s"."""

    player: str
    count: int
    rank: Rank


@dataclass(frozen=True)
class Verdict:
    """The outcome of a call: who lied, who picks up, and how the hands were corrected."""

    caller: str
    challenged: str
    claim: Claim
    revealed: tuple[Rank, ...]
    lie: bool
    picked_up_by: str
    cards: int

    @property
    def wrong_ranks(self) -> tuple[Rank, ...]:
        """The revealed cards that are neither the claimed rank nor a joker."""
        return tuple(r for r in self.revealed if r not in (self.claim.rank, Rank.JOKER))

    @property
    def count_difference(self) -> int:
        """Cards actually played minus cards claimed: the correction to the challenged hand."""
        return len(self.revealed) - self.claim.count

    def announcement(self) -> str:
        """The sentence the referee says aloud."""
        word = "Lie" if self.lie else "Honest"
        return f"{word}: {self.picked_up_by} picks up {card_count(self.cards)}"


@dataclass
class Game:
    """One deal, from the deal to the last place. Mutated only on a fresh copy inside :func:`advance`;
    ``fours_out`` is shared between copies and replaced, never mutated, when a four is laid out."""

    players: tuple[str, ...]
    dealer: str
    rules: Rules
    hands: dict[str, int]
    turn: str | None
    pile: int = 0
    #: the plays laid face down on the pile since it was last picked up: the seen cards name the plays they may be in
    plays_on_pile: int = 0
    out_of_game: int = 0
    fours_out: dict[Rank, int] = field(default_factory=dict)
    reference: Rank = Rank.ACE
    opening: bool = True
    awaiting_call: bool = False
    last_play: Claim | None = None
    last_call: Verdict | None = None
    places: tuple[str, ...] = ()
    over: bool = False
    #: the cards seen face up in reveals, and where each can be now (:mod:`assistant.seen`)
    seen: Seen = ()

    def copy(self) -> "Game":
        clone = Game.__new__(Game)
        clone.__dict__.update(self.__dict__)
        clone.hands = dict(self.hands)
        return clone

    @property
    def ranks_allowed(self) -> tuple[Rank, ...]:
        """The ranks the next play may claim, as they come around the cycle: one below the last claim, (the same,)
        one above. In the order A, 2, ..., K a table after kings was offered "aces, queens or kings"."""
        if self.over:
            return ()
        order = self.rules.order
        if self.opening or order not in (Order.UP_OR_DOWN, Order.SAME_OR_ADJACENT):
            return (self.reference,)
        deltas = (-1, 1) if order is Order.UP_OR_DOWN else (-1, 0, 1)
        return tuple(step(self.reference, d) for d in deltas)

    @property
    def active(self) -> tuple[str, ...]:
        """Players still in the game: not placed yet (a pending last play still counts as in)."""
        return tuple(p for p in self.players if p not in self.places)

    @property
    def last_play_emptied_a_hand(self) -> bool:
        """Whether the last play, still open to a call, emptied its player's hand: that player is out only if the play
        survives, and the table is told so."""
        claim = self.last_play
        return self.awaiting_call and claim is not None and self.hands[claim.player] == 0

    @property
    def last_play_ends_the_game(self) -> bool:
        """Whether the last play, still open to a call, emptied its player's hand and ends the game unless it is caught:
        nobody plays over it then, and the table has only Cheat! or "nobody calls". Settled on a copy, as "nobody
        calls" would settle it."""
        if not self.last_play_emptied_a_hand:
            return False
        settled = self.copy()
        _settle(settled)
        return settled.over

    def card_total(self) -> int:
        """Hands, pile and cards out of the game: always the deck size."""
        return sum(self.hands.values()) + self.pile + self.out_of_game


@dataclass(frozen=True)
class GameResult:
    """One row of the match table."""

    number: int
    players: tuple[str, ...]
    places: tuple[str, ...]
    kind: TableKind
    #: dealt here, its plays followed by the referee (until its end, or until a tap ended it)
    tracked: bool
    #: ended by a tap on its winner, not played out: a tracked game in progress can be ended so, and its History
    #: must not claim the rules saw it won
    tapped: bool

    @property
    def winner(self) -> str:
        return self.places[0]

    def points(self) -> dict[str, int]:
        table = (1,) if self.kind is TableKind.MATCH else RANKED_POINTS
        return {name: table[i] for i, name in enumerate(self.places[: len(table)])}


@dataclass(frozen=True)
class MatchTable:
    """The sitting's table: one row per finished game, and everyone who sat at any game."""

    kind: TableKind = TableKind.MATCH
    rows: tuple[GameResult, ...] = ()
    players: tuple[str, ...] = ()

    def scores(self) -> dict[str, int]:
        """Wins (match) or 3/2/1 points (ranked) per player; players who won nothing have 0."""
        totals = dict.fromkeys(self.players, 0)
        for row in self.rows:
            for name, points in row.points().items():
                totals[name] = totals.get(name, 0) + points
        return totals

    def ranking(self) -> list[tuple[str, int]]:
        """Each player and their :meth:`scores`, highest first, players level in the order the scores list them (the
        table's, the order they first sat): the standing's table and its chart both follow it."""
        return sorted(self.scores().items(), key=lambda kv: -kv[1])

    def in_table_order(self, names: Iterable[str]) -> list[str]:
        """``names`` (the calls table's players, in the order each first played or called) in the table's order of
        players, the order they first sat; any the table does not hold after them, in their own order, not left out."""
        names = list(names)
        return [p for p in self.players if p in names] + [p for p in names if p not in self.players]

    def kinds(self) -> set[TableKind]:
        """The kinds of the games the standing counts: a sitting may mix match and ranked games, whose points differ
        (one a win, 3-2-1 for places), and a standing named after the latest game's kind alone misread them. The
        table's own kind where no game is finished."""
        return {row.kind for row in self.rows} or {self.kind}

    def with_players(self, players: tuple[str, ...]) -> "MatchTable":
        new = tuple(p for p in players if p not in self.players)
        return MatchTable(self.kind, self.rows, self.players + new) if new else self

    def with_row(self, players: tuple[str, ...], places: tuple[str, ...], tracked: bool, tapped: bool) -> "MatchTable":
        row = GameResult(len(self.rows) + 1, players, places, self.kind, tracked, tapped)
        return MatchTable(self.kind, self.rows + (row,), self.with_players(players).players)


def standing_counts(kinds: set[TableKind]) -> str:
    """How a standing counts, said for the kinds of games it counts (:meth:`MatchTable.kinds`): a sitting may mix
    them, and then a match game's win is one point beside a ranked game's 3-2-1. The screen and the command line's
    summary say it in these words alike."""
    if kinds == {TableKind.MATCH}:
        return "one point per win"
    if kinds == {TableKind.RANKED}:
        return "3-2-1 points for places"
    return "match games: one point per win; ranked games: 3-2-1 points for places"


@dataclass(frozen=True)
class State:
    """Everything the referee knows after some events: the current game (or None) and the table."""

    game: Game | None = None
    table: MatchTable = MatchTable()


def advance(state: State, event: Event) -> State:
    """The state after ``event``; raises :class:`IllegalAction` (and changes nothing) if it is not legal."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise IllegalAction(f"{type(event).__name__} is not applied by advance")
    return handler(state, event)


# --- new games and results -------------------------------------------------------------------


#: The most games a sitting's match table holds: every state kept for undo holds the table's rows, so a sitting of
#: hundreds of thousands of one-tap winners would need gigabytes to replay. An evening is a few dozen games.
MAX_GAMES = 10_000


def _room_for_a_game(state: State) -> None:
    if len(state.table.rows) >= MAX_GAMES:
        raise IllegalAction(f"this sitting already holds {MAX_GAMES:,} games: start a new sitting for more")


def _new_game(state: State, event: NewGame) -> State:
    players, rules = event.players, event.rules
    _room_for_a_game(state)
    if rules.players_off(len(players)):
        decks = "one deck" if rules.decks == 1 else "two decks"
        raise IllegalAction(f"a game with {decks} takes {MIN_PLAYERS} to {rules.max_players} players, "
                            f"not {len(players)}")
    seen: set[str] = set()
    for name in players:
        if name in seen:
            raise IllegalAction(f"{who(name)} is listed twice; player names must be unique")
        seen.add(name)
    dealer = event.dealer if event.dealer is not None else default_dealer(state, players)
    _require_seated(players, dealer, "dealer")
    first = event.first if event.first is not None else _left_of(players, dealer)
    _require_seated(players, first, "first player")
    dealt = dealt_from_left(players, dealer, rules)
    game = Game(
        players=players,
        dealer=dealer,
        rules=rules,
        hands={name: dealt[name] for name in players},
        turn=first,
    )
    table = MatchTable(rules.table, state.table.rows, state.table.players).with_players(players)
    return State(game, table)


def dealt_from_left(players: tuple[str, ...], dealer: str, rules: Rules) -> dict[str, int]:
    """The cards each player is dealt, in the order the deal goes round: one at a time from the dealer's left, the
    first seats getting the extra cards. The setup shows this deal before it is made and the rules make it: one
    reckoning for both."""
    start = players.index(dealer) + 1
    seats = [players[(start + k) % len(players)] for k in range(len(players))]
    return dict(zip(seats, rules.deal_sizes(len(players))))


def default_dealer(state: State, players: tuple[str, ...]) -> str:
    """The dealer of a ``new_game`` that names none (TRANSCRIPT.md): the last player listed for a sitting's first game;
    later, the left of the previous dealer, or the last player listed again where that dealer has left the table. A
    game recorded by one tap on its winner was dealt too, by the next player to the left: the deal has passed on once
    for each since the last game dealt here (or since the sitting began). Stored and imported logs are replayed by
    this rule: it must not change (see :func:`next_dealer` for the one the setup offers)."""
    previous = state.game.dealer if state.game is not None else None
    last_dealt = players.index(previous) + 1 if previous in players else len(players) - 1
    return players[(last_dealt + tapped_since_a_deal(state)) % len(players)]


def next_dealer(state: State, players: tuple[str, ...]) -> str:
    """The dealer a setup offers: :func:`default_dealer`, except where the previous dealer has left the table. The
    deal still passes to the left then: to the first of the players on their left in the game before who still plays
    (the last player listed dealt, and the player who had just opened opened again). The app records the dealer it
    deals with, so this choice never has to be worked out again from a log."""
    previous = state.game
    if previous is None or previous.dealer in players:
        return default_dealer(state, players)
    seats = previous.players
    at = seats.index(previous.dealer)
    left = (seats[(at + k) % len(seats)] for k in range(1, len(seats)))
    start = next((players.index(name) for name in left if name in players), None)
    if start is None:
        return default_dealer(state, players)
    return players[(start + tapped_since_a_deal(state)) % len(players)]


def tapped_since_a_deal(state: State) -> int:
    """The games recorded by one tap on the winner since the last game dealt here (or since the sitting began): the
    deal has passed on once for each."""
    untracked = 0
    for row in reversed(state.table.rows):
        if row.tracked:
            break
        untracked += 1
    return untracked


def _left_of(players: tuple[str, ...], name: str) -> str:
    return players[(players.index(name) + 1) % len(players)]


def _require_seated(players: tuple[str, ...], name: str, role: str) -> None:
    if name not in players:
        raise IllegalAction(f"the {role} {who(name)} is not one of the players ({', '.join(map(who, players))})")


#: A game recorded by one tap on its winner has no deck size: it may seat as many as two decks allow.
MAX_TABLE = Rules(decks=2).max_players


def _winner(state: State, event: Winner) -> State:
    _room_for_a_game(state)
    table = state.table
    game = state.game
    in_progress = game is not None and not game.over
    if in_progress:
        players = game.players
    elif event.players is not None:
        players = event.players
    elif table.rows:
        players = table.rows[-1].players
    else:
        raise IllegalAction("no players known yet: give the table's players with the winner")
    if twice := next((name for i, name in enumerate(players) if name in players[:i]), None):
        raise IllegalAction(f"{who(twice)} is listed twice; player names must be unique")
    if not MIN_PLAYERS <= len(players) <= MAX_TABLE:
        raise IllegalAction(f"a game takes {MIN_PLAYERS} to {MAX_TABLE} players (two decks), not {len(players)}")
    if event.table is not None and event.table is not table.kind:
        if in_progress:
            raise IllegalAction(f"the game in progress scores on a {table.kind.value} table, not a {event.table.value} "
                                "one")
        table = MatchTable(event.table, table.rows, table.players)  # and the taps after it, until a game is dealt
    places = _result_places(table.kind, event, players)
    for name in places:
        if name not in players:
            raise IllegalAction(f"{who(name)} is not one of the players ({', '.join(map(who, players))})")
    if len(set(places)) != len(places):
        raise IllegalAction("a player can take only one place")
    # every player placed: the last is the one left with cards, who takes no place (a sitting stored before this rule
    # may hold such a result, so it is read, not refused)
    places = places[:ranked_places_most(len(players))] if table.kind is TableKind.RANKED else places
    if in_progress:
        ended = game.copy()
        ended.places, ended.over, ended.turn, ended.awaiting_call = places, True, None, False
        return State(ended, table.with_row(players, places, tracked=True, tapped=True))
    return State(game, table.with_row(players, places, tracked=False, tapped=True))


def given_places(state: State) -> tuple[str, ...]:
    """The places a ranked game in progress has given, which a result tapped in for it keeps before the names tapped
    (the rules take a tapped result as the whole result: a stored log replays as it was recorded)."""
    game = state.game
    return game.places if game is not None and not game.over else ()


def players_to_tap(state: State, seats: Sequence[str], offered: tuple[str, ...]) -> tuple[str, ...]:
    """The players a match table offers to tap a result for: the game in progress's, whose result a tap gives; else
    those a new game's setup shows, so that the two agree on who is at the table now: ``seats``, the setup's own in a
    window that has opened one (edited, or dealt to and the deal taken back) or kept in its address, else ``offered``,
    what a setup offers (:meth:`~assistant.sitting.Sitting.setup_offer`: a deal taken back's players, else the last
    game's, else the table's). A table undoes a deal to change a seat, or to tap its results in instead: the buttons
    named the game before's players, over, while the setup named the deal's."""
    game = state.game
    if game is not None and not game.over:
        return game.players
    return tuple(seats) or offered


def tapped_result(state: State, tapped: str | tuple[str, ...], players: tuple[str, ...], scoring: TableKind) -> Winner:
    """The event of a result tapped in on ``state``: ``tapped`` a winner's name (their button) or the places listed in
    order, after any :func:`given_places`; ``players`` the table's (:func:`players_to_tap`), sent where no game names
    them: none was dealt, or the game dealt is over and they are not the last game's, whom the rules take where none
    are given (a deal taken back, a seat changed since: unsent, a tap scored the last game's players, and refused a
    winner seated since); ``scoring`` how it scores. A winner alone is the format's ``player``, not one place: the
    transcript says a match win as TRANSCRIPT.md does. The players and the scoring are named only where they change
    what the rules would take (a transcript otherwise stays in the format's own words, which know no scoring field and
    give the players "if no game was tracked yet")."""
    given = given_places(state)
    game = state.game
    named = (tuple(players) if game is None or (game.over and players and players != state.table.rows[-1].players)
             else None)
    table = scoring if scoring is not state.table.kind else None
    if isinstance(tapped, str) and not given:
        return Winner(player=tapped, players=named, table=table)
    places = given + ((tapped,) if isinstance(tapped, str) else tapped)
    return Winner(places=places, players=named, table=table)


def places_taken_back(before: Game, after: Game) -> tuple[tuple[int, str], ...]:
    """The places ``before`` gave that ``after`` (the same game, an event later: an undo, a verdict corrected to a
    lie) takes back, each as (place, name): on a ranked table, while ``before`` was still in play, the places past
    those ``after`` keeps."""
    then, now = before.places, after.places
    if after.rules.table is not TableKind.RANKED or before.over or then[:len(now)] != now:
        return ()
    return tuple(enumerate(then[len(now):], start=len(now) + 1))


def places_gained(before: Game, after: Game) -> tuple[tuple[int, str], ...]:
    """The places ``after`` (the same game, an event later) gives past ``before``'s, each as (place, name), while play
    goes on: the end of a game is said otherwise (its banner)."""
    then, now = before.places, after.places
    if after.over or len(now) <= len(then) or now[:len(then)] != then:
        return ()
    return tuple(enumerate(now[len(then):], start=len(then) + 1))


def ranked_places_most(players: int) -> int:
    """The places a ranked game of ``players`` gives: three at most, and none to the player left with cards."""
    return min(len(RANKED_POINTS), players - 1)


def _result_places(kind: TableKind, event: Winner, players: tuple[str, ...]) -> tuple[str, ...]:
    """The places a result names (on a ranked table at most three, and at most one a player)."""
    if event.places is not None:
        if kind is TableKind.MATCH:
            raise IllegalAction("places are for a ranked table; on a match table record the winner")
        most = min(len(RANKED_POINTS), len(players))
        if not 1 <= len(event.places) <= most:
            raise IllegalAction(f"a ranked table records 1 to {most} places")
        if event.player is not None and event.player != event.places[0]:
            raise IllegalAction(f"the winner {who(event.player)} must be first in the places")
        return event.places
    assert event.player is not None
    return (event.player,)


# --- turns -----------------------------------------------------------------------------------


def _game_in_play(state: State) -> Game:
    if state.game is None:
        raise IllegalAction("no game has been dealt yet")
    if state.game.over:
        raise IllegalAction(f"the game is over: {who(state.game.places[0])} won" if state.game.places else "the game is over")
    return state.game


def _require_turn(game: Game, player: str, action: str) -> None:
    if player not in game.players:
        raise IllegalAction(f"{who(player)} is not playing in this game")
    if player in game.places:
        raise IllegalAction(f"{who(player)} is out of the game and cannot {action}")
    if player != game.turn:
        raise IllegalAction(f"it is {who(game.turn)}'s turn, not {who(player)}'s")


def _next_turn(game: Game, after: str) -> str | None:
    """The next player to the left of ``after`` who still holds cards and is not placed."""
    n = len(game.players)
    start = game.players.index(after)
    for k in range(1, n + 1):
        name = game.players[(start + k) % n]
        if name not in game.places and game.hands[name] > 0:
            return name
    return None


def _settle(game: Game) -> None:
    """The last play stands uncalled: a player it emptied goes out (in place, on a fresh copy)."""
    claim = game.last_play
    game.awaiting_call = False
    if claim is not None and game.hands[claim.player] == 0:
        _go_out(game, claim.player)
        game.seen = emptied(game.seen, game.hands, None)  # the cards seen in that hand went down with its last play


def _go_out(game: Game, name: str) -> None:
    game.places = game.places + (name,)
    if game.rules.table is TableKind.MATCH or len(game.places) >= len(RANKED_POINTS) or len(game.active) <= 1:
        game.over, game.turn, game.awaiting_call = True, None, False
    elif game.turn == name or game.turn is None:
        game.turn = _next_turn(game, name)


def _end_row(state: State, game: Game) -> MatchTable:
    """The table after ``game``; a row is added the moment the game ends."""
    if game.over and not (state.game is not None and state.game.over):
        return state.table.with_row(game.players, game.places, tracked=True, tapped=False)
    return state.table


def _move_reference_on(game: Game, claimed: Rank | None) -> None:
    """Move the rank due after a turn: the claim in the choice orders, one step in the forced ones."""
    order = game.rules.order
    if order in (Order.UP_OR_DOWN, Order.SAME_OR_ADJACENT):
        if claimed is not None:
            game.reference, game.opening = claimed, False
    elif order is Order.UP:
        game.reference = step(game.reference, 1)
    elif order is Order.DOWN:
        game.reference = step(game.reference, -1)


def _settled_copy(current: Game) -> Game:
    """A copy of the game in play with any pending play settled (a play or pass implies no call)."""
    game = current.copy()
    if game.awaiting_call:
        _settle(game)
        if game.over:
            raise IllegalAction(  # the player whose last cards wait for a call, not the table's winner
                f"{who(current.last_play.player)} played {last_cards(current.last_play.count)}: record the call or "
                "no call to end the game"
            )
    return game


def _play(state: State, event: Play) -> State:
    current = _game_in_play(state)
    _require_turn(current, event.player, "play")
    rules = current.rules
    if event.count < 1:
        raise IllegalAction(f"{who(event.player)} must play at least one card")
    if rules.max_cards == 1 and event.count != 1:
        raise IllegalAction(f"exactly one card per play in this game; {who(event.player)} cannot play {event.count}")
    if rules.max_cards is not None and event.count > rules.max_cards:
        raise IllegalAction(f"at most {rules.max_cards} cards per play in this game; {who(event.player)} cannot play {event.count}")
    held = current.hands[event.player]
    if event.count > held:
        raise IllegalAction(f"{who(event.player)} holds {card_count(held)} and cannot play {event.count}")
    rank = _claimed_rank(current, event)
    game = _settled_copy(current)
    game.hands[event.player] -= event.count
    game.pile += event.count
    game.plays_on_pile += 1
    # any card seen going into this hand may now be in this play (in a hand it emptied too: it is turned up if the
    # play is called)
    game.seen = laid_down(game.seen, event.player, game.plays_on_pile)
    game.last_play = Claim(event.player, event.count, rank)
    game.awaiting_call = True
    _move_reference_on(game, rank)
    game.turn = _next_turn(game, event.player)
    return State(game, _end_row(state, game))


def _claimed_rank(game: Game, event: Play) -> Rank:
    allowed = game.ranks_allowed
    if event.rank is None:
        if len(allowed) > 1:
            shown = " or ".join(r.value for r in allowed)
            raise IllegalAction(f"{who(event.player)} must say which rank is claimed: {shown}")
        return allowed[0]
    if event.rank not in allowed:
        shown = " or ".join(r.value for r in allowed)
        if event.rank is Rank.JOKER:  # wild: it stands for the rank claimed, and is never claimed itself
            raise IllegalAction(f"a joker is never claimed: {who(event.player)} claims {shown}")
        if len(allowed) == 1:
            raise IllegalAction(f"{who(event.player)} must claim {shown} (the rank due), not {event.rank.value}")
        raise IllegalAction(f"{who(event.player)} may claim {shown}, not {event.rank.value}")
    return event.rank


def _pass(state: State, event: Pass) -> State:
    current = _game_in_play(state)
    if not current.rules.passing:
        raise IllegalAction("passing is off in this game")
    _require_turn(current, event.player, "pass")
    game = _settled_copy(current)
    _move_reference_on(game, None)
    game.turn = _next_turn(game, event.player)
    return State(game, _end_row(state, game))


# --- calls -----------------------------------------------------------------------------------


def judge(rules: Rules, claim: Claim, revealed: tuple[Rank, ...]) -> bool:
    """True if the revealed cards make the claim a lie under these rules (jokers match any rank)."""
    wrong_rank = any(r is not claim.rank and r is not Rank.JOKER for r in revealed)
    wrong_count = len(revealed) != claim.count
    return wrong_rank or (wrong_count and rules.count_rule is CountRule.RANK_AND_COUNT)


def check_reveal(game: Game, revealed: tuple[Rank, ...]) -> None:
    """Raise :class:`ImpossibleReveal` if the deck in play cannot hold these cards."""
    claim = game.last_play
    assert claim is not None
    rules = game.rules
    if not revealed:
        raise ImpossibleReveal("a reveal shows at least one card")
    held = game.hands[claim.player] + claim.count
    if len(revealed) > held:
        raise ImpossibleReveal(f"{who(claim.player)} held {card_count(held)} and cannot have played {len(revealed)}")
    for rank, seen in Counter(revealed).items():
        if rank is Rank.JOKER:
            if not rules.jokers:
                raise ImpossibleReveal("a joker was revealed, but jokers are off in this game")
            if seen > rules.jokers_in_deck:
                raise ImpossibleReveal(f"{seen} jokers revealed, but the deck has only {rules.jokers_in_deck}")
            continue
        left = in_play(game, rank)
        if seen > left:
            raise ImpossibleReveal(f"{card_count(seen)} of rank {rank.value} revealed, but {_in_play(left)} in play")


def in_play(game: Game, rank: Rank) -> int:
    """The cards of ``rank`` the game's deck holds, less those laid out in fours."""
    rules = game.rules
    return rules.jokers_in_deck if rank is Rank.JOKER else rules.copies_per_rank - game.fours_out.get(rank, 0)


def seen_conflict(game: Game, player: str, cards: tuple[Rank, ...]) -> str | None:
    """Why these cards, from ``player``'s hand (their last play turned up, or a four laid out), do not fit what the table
    saw face up; None where they do. Said, never refused: the cards on the table are what they are, and what does not
    fit them is an earlier reveal entered wrong (or a camera's misreading), which the table is asked to check. A
    refusal left a table whose earlier reveal was mis-tapped no way on but undoing every turn since, and made
    sittings stored before it unreadable."""
    for rank, shown, left, away in _misfits(game, player, cards):
        gone = count(away)
        return (f"{_of_rank(rank, shown)} from {player}, who can hold {_at_most(left - gone)}: {gone} of the "
                f"{left} in play {'was' if gone == 1 else 'were'} seen face up and {'is' if gone == 1 else 'are'} "
                f"in {where(away, game.players)}")
    return None


def _misfits(game: Game, player: str, cards: tuple[Rank, ...]):
    """Each rank of ``cards`` that ``player`` cannot hold so many of, by the seen cards: (rank, how many shown, how many
    in play, the seen cards of that rank elsewhere)."""
    for rank, shown in Counter(cards).items():
        left = in_play(game, rank)
        away = elsewhere(game.seen, rank, player)
        if shown > left - count(away):
            yield rank, shown, left, away


def _fitted(game: Game, player: str, cards: tuple[Rank, ...]) -> Seen:
    """The game's seen cards, less those of a rank that ``cards`` show were not where the table thought (an earlier
    reveal entered wrong): forgotten, as a card that may be gone is."""
    seen = game.seen
    for rank, *_ in _misfits(game, player, cards):
        seen = forget(seen, rank, player)
    return seen


def nothing_to_call(game: Game | None) -> str | None:
    """Why no play can be called now, in the table's words, or None while the last play waits for a call. One "no
    play to call" was said at each of these moments, and left the table to guess which."""
    if game is None:
        return "no game is being played: nothing to call"
    if game.over:
        return f"the game is over: {who(game.places[0])} won" if game.places else "the game is over"
    if game.last_play is None:
        return "nothing has been played yet in this game: nothing to call"
    if game.awaiting_call:
        return None
    player = who(game.last_play.player)
    # the verdict holds the very claim it settled (copies of a game share it): an equal claim of an earlier turn is
    # another play
    if game.last_call is not None and game.last_call.claim is game.last_play:
        return f"{player}'s play has been called already"
    return f"{player}'s play stands uncalled: it can no longer be called"  # let stand by a no call or a pass


def check_caller(game: Game | None, caller: str) -> None:
    """Raise IllegalAction, saying why, unless ``caller`` may call the last play now: asked as soon as Cheat! is
    called, before any card is turned up, and again with the verdict."""
    if (why := nothing_to_call(game)) is not None:
        raise IllegalAction(why)
    if caller not in game.players:
        raise IllegalAction(f"{who(caller)} is not playing in this game")
    if caller == game.last_play.player:
        raise IllegalAction(f"{who(caller)} cannot call their own play")
    if caller in game.places:
        raise IllegalAction(f"{who(caller)} is out of the game and cannot call")


def verdict_for(game: Game | None, caller: str, revealed: tuple[Rank, ...]) -> Verdict:
    """The verdict a call would give, without applying it: lets the table see it before it counts.

    Raises IllegalAction for a call the rules do not allow and ImpossibleReveal for cards the deck
    cannot hold.
    """
    check_caller(game, caller)
    claim = game.last_play
    check_reveal(game, revealed)
    lie = judge(game.rules, claim, revealed)
    pile = game.pile + len(revealed) - claim.count
    return Verdict(caller, claim.player, claim, revealed, lie, claim.player if lie else caller, pile)


def could_be_honest(game: Game | None, caller: str, claim: Claim) -> bool:
    """Whether the cards can all be of the claimed rank: fourteen aces from one deck cannot, and a shortcut
    that fills them in would only lead to the referee refusing them."""
    try:
        verdict_for(game, caller, (claim.rank,) * claim.count)
    except CheatError:
        return False
    return True


def _call(state: State, event: Call) -> State:
    verdict = verdict_for(state.game, event.caller, event.revealed)
    claim = verdict.claim
    game = state.game.copy()
    game.hands[claim.player] -= verdict.count_difference
    game.hands[verdict.picked_up_by] += verdict.cards
    game.pile = game.plays_on_pile = 0
    fitted = _fitted(state.game, claim.player, verdict.revealed)
    taken = picked_up(fitted, verdict.revealed, state.game.plays_on_pile, verdict.picked_up_by)
    game.seen = emptied(taken, game.hands, None)
    game.last_call = verdict
    game.awaiting_call = False
    if game.rules.order is Order.SAME_UNTIL_CALL:
        game.reference = step(claim.rank, 1)
    if game.hands[claim.player] == 0:
        _go_out(game, claim.player)
    if not game.over:
        game.turn = _next_turn(game, claim.player)
    return State(game, _end_row(state, game))


def _no_call(state: State, event: NoCall) -> State:
    current = _game_in_play(state)
    if current.last_play is None:
        raise IllegalAction("nothing has been played yet in this game: no play to settle")
    if not current.awaiting_call:
        raise IllegalAction("no play to settle: the last play was already called or followed")
    game = current.copy()
    _settle(game)
    return State(game, _end_row(state, game))


def _four_of_a_kind(state: State, event: FourOfAKind) -> State:
    current = _game_in_play(state)
    rules = current.rules
    if not rules.four_of_a_kind:
        raise IllegalAction("laying out four of a kind is off in this game")
    if event.player not in current.players:
        raise IllegalAction(f"{who(event.player)} is not playing in this game")
    if event.player in current.places:
        raise IllegalAction(f"{who(event.player)} is out of the game")
    if event.rank is Rank.JOKER:
        raise IllegalAction("jokers cannot be laid out as four of a kind")
    held = current.hands[event.player]
    if held < 4:
        raise IllegalAction(f"{who(event.player)} holds {card_count(held)} and cannot lay out four")
    laid = current.fours_out.get(event.rank, 0)
    if laid + 4 > rules.copies_per_rank:
        raise IllegalAction(f"all {rules.copies_per_rank} cards of rank {event.rank.value} are already out of the game")
    game = current.copy()
    game.hands[event.player] -= 4
    game.out_of_game += 4
    game.fours_out = {**game.fours_out, event.rank: laid + 4}
    waiting = game.last_play.player if game.awaiting_call and game.last_play is not None else None
    fitted = _fitted(current, event.player, (event.rank,) * 4)
    game.seen = emptied(laid_out(fitted, event.player, event.rank), game.hands, waiting)
    if game.hands[event.player] == 0 and waiting != event.player:
        _go_out(game, event.player)
    return State(game, _end_row(state, game))


_HANDLERS = {
    NewGame: _new_game,
    Play: _play,
    Pass: _pass,
    Call: _call,
    NoCall: _no_call,
    FourOfAKind: _four_of_a_kind,
    Winner: _winner,
}
