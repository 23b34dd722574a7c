"""How the referee words things on screen and aloud."""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from datetime import datetime, timezone
from typing import Collection, Iterable, NamedTuple, Sequence

from assistant import (Call, CheatError, Claim, FourOfAKind, Game, NewGame, NoCall, Pass, Play, Rank, StorageError,
                       Verdict, Winner)
from assistant.cards import card_count
from assistant.game import MAX_TABLE, GameResult
from assistant.players import MAX_NAME, same_player
from assistant.rules import MIN_PLAYERS, RANKED_POINTS, CountRule, Order, Rules, TableKind
from assistant.seen import Seen, where
from assistant.storage import (CalledFirst, CallChanged, CallOpenElsewhere, FileReplaced, MovedOn, OpenCall,
                               SittingInfo, StaleSitting)

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_RANK_NAMES = {Rank.ACE: "ace", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king", Rank.JOKER: "joker"}

ORDER_LABELS = {
    Order.UP: "Up: A, 2, 3 … K, A",
    Order.DOWN: "Down: A, K, Q … 2, A",
    Order.UP_OR_DOWN: "Up or down: one above or below the last claim",
    Order.SAME_OR_ADJACENT: "Same or adjacent: the same rank, one above or one below",
    Order.SAME_UNTIL_CALL: "Same until a call: the pile's first rank until someone calls",
}
COUNT_RULE_LABELS = {
    CountRule.RANK_AND_COUNT: "Rank and count: a wrong count is a lie",
    CountRule.RANK_ONLY: "Rank only: extra cards are tolerated",
}
TABLE_LABELS = {
    TableKind.MATCH: "Match: first out wins, one row per game",
    TableKind.RANKED: "Ranked: play on for places, 3-2-1 points",
}
MAX_CARDS_LABELS = {4: "1 to 4 cards", None: "Any number", 1: "Exactly one"}

#: What a call ended without its cards turned up leaves, in every way it ends so (an undo, a cancel, another window's
#: cancel, the Undo button's help): one wording, so the table hears the same thing whichever way it went.
PLAY_STANDS = "the play stands, and may be called"


def number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def card_word(rank: Rank) -> str:
    """A card as shown among others ("A 7 Joker"): the rank's index, and the joker's word as its button says it."""
    return "Joker" if rank is Rank.JOKER else rank.value


def cards_shown(ranks: Iterable[Rank], sep: str = " ") -> str:
    """Cards as the table sees them laid out: "A 9 Joker"."""
    return sep.join(card_word(r) for r in ranks)


def seen_text(seen: Seen, players: tuple[str, ...], holding: Collection[str]) -> str:
    """The cards seen face up in reveals and where they can be now, a group a place: "in Bob's hand: A A A A · in
    Bob's hand, or the pile: 7". Cards that can be in every hand ``holding`` cards, or the pile, are left out: they
    can be anywhere, and "in Ann's or Ben's or Cara's or Dev's or Eve's hand, or the pile" ran to three lines above
    the Cheat! buttons saying nothing. Groups that differ only in which plays on the pile they may be in read as one
    place. Empty when nothing is known."""
    order = {rank: i for i, rank in enumerate(Rank)}
    places: dict[str, list[Rank]] = {}
    for group in seen:
        if not (group.pile and set(holding) <= group.hands):
            places.setdefault(where((group,), players), []).extend(group.ranks)
    return " · ".join(f"in {place}: {cards_shown(sorted(ranks, key=order.get))}" for place, ranks in places.items())


def rank_plural(rank: Rank, n: int = 2) -> str:
    """'aces', '5s', 'kings' (or the singular for one card)."""
    name = _RANK_NAMES.get(rank, rank.value)
    if n == 1:
        return name
    return f"{name}s"


def result_text(row) -> str:
    """A game's result as a row of the match table has it: "1. Ann +3 · 2. Cat +2" for places, "Ann won" for a
    winner alone."""
    return places_text(row.places) if len(row.places) > 1 else f"{row.winner} won"


def history_rows(rows: Sequence[GameResult], ranked: bool) -> dict[str, list]:
    """The History's columns for these games. A plain table, whose cells wrap: the data grid cut long names, and
    took a sideways scroll on a phone."""
    history = {
        "Game": [r.number for r in rows],
        "Winner": [r.winner for r in rows],
        "Places": [names_list(r.places) for r in rows],
        "Table": ["ranked" if r.kind is TableKind.RANKED else "match" for r in rows],
        "Tracked": [_tracked(r) for r in rows],
        "Players": [names_list(r.players) for r in rows],  # last: the longest, and the least looked at
    }
    if not ranked:
        del history["Places"]  # the winner again, on a match table
    return history


def _tracked(row: GameResult) -> str:
    """How much of a game the referee followed, for the History: a game in progress ended by a tap on its winner was
    followed only until the tap, and its result is the table's word, not the rules'."""
    if not row.tracked:
        return "one tap"
    return "until a tap" if row.tapped else "yes"


def claim_text(claim: Claim) -> str:
    """'two 5s', 'one ace'."""
    return f"{number(claim.count)} {rank_plural(claim.rank, claim.count)}"


def count_corrected(claim: Claim, laid: int, brief: bool = False) -> str:
    """Where the cards turned up are not as many as claimed, what that does to the hand that played them: the
    verdict's number is the pile's as corrected, and "Cara picks up 6 cards" beside a hand that grew by 8 (or a pile
    of 8) read like the referee's mistake. Empty where they are as many. ``brief``: in few words ("1 laid, not 3: 2
    back to Cara's hand"), for a line of two lines that says the verdict as well."""
    if laid == claim.count:
        return ""
    if brief:
        moved = f"{claim.count - laid} back to" if laid < claim.count else f"{laid - claim.count} more out of"
        return f"{laid} laid, not {claim.count}: {moved} {claim.player}'s hand"
    told = f"{card_count(laid)} laid, not the {claim.count} claimed: "
    if laid < claim.count:
        back = claim.count - laid
        return told + (f"the other {back} go" if back > 1 else "the other one goes") + f" back to {claim.player}'s hand"
    more = laid - claim.count
    return told + (f"{more} more come" if more > 1 else "one more comes") + f" out of {claim.player}'s hand"


def isolated(name: str) -> str:
    """A name set apart from the text around it (Unicode's first-strong isolate) where it is written right to left: an
    Arabic or Hebrew name otherwise carried the numbers and points beside it into its own order ("1. 3 · 2+ שרה לוי
    .2"). A left-to-right name is left as it is (the marks would travel into a copy, and into comparisons)."""
    return f"\u2068{name}\u2069" if _right_to_left(name) else name


def _right_to_left(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def _left_to_right(names: Iterable[str], text: str) -> str:
    """``text`` read left to right, as the list it is, where a name in it is written right to left."""
    return "\u200e" + text if any(_right_to_left(n) for n in names) else text


def names_list(names: Iterable[str]) -> str:
    """'Ann, Ben, Cat' in the order given, read left to right whatever script the first name is in."""
    names = tuple(names)
    return _left_to_right(names, ", ".join(isolated(n) for n in names))


def place_word(place: int) -> str:
    """'1st place', '2nd place', '3rd place': a ranked table's place on a player's tile."""
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th')} place"


def place_text(name: str, place: int) -> str:
    """A player gone out on a ranked table while play goes on, as the corner says it (and closes it, by these very
    words, when the place is taken back)."""
    points = RANKED_POINTS[place - 1]
    return (f"{name} is out: {place_word(place)}, +{points} point{'s' if points != 1 else ''}. "
            "Play goes on for the next places.")


def places_text(places: tuple[str, ...]) -> str:
    """'1. Ann +3 · 2. Cat +2 · 3. Dan +1': ranked places with the points each earns."""
    return _left_to_right(places, " · ".join(f"{i + 1}. {isolated(p)} +{points}"
                                             for i, (p, points) in enumerate(zip(places, RANKED_POINTS))))


def honest_label(claim: Claim) -> str:
    """The one-tap reveal of a claim told true: 'One ace: honest', 'Both queens: honest', 'All three 5s: honest'."""
    if claim.count == 1:
        text = claim_text(claim)
    elif claim.count == 2:
        text = f"both {rank_plural(claim.rank)}"
    else:
        text = f"all {claim_text(claim)}"
    return f"{text[0].upper()}{text[1:]}: honest"


def ranks_due(ranks: tuple[Rank, ...]) -> str:
    """'5s' or '4s, 5s or 6s'."""
    names = [rank_plural(r) for r in ranks]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def undo_label(event) -> str:
    """The Undo button named after what it takes back ("Undo Maya's play"): the table sees what a tap will
    change before it taps, which a bare event name ("undo", "winner") did not say."""
    if isinstance(event, NewGame):
        return "Undo the deal"
    if isinstance(event, Play):
        return f"Undo {event.player}'s play"
    if isinstance(event, Pass):
        return f"Undo {event.player}'s pass"
    if isinstance(event, Call):
        return f"Undo {event.caller}'s call and its verdict"
    if isinstance(event, NoCall):
        return "Undo “nobody calls”"
    if isinstance(event, FourOfAKind):
        return f"Undo {event.player}'s four {rank_plural(event.rank)}"
    if isinstance(event, Winner):
        return f"Undo the result recorded for {event.player or ', '.join(event.places or ())}"
    return "Undo the last action"


def taken_back(event) -> str:
    """What an undo took back, as "Took back ..." says it: "Maya's play", "the deal"."""
    return undo_label(event).removeprefix("Undo ")


def call_ended_elsewhere(held: OpenCall | None, events: int, stored: OpenCall | None, new: list) -> list[str]:
    """What became of the call this window showed (``held``, on the log's first ``events`` events), where another
    window ended it: cancelled (no event says so: the call is gone, and no verdict came), or, for a correction, its
    cards kept or corrected. A verdict given on a call needs no words: the page shows it."""
    if held is None or held.at != events or (stored is not None and (stored.at, stored.caller) == (held.at, held.caller)):
        return []
    verdict = new[0] if new and isinstance(new[0], Call) and new[0].caller == held.caller else None
    if held.original is None:
        return [] if verdict is not None else [f"Another window cancelled {held.caller}'s call: {PLAY_STANDS}."]
    return [] if verdict is None else [correction_ended(held.caller, held.original, verdict.revealed, seen_open=True)]


def correction_ended(caller: str, first: tuple[Rank, ...], given: tuple[Rank, ...], seen_open: bool) -> str:
    """A correction another window ended, with the cards ``given`` against the ``first`` verdict's; ``seen_open``:
    whether this window showed it open (if not, the verdict kept is said again without its reopening seen). The same
    cards in another order are kept: a camera lists them as they lie, a table taps them in as it picks them."""
    if Counter(given) != Counter(first):
        return f"Another window corrected the cards of {caller}'s call: {cards_shown(given, ', ')}."
    if seen_open:
        return f"Another window kept the first verdict on {caller}'s call."
    return f"Another window reopened {caller}'s call and kept its first verdict."


def undone_elsewhere(taken: list, stored: OpenCall | None) -> list[str]:
    """What another window's undos took back (``taken``: :meth:`Sitting.catch_up`'s pairs), in order: a verdict
    taken back and given again is a correction, said as one, or as kept where its cards stayed (the verdict is said
    again); one taken back and open again with its cards is a correction under way."""
    said: list[str] = []
    plain: list = []

    def took_back() -> None:
        if plain:
            said.append(f"Another window took back {', then '.join(map(taken_back, plain))}.")
            plain.clear()

    for i, (event, then) in enumerate(taken):
        if isinstance(event, Call) and isinstance(then, Call) and then.caller == event.caller:
            took_back()  # a verdict kept is recorded anew, and said again: said why
            said.append(correction_ended(event.caller, event.revealed, then.revealed, seen_open=False))
        elif (i == len(taken) - 1 and isinstance(event, Call) and then is None and stored is not None
              and (stored.caller, stored.original) == (event.caller, event.revealed)):
            took_back()
            said.append(f"Another window is correcting the cards of {event.caller}'s call.")
        else:
            plain.append(event)
    took_back()
    return said


def sentence(text: str) -> str:
    """A message of the core ("a sitting needs a name") as a sentence on screen: capital first, full stop last."""
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")


#: How a tap refused because the game had moved on is said: in the corner for 10 s, with what a tap did. Said at the
#: top, it pushed every button down 144 px on a phone, and a second tap on the same spot named a caller instead of a
#: play.
REFUSED = "toast_long"

#: Said for a tap made on the screen as it stood before the last action (a second tap in one window, or a tap as the
#: game moved on), which is not recorded.
MOVED_ON = ("That tap was made on the screen as it stood before the last action (a second tap, or a tap as the game "
            "moved on), so it was not recorded. The screen now shows the game as it stands: check it before tapping "
            "again.")

#: Said where another database file was put at its path under the page (a backup moved over it): the page reads the
#: file now there at once; nothing needs starting again.
FILE_REPLACED = "The database file was replaced (by a backup?): the page now shows what it holds."
#: Said of a tap made on what the file held before it was replaced: nothing was written, to either file.
TAP_ON_A_REPLACED_FILE = ("The database file was replaced (by a backup?) since the screen this tap was made on was "
                          "drawn, so your tap was not recorded: the page now shows what the file holds. Check it "
                          "before tapping again.")


class Refusal(NamedTuple):
    """A write the referee refused, as the page says it: ``kind`` the app's kind of message (:data:`REFUSED`, in the
    corner, or ``error`` or ``warning``, at the top); ``stale`` where it is another window's change first, which a
    write that may lose such a race without a word (the camera's verdict, lost to another window's) does not say."""

    kind: str
    text: str
    stale: bool = False


def refusal(error: CheatError, on_table: bool) -> Refusal:
    """What the page says of a write the referee refused with ``error``; ``on_table``: tapped on the match table,
    where the screen that now shows the table as it stands is checked, not whose turn it is. Each kind is tried before
    the kind it is a case of (a call made first is a call changed, a tap on an old screen another window's change,
    all of them a database's refusal): its own words, not its base's."""
    if isinstance(error, CalledFirst):
        return Refusal(REFUSED, f"{error.caller} called Cheat! on this play first, in another window: that call is "
                                "the one open now.")
    if isinstance(error, CallOpenElsewhere):
        return Refusal(REFUSED, f"{error.caller} has called Cheat! in another window, so your tap was not recorded: "
                                "the screen now shows that call. Settle or cancel it first.")
    if isinstance(error, CallChanged):
        return Refusal(REFUSED, f"{sentence(str(error))} Your tap was not recorded: check the call before tapping "
                                "again.", stale=True)
    if isinstance(error, MovedOn):
        return Refusal(REFUSED, MOVED_ON)
    if isinstance(error, StaleSitting):
        check = ("the match table as it stands: check it" if on_table
                 else "the game as it stands: check whose turn it is")
        return Refusal(REFUSED, "Another window changed this game first, so your tap was not recorded. The screen now "
                                f"shows {check} before tapping again.", stale=True)
    if isinstance(error, FileReplaced):
        return Refusal("warning", TAP_ON_A_REPLACED_FILE)
    if isinstance(error, StorageError):
        return Refusal("error", storage_problem(str(error)))
    return Refusal("error", sentence(str(error)))


def storage_problem(text: str) -> str:
    """A database error as a sentence, with what the table can do about the ones it can do something about, once: the
    storage's own words for a lock ("another program is writing to it") were said twice, in two sentences."""
    if "database is locked" in text and "another program is writing to it" not in text:
        return sentence(text) + " Another program is writing to it: close that program, then tap again."
    if out_of_room(text):
        return sentence(text) + " Free some disk space, then tap again: nothing was lost."
    return sentence(text)


def out_of_room(text: str) -> bool:
    """Whether a database error is a disk that takes no more: full (SQLite's "database or disk is full", or the
    storage's words), or this user's quota of it used up. Freeing some space is the way out of both, and nothing was
    lost."""
    return "disk is full" in text or "disk quota is used up" in text


def check_name(name: str, taken: list[str]) -> str | None:
    """The problem with a new player's name (already :func:`~assistant.players.clean_name`'s), or None when it is
    fine: the rules of :mod:`assistant.players`, said for the setup screen."""
    if not name:
        return "A player needs a name: the box is empty."
    if len(name) > MAX_NAME:
        return f"\"{name[:MAX_NAME]}…\" is too long: at most {MAX_NAME} characters, so it fits on the table screen."
    if any(same_player(name, other) for other in taken):
        return f"{name} is already at the table: give each player a different name (add an initial)."
    return None


def players_problem(players: int, rules: Rules) -> str | None:
    """Why the setup cannot deal to ``players`` under ``rules``, said before the Deal button is tapped (None where it
    can): the rules refuse the same deal (:meth:`Rules.players_off`)."""
    off = rules.players_off(players)
    if off < 0:
        return f"Add at least {-off} more player{'s' if off < -1 else ''}: a game takes {MIN_PLAYERS} or more."
    if off > 0:
        return (f"{players} players is too many for {'one deck' if rules.decks == 1 else 'two decks'}: at most "
                f"{rules.max_players}" + (f" (choose two decks for up to {MAX_TABLE})." if rules.decks == 1 else "."))
    return None


def name_html(name: str, after: str = "") -> str:
    """A player's name for a heading, escaped, each word kept whole: "Anne-Sophie" broke at its hyphen on a phone
    ("Anne- / Sophie is out"), while "Bartholomew Kemp" may still break at its space, and a word wider than the
    screen inside (the CSS of ``cr-nb``). ``after`` ("'s") is kept with the last word, as it was in plain text."""
    words = [html.escape(word, quote=False) for word in name.split(" ")]  # text, not an attribute: "'s" as typed
    words[-1] += html.escape(after, quote=False)
    return " ".join(f"<span class='cr-nb'>{word}</span>" for word in words)


def unspoken(shown: str) -> str:
    """HTML ``shown`` on the screen and not to a screen reader: what the page says to one in words of its own (an
    alert), which a screen reader reading the whole page said twice."""
    return f"<span aria-hidden='true'>{shown}</span>"


def if_these_are_the_cards(game: Game, claim: Claim, revealed: tuple[Rank, ...], verdict: Verdict | None) -> str:
    """The line under the cards tapped in, in HTML: what to tap, or the verdict they would make (with, while fewer
    than claimed are in, that Apply waits for every card laid)."""
    if verdict is None:
        return "Tap the ranks of the cards as they lie face up."
    wait = "Apply once every card laid is in. " if len(revealed) < claim.count else ""
    return (f"{wait}If these are the cards: <b>{esc(verdict.announcement())}</b>"
            f"{esc(pile_corrected(game, verdict))}")


def pile_corrected(game: Game, verdict: Verdict) -> str:
    """Why the verdict's number differs from the pile shown, where the cards revealed are not as many as claimed:
    "Dev picks up 28 cards" beside a pile of 40 read like the referee's mistake. Empty where they are as many."""
    corrected = count_corrected(verdict.claim, len(verdict.revealed), brief=True)
    # in few words: the line is two lines high, and said in full ("the other 2 go back to Bartholomew Kent's hand;
    # the pile holds 22, not 24") the end of it lay out of sight, in a box that scrolls without showing it does
    return f" ({corrected}; pile {verdict.cards}, not {game.pile})" if corrected else ""


def local_moment(created: str) -> tuple[str, str]:
    """The day and the time (HH:MM) a sitting began, on this machine's clock. The database keeps UTC, one order for
    every machine; shown as such, a sitting begun on a Friday evening in New York was listed and saved as Saturday's.
    A time without a zone is read as UTC, as the database writes it; one that cannot be read, or that this machine's
    clock cannot reach (the year 1 west of Greenwich), is shown as written."""
    try:
        moment = datetime.fromisoformat(created)
        local = (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone()
    except (ValueError, OverflowError):
        return created, ""
    return local.strftime("%Y-%m-%d"), local.strftime("%H:%M")


def sitting_names(sittings: Collection[SittingInfo]) -> dict[int, str]:
    """Each sitting as the sidebar lists it: its name and day; where another of that name began the same day (two
    "Tonight (2026-12-06)" could not be told apart), its number and the time it began too."""
    began = {s.id: local_moment(s.created) for s in sittings}
    day = {s.id: f"{s.name} ({began[s.id][0]})" for s in sittings}
    same = Counter(day.values())
    return {s.id: day[s.id] if same[day[s.id]] == 1 else f"{s.name} (no. {s.id}, {' '.join(began[s.id]).rstrip()})"
            for s in sittings}


def file_name(sitting: str, day: str, what: str) -> str:
    """The name a download is saved under: the sitting's name and day before what it holds ("Friday at Maya's
    2026-12-07 match table.csv"). Every sitting's files were "match-table.csv", "calls.csv" and "sitting.jsonl", and a
    second evening's came into the Downloads folder as "match-table (1).csv". A character no file name may hold on
    Windows, macOS or Linux becomes a dash, and the name does not start or end with a dot or a space (a hidden file on
    Linux and macOS; Windows drops them)."""
    safe = re.sub(r'[<>:"/\\|?*\x00-\x1f\x7f]', "-", f"{sitting} {day} {what}")
    return " ".join(safe.split()).strip(" .")


def esc(text: object) -> str:
    return html.escape(str(text))


#: What of a player's, a sitting's or a photo's name Streamlit's markdown would read as its own (GitHub's markdown,
#: LaTeX, its colour and icon directives, emoji names): HTML (``& < >``); a backslash, a code span, emphasis and
#: strikethrough, a link or an image, math, a table's cell, a directive's attributes (``\ ` * _ ~ [ ] $ | { }``),
#: though not a "_" between letters or digits, which never opens emphasis ("rows_4", a path's "test_a_db"); a
#: colon that opens a directive (``:red[``), an emoji's or an icon's name (``:smile:``, ``:material/``) or a web
#: address (``https://``); an e-mail address's ``@`` and a ``www.`` address's dot, which GitHub's markdown makes links;
#: and at the start, what opens a heading or a list (``# ``, ``- ``, ``+ ``, ``1. ``). A dot, a hyphen, a bracket or
#: a colon before a space are markup nowhere else, and stay as typed: "Anne-Sophie" and "Dr. Who" read the same in the
#: page's source as on the screen.
_MARKDOWN = re.compile(r"[&<>\\`*~\[\]$|{}@]|(?<![^\W_])_|_(?![^\W_])|:(?=[\w/+-])|(?i:(?<=www)\.)|^(?:[#+-]|\d+[.)])")


def md(text: object) -> str:
    """``text`` as itself in Streamlit's markdown, HTML or not (``st.markdown``, a caption, a message, a toast, a
    button's label): a photo named "__init__.jpg" was shown as a bold "init.jpg", and a player "*Ann*" in italics.
    Each character markdown would read as markup is written as a character reference ("&#95;"), which markdown and
    HTML alike show as the character; a backslash ("\\_") showed itself inside an HTML block. What Streamlit changes in
    the text itself stays: " -> " is shown as an arrow, and ":streamlit:" as Streamlit's logo."""
    def literal(found: re.Match) -> str:
        markup = found.group()
        if markup in "&<>":
            return html.escape(markup)
        return f"{markup[:-1]}&#{ord(markup[-1])};"  # of "1.", the dot: the number stays a number
    return _MARKDOWN.sub(literal, str(text))
