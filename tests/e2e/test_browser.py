"""The referee in a real headless Chromium, its camera fed from a video of face-up cards.

Everything runs inside a network namespace of its own (``unshare -n``, only ``lo`` up), so the
browser, the app and their WebRTC pair can only talk over 127.0.0.1. The test plays a short game
to a verdict and a winner on the match table and takes screenshots (into ``$CHEAT_REFEREE_SHOTS`` if set:
``CHEAT_REFEREE_SHOTS=docs/screenshots ./test.sh tests/e2e`` refreshes the README's). Select it with ``-m e2e``; it takes about 30 s on 2 cores. The other tests check the page itself: its contrast in the light and the dark
theme, the voice and camera notes, plays entered from the keyboard, and whole names on the Cheat! buttons.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests" / "e2e" / "harness.py"
CHROMIUM = os.environ.get("CHEAT_REFEREE_CHROMIUM", "/usr/bin/chromium")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _why_not() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -e '.[test]')"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare and ip (util-linux, iproute2) are needed to keep the test on loopback"
    probe = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True)
    if probe.returncode != 0:
        return "cannot make a private network namespace (needs root): " + probe.stderr.decode().strip()
    return None


def harness(tmp_path: Path, mode: str, *options: str, timeout: float) -> dict:
    """The harness's result for one ``mode`` run on loopback (skipped where it cannot run), after asserting that
    it finished: the error and the server log's end say why where it did not."""
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    done = subprocess.run(["unshare", "-n", sys.executable, str(HARNESS), mode, "--out", str(tmp_path), *options],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    result_file = tmp_path / "result.json"
    assert result_file.exists(), f"the harness wrote no result:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    result = json.loads(result_file.read_text())
    log = (tmp_path / "server.log").read_text()[-3000:] if (tmp_path / "server.log").exists() else ""
    shown = f"\nthe page showed:\n{result['page then']}" if "page then" in result else ""
    assert result["ok"], f"{result.get('error')}{shown}\nserver log:\n{log}"
    return result


def test_a_short_game_in_chromium_with_the_camera(tmp_path):
    # into the test's own folder unless asked: a test run leaves the repository's files as they were
    shots = Path(os.environ.get("CHEAT_REFEREE_SHOTS") or tmp_path / "screenshots")
    result = harness(tmp_path, "game", "--shots", str(shots), timeout=170)
    # keys typed into a text box (U, Ctrl+Z) never undo the play
    assert result["after_typing"].startswith("Sam: two aces"), result
    # the camera's frames reached the app over WebRTC, and kept coming after a message at the top of the page
    assert result["frames"] > 0
    assert result["frames_after_a_message"] > 0, result
    # ... and through a look at the match table and back, without START pressed again
    assert result["frames_on_the_table"] > 0 and result["frames_back_on_the_game"] > 0, result
    assert result["camera_still_on"], result
    # a reload starts the camera again by itself (its STOP shows, its frames come); once stopped, it stays stopped
    assert result["frames_after_a_reload"] > 0, result
    assert result["frames_after_stop_and_reload"] == 0 and result["start_after_stop_and_reload"] == 1, result
    # ... and a crashed server, started again, finds the open page's camera on again without a tap
    assert result["frames_after_a_restart"] > 0, result
    # the call: Sam claimed two aces, the cards in view are the ace of hearts and the nine of clubs
    assert result["verdict"] == "Lie: Sam picks up 2 cards", result
    assert "Lie: Sam picks up 2 cards" in result["spoken"]
    assert "Maya wins!" in result["winner_banner"]
    assert "Maya wins!" in result["said at the end"], result  # to a screen reader too: the end was never said
    table = result["table_text"]
    assert "Standing" in table and "History" in table and "Maya" in table
    for name in ("setup.png", "game.png", "verdict.png", "table.png"):
        assert (shots / name).stat().st_size > 10_000


def test_the_game_screen_reads_in_the_light_and_the_dark_theme(tmp_path):
    """A laptop in dark mode gets Streamlit's dark theme: the player to play, the claim and the hands must still
    stand out from the page (WCAG AA: 4.5 for text, 3 for the large bold claim), measured on the pixels."""
    result = harness(tmp_path, "themes", timeout=170)
    for theme in ("light", "dark"):
        for selector, ratio in result[theme].items():
            assert ratio >= (3.0 if selector == ".cr-due" else 4.5), (theme, selector, ratio)


@pytest.fixture(scope="module")
def sidebar(tmp_path_factory) -> dict:
    return harness(tmp_path_factory.mktemp("sidebar"), "voice", timeout=150)


def test_the_sidebar_says_when_the_browser_has_no_voice_to_speak_with(sidebar):
    """speechSynthesis is silent without a voice (Chromium on Linux without speech-dispatcher): the players must
    be told that verdicts will be shown, not said, and not told so once the browser lists a voice."""
    assert sidebar["note_at_first"] == (sidebar["voices"] <= 0), sidebar
    assert sidebar["note_with_a_voice"] is False, sidebar


def test_the_sidebar_opens_folded_on_a_tablet_and_a_sideways_phone_and_keeps_an_unfold(sidebar):
    """Streamlit folds the sidebar by itself only up to 768 px; on an 800 px tablet or an 844 px phone held sideways
    it took 300 px from the game. A table that unfolds it by hand finds it unfolded after a reload."""
    widths = sidebar["sidebar"]
    assert widths["laptop"] >= 250, widths
    assert widths["tablet"] == widths["sideways"] == widths["phone"] == 0, widths
    assert widths["tablet_unfolded_and_reloaded"] >= 250, widths
    assert widths["sideways_then_wide"] >= 250, widths  # the fold was the screen's, not the table's choice


def test_the_camera_says_in_words_why_it_cannot_start(tmp_path):
    """A browser with no camera, or one refused the camera, shows only its own error name after START
    ("NotFoundError: Requested device not found"), and the snapshot asks for a permission there is no camera for;
    on a computer on no network the live camera's link cannot be made: the app says what to do, and says nothing when
    a camera works."""
    result = harness(tmp_path, "camera", timeout=300)
    assert result["fake camera"] == [] and result["no camera"] == ["none"], result
    assert result["snapshot, no camera"] == ["none"], result
    assert result["refused after START"] == ["denied"], result
    # ... and that this computer is on no network, where the live camera's link has no address to offer (run.sh's
    # server, in the test's network of loopback alone: START came to nothing, silently); not where it has one
    assert result["no network said, link as shipped"] and not result["no network said, link on loopback"], result



def test_plays_are_entered_from_the_keyboard_where_the_order_gives_a_choice_of_rank(tmp_path):
    """A number alone cannot say which rank where the order gives a choice (up or down: kings or 2s after aces),
    so there the number is held until the rank's key comes, as the play is said ("3", then "K": three kings);
    Esc forgets the number, and keys typed into a text box play nothing."""
    result = harness(tmp_path, "keys", timeout=150)
    assert result["number alone"].startswith("Sam: two aces"), result
    assert result["hint shown on a laptop"] and not result["hint shown on a phone"], result
    turn_top, play_bottom = result["phone: turn line top, first play button bottom"]
    assert 0 <= turn_top and play_bottom <= 844, result  # a turn is played on a phone without scrolling
    assert result["small phone in a call: last rank button bottom"] <= 740, result  # J Q K were cut at 360 x 740
    verdict_top, play_bottom, hands_top = result["phone after a verdict: verdict top, first play button bottom, hands top"]
    assert 0 <= verdict_top and play_bottom <= 844 and hands_top > play_bottom, result  # after a verdict too
    assert result["laptop after a verdict: first play button bottom"] <= 768, result  # it was at 844
    assert result["held"].startswith("1 ×") and result["marked"] == 2, result
    assert result["after escape"].startswith("Sam: two aces"), result
    assert result["typed in a box"].startswith("Sam: two aces"), result
    assert result["number then rank"].startswith("Maya: three kings"), result
    assert result["after the turn ended"].startswith("Sam: two aces"), result


def test_every_cheat_button_shows_its_players_whole_name(tmp_path):
    """Six players with long names, the game column narrowed by the live camera beside it: a button cut to "Bar…"
    does not say whom a tap names as the caller, and a name broken inside a word in its hand tile is hard to read."""
    result = harness(tmp_path, "names", timeout=150)
    # names typed back to back, each before the page answered the Enter before it, are seated one by one
    assert result["seated"] == ["1. Alexandria-Marie", "2. Bartholomew", "3. Christopherson", "4. Maximiliano",
                                "5. Evangeline", "6. Jo"], result
    shown, said = result["box after a refusal, and what Enter then says"]
    assert ("the box is empty" in said) == (shown == ""), result
    shown, seat = result["box before Enter, and the seat it made"]
    assert seat == f"7. {shown}", result
    # the game opens at its top after a deal, and a second tap on the deal a moment late does not take it back
    assert result["scrolled after the deal"] == 0, result
    assert result["after a second tap on the deal"] == "Alexandria-Marie's turn", result
    assert result["events after the taps on the deal"] == 1, "dealt twice, or the deal taken back"
    shown = {b["name"].removeprefix("campaign ").strip(): b["cut"] for b in result["buttons"]}
    assert shown == {"Bartholomew": False, "Christopherson": False, "Maximiliano": False, "Evangeline": False,
                     "Jo": False}, result
    assert result["hand names broken inside a word"] == [], result  # "Evangeli / ne" in a narrow hand tile
    assert result["phone play rows"] == 1, result  # up to four cards a play: four buttons in a row, on a phone too
    assert min(result["phone game width"]) >= 300, result  # not squeezed beside the camera on a 390 px screen
    assert result["tablet game width"] >= 450, result  # nor beside the camera and the sidebar on an 820 px tablet
    assert result["laptop call: K's foot"] <= 800, result  # every rank of a call on a 1280 x 800 laptop's screen


def test_a_player_without_sight_or_mouse_is_told_each_move_and_keeps_the_focus(tmp_path):
    """A screen reader heard nothing of a play, a call or a verdict (no live region), named the buttons "2", "Ben"
    and "arrow_upward icon", and every action dropped the keyboard's focus to the top of the page (eleven Tabs back
    to the first play)."""
    result = harness(tmp_path, "access", timeout=150)
    assert result["seat buttons"] == ["Move Ann down", "Remove Ben"], result
    assert result["deal as a data grid"] == 0, result  # a plain table: no toolbar and grid cells to Tab through
    assert result["after the deal"] == "Ann's turn. claims aces", result
    assert result["play buttons"][:2] == ["Ann lays down 1 card", "Ann lays down 2 cards"], result
    assert result["hand"].endswith(" cards"), result  # "18 cards", not a bare "18"
    assert result["headings"] == ["Ann's turn"], result
    assert result["after key 2"] == "Ann played two aces. Ben's turn. claims 2s", result  # the play, then its turn
    assert result["focus after key 2"] == "BUTTON: Ben calls Cheat!", result  # not the page's body
    assert result["after Enter"].startswith("Ben calls Cheat! on Ann"), result
    assert result["focus after Enter"] == "BUTTON: Both aces: honest", result  # the call's first button
    assert result["after two aces"] == "Revealed: A, A", result  # each card tapped in is confirmed
    assert result["after the verdict"].startswith("Honest: Ben picks up 2 cards"), result
    assert result["after U"].startswith("Took back Ben's call"), result
    # what a tap did and the turn it brought, said together (the turn written after the toast replaced it)
    said = " / ".join(result["said after U again"])
    assert "Took back Ann's play." in said and "Ann's turn. claims aces" in said, result
    # "Took back Ann's play." stayed its 7 s through Ann's next play, as if that had been taken back too
    assert "Took back Ann's play." in result["toasts before the next play"], result
    assert not any(t.startswith("Took back") for t in result["toasts after the next play"]), result
    # the first play taken back and made again alike is news: the game had no last play between
    assert any("Ann played two aces" in text for text in result["said after the first play again"]), result
    # ... and a card tapped in during a call moves the game on as well
    assert "Took back the last card (2)." in result["toasts before the next card"], result
    assert not any(t.startswith("Took back") for t in result["toasts after the next card"]), result
    assert "Took back the last card (2)." in result["toasts after the same words again"], result
    said = result["said since U again"]
    assert sum("Lie: Ann picks up 2 cards" in text for text in said) == 1, said  # at the verdict, not again at the undo
    assert not any(".." in text for text in said), said  # "Took back Ann's play.. Ann's turn"
    # the play called, shown again under its verdict, is not said as if just made
    assert result["said at the last U"] and not any(" played " in text for text in result["said at the last U"]), result
    # each thing said is a line added to a log, not one text replaced: two quick undos and a play replaced it within
    # half a second, before a screen reader could read the first
    lines = result["live lines"]
    assert 3 <= len(lines) <= 5 and any(line.startswith("Took back Ben's play.") for line in lines[-2:]), lines
    assert any("Lie: Ann picks up 2 cards" in line for line in lines[:-2]), lines


def test_twenty_or_eight_players_on_a_laptop_or_a_phone_keep_the_next_plays_buttons_on_screen(tmp_path):
    """With twenty players the next play's buttons were two screens down a 1366 x 768 laptop after a play, and one
    after a verdict (the README says they are on the screen there); beside the camera, four callers' names to a row
    broke inside their words."""
    result = harness(tmp_path, "crowd", timeout=500)
    # the game the page's width, beside the live camera, and on a phone (whose first screen the Cheat! buttons filled,
    # two to a line: the play buttons' foot was at 938 px)
    # ... and eight players, one named "Oluwaseun Adeyem": the Cheat! buttons came two to a row (four rows), and the
    # play buttons' foot was at 820 px; beside the live camera at 1280 x 800 too, where it was at 900 px
    for camera in ("none", "live", "phone", "eight", "eight live"):
        height = result[camera]["screen"][1]
        assert result[camera]["play buttons' foot after a play"] <= height, result
        assert result[camera]["play buttons' foot after a verdict"] <= height, result
        if camera in ("none", "live"):  # where a phone's hands are two to a line, a long name and its tag take two lines
            assert result[camera]["one line per hand"], result
        assert result[camera]["callers broken inside a word"] == [], result
        assert result[camera]["blank between Undo and the pile (px)"] <= 40, result  # 130 px of empty page
    # a laptop's window narrowed to 820 px beside the open sidebar: four names to a line broke "Barthol / omew"
    assert result["none"]["callers broken inside a word at 820 px"] == [], result


def test_the_history_of_games_fits_a_phone(tmp_path):
    """Eight long names in each game's players made the History 447 px wide in a phone's box of 356 (a sideways scroll,
    the players out of sight) and each row 175 px high: on a phone it leaves the players out (the CSV has them)."""
    result = harness(tmp_path, "history", timeout=150)
    table, box = result["table, box (px)"]
    assert table <= box and result["highest row (px)"] < 60, result
    assert result["columns shown"] == ["Game", "Winner", "Table", "Tracked"], result


def test_the_first_tap_on_the_match_table_after_a_deal_is_taken_and_its_download_is_the_stored_log(tmp_path):
    """The deal's guard ran a second time as the match table replaced the game screen (Streamlit ran its script
    again), so a winner tapped at once was held as "Not taken" and nothing was recorded. The game log is written out
    when its download is tapped, not at each run, and must still be the log as stored."""
    result = harness(tmp_path, "arrivals", timeout=150)
    assert result["taps held on the match table for (ms)"] <= 0, result
    assert result["games recorded by the first tap"] == 1, result
    assert result["transcript is the stored log"] and result["transcript lines, events stored"][0] > 5, result


def test_a_double_tap_acts_once_and_the_reveal_shows_every_label_whole(tmp_path):
    """Undo and a winner's name tapped twice 50 ms apart, U pressed twice, "1" tapped twice 250 ms apart: the second
    was made on the screen as it stood before the first took effect, so it must not act again (it took back a second
    play, recorded a second game, or played for the next player too); a button the first tap brought up elsewhere
    takes a tap at once. And
    the Joker button is not cut to "Jo…" on a tablet or a phone's width, where its key was shown beside it; the rank
    buttons of a call stay where they are as cards are tapped in, on a phone and on a laptop, a fifth ace too."""
    result = harness(tmp_path, "buttons", timeout=150)
    assert result["Cheat! tapped as it appears"] == "Sam calls Cheat! on Maya", result  # a new button is not held
    assert result["events added by a double tap on Undo"] == 1, result
    top, taps = result["phone toast: top, pointer events"]
    assert top > 844 / 2 and taps == "none", result  # at the foot, and a tap goes through it
    assert result["held note"].startswith("Not taken: the screen had not yet shown your last tap"), result
    assert result["turn after it"] == "Maya's turn", result  # Maya's play taken back, and Sam's kept
    assert result["events added by U pressed twice"] == 1 and result["turn after U twice"] == "Sam's turn", result
    # ... while another key is taken once the page shows the first, and a key the referee has not (Shift+U) holds nothing
    assert result["events added by 1, then U as the page shows the play"] == 2, result
    assert result["events added by a tap after Shift+U"] == 1, result
    assert result["More cards counted up by + tapped twice"] == 2, result  # a number chosen, not an action
    assert result["next player's box and button"] == ["9", "Play 9"] and result["cards the button played"] == 9, result
    assert result["events added by 1 tapped twice, 250 ms apart"] == 1, result  # Sam's play
    assert result["turn after 1 tapped twice"] == "Maya's turn", result  # and no call by Maya, whose button came there
    assert result["games after a double tap on a winner"] == 1, result
    assert result["cut labels"] == {"800": [], "390": []}, result
    before, after = result["phone call: A below the turn line before and after a card"]
    assert before == after, result
    assert len(set(result["laptop call: A below the turn line as cards are tapped in and taken back"])) == 1, result
    assert result["laptop call: the line under five aces"].startswith("⚠ These cards cannot be right"), result
    heights, rules = result["phone call: tools' heights, rules shown"]
    assert len(heights) == 3 and len(set(heights)) == 1 and rules == 1, result


def test_a_server_restart_under_an_open_page_is_explained_and_loses_no_tap(tmp_path):
    """While the server is down the page says where it runs and how to start it again (Streamlit's own dialog asks
    whether the internet is connected, or, on localhost, to run "streamlit run yourscript.py"). A tap made as the page
    reconnects reaches a session whose first run has not drawn the button: Streamlit drops its callback, and the play
    was lost with nothing said. A camera chosen the moment the page comes back is kept (the harness stops where it is
    not: "No camera" stayed, 5 runs in 5 with the choice made so)."""
    result = harness(tmp_path, "restarts", timeout=200)
    assert "start it again with ./run.sh" in result["while_down"] and "internet" not in result["while_down"], result
    # opened as localhost (as the README has it), Streamlit's dialog asked "Is Streamlit still running?", over
    # "streamlit run yourscript.py"
    local = result["while_down_localhost"]
    assert "start it again with ./run.sh" in local and "yourscript" not in local and "Is Streamlit" not in local, result
    assert [t["last"].split(" (")[0] for t in result["taps"]] == ["Sam: one ace", "Maya: one 2", "Sam: one 3"], result
    # the database deleted under a page that only watches: it said nothing, and showed the game, until a tap
    assert any("The sitting this page showed (number 1) is not in the database" in said
               for said in result["after_delete"]), result["after_delete"]
    # an open call is kept in the database: a second window shows it without a tap, and a restart loses neither the
    # call nor the card tapped in
    assert result["second_window"] == "Maya calls Cheat! on Sam", result
    assert result["after_restart"] == "Maya calls Cheat! on Sam", result
    assert "Revealed: 3" in result["revealed_after_restart"], result
    # ... nor lists a photo the new server never got (the uploader showed its file, with no reading beside it)
    assert "What the camera reads in the photo shows here." not in result["photo read"], result
    # ... whose reading is said to be of that photo once a file chosen after it is refused (only the browser knows)
    assert "earlier photo" not in result["photo read"], result
    assert "the earlier photo, synth_00.jpg" in result["photo read, the next file refused"], result
    assert "synth_00.jpg" not in result["photo row after a restart"], result


def test_a_reloaded_call_says_its_camera_is_starting_not_to_press_start_and_the_reading_comes(tmp_path):
    """A reload during a call: the page starts the browser's camera by itself, and its first picture comes seconds
    later. The line over the rank buttons said "the camera has sent no picture yet: press START under it" for 2.3 to
    9.1 s of every reload (9 of 9, in three runs), and players pressed it, which stopped the camera just started. It says
    the camera is starting, at one height, until the picture's reading comes; a camera the table stops is said to send
    nothing, and START to be pressed."""
    result = harness(tmp_path, "resume", timeout=300)
    for reload in result["reloads"]:
        assert reload["press START shown (ms)"] == 0, result
        assert reload["starting shown (ms)"] > 0, result
        assert reload["reading from (ms)"] is not None, result  # the king, read or guessed from the picture
        assert reload["height changed with the words"] == 0, result  # no button under the line moved
    assert "the camera is sending no picture: press START under it" in result["line after STOP"], result
