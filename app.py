"""Cheat Referee: the Streamlit front end.

Wiring and presentation only. Every rule, verdict and score comes from ``assistant``; every event
is stored by ``assistant.referee.Referee`` before it shows on screen, so a reload, a second tab
or a server restart shows the same game. Run with ``./run.sh``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import os
import random
import re
import sys
import time
import uuid
import zlib
from pathlib import Path
from typing import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

ROOT = str(Path(__file__).resolve().parent)
if ROOT not in sys.path:  # Streamlit runs this file again on every tap: once is enough, and the path must not grow
    sys.path.insert(0, ROOT)

from assistant import (  # noqa: E402
    CLAIMABLE,
    Call,
    CheatError,
    FourOfAKind,
    Game,
    ImpossibleReveal,
    NewGame,
    NoCall,
    Pass,
    Play,
    Rank,
    Rules,
    StorageError,
    Undo,
    Winner,
    verdict_for,
)
from assistant.cards import card_count, last_cards  # noqa: E402
from assistant.game import (MAX_TABLE, could_be_honest, dealt_from_left, given_places, next_dealer,  # noqa: E402
                             places_gained, places_taken_back, players_to_tap, ranked_places_most, seen_conflict,
                             standing_counts, tapped_result, tapped_since_a_deal)
from assistant.players import MAX_NAME, clean_name  # noqa: E402
from assistant.referee import Referee  # noqa: E402
from assistant.rules import MIN_PLAYERS, CountRule, Order, TableKind  # noqa: E402
from assistant.storage import (DATA_SETTING, DB_SETTING, MAX_SITTING_NAME, OpenCall, SqliteStore,  # noqa: E402
                               default_db_path, sitting_name)
from ui import camera, words  # noqa: E402
from ui.words import REFUSED, esc, md  # noqa: E402

st.set_page_config(page_title="Cheat Referee", page_icon="🃏", layout="wide")

CSS = """
<style>
/* Text keeps the theme's colour (a laptop in dark mode gets the dark theme): boxes are tinted, grey is a
   fainter text, and the red reads on white and on the dark page alike. */
.cr-turn {font-size: clamp(2rem, 4.5vw, 3.2rem); font-weight: 800; line-height: 1.1; margin: 0.2rem 0;
  word-break: normal; overflow-wrap: break-word;}
/* a word of a name kept whole (an inline block does not break at its hyphen: "Anne- / Sophie"), unless it is wider
   than the line itself, which a name of sixteen wide letters is on a phone: then it breaks, not runs off the screen */
.cr-nb {display: inline-block; max-width: 100%; overflow-wrap: anywhere;}
/* small print in the text's own colour, a little fainter: Streamlit's grey captions read at 3.9:1 on white */
[data-testid="stCaptionContainer"] {color: inherit !important; opacity: 0.75;}
/* words for a screen reader only ("16 cards" in a hand tile that shows "16") */
.cr-sr {position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;}
/* the focus of a keyboard, seen on every button and choice (Streamlit's ring on a button is a faint red, about 2:1
   on white, and a radio or a toggle showed almost nothing) */
button:focus-visible, [role="tab"]:focus-visible {outline: 3px solid #1f6feb !important; outline-offset: 2px;}
.cr-kbd label:has(input:focus-visible) {outline: 3px solid #1f6feb; outline-offset: 2px; border-radius: 0.3rem;}
/* a lie and an honest play told apart by more than colour (red and green look alike to many players) */
.cr-lie::before {content: "✗ ";}
.cr-honest::before {content: "✓ ";}
/* Streamlit leaves 6rem above the page; 3rem clears its header's buttons, and the turn's buttons come up with it (on
   a laptop of 768 px the next player's play buttons were below the screen after a verdict) */
[data-testid="stMainBlockContainer"] {padding-top: 3rem !important;}
/* ... but a phone's header is 60 px high, and covered the top 12 px of the screens' bar */
@media (max-width: 640px) {[data-testid="stMainBlockContainer"] {padding-top: 4rem !important;}}
/* ... and the page's scripts above the screens' bar take no room (explain_lost_connection and the sidebar's fold):
   each one's empty container had its 16 px gap, 32 px of blank page over the bar */
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script:only-child) {display: none;}
.cr-due {font-size: clamp(1.6rem, 3.4vw, 2.4rem); font-weight: 700; color: #d93a2b; line-height: 1.25;
  word-break: normal; overflow-wrap: break-word;}
.cr-sub {font-size: 1.4rem; opacity: 0.75;}
.cr-verdict {font-size: 2.3rem; font-weight: 900; padding: 0.6rem 1rem; border-radius: 0.6rem; margin: 0.4rem 0;}
.cr-lie {background: #fde2e1; color: #9b1c14;}
.cr-honest {background: #dff3e3; color: #1d6b2f;}
.cr-win {font-size: clamp(2rem, 4.8vw, 3.4rem); font-weight: 900; background: #fff4c2; color: #6b5200; padding: 0.6rem 1rem;
  border-radius: 0.6rem; line-height: 1.15;}
.cr-win .cr-places {font-size: 1.4rem; font-weight: 700; margin-top: 0.3rem;}
.cr-hands {display: flex; flex-wrap: wrap; gap: 0.6rem; margin: 0.6rem 0;}
.cr-hand {border: 2px solid #ccc; border-radius: 0.6rem; padding: 0.4rem 0.9rem; min-width: 7.5rem; text-align: center;}
.cr-hand.turn {border-color: #d93a2b; background: rgba(217, 58, 43, 0.12);}
.cr-hand.out {opacity: 0.55;}
.cr-hand .n {font-size: 2.6rem; font-weight: 800; line-height: 1.1;}
.cr-hand .who {font-size: 1.3rem; font-weight: 600;}
.cr-hand .tag {font-size: 0.9rem; opacity: 0.7;}
.cr-hand .who :is(.long, .longer, .longest) {display: inline-block; line-height: 1.2;}
.cr-hand .who .long {font-size: 0.8em;}
.cr-hand .who .longer {font-size: 0.7em;}
.cr-hand .who .longest {font-size: 0.6em;}
.cr-hands.many {gap: 0.4rem;}
/* eight hands in one row in the page's width on a 1280 px laptop (at 6rem the eighth came alone in a second row, and
   the next play's buttons went below its 800 px screen) */
.cr-hands.many .cr-hand {min-width: 5rem; padding: 0.25rem 0.6rem;}
.cr-hands.many .cr-hand .n {font-size: 2rem;}
.cr-hands.many .cr-hand .who {font-size: 1.1rem;}
/* Where the game's column is narrow (a laptop with the camera beside it), the tiles share a row down to 5.5rem
   each: four hands in two rows put the next player's buttons below a 800 px screen */
.cr-hands {container-type: inline-size;}
@container (max-width: 620px) {
  .cr-hand, .cr-hands.many .cr-hand {flex: 1 1 5rem; min-width: 0; max-width: 10rem; padding: 0.25rem 0.4rem;}
  .cr-hand .n, .cr-hands.many .cr-hand .n {font-size: 2rem;}
  .cr-hand .who, .cr-hands.many .cr-hand .who {font-size: 1.1rem; overflow-wrap: anywhere;}
  /* five hands or more in one row where they fit (six beside the camera put the play buttons below the screen) */
  .cr-hands.many .cr-hand {flex-basis: 4rem; padding: 0.2rem 0.25rem;}
  .cr-hands.many .cr-hand .who {font-size: 0.95rem;}
}
/* A crowd (more than CROWD players): each hand a name and its count on one line, and the pile and the hands under
   the buttons of the turn on every screen, as on a phone */
.cr-hands.crowd {gap: 0.3rem;}
.cr-hands.crowd .cr-hand {display: flex; align-items: baseline; gap: 0.35rem; flex: 0 1 auto; min-width: 0;
  max-width: none; padding: 0.1rem 0.5rem; text-align: left;}
.cr-hands.crowd .cr-hand .who {font-size: 1rem;}
.cr-hands.crowd .cr-hand .who :is(.long, .longer, .longest) {font-size: inherit;}  /* a one-line tile fits its name */
.cr-hands.crowd .cr-hand .n {font-size: 1.35rem; line-height: 1.2;}
.cr-hands.crowd .cr-hand .tag {font-size: 0.75rem;}
[data-testid="stLayoutWrapper"]:has(> .st-key-board .cr-hands.crowd), .st-key-board:has(.cr-hands.crowd) {order: 1;}
/* the end-of-run marks and the page's scripts (see arrive) take no room: their container's gaps left 64 px of
   blank page, which a crowd's board, moved after them, showed above it */
[data-testid="stLayoutWrapper"]:has(> .st-key-arrival) {display: none;}
/* and the callers' names in smaller letters, each on one line of its button; five callers or more beside the camera
   too (callers_small, see action_panel): there "Oluwaseun" in a third of the game's column broke ("Oluwase / un"),
   and eight players' callers two to a row put the next play's buttons below a 800 px laptop screen */
:is([data-testid="stMain"]:has(.cr-hands.crowd), .st-key-callers_small) .st-key-grid_cheat button {min-height: 2.8rem;}
:is([data-testid="stMain"]:has(.cr-hands.crowd), .st-key-callers_small) .st-key-grid_cheat button p {
  font-size: 1.1rem !important; line-height: 1.2;}
:is([data-testid="stMain"]:has(.cr-hands.crowd), .st-key-callers_small) .st-key-grid_cheat {gap: 0.5rem !important;}
@container game (max-width: 620px) {  /* beside the camera: the names' room is the icon's too */
  :is([data-testid="stMain"]:has(.cr-hands.crowd), .st-key-callers_small) .st-key-grid_cheat button
    span:has(> [data-testid="stIconMaterial"]) {display: none;}
  :is([data-testid="stMain"]:has(.cr-hands.crowd), .st-key-callers_small) .st-key-grid_cheat button p {
    font-size: 1rem !important;}
}
/* a crowd's callers come in one row (see action_panel), wrapped here per_row to a line, and three to a line on a
   phone, in the smaller letters and without the icon of a narrow column */
[class*="st-key-callers_rows_"] .st-key-grid_cheat [data-testid="stHorizontalBlock"] {
  flex-wrap: wrap !important; gap: 0.5rem !important;}
[class*="st-key-callers_rows_"] .st-key-grid_cheat [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
  min-width: 0 !important; width: auto !important; flex: 0 0 calc((100% - 1.5rem) / 4) !important;}
.st-key-callers_rows_3 .st-key-grid_cheat [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
  flex-basis: calc((100% - 1rem) / 3) !important;}
.st-key-callers_rows_2 .st-key-grid_cheat [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
  flex-basis: calc((100% - 0.5rem) / 2) !important;}
/* by the row's own width, not the screen's: a window narrowed beside the sidebar (820 px) broke "Barthol / omew" */
[class*="st-key-callers_rows_"] .st-key-grid_cheat {container: callers / inline-size;}
@container callers (max-width: 600px) {
  :is(.st-key-callers_rows_4, .st-key-callers_rows_3) .st-key-grid_cheat [data-testid="stHorizontalBlock"] >
    [data-testid="stColumn"] {flex-basis: calc((100% - 1rem) / 3) !important;}
  [class*="st-key-callers_rows_"] .st-key-grid_cheat button span:has(> [data-testid="stIconMaterial"]) {display: none;}
  [class*="st-key-callers_rows_"] .st-key-grid_cheat button {padding-left: 0.3rem; padding-right: 0.3rem;}
  [data-testid="stMain"]:has(.cr-hands.crowd) [class*="st-key-callers_rows_"] .st-key-grid_cheat button p {
    font-size: 0.9rem !important;}
}
/* the buttons of a line as high as its highest: the Cheat! buttons (a name on two lines made one of three taller)
   and a call's tools ("Clear" sat above "Back one card", two lines high on a phone) */
:is(.st-key-grid_cheat, .st-key-reveal_tools) [data-testid="stColumn"] > [data-testid="stVerticalBlock"],
:is(.st-key-grid_cheat, .st-key-reveal_tools) [data-testid="stColumn"] [class*="st-key-"],
:is(.st-key-grid_cheat, .st-key-reveal_tools) :is(.stButton, button) {height: 100%;}
/* the pile's figure never parted from its "cards" ("Pile 49" over "cards" on a phone) */
.cr-pileline {white-space: nowrap;}
/* the match table's buttons a finger's 44 px high, as the game's are */
:is(.st-key-grid_winner, .st-key-csv, .st-key-transcript, .st-key-undo_result, .st-key-record_places) button {
  min-height: 2.75rem;}
/* and the pile's line in smaller letters there, so that "Last play Maya: two aces (called)" keeps to one line */
.st-key-grid_pile {container-type: inline-size;}
@container (max-width: 620px) {
  .cr-pile {font-size: 1.7rem;}
  .cr-last {font-size: 1.2rem;}
}
.cr-pile {font-size: 2.2rem; font-weight: 700;}
.cr-last {font-size: 1.6rem;}
.cr-novoice {display: none; font-size: 0.85rem; opacity: 0.75;}
/* Streamlit's "Press Enter to submit form" lay over the name box's placeholder ("A name of up to 16 characters"), and
   the Add player button beside the box says what Enter does. */
.st-key-new_player [data-testid="InputInstructions"] {display: none;}
/* A photo's reading, beside the photo's box: as high from the start as it will be with a picture, so that the
   buttons under it stay where they were when the reading comes (on a laptop: on a phone it comes under the box). */
@media (min-width: 641px) {.st-key-still_seen {min-height: 8rem;}}
/* ... said to be the earlier photo's where the uploader's newest file is refused (EARLIER_PHOTO): the browser lists it
   last, its chip marked invalid, and the app never hears of it */
.cr-earlier {display: none;}
.st-key-still_row:has([data-testid="stFileChips"] > :first-child > :last-child [aria-invalid="true"]) .cr-earlier {
  display: block; color: #d93a2b; font-weight: 600;}
/* What the live camera reads during a call, above the rank buttons: two lines high whatever it says, three on a
   phone (a longer note scrolls in them), so that the buttons under it never move while the camera reads. */
.cr-camline {height: 2lh; overflow-y: auto;}
@media (max-width: 640px) {.cr-camline {height: 3lh;}}
/* On a phone the History leaves out its last column, the players of each game (the CSV has them): eight names made
   the table 447 px wide in a box of 356, and each row 175 px high. The note under it says so, there only. */
.cr-phoneonly {display: none; font-size: 0.875rem; opacity: 0.75;}
@media (max-width: 640px) {
  .st-key-history :is(th, td):last-child {display: none;}
  .cr-phoneonly {display: block;}
}
/* ... and so do the cards tapped in at a call, and the verdict they make, above the rank buttons on a laptop (on a
   phone they are under the buttons, where they may grow); the heading over them goes there, where the line says
   what to tap, to make room. */
@media (min-width: 641px) {
  .cr-ifline {height: 2lh; overflow-y: auto;}
  .cr-revealhead {display: none;}
}
/* a warning in that line: as loud as the rest of the page (not the line's faded grey), in smaller letters so that more
   of it shows in the two lines, which scroll for the rest */
.cr-ifline.cr-check {opacity: 1; background: #fff4c2; color: #6b5200; border-radius: 0.3rem; padding: 0 0.4rem;}
.cr-checkthem {font-size: 0.8em;}
.cr-choicekeys {font-size: 0.95rem; opacity: 0.8; margin-top: 0.3rem;}
.cr-pending {font-weight: 700;}
button.cr-armed {outline: 4px solid #f5b700; outline-offset: 3px;}
/* Beside the camera on a laptop the game's column is about half the screen: the turn line, the claim and the small
   print by that column's width, not the screen's (at 1280 x 800 "Ben calls Cheat! on Ann" and the claim under it
   took four lines, and the rank buttons of a call were pushed below the screen). A phone has its own sizes below. */
.st-key-split [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:first-child {container: game / inline-size;}
@media (min-width: 641px) {
  @container game (max-width: 620px) {
    .cr-turn {font-size: clamp(1.8rem, 6.4cqi, 3.2rem);}
    .cr-due {font-size: clamp(1.4rem, 4.6cqi, 2.4rem);}
    .cr-sub {font-size: 1.15rem;}
    .cr-last {font-size: 1.3rem;}
    /* the verdict on one line ("Honest: Ben picks up 1 card" took two, and with eight players the next play's
       buttons' foot came at 799 px of a 800 px screen) */
    .cr-verdict {font-size: 1.8rem;}
  }
}
/* On a phone Streamlit stacks columns one under another: the grids of play, reveal and Cheat! buttons stay in
   rows there (sixteen play buttons or fourteen ranks one per row would run to pages), and keyboard keys,
   which a touch screen has none of, are not shown on them. */
@media (max-width: 640px) {
  :is(.st-key-grid_play, .st-key-grid_reveal, .st-key-grid_cheat, .st-key-grid_seats, .st-key-grid_winner,
       .st-key-grid_shortcuts) [data-testid="stHorizontalBlock"] {flex-wrap: nowrap !important; gap: 0.4rem !important;}
  :is(.st-key-grid_play, .st-key-grid_reveal, .st-key-grid_cheat, .st-key-grid_seats, .st-key-grid_winner,
      .st-key-grid_shortcuts) [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
    min-width: 0 !important; width: auto !important; flex: 1 1 0 !important;}
  .st-key-grid_seats [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:first-child {flex: 4 1 0 !important;}
  /* names two to a row, in their seating order, whole words: a name is never broken inside */
  :is(.st-key-grid_cheat, .st-key-grid_winner) [data-testid="stHorizontalBlock"] {flex-wrap: wrap !important;}
  :is(.st-key-grid_cheat, .st-key-grid_winner) [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
    flex: 1 1 40% !important; max-width: calc(50% - 0.2rem);}  /* a name alone on its line as wide as the others */
  /* and the rows made for a laptop flow on as one (rows of three came two, then one alone, with a gap after) */
  :is(.st-key-grid_cheat, .st-key-grid_winner) {flex-flow: row wrap !important; gap: 0.4rem !important;}
  :is(.st-key-grid_cheat, .st-key-grid_winner) > [data-testid="stLayoutWrapper"],
  :is(.st-key-grid_cheat, .st-key-grid_winner) [data-testid="stHorizontalBlock"] {display: contents !important;}
  :is(.st-key-grid_cheat, .st-key-grid_winner) [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:not(:has(button)) {
    display: none;}
  :is(.st-key-grid_cheat, .st-key-grid_winner) button p {word-break: normal; overflow-wrap: break-word;}
  /* labels that fit a phone's narrow buttons ("1 × K's", "Joker", "Bartholomew") */
  :is(.st-key-grid_play, .st-key-grid_reveal, .st-key-grid_cheat) button p {font-size: 1.1rem !important;}
  /* a fifth of a phone's width holds "Joker" or its key, not both (a desktop's window that narrow shows keys); the
     play buttons' keys go the same way */
  .st-key-grid_reveal kbd, .st-key-grid_play kbd, .st-key-undo kbd {display: none;}
  /* nor the keys of a play where the order gives a choice of rank (the number typed still shows) */
  .cr-keyhint {display: none;}
  /* the turn line and the buttons of a turn on one screen (the first play button was 1,006 px down a 844 px phone):
     the pile beside the last play, the hands two to a row in smaller tiles, smaller small print, less room above */
  .st-key-grid_pile [data-testid="stHorizontalBlock"] {flex-wrap: nowrap !important; gap: 0.8rem !important;}
  .st-key-grid_pile [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
    min-width: 0 !important; width: auto !important; flex: 1 1 0 !important;}
  .st-key-grid_pile [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:first-child {flex: 0 0 auto !important;}
  .st-key-grid_pile [data-testid="stHorizontalBlock"] > [data-testid="stColumn"]:last-child {flex: 1 1 0 !important;}
  /* the cards tapped in, the verdict they make and Apply under a call's buttons: above them, the line of cards
     wrapped as it grew, and moved every button under the finger between two taps (30 px after the first card,
     128 after eleven) */
  [data-testid="stLayoutWrapper"]:has(> .st-key-revealed), .st-key-revealed {order: 1;}
  /* the rule under a call: the board goes below the buttons here, and the rule before Undo is enough */
  [data-testid="stLayoutWrapper"]:has(> .st-key-call_rule), .st-key-call_rule {display: none;}
  .cr-pile {font-size: 1.6rem;}
  .cr-last {font-size: 1.15rem;}
  .cr-sub {font-size: 1.05rem;}
  .cr-hands {gap: 0.4rem; margin: 0.3rem 0;}
  .cr-hand, .cr-hands.many .cr-hand {flex: 1 1 40%; min-width: 0; padding: 0.15rem 0.4rem;}
  .cr-hand .n, .cr-hands.many .cr-hand .n {font-size: 1.7rem; line-height: 1.05;}
  .cr-hand .who, .cr-hands.many .cr-hand .who {font-size: 1rem;}
  .cr-hand .tag {font-size: 0.8rem;}
  /* and the pile and the hands under the buttons of the turn (after a verdict, or with six callers' names, the play
     buttons were a screen down); the verdict in smaller letters */
  [data-testid="stLayoutWrapper"]:has(> .st-key-board), .st-key-board {order: 1;}
  .cr-verdict {font-size: 1.5rem; padding: 0.4rem 0.7rem;}
  /* every rank of a call on the screen of a small phone (at 360 x 740 the row of J, Q, K was cut at its foot):
     the rows of buttons closer, the buttons a little lower (still over the 44 px a finger needs), and the
     reveal's heading without its "tap each card's rank", which the line under it says */
  :is(.st-key-grid_play, .st-key-grid_reveal) {gap: 0.45rem !important;}
  :is([class*="st-key-play_"], [class*="st-key-reveal_add_"], .st-key-reveal_honest, .st-key-use_reading) button {
    min-height: 3rem !important;}
  .cr-tapnote {display: none;}
}
/* A message in a corner (st.toast) never takes a tap: over the screen bar on a phone it swallowed the tap on "Match
   table", and a pointer resting on it kept it up for good. On a phone it comes at the foot of the screen, over the
   pile and the hands, not over the bar and the turn line. */
[data-testid="stToast"] {pointer-events: none;}
/* ... and says all it has to say: Streamlit cuts a message to three lines, behind a "view more" that no tap reaches
   (above), and "Your tap was not recorded: check whose turn it is before tapping again" lost its advice */
[data-testid="stToastText"] {display: block !important; -webkit-line-clamp: none !important; overflow: visible !important;}
[data-testid="stToastViewButton"] {display: none !important;}
@media (max-width: 640px) {
  [data-testid="stToastContainer"] {top: auto !important; bottom: 0.75rem !important;}
}
/* The camera's column where the camera is not wanted: hidden, not removed (the browser's camera keeps running). */
.st-key-split [data-testid="stColumn"]:has(.cr-camera-hidden) {display: none !important;}
.st-key-split [data-testid="stHorizontalBlock"]:has(.cr-camera-hidden) > [data-testid="stColumn"] {
  flex: 1 1 100% !important; width: 100% !important; max-width: 100% !important;}
/* On a tablet (or a narrow window) the camera goes under the game, which keeps the width it needs. */
@media (max-width: 1000px) {
  .st-key-split [data-testid="stHorizontalBlock"]:not(.st-key-split [data-testid="stColumn"] *) {flex-wrap: wrap !important;}
  .st-key-split [data-testid="stHorizontalBlock"]:not(.st-key-split [data-testid="stColumn"] *) > [data-testid="stColumn"] {
    flex: 1 1 100% !important; min-width: 100% !important; width: 100% !important;}
}
@media (hover: none) {
  [class*="st-key-play_"] kbd, [class*="st-key-reveal_add_"] kbd, .st-key-undo kbd, .cr-choicekeys, .cr-keysonly {
    display: none;}
}
/* a key's hint on its button at full strength: at Streamlit's 0.6 it read at 2.8:1 on the red play buttons */
button kbd {opacity: 1 !important;}
.cr-camnote {display: none; font-size: 0.95rem; font-weight: 600; color: #d93a2b;}
[class*="st-key-play_"] button, [class*="st-key-cheat_"] button, .st-key-nocall button, .st-key-apply_verdict button,
[class*="st-key-reveal_add_"] button, .st-key-reveal_honest button, .st-key-use_reading button {min-height: 3.4rem;}
[class*="st-key-play_"] button p, [class*="st-key-cheat_"] button p, .st-key-nocall button p,
.st-key-apply_verdict button p, [class*="st-key-reveal_add_"] button p, .st-key-reveal_honest button p {font-size: 1.5rem; font-weight: 700;}
/* the one word among the ranks, "Joker": smaller, and the ranks' buttons narrower at their sides, so that it fits a
   fifth of the game's column beside its key (it was cut to "Jo…" on a tablet, and on a phone) */
.st-key-reveal_add_JOKER button p {font-size: 1.15rem;}
[class*="st-key-reveal_add_"] button {padding-left: 0.25rem !important; padding-right: 0.25rem !important;}
</style>
"""

CAMERA_SOURCES = {
    "live": "Live camera in this browser",
    "snapshot": "Snapshot",
    "upload": "Photo upload",
    "server": "Camera on the server (USB)",
    "none": "No camera: enter cards by hand",
}


# --- storage and the sitting -------------------------------------------------------------------


def open_store() -> SqliteStore:
    return SqliteStore()


def button(where, label: str, *, on_click: Callable, args: tuple = (), spoken: str | None = None, **settings) -> None:
    """``where.button`` whose action is sure to run, once. Streamlit runs ``on_click`` before the page's next run, but
    drops it when the tap reaches a session whose first run has not drawn the button yet: a page left open through a
    server's restart and tapped as it reconnects (16 of 16 such taps were lost, with nothing said). The button still
    reads as pressed in that run; the action is then run at the top of the next one (:func:`run_late_tap`).

    ``spoken`` is the button's name for a screen reader where its label alone says too little ("2", "K", "Ben"); an
    icon's button is named by its ``help``. The page sets them (:func:`for_every_player`)."""
    key = settings["key"]
    name = spoken or (settings.get("help") if not label else None)
    if name:
        st.session_state.setdefault("_spoken", {})[key] = name
    pressed = where.button(md(label), on_click=_tapped, args=(key, on_click, args), **settings)
    # a disabled button's callback is dropped on purpose (it was disabled when tapped)
    if pressed and not settings.get("disabled") and key not in st.session_state.get("_tapped_this_run", ()):
        st.session_state["_late_tap"] = (on_click, args)
        st.rerun()


def _tapped(key: str, action: Callable, args: tuple) -> None:
    """A button's callback: its action, once a tap. Every button is drawn outside the camera's line, a fragment that
    runs five times a second during a call; yet Streamlit at times dispatches a tap to that fragment's run as well as
    to the page's run the tap itself asks for, 2 to 16 ms apart (seen in 2 of 79, 0 of 116 and 1 of 116 taps during
    a call read by the camera on the server, in Chromium). Acted on twice, a Cancel found the call gone and said
    "Another window cancelled Ben's call ... Your tap was not recorded", and K put in a king more. The fragment's
    dispatch is dropped: the page's acts. (So no button of this kind may be drawn inside a fragment: its taps would be
    dropped.)"""
    context = get_script_run_ctx()
    if context is not None and context.fragment_ids_this_run:
        return
    # a set: two buttons tapped while one run was busy both run their callbacks before the next run
    st.session_state.setdefault("_tapped", set()).add(key)
    action(*args)


def run_late_tap() -> None:
    """Note which button's action ran as its callback before this run, and run a tap's action that Streamlit dropped
    (see :func:`button`), before any widget is drawn: as a callback would have."""
    ss = st.session_state
    ss["_tapped_this_run"] = ss.pop("_tapped", set())
    ss["_spoken"] = {}
    late = ss.pop("_late_tap", None)
    if late is not None:
        action, args = late
        action(*args)


#: How long what a tap did is said in the corner: Streamlit's "short" (4 s) was gone before a slow reader was through.
TOAST_SECONDS = 7


def flash(kind: str, text: str) -> None:
    """A message shown once, on the next run (errors from callbacks survive the rerun this way); the same message
    twice before then (taps refused one after another) is shown once. ``kind`` "toast" is what a tap did, said for a
    few seconds in a corner, since said at the top it pushed the page's buttons down under the next tap; "toast_long"
    (ten seconds) a place given, or a tap not recorded (:data:`REFUSED`); "retract" a message said before and no longer
    true, closed where it still shows; any other is the name of a Streamlit message (``warning``, ``error``,
    ``info``), shown at the top."""
    queued = st.session_state.setdefault("flash", [])
    if (kind, text) not in queued:
        queued.append((kind, text))


def show_flashes() -> None:
    """The messages, in a container drawn on every run whether or not there are any: a message that came and went
    above the page's columns would move the live camera's element, and the browser would stop its camera."""
    toasted = st.session_state["_toasted"] = []  # put in the page's mark, see for_every_player
    retracted = st.session_state["_retracted"] = []  # closed at once where they still show, see for_every_player
    with st.container(key="flashes"):
        for kind, text in st.session_state.pop("flash", []):
            if kind == "retract":
                retracted.append(text)
            elif kind.startswith("toast"):
                st.toast(md(text), duration="long" if kind == "toast_long" else TOAST_SECONDS)
                if kind == "toast":  # a place given, or a tap refused, stays its time: a busy table may miss it
                    toasted.append(text)
            else:
                getattr(st, kind)(md(text))


def attempt(action: Callable[[], object], say_stale: bool = True) -> bool:
    """Run one of the referee's writes; any refusal is shown as the referee says it (:func:`words.refusal`), and
    False returned. Another window's change first is not said where ``say_stale`` is off: the camera's verdict, lost
    to another window's."""
    try:
        action()
    except CheatError as error:
        said = words.refusal(error, on_table=st.session_state.get("screen") == "Match table")
        if say_stale or not said.stale:
            flash(said.kind, said.text)
        return False
    return True


#: How long after an event a tap that acts is refused unless the page has been drawn whole since (see `record`).
UNSEEN_S = 3.0


def seen_since_last_event() -> bool:
    """Whether the page has been drawn whole since this window last recorded an event (or a few seconds have gone):
    if not, a tap that acts was made on the screen before that event. Streamlit runs a tap queued behind another with
    its button as the interrupted run drew it again, so the log length it carries (``at``) can be the new one. Said,
    and False, where not. (The server draws a page a moment before the browser shows it: taps and keys in that moment
    are held in the page, :func:`guard_taps`.)"""
    ss = st.session_state
    acted = ss.get("_acted")
    if acted is not None and acted[0] == ss.get("_runs_drawn", 0) and time.monotonic() - acted[1] < UNSEEN_S:
        flash(REFUSED, words.MOVED_ON)
        return False
    return True


def note_event() -> None:
    """An event this window recorded: acting taps wait for the page that shows it (:func:`seen_since_last_event`)."""
    st.session_state["_acted"] = (st.session_state.get("_runs_drawn", 0), time.monotonic())


def attempt_event(action: Callable[[], object]) -> bool:
    """:func:`attempt` for a tap whose write records an event: refused while the page has not shown this window's last
    event (:func:`seen_since_last_event`), and noted once done (:func:`note_event`)."""
    if seen_since_last_event() and attempt(action):
        note_event()
        return True
    return False


def record(event, at: int) -> bool:
    """Store one event for the current sitting, tapped on the game as it stood with ``at`` events in its log; any
    refusal is shown as the referee says it."""
    return attempt_event(lambda: st.session_state["_referee"].record(event, at=at, shown=st.session_state.get("call")))


def act(event, at: int) -> bool:
    """A button's callback: record the event it was drawn for, on the game as it was drawn (``at``: its log's length).

    Callbacks run before the page is redrawn: a second tap made before the page redrew after the first (Undo tapped
    twice took back two events), or a tap in a window that another has got ahead of, is refused (MovedOn,
    StaleSitting) instead of being applied to whoever's turn it is now. What a tap changed out of sight of the top
    lines (a pass, cards laid out, an undo) is said once, in a corner (:func:`flash`).
    """
    referee: Referee = st.session_state["_referee"]
    undone = referee.sitting.last_counted if isinstance(event, Undo) else None
    before = referee.state.game
    if not record(event, at):
        return False
    end_call()
    if not isinstance(undone, NewGame):  # a deal taken back shows the game before it, whose places were said
        say_places(before, referee.state.game)
    if undone is not None:
        flash("toast", f"Took back {words.taken_back(undone)}.")
    elif isinstance(event, Pass):
        flash("toast", f"{event.player} passed.")
    elif isinstance(event, FourOfAKind):
        flash("toast", f"{event.player} laid out four {words.rank_plural(event.rank)}: those cards leave the game.")
    return True


def say_what_another_window_did(referee: Referee, sitting_key: str) -> None:
    """What another window took back, cancelled or corrected since this window last drew the game, said as this
    window's own taps are ("Another window took back Ann's play."): a window that only watched saw the play or the
    call vanish, and its screen reader kept the old verdict, without a word. Its plays, calls and verdicts need no
    words: the page shows them, and its turn and winner's lines are read out; on the match table, which has no such
    line, a result recorded is said."""
    ss = st.session_state
    shown: Referee | None = ss.get("_referee")
    if shown is None or ss.get("_sitting_key") != sitting_key:
        return
    held: OpenCall | None = ss.get("call")  # this window's own cancel or verdict lets go of its call first
    events, rows = len(shown.sitting.log), len(shown.state.table.rows)
    kept = ss.get("_standing")
    before = kept[1] if kept is not None and kept[0] == sitting_key else shown.game_standing(held)
    taken = shown.sitting.catch_up(referee.sitting.log)  # this window's own events are in its log already
    new = referee.sitting.log[events:] if len(shown.sitting.log) == len(referee.sitting.log) > events else []
    if not new and held is None:
        return
    try:
        stored = referee.open_call()
    except StorageError:
        return  # the page's run says what is wrong with the database
    said = [*words.call_ended_elsewhere(held, events, stored, new), *words.undone_elsewhere(taken, stored)]
    if ss.get("screen") == "Match table":  # no turn or winner's line says it here, as on the game screen
        said += [f"Another window recorded game {row.number}: {words.result_text(row)}."
                 for row in referee.state.table.rows[rows:] if new]
    if not any(isinstance(event, NewGame) for event in new) and not any(isinstance(e, NewGame) for e, _ in taken):
        say_places(before, referee.game_standing(stored), gained=False)  # a place this window said, taken back there
    for text in said:  # after it: the corner shows the latest first, as it shows "Took back ..." over its place
        flash("toast", text)


def say_places(before: Game | None, after: Game | None, gained: bool = True) -> None:
    """A player gone out on a ranked table while play goes on is said (only their tile changed), for longer than the
    other corner messages, as a table busy with the next play may miss it; the end of a game has its own banner.
    ``before`` and ``after``: the game before and after the event (the same game: a deal, or a deal taken back, says
    nothing), as :meth:`Referee.game_standing` gives it. A place said so and then taken back (an undo, a verdict
    corrected to a lie, here or in another window) is said too, and the message that gave it is closed: "Ann is out:
    1st place" stayed up over the corrected verdict "Lie: Ann picks up 50 cards". ``gained`` off: only places taken
    back (a window that watched another give them said nothing of them)."""
    if before is None or after is None:
        return
    for place, name in places_taken_back(before, after):
        flash("retract", words.place_text(name, place))
        flash("toast_long", f"{name}'s {words.place_word(place)} is taken back.")
    if not gained:
        return
    for place, name in places_gained(before, after):
        flash("toast_long", words.place_text(name, place))


def remember_standing(referee: Referee) -> None:
    """The game whose places this page showed as standing, on any screen, for what another window takes back before
    its next run (:func:`say_what_another_window_did`): worked out again then from this window's call, it missed a
    place taken back while this window showed the match table (it holds no call there), or after a tap of its own
    that another window's verdict had made stale (its sitting had caught up already)."""
    try:
        call = referee.open_call()
    except StorageError:
        return  # the page's run says what is wrong with the database
    st.session_state["_standing"] = (st.session_state["_sitting_key"], referee.game_standing(call))


def act_from_state(kind: str, at: int, named: int | None = None) -> None:
    """A callback whose event depends on inputs read at tap time (a number box, select boxes). ``named``: the number
    the "More cards" button said, which it plays and no other. A number typed into the box and the button tapped at
    once came with the tap, before the button was drawn again with it: "Play 9" laid down 12."""
    referee: Referee = st.session_state["_referee"]
    game = referee.state.game
    ss = st.session_state
    if kind == "play_many" and game is not None and game.turn is not None:
        count = int(ss.get("play_many_n", 1))
        if count != named:
            flash(REFUSED, f"The box says {count} and the button said Play {named}, so nothing was played. The button "
                           f"now says Play {count}.")
            return
        rank = ss.get("play_many_rank") if len(game.ranks_allowed) > 1 else None
        act(Play(game.turn, count, rank), at)
    elif kind == "four":
        if ss.get("four_player") is not None and ss.get("four_rank") is not None:
            misfit = seen_conflict(game, ss["four_player"], (ss["four_rank"],) * 4) if game is not None else None
            if act(FourOfAKind(ss["four_player"], ss["four_rank"]), at):
                ss["four_player"] = ss["four_rank"] = None  # chosen again for the next four
                if misfit is not None:
                    flash("warning", f"That four does not fit what the table saw: {misfit}. If the four is right, an "
                                     "earlier reveal was entered wrong; the referee goes by the four.")
    elif kind == "places":
        places = tuple(ss.get("ranked_places") or ())
        # scored ranked: only a ranked table shows places
        if record(tapped_result(referee.state, places, ss.get("_table_players") or (), TableKind.RANKED), at):
            end_call()
            ss["ranked_places"] = []  # a second tap must not record the same game again
            say_recorded()


def current_sitting(store: SqliteStore):
    """The sitting chosen in the sidebar (kept in the address, so a reload keeps it); in a page opened without one,
    the sitting played last."""
    sittings = store.sittings()
    wanted = st.query_params.get("sitting")
    chosen = None
    if wanted is not None:
        chosen = next((s for s in sittings if str(s.id) == str(wanted)), None)
        if chosen is None:
            forget_setup()  # made for that sitting, and dated by its deals (forget_setup_made_before_a_deal)
            # a page left open on a database that has since gone (deleted, moved, another setting): say so, not
            # only show another sitting or an empty start
            flash("warning", f"The sitting this page showed (number {wanted}) is not in the database {store.path}"
                  + (", which the referee has just started anew: if its file was moved or deleted, stop the referee, "
                     "put the file back, and start it again." if store.created else "."))
    if chosen is None and sittings:
        # the sitting played last (a later one may have been made and left empty); the newest among equals
        chosen = max(sittings, key=lambda s: (s.active, s.id))
    # the sitting shown goes into the address: a page keeps it while another window plays in another sitting
    if chosen is None:
        st.query_params.pop("sitting", None)
    elif str(chosen.id) != str(wanted):
        st.query_params["sitting"] = str(chosen.id)
    return sittings, chosen


def sittings_listed(sittings) -> tuple[tuple[int, str], ...]:
    """The sittings as the sidebar lists them, by number and name: what another window may change under it."""
    return tuple((s.id, s.name) for s in sittings)


def sidebar(store: SqliteStore, sittings, chosen) -> None:
    with st.sidebar:
        st.header("Sitting", anchor=False)
        if sittings:
            ids = [s.id for s in sittings]
            names = words.sitting_names(sittings)
            index = ids.index(chosen.id) if chosen is not None else len(ids) - 1
            # a new box when a name changes: the box kept showing the old name of the sitting chosen after a rename
            listed = zlib.crc32(repr(sittings_listed(sittings)).encode())
            picked = st.selectbox("This evening's table", ids, index=index, format_func=names.get,
                                  key=f"sitting_pick_{chosen.id if chosen else 0}_{listed:08x}")
            if chosen is None or picked != chosen.id:
                st.query_params["sitting"] = str(picked)
                reset_session_ui()
                st.rerun()
            box = f"rename_{chosen.id}"
            if st.session_state.get(f"_{box}_of") != chosen.name:  # renamed, here or in another window: shown anew
                st.session_state[box] = st.session_state[f"_{box}_of"] = chosen.name
            with st.expander("Rename this sitting"), st.form(f"rename_sitting_{chosen.id}", border=False):
                name = st.text_input("New name", key=box, max_chars=MAX_SITTING_NAME)
                if st.form_submit_button("Rename", key="sitting_rename"):
                    rename_sitting(store, chosen, name)
        with st.form("new_sitting", clear_on_submit=True):
            name = st.text_input("New sitting", placeholder="Friday at Maya's", key="sitting_name",
                                 max_chars=MAX_SITTING_NAME)
            if st.form_submit_button("Start a new sitting", key="sitting_create"):
                start_sitting(store, name)
        st.divider()
        st.header("Sound and camera", anchor=False)
        speak = st.toggle("Speak verdicts aloud", value=from_address("speak", True), key="speak")
        keep_in_address("speak", True)
        if speak:
            voice_check()
        default_source = os.environ.get("CHEAT_REFEREE_CAMERA", "live")
        if default_source not in CAMERA_SOURCES:
            st.warning(f"CHEAT_REFEREE_CAMERA={md(repr(default_source))} is none of {', '.join(CAMERA_SOURCES)}: the live camera "
                       "is chosen first instead.")
            default_source = "live"
        sources = list(CAMERA_SOURCES)
        source = st.radio("Camera", sources, index=sources.index(from_address("camera_source", default_source)),
                          format_func=CAMERA_SOURCES.get, key="camera_source")
        keep_in_address("camera_source", default_source)
        if source == "server":
            default_server = os.environ.get("CHEAT_REFEREE_SERVER_CAMERA", "0")
            st.text_input("Camera on the server: number, device or address",
                          value=from_address("server_camera", default_server), key="server_camera",
                          help="0 is the first camera plugged into this machine; /dev/video2 names one; an address (http://...) reads a phone or network camera on this network; a video file plays in a loop")
            keep_in_address("server_camera", default_server)
        name_server_camera(str(st.session_state.get("server_camera", "0")) if source == "server" else None)
        if source != "live":
            st.query_params.pop(ADDRESS_KEYS["live_on"], None)  # the browser's camera is not drawn: nothing to start
        problem = camera.reader_problem()
        if problem:
            st.caption(f"Card reader not available ({md(problem.split(': ', 1)[-1])}): the revealed cards are tapped in by hand.")
        st.caption("Privacy: pictures are read on this machine and never stored or sent anywhere.")


#: The sidebar's settings, whether the browser's camera was on, and whether the History shows every game, by their
#: names in the page's address.
ADDRESS_KEYS = {"speak": "speak", "camera_source": "camera", "server_camera": "server", "live_on": "live",
                "history_all": "history"}


def from_address(key: str, default: str | bool) -> str | bool:
    """A sidebar setting's value where its widget starts in a session: the one this window kept in its address, else
    ``default``. A reload starts a new session but keeps the address, so a table that turned the voice off or chose
    the camera on the server keeps that choice. It is the widget's own starting value (``value=``, ``index=``), which
    Streamlit uses only where the browser sent none, never written into ``st.session_state``: a value written there
    outranks the browser's, and after a server restart the new session's first run carries the choice clicked as the
    page came back (the camera chosen stayed "No camera")."""
    kept = st.query_params.get(ADDRESS_KEYS[key])
    if isinstance(default, bool):
        return default if kept not in ("on", "off") else kept == "on"
    if key == "camera_source":
        return kept if kept in CAMERA_SOURCES else default
    return kept if kept else default


def put_in_address(name: str, value: str | list[str], default: str | list[str]) -> None:
    """``value`` under ``name`` in the page's address, where it differs from ``default``: a page opened fresh gets the
    default anyway, and an address stays short."""
    if value == default:
        st.query_params.pop(name, None)
    else:
        st.query_params[name] = value


def keep_in_address(key: str, default: str | bool) -> None:
    """Write a sidebar setting into the page's address (:func:`put_in_address`); never a camera's address with a user
    name or password in it (``rtsp://user:pass@...``), which the browser's history would keep."""
    value = st.session_state.get(key, default)
    if isinstance(value, str) and "@" in value:
        value = default
    put_in_address(ADDRESS_KEYS[key], _spelt(value), _spelt(default))


def _spelt(value) -> str:
    """A setting as the page's address writes it: on or off, an option's value (``up``, not ``Order.UP``), a number."""
    value = getattr(value, "value", value)
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def start_sitting(store: SqliteStore, name: str) -> None:
    """Create a sitting and open its setup, or say why the database refused it (and what to do, as for a tap)."""
    try:
        info = store.create_sitting(name)
    except StorageError as error:
        st.error(md(words.storage_problem(str(error))))
        return
    st.query_params["sitting"] = str(info.id)
    reset_session_ui()
    st.session_state["screen"] = "Setup"
    st.rerun()


def rename_sitting(store: SqliteStore, chosen, name: str) -> None:
    """Give the sitting shown another name, or say why the database refused it (the old name stays)."""
    try:
        store.rename_sitting(chosen.id, name)
    except StorageError as error:
        st.error(md(words.storage_problem(str(error))))
        return
    flash("toast", f"The sitting {chosen.name} is now called {sitting_name(name)}.")
    st.rerun()


def reset_session_ui() -> None:
    """Forget this window's screen and setup in progress when it turns to another sitting: a game there opens on
    its game screen, and its setup preselects its own last game's choices, not the ones made for the other sitting."""
    forget_setup()
    st.session_state.pop("screen", None)
    st.query_params.pop("screen", None)
    end_call()


def forget_setup() -> None:
    """Forget this window's setup in progress, its seats and choices, here and in the page's address: the setup then
    offers what the sitting offers (:meth:`Sitting.setup_offer`). The choices may still be on screen (a setup left
    open): a starting value moves no widget the browser shows, so their next values are written over it
    (:func:`kept_choice`), once each, by their names in the address (the dealer's box has a key for each seating)."""
    st.session_state.pop("seats", None)
    forget_setup_in_address()
    for key in RULE_ADDRESS:
        st.session_state.pop(key, None)
    st.session_state["_choices_forgotten"] = {*RULE_ADDRESS.values(), "dealer"}


def forget_setup_made_before_a_deal(referee: Referee, sitting_key: str) -> None:
    """Forget this window's setup (:func:`forget_setup`) where a deal has been made in the sitting since its last run,
    in this window or another: that deal took its seats and rules from a setup, and the next setup, and the match
    table's buttons and scoring, offer what the sitting offers now. A window's seats and rules outlived another
    window's deal: its match table named a game before's players, and its setup offered the choices made before.
    Done once a run, before any screen reads the setup. A session's first run (a reload, a server's restart, a page
    reopened from the browser's history) has no last run: it goes by the deal its address says the setup there was
    made after (:func:`date_setup_in_address`), and a page closed before a deal restored the seats and rules chosen
    before it. An address with a setup and no deal named was written before the deal was kept beside it: its setup is
    kept, as it was then, since a reload in the middle of a setup is what the address is there for, and a deal made
    while the page was closed the rarer case; the run puts the deal beside it for the next."""
    ss = st.session_state
    since = (sitting_key, referee.sitting.last_deal_at)
    if "_setup_since" in ss:
        dealt_since = ss["_setup_since"] != since
    else:  # the deal kept in the address, of the sitting it names (a setup for a sitting gone: current_sitting)
        kept = st.query_params.get(SETUP_SINCE)
        dealt_since = kept is not None and kept != _spelt_deal(since[1])
    if dealt_since:
        forget_setup()
    ss["_setup_since"] = since


#: The deal a setup kept in the page's address was made after, by its name there (:func:`date_setup_in_address`).
SETUP_SINCE = "since"


def _spelt_deal(at: int | None) -> str:
    """Where the sitting's last deal was recorded (:attr:`Sitting.last_deal_at`), as the address writes it."""
    return "none" if at is None else str(at)


def date_setup_in_address() -> None:
    """Beside a setup in the page's address, the deal it was made after (where the sitting's last deal was when this
    run started), so that a page opened again from it knows whether a deal has been made since
    (:func:`forget_setup_made_before_a_deal`); dropped with the setup. Done at the end of a run, after each screen has
    put its choices there: the setup screen and the match table's scoring both do."""
    if any(name in st.query_params for name in ("seat", "dealer", *RULE_ADDRESS.values())):
        st.query_params[SETUP_SINCE] = _spelt_deal(st.session_state["_setup_since"][1])
    else:
        st.query_params.pop(SETUP_SINCE, None)


# --- setup --------------------------------------------------------------------------------------


def seat_action(action: str, index: int) -> None:
    seats: list[str] = st.session_state["seats"]
    if action == "up" and index > 0:
        seats[index - 1], seats[index] = seats[index], seats[index - 1]
    elif action == "down" and index < len(seats) - 1:
        seats[index + 1], seats[index] = seats[index], seats[index + 1]
    elif action == "remove":
        seats.pop(index)


def add_player() -> None:
    """The name in the box seated. The browser empties the box as the name is sent (the form clears on submit), so
    that a name typed at once goes into an empty box: emptied here, on the answer, the box had already taken the next
    letters, and "Ann", Enter, "Ben" seated "AnnBen". A refused name is not put back: the box then showed it while
    the form held an empty one, and Enter said "the box is empty" under the name. Its message names it instead."""
    name = clean_name(st.session_state.get("new_player", ""))
    seats: list[str] = st.session_state["seats"]
    problem = words.check_name(name, seats)
    if problem is None and len(seats) >= MAX_TABLE:
        problem = f"A table takes at most {MAX_TABLE} players (two decks)."
    if problem:
        st.session_state["name_problem"] = problem
        return
    seats.append(name)


#: The setup's choices, by their names in the page's address: a reload in the middle of a setup keeps them, as it
#: keeps the players added so far.
RULE_ADDRESS = {"rule_decks": "decks", "rule_jokers": "jokers", "rule_max_cards": "max", "rule_order": "order",
                "rule_passing": "passing", "rule_count": "count", "rule_four": "four", "rule_table": "table",
                "rule_first": "first"}


def kept_choice(widget, label: str, options: list, key: str, default, name: str | None = None, **shown):
    """A setup choice drawn by ``widget`` (st.radio, st.selectbox, st.toggle) as this window left it, and returned:
    its widget's value, else the one kept in the page's address under ``name`` (a reload; by default its name in
    RULE_ADDRESS), else ``default`` (the last game's choice); written into the address where it differs from
    ``default``. The starting value is the widget's own (``index=``, ``value=``), which Streamlit uses only where the
    browser sent none, as for the sidebar's settings (:func:`from_address`): written into ``st.session_state`` it
    outranked the value the browser sends with a restarted server's first run, and "Two decks" chosen as the page
    came back dealt one deck. Only a choice forgotten while it may be on screen (:func:`forget_setup`) is written
    there, as only a value written there is sent to a widget the browser already shows."""
    ss = st.session_state
    name = name or RULE_ADDRESS[key]
    kept = st.query_params.get(name)
    start = next((o for o in options if _spelt(o) == kept), default)
    if widget is st.toggle:  # no options, and a value to start from where the others have an option's index
        drawn, starting = (label,), {"value": start}
    else:
        drawn, starting = (label, options), {"index": options.index(start)}
    if name in ss.get("_choices_forgotten", ()):
        ss["_choices_forgotten"].discard(name)
        ss[key] = start
    else:
        shown.update(starting)
    value = widget(*drawn, key=key, **shown)
    put_in_address(name, _spelt(value), _spelt(default))
    return value


def forget_setup_in_address() -> None:
    st.query_params.pop("seat", None)
    st.query_params.pop("dealer", None)
    st.query_params.pop(SETUP_SINCE, None)
    for name in RULE_ADDRESS.values():
        st.query_params.pop(name, None)


def kept_seats() -> list[str]:
    """The seats a setup kept in the page's address, each name checked as if added again (an address can be
    edited); empty where there are none, or any is refused."""
    seats: list[str] = []
    for name in st.query_params.get_all("seat")[:MAX_TABLE]:
        name = clean_name(name)
        if words.check_name(name, seats) is not None:
            return []
        seats.append(name)
    return seats


def setup_screen(referee: Referee) -> None:
    state = referee.state
    previous = state.game
    offer = referee.sitting.setup_offer()  # a deal taken back offers its own choices again; otherwise the last game's
    default = list(offer.players)
    if "seats" not in st.session_state:  # none made since the last deal (forget_setup_made_before_a_deal)
        st.session_state["seats"] = kept_seats() or default
    seats: list[str] = st.session_state["seats"]
    # the seats in the page's address too, while they differ from the last game's: a reload or a server's restart
    # in the middle of a setup keeps the players added so far
    put_in_address("seat", seats, default)
    base = offer.rules

    st.title("New game", anchor=False)
    left, right = st.columns([1, 1], gap="large")
    with left:
        st.subheader("Players, in seating order", anchor=False)
        st.caption("Play passes from each player to the next, and from the last back to the first.")
        rows = st.container(key="grid_seats")  # each name with its buttons in one row, on a phone too
        for i, name in enumerate(seats):
            c1, c2, c3, c4 = rows.columns([4, 1, 1, 1], vertical_alignment="center")
            c1.markdown(f"**{i + 1}. {md(name)}**")
            button(c2, "", icon=":material/arrow_upward:", key=f"up_{i}", on_click=seat_action, args=("up", i),
                      disabled=i == 0, help=f"Move {name} up", width="stretch")
            button(c3, "", icon=":material/arrow_downward:", key=f"down_{i}", on_click=seat_action, args=("down", i),
                      disabled=i == len(seats) - 1, help=f"Move {name} down", width="stretch")
            button(c4, "", icon=":material/close:", key=f"remove_{i}", on_click=seat_action, args=("remove", i),
                      help=f"Remove {name}", width="stretch")
        # a form, so that Enter in the box adds the player; cleared by the browser as it sends (see add_player)
        with st.form("add_player_form", border=False, clear_on_submit=True):
            a1, a2 = st.columns([4, 2], vertical_alignment="bottom")
            # no character counter: a "23/40" under the box says 40 are allowed; a name over MAX_NAME is refused
            # with a message that says the limit, where a box that stops at it would cut a pasted name silently
            a1.text_input("Add a player", key="new_player", placeholder=f"A name of up to {MAX_NAME} characters")
            a2.form_submit_button("Add player", key="add_player", on_click=add_player, width="stretch")
        # said once, naming the refused name (the box is emptied as it is sent, see add_player), and any other tap (a
        # seat moved, a rule changed, the next name added) takes the message away, as it no longer answers the last
        # thing done
        if problem := st.session_state.pop("name_problem", None):
            st.error(md(problem))

        st.subheader("Dealer and first player", anchor=False)
        dealer = None
        if seats:
            # a new box when the seats change, which keeps a dealer still seated; kept through a reload, as the
            # players and the rules are
            offered = offer.dealer if offer.dealer in seats else next_dealer(state, tuple(seats))
            dealer = kept_choice(st.selectbox, "Dealer", seats, f"dealer_{'|'.join(seats)}", offered, name="dealer")
            if tapped := tapped_since_a_deal(state):  # why the deal has moved on more than one seat
                st.caption(f"The deal passes to the left once for each game: {words.number(tapped)} "
                           f"{'game was' if tapped == 1 else 'games were'} recorded by a tap since the last deal here.")
        firsts = ["Dealer's left", "Chosen at random"]
        first_rule = kept_choice(st.radio, "First player", firsts, "rule_first",
                                 firsts[1] if offer.first_drawn else firsts[0], horizontal=True)

    with right:
        st.subheader("House rules", anchor=False)
        decks = kept_choice(st.radio, "Decks", [1, 2], "rule_decks", base.decks, horizontal=True,
                            format_func=lambda d: "One deck" if d == 1 else "Two decks")  # the deal below counts them
        jokers = kept_choice(st.toggle, "Jokers (2 per deck, count as any rank)", [False, True], "rule_jokers",
                             base.jokers)
        max_options = {"up to 4": 4, "any": None, "one": 1}
        max_keys = list(max_options)
        max_default = next((k for k, v in max_options.items() if v == base.max_cards), max_keys[0])
        max_key = kept_choice(st.radio, "Cards per play", max_keys, "rule_max_cards", max_default, horizontal=True,
                              format_func=lambda k: words.MAX_CARDS_LABELS[max_options[k]])
        max_cards = max_options[max_key]
        order = kept_choice(st.selectbox, "Rank order", list(Order), "rule_order", base.order,
                            format_func=words.ORDER_LABELS.get)
        passing = kept_choice(st.toggle, "Passing allowed", [False, True], "rule_passing", base.passing)
        count_rule = kept_choice(st.radio, "What makes a lie", list(CountRule), "rule_count", base.count_rule,
                                 format_func=words.COUNT_RULE_LABELS.get)
        four = kept_choice(st.toggle, "Four of a kind may be laid out", [False, True], "rule_four",
                           base.four_of_a_kind)
        table = kept_choice(st.radio, "Table", list(TableKind), "rule_table", offer.table,
                            format_func=words.TABLE_LABELS.get)
        rules = Rules(decks=decks, jokers=jokers, max_cards=max_cards, order=order, passing=passing,
                      count_rule=count_rule, four_of_a_kind=four, table=table)

    problem = words.players_problem(len(seats), rules)
    if dealer is not None and len(seats) >= MIN_PLAYERS:
        dealt = dealt_from_left(tuple(seats), dealer, rules)
        dealers_left = next(iter(dealt))
        st.subheader("The deal", anchor=False)
        st.caption(f"{rules.deck_size} cards, one at a time from {md(dealers_left)} (the dealer's left); "
                   f"the first seats get the extra cards.")
        # a plain table: a data grid put a toolbar and a grid's cells between the players and the deal button
        st.table({"Player": seats, "Cards dealt": [dealt[name] for name in seats],
                  "Role": ["dealer" if name == dealer else ("plays first" if name == dealers_left and first_rule == "Dealer's left" else "")
                           for name in seats]}, hide_index=True)
        if first_rule == "Dealer's left":
            st.caption(f"{md(dealers_left)} plays first and claims aces.")
        else:
            st.caption("The first player is drawn at random when the cards are dealt.")
    if problem is not None:
        st.warning(problem)
    if previous is not None and not previous.over:
        st.info("A game is still in progress: dealing a new one abandons it (it gets no row on the match table).")
    button(st, "Deal and start the game", key="deal", type="primary", disabled=problem is not None,
              on_click=deal, args=(tuple(seats), dealer, rules, first_rule == "Chosen at random",
                                   len(referee.sitting.log)))


def deal(seats: tuple[str, ...], dealer: str | None, rules: Rules, random_first: bool, log_len: int) -> None:
    """Deal, unless the game has changed since this setup was drawn (a second tap on the deal, queued while the first
    was being dealt, would deal again; or another window has dealt meanwhile): then the game as it stands is shown."""
    first = random.choice(seats) if random_first else None
    if record(NewGame(seats, dealer=dealer, rules=rules, first=first), log_len):
        end_call()  # the setup is forgotten on the run this starts, as after another window's deal
    elif len(st.session_state["_referee"].sitting.log) == log_len:
        return  # refused for a reason of its own, said: the setup stays to put it right
    st.session_state["screen"] = "Game"


# --- the game screen -----------------------------------------------------------------------------


#: Above this many players the hands are small tiles of one line, under the buttons of the turn on every screen, and
#: the Cheat! buttons four or more to a row: with twenty players at 1366 x 768 the hands took four rows of tall tiles,
#: the Cheat! buttons ten rows, and the next play's buttons were two screens down.
CROWD = 8


def longest_word(*names: str) -> int:
    """The letters of the longest word in ``names``, the part a line cannot break: between spaces and hyphens (a name
    may break at its hyphen, "Jean- / Christophe")."""
    return max(len(word) for name in names for word in re.split(r"[\s-]", name))


def name_in_tile(name: str) -> str:
    """A name for a hand tile: one with a word of nine letters or more in smaller letters, the smaller the longer the
    word, which a narrow tile (five or six hands beside the camera) otherwise broke inside ("Evangeli / ne")."""
    longest = longest_word(name)
    if longest < 9:
        return esc(name)
    size = "long" if longest < 11 else "longer" if longest < 14 else "longest"
    return f"<span class='{size}'>{esc(name)}</span>"


def hands_html(game, calling: bool = False, ends: bool = False) -> str:
    """The hands as tiles; while a call is open the player whose turn comes after it "plays next" (not "to play":
    nobody plays until the call is settled), and where the last play ``ends`` the game unless it is caught, "plays if
    the game goes on" (a plain "plays next" there promised a turn that "nobody calls" never gives)."""
    tiles = []
    for name in game.players:
        classes = ["cr-hand"]
        tags = []
        if name == game.turn:
            classes.append("turn")
            tags.append("plays if the game goes on" if ends else "plays next" if calling else "to play")
        if name == game.dealer:
            tags.append("dealer")
        if name in game.places:
            classes.append("out")
            place = game.places.index(name) + 1
            # on a ranked table each place by its order, "1st place" first: "winner" beside "place 2" read as two
            # kinds of tag
            tags.append(words.place_word(place) if game.rules.table is TableKind.RANKED else "winner")
        elif game.over and game.rules.table is TableKind.RANKED:  # beside the places, a tile with no word looked unfinished
            tags.append("no place")
        tiles.append(
            f"<div class='{' '.join(classes)}'><div class='who'>{name_in_tile(name)}</div>"
            f"<div class='n'>{game.hands[name]}<span class='cr-sr'> {'card' if game.hands[name] == 1 else 'cards'}</span></div><div class='tag'>{esc(' · '.join(tags)) or '&nbsp;'}</div></div>"
        )
    many = " many" if len(game.players) > 4 else ""  # smaller tiles, so that six fit in a row or two
    crowd = " crowd" if len(game.players) > CROWD else ""  # a name and its count on one line
    return f"<div class='cr-hands{many}{crowd}'>" + "".join(tiles) + "</div>"


def speak(text: str, key: str) -> None:
    """Say ``text`` once in the browser (speechSynthesis). ``key`` is remembered in the browser's local storage,
    so neither a rerun nor a second tab or a reopened page says it again; with speech off it is remembered
    unsaid, so that turning speech back on does not announce an old verdict."""
    say = "" if not st.session_state.get("speak", True) else """
  window.__cheatSpoken.push(text);
  try {
    if (window.speechSynthesis) window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  } catch (e) {}"""
    payload = esc(text).replace("'", "&#39;")
    st.html(
        f"""<div class="cr-speech" data-say='{payload}' data-key='{esc(key)}' style="display:none"></div>
<script>
(function() {{
  const text = {json.dumps(text)};
  const key = {json.dumps(key)};
  window.__cheatSpoken = window.__cheatSpoken || [];
  const mark = "cheat-referee-spoken:" + key;
  try {{ if (window.localStorage.getItem(mark)) return; window.localStorage.setItem(mark, "1"); }}
  catch (e) {{ window.__cheatKeys = window.__cheatKeys || []; if (window.__cheatKeys.includes(key)) return; window.__cheatKeys.push(key); }}{say}
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


NO_VOICE = ("This browser has no voice to speak with: verdicts are shown, not said. On Linux, installing "
            "speech-dispatcher and espeak-ng gives it one (restart the browser after).")


def voice_check() -> None:
    """Say on screen when the browser cannot speak: speechSynthesis exists in every browser, but with no voice
    installed (Chromium on Linux without speech-dispatcher) it says nothing and reports no error. Voices load
    after the page does, so the note appears only once the browser has had time to list them."""
    st.html(
        f"""<div class="cr-novoice">{esc(NO_VOICE)}</div>
<script>
(function() {{
  const check = () => {{
    const synth = window.speechSynthesis;
    const none = !synth || synth.getVoices().length === 0;
    document.querySelectorAll(".cr-novoice").forEach(e => {{ e.style.display = none ? "block" : "none"; }});
  }};
  if (window.speechSynthesis && !window.__cheatVoiceWatch) {{
    window.__cheatVoiceWatch = true;  // the page keeps its listener over reruns; the check reads the new note
    window.speechSynthesis.addEventListener("voiceschanged", check);
  }}
  setTimeout(check, 1500);
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


def active_feed() -> camera.LiveFeed | None:
    """The feed that reads calls for the chosen camera: the browser's (WebRTC) or the server's. The browser's is
    made here if need be, not only where the camera is drawn: a call reopened by a reload is armed before that."""
    source = st.session_state.get("camera_source")
    if source == "live":
        return st.session_state.setdefault("_feed", camera.LiveFeed())
    if source == "server":
        cam = _server_camera(str(st.session_state.get("server_camera", "0")))
        return cam.feed if cam is not None else None
    return None


def call_token(call: OpenCall) -> tuple[str, int, str]:
    """Names a call for the camera's feed: the sitting, the place in its log, the caller."""
    return str(st.session_state.get("_sitting_key")), call.at, call.caller


def arm_feed(feed: camera.LiveFeed, call: OpenCall) -> None:
    """The feed reads this call; the session remembers the feed, to stop it when the call ends even if the
    camera was switched meanwhile (an armed feed reads every frame)."""
    feed.arm(call_token(call))
    st.session_state["_armed_feed"] = feed


def stop_reading(call: OpenCall | None) -> None:
    """``call`` is over for this session: the feed it armed stops reading it, whatever camera is chosen now, and
    only if it still reads that call (a camera on the server is shared: another window's call on it is not
    this window's to stop)."""
    feed = st.session_state.pop("_armed_feed", None)
    if feed is not None and call is not None:
        feed.disarm(call_token(call))


def keep_call(call: OpenCall, replacing: OpenCall | None = None) -> bool:
    """Store the call as it now stands, beside the log (a reload, a restarted server or another window finds it, cards
    and all), in place of ``replacing`` (the call as this window showed it; None for a new call), and hold it in this
    session for the buttons and the camera; a refusal is said, and changes nothing."""
    referee: Referee = st.session_state["_referee"]
    return attempt(lambda: st.session_state.update(call=referee.keep_call(call, replacing)))


def start_call(caller: str, log_len: int) -> None:
    if keep_call(OpenCall(log_len, caller)):
        feed = active_feed()
        if feed is not None:
            arm_feed(feed, st.session_state["call"])


def end_call() -> None:
    """The call is over for this window (settled, cancelled, or overtaken): its camera stops reading it, and what its
    photos put in is forgotten (:func:`photo_put_in`): a call made again by the same player on the same play is named
    as this one was, and the same photo handed over again was taken for one already put in."""
    stop_reading(st.session_state.pop("call", None))
    st.session_state.pop("_photo_put", None)


def undo_in_call(call: OpenCall) -> None:
    """Undo while a call is open: the last card tapped in, else the call itself; said, as every undo is."""
    if call.revealed:
        if reveal_edit("back"):
            flash("toast", f"Took back the last card ({words.card_word(call.revealed[-1])}).")
    elif cancel_call(call):
        flash("toast", f"Took back {call.caller}'s call: {words.PLAY_STANDS}.")


def cancel_call(call: OpenCall) -> bool:
    """Cancel the open call, in every window: nobody turns the cards up, and the game goes on as before the call."""
    if attempt(lambda: st.session_state["_referee"].drop_call(call)):
        end_call()
        return True
    return False


def cancel_tapped(call: OpenCall) -> None:
    """Cancel the call from its button, and say so in the corner: a tap there by mistake left the table to find out
    from the screen that the call was gone, where an Undo that cancels it says so."""
    if cancel_call(call):
        flash("toast", f"Cancelled {call.caller}'s call: {words.PLAY_STANDS}.")


def keep_first_verdict(call: OpenCall) -> None:
    """A correction given up: the verdict taken back to correct it is given again, and said, as every undo is."""
    if settle(call, call.original):
        flash("toast", "Took back the correction: the first verdict stands.")


def settle(call: OpenCall, revealed: tuple[Rank, ...], say_stale: bool = True) -> bool:
    """Give the verdict of the call this window shows, with these cards; refused where another window cancelled,
    settled or changed the call since."""
    referee: Referee = st.session_state["_referee"]
    before = referee.game_standing(call)
    if attempt(lambda: referee.settle(call, revealed), say_stale):
        note_event()
        end_call()
        say_places(before, referee.state.game)
        return True
    return False


def current_call(referee: Referee) -> OpenCall | None:
    """The call open on the game as stored: this window's, another window's, or one that a reload or a restarted
    server left open. A call that ended or changed elsewhere stops what this window's camera read for it."""
    try:
        stored = referee.open_call()
    except StorageError as error:
        st.error(md(words.storage_problem(str(error))))
        stored = None
    held = st.session_state.get("call")
    if held is not None and (stored is None or (held.at, held.caller) != (stored.at, stored.caller)):
        end_call()
    if stored is not None:
        st.session_state["call"] = stored
    return stored


def still_open(referee: Referee, call: OpenCall | None) -> bool:
    """Whether the call this window holds (or no call) is still the one stored: another window may have opened,
    cancelled or settled one, or tapped cards in, since this page was drawn."""
    try:
        return referee.open_call() == call
    except StorageError:
        return True  # nothing better known: the page's next run says what is wrong with the database


def reveal_edit(action: str, rank: str | None = None) -> bool:
    call = st.session_state.get("call")
    if call is None:  # ended in this window since the page was drawn: a card tapped as the camera settled it
        flash(REFUSED, "The call had already ended (a verdict, the camera's or a tap's, or a cancel), so that was not "
                       "recorded: the screen now shows the game as it stands.")
        return False
    revealed = list(call.revealed)
    if action == "add" and rank is not None:
        revealed.append(Rank(rank))
    elif action == "back" and revealed:
        revealed.pop()
    elif action == "clear":
        revealed.clear()
    elif action == "honest":
        count, claimed = rank.split(":")
        revealed = [Rank(claimed)] * int(count)
    return keep_call(dataclasses.replace(call, revealed=tuple(revealed)), replacing=call)


#: Keyboard keys for the reveal buttons (the number of cards played is keys 1 to 8 on the game screen).
REVEAL_KEYS = {Rank.ACE: "A", Rank.TEN: "0", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K", Rank.JOKER: "X",
               **{r: r.value for r in CLAIMABLE if r.value.isdigit() and len(r.value) == 1}}


def choice_keys(ranks: tuple[Rank, ...], turn: str) -> None:
    """Keys for a play where the rank order gives a choice: the number, then the rank's key ("3", then "K": three
    kings), as the play is said. Streamlit binds one key to one button, and a number alone does not say which
    rank; so a listener on the page holds the number until the rank's key comes and then taps that button, the
    same tap as a click. The number is forgotten on Esc, after 10 seconds, at a tap or click anywhere, and when the
    turn it was typed in (``turn``) is over: it must never become the next player's play. Keys typed into a text
    box never count."""
    by_key = {REVEAL_KEYS[rank]: rank.value for rank in ranks}
    example = ranks[-1]
    keys = ["0 for 10" if r is Rank.TEN else REVEAL_KEYS[r] for r in ranks]
    hint = (f"On a keyboard: the number, then the rank ({', '.join(keys[:-1])} or {keys[-1]}): "
            f"3, then {REVEAL_KEYS[example]} for three {words.rank_plural(example, 3)}. Esc starts again.")
    st.html(
        f"""<div class="cr-choicekeys" data-ranks='{esc(json.dumps(by_key))}' data-turn='{esc(turn)}'><span
class="cr-keyhint">{esc(hint)}</span> <span class="cr-pending" aria-live="polite"></span></div>
<script>
(function() {{
  if (window.__cheatChoiceKeys) return;  // one listener for the page: it reads the ranks from the panel drawn now
  window.__cheatChoiceKeys = true;
  let pending = null, heldIn = null, timer = null;
  const panel = () => document.querySelector(".cr-choicekeys");
  const button = (rank, n) => document.querySelector(`.st-key-play_${{rank}}_${{n}} button`);
  const hold = n => {{
    pending = n;
    heldIn = n === null ? null : (panel() || {{dataset: {{}}}}).dataset.turn;
    clearTimeout(timer);
    if (n !== null) timer = setTimeout(() => hold(null), 10000);
    document.querySelectorAll(".cr-armed").forEach(e => e.classList.remove("cr-armed"));
    const p = panel();
    if (!p) return;
    p.querySelector(".cr-pending").textContent = n === null ? "" : `${{n}} ×: now the rank`;
    if (n !== null) Object.values(JSON.parse(p.dataset.ranks)).forEach(r => {{
      const b = button(r, n);
      if (b) b.classList.add("cr-armed");
    }});
  }};
  const keyOf = e => {{
    const digit = /^(?:Digit|Numpad)([0-9])$/.exec(e.code || "");  // the number whatever the keyboard's layout
    return digit ? digit[1] : (e.key && e.key.length === 1 ? e.key.toUpperCase() : e.key);
  }};
  document.addEventListener("keydown", e => {{
    const p = panel();
    const t = e.target;
    if (!p || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (pending !== null && heldIn !== p.dataset.turn) hold(null);  // typed in a turn that is over
    const ranks = JSON.parse(p.dataset.ranks);
    const key = keyOf(e);
    if (key === "Escape") {{ hold(null); return; }}
    if (pending !== null && key in ranks) {{
      const b = button(ranks[key], pending);
      hold(null);
      if (b) {{ e.preventDefault(); b.click(); }}
      return;
    }}
    if (/^[1-8]$/.test(key) && Object.values(ranks).some(r => button(r, key))) {{ e.preventDefault(); hold(Number(key)); }}
  }});
  document.addEventListener("pointerdown", () => {{ if (pending !== null) hold(null); }});
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


def correct_last_verdict(at: int) -> None:
    """Take the verdict back and reopen the call with its cards, to correct them by hand: the camera's reading is
    what the table disputes, so it is not applied again, and no feed is armed for it."""
    referee: Referee = st.session_state["_referee"]
    attempt_event(lambda: st.session_state.update(call=referee.reopen_last_call(at)))


def game_screen(referee: Referee) -> None:
    state = referee.state
    game = state.game
    log_len = len(referee.sitting.log)
    call = current_call(referee)  # first: a call this window held ends here too when the game is gone
    if game is None:
        st.title("No game yet", anchor=False)
        st.info("Set up the players and the house rules to deal the first game.")
        button(st, "Set up a game", key="goto_setup", on_click=lambda: st.session_state.update(screen="Setup"), type="primary")
        return

    claim = game.last_play
    verdict = game.last_call
    last = referee.sitting.last_counted  # what an undo would take back
    # the verdict is news only while the call is what an undo would take back: after a pass or four of a
    # kind the last play and its call stay the same, but correcting them would undo the later action
    verdict_fresh = verdict is not None and isinstance(last, Call)
    # nobody plays while a call is open, nor while a last play that would end the game waits for Cheat! or no call
    waiting = game.last_play_ends_the_game

    # The top line: whose turn and the rank due, or the winner.
    latest = state.table.rows[-1] if state.table.rows else None
    if game.over and latest is not None and not latest.tracked:
        # a result recorded in one tap after this game ended: the latest result, not this game's winner again; the
        # board below is still that game's, as it ended
        places = words.places_text(latest.places) if latest.kind is TableKind.RANKED and len(latest.places) > 1 else ""
        shown = next((r for r in reversed(state.table.rows) if r.tracked), None)
        board = f" · below: game {shown.number}, won by {shown.winner}" if shown is not None else ""
        st.markdown(f"<div class='cr-win'>🏆 {words.name_html(latest.winner)} won game {latest.number}<div class='cr-places'>"
                    f"{esc(places) + ' · ' if places else ''}recorded on the match table{esc(board)}</div></div>",
                    unsafe_allow_html=True)
    elif game.over:
        winner = game.places[0]
        if game.rules.table is TableKind.RANKED and len(game.places) > 1:
            places = words.places_text(game.places)
            st.markdown(f"<div class='cr-win'>🏆 {words.name_html(winner)} wins!<div class='cr-places'>{esc(places)}</div></div>",
                        unsafe_allow_html=True)
        else:
            st.markdown(f"<div class='cr-win'>🏆 {words.name_html(winner)} wins!</div>", unsafe_allow_html=True)
        # said once a game: keyed by its row on the match table, not by the log, which an undo of a later event moves
        speak(f"{winner} wins!", f"win:{st.session_state['_sitting_key']}:{len(state.table.rows)}")
    elif call is not None:
        st.markdown(f"<div class='cr-turn' role='heading' aria-level='1'>{words.name_html(call.caller)} calls Cheat! on {words.name_html(claim.player)}</div>"
                    f"<div class='cr-due'>{words.name_html(claim.player)} claimed {esc(words.claim_text(claim))}: "
                    f"turn those cards face up</div>", unsafe_allow_html=True)
    elif game.last_play_emptied_a_hand:
        # on a ranked table play goes on: the next player's play is the "nobody calls", and the line names them
        choices = ("Cheat! or nobody calls" if game.turn is None or waiting else
                   f"Cheat!, nobody calls, or {words.name_html(game.turn)} plays on "
                   f"({esc(words.ranks_due(game.ranks_allowed))}){' or passes' if game.rules.passing else ''}")
        # the hand emptied by a four laid out after the play, not by the play: "played their last cards" was untrue
        done = (f"laid out four {esc(words.rank_plural(last.rank))}, the last cards of their hand"
                if isinstance(last, FourOfAKind) and last.player == claim.player else f"played {last_cards(claim.count)}")
        st.markdown(f"<div class='cr-turn' role='heading' aria-level='1'>{words.name_html(claim.player)} {done}</div>"
                    f"<div class='cr-due'>{choices}: {words.name_html(claim.player)} is out only if the play "
                    "survives</div>", unsafe_allow_html=True)
    elif game.turn is not None:
        st.markdown(f"<div class='cr-turn' role='heading' aria-level='1'>{words.name_html(game.turn, chr(39) + 's')} turn</div>"
                    f"<div class='cr-due'>claims {esc(words.ranks_due(game.ranks_allowed))}</div>", unsafe_allow_html=True)

    if verdict_fresh:
        kind = "cr-lie" if verdict.lie else "cr-honest"
        said_as = f"{st.session_state['_sitting_key']}:{referee.sitting.last_counted_at}"  # once, through undos after it
        corrected = words.count_corrected(verdict.claim, len(verdict.revealed))
        # a screen reader hears where the cards not laid went too (``data-said``, see for_every_player): "Cara picks
        # up 6 cards" alone, beside a hand that grew by 8, read as the referee's mistake
        read = verdict.announcement() + (f". {words.sentence(corrected)}" if corrected else "")
        st.markdown(f"<div class='cr-verdict {kind}' data-verdict='{esc(said_as)}' data-said='{esc(read)}'>"
                    f"{esc(verdict.announcement())}</div>", unsafe_allow_html=True)
        shown = words.cards_shown(verdict.revealed, ", ")
        were = "the card was" if len(verdict.revealed) == 1 else "the cards were"
        # the cards and the button that corrects them on one line: the next turn's buttons stay on a laptop's screen
        said, correct = st.columns([3, 1], vertical_alignment="center")
        said.markdown(f"<div class='cr-sub'>{esc(verdict.caller)} called {esc(verdict.challenged)}'s "
                      f"{esc(words.claim_text(verdict.claim))}: {were} {esc(shown)}"
                      f"{esc(f' ({corrected})' if corrected else '')}</div>", unsafe_allow_html=True)
        speak(verdict.announcement(), f"verdict:{said_as}")
        button(correct, "Correct the revealed cards", key="correct_verdict", on_click=correct_last_verdict,
               args=(log_len,), width="stretch", wrap=True)

    if call is not None:
        with st.container(key="call_panel"):
            call_panel(referee, game, call)
        st.container(key="call_rule").divider()  # not on a phone, where the board goes below: two rules, a gap between

    board = st.container(key="board")  # under the buttons of the turn on a phone (the CSS)
    p1, p2 = board.container(key="grid_pile").columns([1, 2], vertical_alignment="bottom")  # a grid kept in one row on a phone (the CSS)
    # each label on its value's line: a line less between the verdict and the next turn's buttons
    p1.markdown(f"<div class='cr-pileline'><span class='cr-sub'>Pile</span> <span class='cr-pile'>{game.pile} <span class='cr-sub'>"
                f"card{'s' if game.pile != 1 else ''}</span></span></div>", unsafe_allow_html=True)
    if claim is not None:
        # the very play the verdict settled (``is``): an equal claim of a later turn, let stand, is another play
        called = verdict is not None and verdict.claim is claim  # after a later pass too, not only while news
        status = ("being called" if call is not None else "can be called" if game.awaiting_call
                  else "called" if called else "stands")
        # the play said to a screen reader (``data-said``, see for_every_player): only the turn after it was. Only
        # while it can be called: a play called already, shown again as an Undo takes back the play after it, was
        # said as if just made, under its verdict
        claimed = words.claim_text(claim)
        said = f"{claim.player} played {claimed}" if status == "can be called" else ""
        p2.markdown(f"<div><span class='cr-sub'>Last play</span> <span class='cr-last cr-played' "
                    f"data-said='{esc(said)}'>{esc(claim.player)}: {esc(claimed)} <span "
                    f"class='cr-sub'>({status})</span></span></div>", unsafe_allow_html=True)
    board.markdown(hands_html(game, calling=call is not None or waiting, ends=waiting), unsafe_allow_html=True)
    if game.out_of_game:
        board.caption(f"{card_count(game.out_of_game)} laid out as fours of a kind.")
    seen = words.seen_text(game.seen, game.players, [p for p in game.players if game.hands[p]])
    if seen:
        board.caption(f"Seen face up, and where those cards can be now: {md(seen)}",
                   help="The referee follows the cards turned up at each call: a card seen going into a hand stays "
                        "there until that player lays cards down, and the pile goes to whoever picks it up. Cards "
                        "turned up, or four laid out, that need cards seen elsewhere do not fit: the screen says where "
                        "those were seen, and the referee goes by the cards shown.")

    if call is None:  # while a call is open, its panel above holds what can be done
        if not game.over:
            action_panel(game, log_len, waiting)
        else:
            button(st, "Next game", key="next_game", type="primary",
                   on_click=lambda: st.session_state.update(screen="Setup"))

    st.divider()
    # "U", not Ctrl+Z: Streamlit passes shortcuts with Ctrl through to a focused text box, where Ctrl+Z
    # undoes typing; a plain letter is never taken from one
    if call is not None and call.original is not None:
        # the table's last action was "Correct the revealed cards": undoing it puts the first verdict back (an undo
        # of the log would take back the play called, which the correction has already laid open)
        button(st, "Undo the correction", key="undo", help="Puts the first verdict back (key U)",
               on_click=keep_first_verdict, args=(call,), shortcut="U")
    elif call is not None:
        # while a call is open the last thing done is the call, or a card tapped in: an undo takes back that, not the
        # play called (a wrong caller tapped, then Undo, lost the play too; the play is undone with the call gone)
        label, what = ((f"Undo the last card ({words.card_word(call.revealed[-1])})", "Takes back the last card tapped in")
                       if call.revealed else
                       (f"Undo {call.caller}'s call", f"Nobody turns the cards up: {words.PLAY_STANDS} again"))
        button(st, label, key="undo", help=f"{what} (key U)", on_click=undo_in_call, args=(call,), shortcut="U")
    else:
        label = "Undo" if last is None else words.undo_label(last)
        button(st, label, key="undo", disabled=last is None,
               help="Takes back the last action (key U)", on_click=act, args=(Undo(), log_len), shortcut="U")


def more_cards(shown_top: int, ranks: tuple[Rank, ...] | None, log_len: int) -> None:
    """The "More cards" box (from the first number past the buttons), the rank where the order gives a
    choice, and the button that plays them. The box starts again for each play: it kept one player's 11 for the next,
    whose button read "Play 11". It is started again by setting its value, which the browser's box then shows: a key
    taken away instead left the browser showing 11 under a button that read "Play 9", and played 11."""
    ss = st.session_state
    # for each play (the log's length), whichever window recorded the last: in a window that only watched, a number
    # kept from the player before came under the next one's button
    afresh = ss.get("_more_cards_for") != log_len
    ss["_more_cards_for"] = log_len
    if afresh or not 1 <= ss.get("play_many_n", 0):
        ss["play_many_n"] = shown_top + 1
    if ranks is not None and (afresh or ss.get("play_many_rank") not in ranks):
        ss["play_many_rank"] = ranks[0]
    m1, m2, m3 = st.columns([2, 2, 2], vertical_alignment="bottom")
    # no upper bound in the box: one quietly put a number past it back to the last one, and 99 typed played 9; a
    # number past the hand is refused when played, saying what the hand holds
    many = m1.number_input("More cards", min_value=1, key="play_many_n")
    if ranks is not None:
        m2.selectbox("Rank", ranks, format_func=lambda r: r.value, key="play_many_rank")
    button(m3, f"Play {many}", key="play_many", on_click=act_from_state, args=("play_many", log_len, many))


def callers_per_row(seated: list[str], callers: int, wide: bool) -> tuple[int, bool]:
    """How many Cheat! buttons to a row, and whether in the crowd's smaller letters, for ``callers`` buttons named
    after players ``seated`` (everyone still in the game). The names of all of them decide, not those of this call's
    callers, so that the rows, and the next player's play buttons under them, stay where they were from one turn to
    the next: with "Bartholomew Kent" among the callers they came two to a row, three to a row once he had played,
    and the play buttons moved 71 px between turns, under a finger about to tap."""
    longest = max(len(name) for name in seated)
    # a full name on every button, never cut short: fewer to a row as names grow, and a name too long for its button
    # wraps. Beside the camera four long names to a row broke inside their words ("Moham / med Ali"), and a long
    # name of short words (Oluwaseun Adeyem) wraps between them in a third of the page's width: eight players with
    # one such name took four rows of two, and put the next player's play buttons below a laptop's screen. Beside
    # the camera a third is too narrow for its words ("Oluwase / un")
    per_row = 4 if longest <= 6 else 3 if longest <= 10 or (wide and longest_word(*seated) <= 10) else 2
    # five callers or more beside the camera: in the crowd's smaller letters without the icon (the CSS), where three
    # to a row hold a word of twelve letters (two to a row for "Oluwaseun Adeyem" put the next player's play buttons'
    # foot at 900 px on a 1280 x 800 laptop)
    small = not wide and callers >= 5
    if small and per_row == 2 and longest_word(*seated) <= 12:
        per_row = 3
    if callers > CROWD:  # in smaller letters (the CSS), a name may wrap between its words
        per_row = 4 if wide else 3 if longest_word(*seated) <= 12 else 2
    return per_row, small


def action_panel(game, log_len: int, waiting: bool) -> None:
    """The buttons of a turn: Cheat! on a play that can be called, then the next play's; only the first where
    ``waiting`` (:attr:`Game.last_play_ends_the_game`)."""
    claim = game.last_play
    if game.awaiting_call and claim is not None:
        callers = [p for p in game.active if p != claim.player]
        st.markdown("<div class='cr-sub'>Who called Cheat! first? One tap on the name:</div>", unsafe_allow_html=True)
        # beside the camera (live, or the server's) the game's column is narrower
        wide = st.session_state.get("camera_source") not in ("live", "server")
        seated = list(game.active)
        per_row, small = callers_per_row(seated, len(callers), wide)
        if len(callers) > CROWD:
            # all in one row, which the CSS wraps per_row to a line, and three to a line on a phone: in rows made
            # here, a phone's two names to a line (of rows of four) filled its first screen with twenty players'
            grid = st.container(key=f"callers_rows_{per_row}").container(key="grid_cheat")
            rows, width = [callers], len(callers)
        else:
            grid = (st.container(key="callers_small") if small else st).container(key="grid_cheat")
            rows, width = [callers[start:start + per_row] for start in range(0, len(callers), per_row)], per_row
        for row in rows:
            for col, name in zip(grid.columns(width), row):
                button(col, name, key=f"cheat_{name}", on_click=start_call, args=(name, log_len), width="stretch",
                           icon=":material/campaign:", wrap=True, spoken=f"{name} calls Cheat!")
        if game.last_play_emptied_a_hand:
            button(st, f"Nobody calls: {claim.player} is out", key="nocall", type="primary", on_click=act,
               args=(NoCall(), log_len))
        if waiting:  # the game ends with this play: it must be called or settled first, and nobody plays
            if game.rules.four_of_a_kind:  # but four may be laid out at any time (a hand it empties goes out first)
                four_panel(st.columns(2)[1], game, log_len)
            return

    player = game.turn
    if player is None:
        return
    held = game.hands[player]
    rules = game.rules
    top = held if rules.max_cards is None else min(rules.max_cards, held)
    shown_top = min(top, 8)
    st.markdown(f"<div class='cr-sub'>{esc(player)} lays down how many cards? One tap:</div>", unsafe_allow_html=True)
    ranks = game.ranks_allowed
    choice = len(ranks) > 1
    per_row = 4
    grid = st.container(key="grid_play")  # a grid that stays in rows on a phone (the CSS)
    for rank in ranks:
        if choice:
            grid.markdown(f"**{esc(words.rank_plural(rank).capitalize())}**")
        for row_start in range(1, shown_top + 1, per_row):
            cols = grid.columns(per_row)
            for n in range(row_start, min(row_start + per_row, shown_top + 1)):
                # "3 × 2s", not "3 × 2": three of them; "3 × K's", since "Ks" and "As" read badly
                label = f"{n} × {rank.value}{'s' if rank.value.isdigit() else chr(39) + 's'}" if choice else str(n)
                key = f"play_{rank.value}_{n}" if choice else f"play_{n}"
                said = words.claim_text(Play(player, n, rank)) if choice else card_count(n)
                button(cols[(n - 1) % per_row], label, key=key, type="primary", width="stretch",
                                               shortcut=None if choice else str(n), spoken=f"{player} lays down {said}",
                                               on_click=act, args=(Play(player, n, rank if choice else None), log_len))
    if choice:  # the keys' hint under the buttons it is for: over them, it pushed them below a laptop's screen
        choice_keys(ranks, f"{st.session_state.get('_sitting_key')}:{log_len}")
    if top > shown_top:
        more_cards(shown_top, ranks if choice else None, log_len)
    if not (rules.passing or rules.four_of_a_kind):
        return  # no empty row under the play buttons
    extra = st.columns(2)
    if rules.passing:
        button(extra[0], f"{player} passes", key="pass", on_click=act, args=(Pass(player), log_len))
    if rules.four_of_a_kind:
        four_panel(extra[1], game, log_len)


def four_panel(where, game, log_len: int) -> None:
    """Four of a kind laid out, by any player who holds four cards or more."""
    with where.expander("Four of a kind laid out"):
        holders = [p for p in game.active if game.hands[p] >= 4]
        if holders:
            # no one chosen before the table says who: a player filled in for it took four cards from the wrong hand
            who = st.selectbox("Player", holders, index=None, placeholder="Who laid them out?", key="four_player")
            rank = st.selectbox("Rank", CLAIMABLE, index=None, placeholder="Which rank?",
                                format_func=lambda r: r.value, key="four_rank")
            button(st, "Take the four out of the game", key="four", disabled=who is None or rank is None,
                   on_click=act_from_state, args=("four", log_len))
        else:
            st.caption("Nobody holds four cards.")


def call_panel(referee: Referee, game, call: OpenCall) -> None:
    claim = game.last_play
    caller = call.caller
    source = st.session_state.get("camera_source", "none")
    reader_ok = camera.load_reader() is not None
    live = call.original is None and source in ("live", "server") and reader_ok
    if call.original is not None:
        st.info("Correct the cards by hand, then apply the verdict.")
    elif live:
        live_reading(referee, caller)
    elif source in ("snapshot", "upload") and reader_ok:
        still_reading(source, call)
    elif source != "none" and not reader_ok:
        st.info("The card reader is not installed on this machine: tap the revealed cards below.")

    st.markdown("<div class='cr-revealhead'><b>The revealed cards</b><span class='cr-tapnote'> (tap each card's rank"
                "<span class='cr-keysonly'>, or use the shortcut</span>)</span>:</div>", unsafe_allow_html=True)
    with st.container(key="revealed"):  # on a phone under the buttons (the CSS)
        revealed_so_far(game, caller, claim, call)
    honest = could_be_honest(game, caller, claim)
    offers = live and active_feed() is not None  # a server camera that cannot be opened has nothing to offer
    if honest or offers:
        # the two ways to fill in the cards at once, side by side: the camera's button here, not under its line of
        # reading, is there from the call's first moment to its last, and the rank buttons never move for it
        left, right = st.container(key="grid_shortcuts").columns(2)
        if honest:
            button(left, words.honest_label(claim), key="reveal_honest", on_click=reveal_edit,
                   args=("honest", f"{claim.count}:{claim.rank.value}"), wrap=True)
        if offers:
            button(right, "Use the camera's reading", key="use_reading", on_click=use_live_reading, wrap=True)
    ranks = list(CLAIMABLE) + ([Rank.JOKER] if game.rules.jokers else [])
    per_row = 5
    grid = st.container(key="grid_reveal")
    for i, rank in enumerate(ranks):
        if i % per_row == 0:
            cols = grid.columns(per_row)
        label = "Joker" if rank is Rank.JOKER else rank.value  # "JOKER" does not fit a phone's fifth of a row
        button(cols[i % per_row], label, key=f"reveal_add_{rank.value}", on_click=reveal_edit, args=("add", rank.value),
                           width="stretch", shortcut=REVEAL_KEYS.get(rank),
                           spoken=f"Revealed card: {words.rank_plural(rank, 1)}")
    b1, b2, b3 = grid.container(key="reveal_tools").columns(3)  # a line of buttons as high as its highest (the CSS)
    button(b1, "Back one card", key="reveal_back", on_click=reveal_edit, args=("back",), wrap=True, width="stretch")
    button(b2, "Clear", key="reveal_clear", on_click=reveal_edit, args=("clear",), wrap=True, width="stretch")
    if call.original is not None:  # a correction: the verdict was taken back to correct it, and may be put back
        button(b3, "Keep the first verdict", key="keep_verdict", on_click=keep_first_verdict, args=(call,), wrap=True,
               width="stretch")
    else:
        button(b3, "Cancel the call", key="cancel_call", on_click=cancel_tapped, args=(call,), wrap=True,
               width="stretch")


def revealed_so_far(game, caller: str, claim, call: OpenCall) -> None:
    """The cards tapped in, what they would make the verdict, and the button that applies it: above the rank
    buttons, where a laptop's screen shows it without scrolling, and in one place whether or not cards are in
    (the buttons below must not move under a finger between two taps)."""
    revealed = call.revealed
    shown = words.cards_shown(revealed) or "none yet"
    # the cards said to a screen reader as they are tapped in (``data-said``, see for_every_player): nothing confirmed
    # a card tapped in
    said = f"Revealed: {words.cards_shown(revealed, ', ')}" if revealed else ""
    st.markdown(f"<div class='cr-last cr-revealed' data-said='{esc(said)}'>Claimed: {esc(words.claim_text(claim))} · "
                f"Revealed: <b>{esc(shown)}</b></div>", unsafe_allow_html=True)
    verdict = None
    alert = ""  # said at once to a screen reader: why the cards need a look (not the verdict, new at every tap)
    try:
        verdict = verdict_for(game, caller, revealed) if revealed else None
    except CheatError as error:  # five aces from one deck: the table tapped one too many, or the wrong rank
        lead = "These cards cannot be right: " if isinstance(error, ImpossibleReveal) else ""
        alert = esc(words.sentence(lead + str(error)))
        line = words.unspoken(alert)
    else:
        line = words.if_these_are_the_cards(game, claim, revealed, verdict)
        misfit = seen_conflict(game, claim.player, revealed) if revealed else None
        if misfit is not None:
            why = "If they are right, an earlier reveal was entered wrong, and the referee goes by these."
            alert = esc(f"These cards do not fit what the table saw: {misfit}. {why}")
            # in the two lines first that the cards need a look, then what Apply would do; why, after them (it scrolls)
            line = (f"{words.unspoken('Check these cards: they do not fit what the table saw.')} {line}. "
                    f"{words.unspoken(f'Why: {esc(misfit)}. {esc(why)}')}")
    # one height, two lines, whatever it says (the CSS), a warning too (smaller, and scrolled): on a laptop the rank
    # buttons are under it. "1 of the 2 claimed" after the first card tapped in, on the line above, moved them down
    # 36 px and back at the next; a warning or an error in a box of its own moved them by its height, under the tap
    # that went after the card that brought it (a fifth ace, and "Back one card" was not where it had been)
    check = bool(alert)
    if check:
        line = (f"<span class='cr-checkthem'>{words.unspoken('⚠')} {line}</span>"
                f"<span class='cr-sr' role='alert'>{alert}</span>")
    st.markdown(f"<div class='cr-sub cr-ifline{' cr-check' if check else ''}'>{line}</div>", unsafe_allow_html=True)
    button(st, "Apply the verdict", key="apply_verdict", type="primary", disabled=verdict is None, on_click=settle,
              args=(call, revealed))


def live_reading(referee: Referee, caller: str) -> None:
    """Poll the live reading while a call waits; a sure and steady reading gives the verdict at once,
    unless the table has already started entering the cards by hand."""

    @st.fragment(run_every=0.2)
    def poll() -> None:
        # a line of one height whatever it says (the CSS), and no button that comes and goes: the rank buttons under
        # it never move. A reading that came and went with its button moved them by up to 83 px five times a second,
        # and a tap aimed at A went in as a 6.
        line, news = read_the_call(referee, caller)
        # a screen reader is told the line once it has held a moment (for_every_player), where it is news: not
        # "nothing yet" while the cards are still face down, which every call begins with
        said = esc(html.unescape(re.sub(r"<[^>]+>", "", line))) if news else ""
        st.markdown(f"<div class='cr-sub cr-camline' data-said='{said}'>{line}</div>", unsafe_allow_html=True)

    poll()


def read_the_call(referee: Referee, caller: str) -> tuple[str, bool]:
    """What the live camera says of the open call, as a line of HTML, and whether it is news to say to a player who
    cannot see it (not while no card has been found yet); a reading that may decide alone (:func:`camera.call_answer`)
    gives the verdict (and the page runs again). What the line offers the table is kept for its button
    (:func:`offer`)."""
    feed = active_feed()
    call = st.session_state.get("call")
    offer(None, ())
    if feed is None or call is None:
        return "", False
    mine, theirs = call_token(call), feed.call if feed.armed else None
    if theirs is not None and theirs != mine and theirs[:2] == mine[:2]:
        # another window called at the same moment of this game: one call at a time, or the two would restart
        # each other's reading for ever
        offer(call, (), "The camera is reading the call made in another window: settle that one first.")
        return f"The camera is reading the call {esc(theirs[2])} made in another window: settle that one first.", True
    if theirs != mine:
        # a call opened under another camera source, reopened by a reload, or a feed left reading a call that is
        # over: read this one from now on, and never with a reading left from another
        arm_feed(feed, call)
    reading = feed.current()
    game = referee.state.game
    if game is None or game.last_play is None:
        return "", False
    live = st.session_state.get("camera_source") == "live"
    answer = camera.call_answer(reading, game, caller, call.revealed, feed.silent(), feed.frames_seen, live=live,
                                starting=live and camera_starting(feed))
    if answer.action is camera.CallAction.SETTLE:
        # another window's camera may give the same verdict first: nobody tapped, so that is not said
        if settle(call, answer.ranks, say_stale=False):
            camera.trace("verdict_recorded", ranks=[r.value for r in answer.ranks])
        st.rerun(scope="app")
    offer(call, answer.ranks, answer.why_not)
    return camera_line(answer, reading), answer.news


def camera_line(answer: camera.CallAnswer, reading: camera.Reading) -> str:
    """The live camera's line of HTML for what it does with the call (:func:`camera.call_answer`)."""
    seen = esc(words.cards_shown(reading.ranks))
    why = esc(answer.why)
    if answer.action is camera.CallAction.IMPOSSIBLE:
        return f"⚠ Camera reads <b>{seen}</b>, which cannot be right: enter the cards by hand ({why})."
    if answer.action is camera.CallAction.MISFIT:
        # why it does not fit (four lines more, which the line's height would hide) is said under the revealed cards
        # once they are put in
        return f"⚠ Camera reads <b>{seen}</b>, which does not fit what the table saw: check the cards, and tap them in."
    if answer.action is camera.CallAction.GUESS:
        guessed = " ".join("?" if rank is None else words.card_word(rank) for rank in reading.guess)
        return f"Camera is unsure ({why}). Best guess: <b>{esc(guessed)}</b>"
    if answer.action is camera.CallAction.NOTHING:
        return f"Camera reads: <b>nothing yet</b> ({why})"
    return f"Camera reads: <b>{seen}</b> ({why})"  # READ (SETTLE too, where st.rerun did not stop the run)


def offer(call: OpenCall | None, ranks: tuple[Rank, ...], why_not: str = "") -> None:
    """Keep what the camera's line offers the table for the call ``call``: ``ranks`` to put in, or why there are none.
    The line is drawn five times a second and its button only with the page: the button takes what the line said,
    not a newer frame's reading (a guess can change from one frame to the next)."""
    st.session_state["_camera_offer"] = (call_token(call) if call is not None else None, tuple(ranks), why_not)


def use_live_reading() -> None:
    """Put in as the cards tapped in what the camera's line offers (its reading, or its best guess where it is
    unsure), for the table to apply or not; or say why there is nothing to put in."""
    call = st.session_state.get("call")
    token, ranks, why_not = st.session_state.get("_camera_offer", (None, (), ""))
    if call is None or token != call_token(call):
        why_not = "The camera has not read this call yet: tap the cards in, or wait for its reading."
    elif ranks:
        use_reading(ranks)
        return
    flash("toast", why_not)  # every offer of this call without ranks says why (read_the_call)


def use_reading(ranks: tuple[Rank, ...]) -> None:
    call = st.session_state.get("call")
    if call is not None:
        keep_call(dataclasses.replace(call, revealed=tuple(ranks)), replacing=call)


def still_reading(source: str, call: OpenCall) -> None:
    """A photo of the revealed cards, snapped or uploaded, with its reading beside it, in a row whose height a reading
    does not change: the cards tapped in, Apply and the rank buttons under it stay where they were (a reading under
    the photo moved them down 196 px, below a laptop's screen). A sure reading of as many cards as claimed is put in
    as the cards (:func:`photo_put_in`): Apply, one tap, then gives the verdict, and the table still makes it."""
    took, seen = st.container(key="still_row").columns([1, 1], gap="medium")
    data, name = None, ""
    with took:
        if source == "snapshot":
            camera_check()
            shot = st.camera_input("Take a photo of the revealed cards", key=camera.photo_key("snapshot"))
            data = shot.getvalue() if shot is not None else None
        else:
            photo = st.file_uploader("Photo of the revealed cards", type=list(camera.PHOTO_TYPES),
                                     key=camera.photo_key("upload"))
            data, name = (photo.getvalue(), photo.name) if photo is not None else (None, "")
    spot = seen.container(key="still_seen")  # as high as the row's reading will be, from the start (the CSS)
    if data is None:
        spot.caption("What the camera reads in the photo shows here.")
        return
    digest, why, read = photo_read(data)
    if read is None:
        spot.error(f"That file is not a picture the app can read: {why}. Take or upload a photo of the revealed cards, "
                   "or tap them in below.")
        return
    reading, annotated = read
    claim = st.session_state["_referee"].state.game.last_play
    claimed = claim.count if claim is not None else None
    if photo_put_in(call, reading, claimed, digest):
        st.rerun()  # the page drawn again with the cards in, and the verdict they make above Apply
    reading_shown(spot, reading, annotated, claimed, put_in=camera.same_cards(call.revealed, reading.ranks),
                  photo_name=name)


def photo_read(data: bytes) -> tuple[str, str, tuple[camera.Reading, object] | None]:
    """A photo's digest, and its reading with the picture drawn with it, or None and why where the file is no picture:
    read once a photo, not again at every tap while the call is open (a photo's read took 30 to 60 ms)."""
    digest = hashlib.sha256(data).hexdigest()
    kept = st.session_state.get("_photo")
    if kept is None or kept[0] != digest:
        image, said = camera.decode(data)  # why not, where it is no picture; else what to tell of it
        kept = (digest, said, None if image is None else camera.read_still(image, said))
        st.session_state["_photo"] = kept
    return kept


def photo_put_in(call: OpenCall, reading: camera.Reading, claimed: int | None, digest: str) -> bool:
    """Put a sure photo reading of as many cards as claimed in as the cards revealed, once for each photo of a call,
    and only where no card is in yet or what is in is what a photo of this call put in (never over cards the table
    tapped in); True where it did. An unsure reading, or one of another number of cards, is offered, not put in: the
    table looks."""
    token = (call_token(call), digest)
    put = st.session_state.get("_photo_put")
    if put is not None and put[0] == token:
        return False  # this photo's reading was put in (or not) for this call: a tap since then is the table's
    # the cards an earlier photo of this call put in, still a photo's to replace after a photo that put nothing in
    # (unsure, or read as the cards already in): a sure photo after a blurred one found the first photo's cards in,
    # took them for the table's, and left them under its own reading
    last = put[1] if put is not None and put[0][0] == token[0] else ()
    st.session_state["_photo_put"] = (token, last)
    if not (reading.sure and reading.ranks and len(reading.ranks) == claimed):
        return False
    if call.revealed not in ((), last) or camera.same_cards(call.revealed, reading.ranks):
        return False
    if keep_call(dataclasses.replace(call, revealed=reading.ranks), replacing=call):
        st.session_state["_photo_put"] = (token, reading.ranks)
        return True
    return False


def reading_shown(where, reading: camera.Reading, annotated, claimed: int | None = None, put_in: bool = False,
                  photo_name: str = "") -> None:
    """A still photo's reading beside the picture, small, so that the row it shares with the photo's box keeps its
    height; an unsure reading is offered as a best guess, and a count other than the claim is pointed out. ``put_in``:
    the reading is the cards revealed already, so no button offers it. ``photo_name``: the uploaded photo's, named
    where the uploader's newest file is refused (:data:`EARLIER_PHOTO`)."""
    picture, said = where.columns([2, 3], gap="small")
    height, width = annotated.shape[:2]
    if min(height, width) >= 32:  # a picture the reader refused as too small or too narrow is not worth showing
        # at most 100 px high, whatever the photo's shape, and with no caption (it wrapped under a portrait photo's
        # 75 px): the row keeps its height; the line beside it says what the reader saw (its fullscreen shows more)
        picture.image(annotated[:, :, ::-1], width=max(1, min(160, width * 100 // height)))
    seen = words.cards_shown(reading.ranks)
    notes = [reading.note] if reading.note else []
    differs = bool(reading.ranks) and claimed is not None and len(reading.ranks) != claimed
    if differs:
        notes.append(f"{claimed} claimed but {len(reading.ranks)} seen: check the cards")
    if not seen:
        head = "Camera reads: **nothing**"
    elif reading.sure:
        head = f"Camera reads: **{esc(seen)}**"
    else:
        head = f"Camera is unsure. Best guess: **{esc(seen)}**"
    earlier = f"<span class='cr-earlier'>{md(EARLIER_PHOTO.format(name=photo_name))}</span>" if photo_name else ""
    said.markdown(earlier + head, unsafe_allow_html=True)
    if put_in:
        notes.append("these are the cards revealed below: check them, then apply the verdict")
    for note in notes:
        said.caption(words.sentence(note))
    if reading.ranks and not put_in:
        button(said, "Use this reading" if reading.sure else "Use the best guess", key="use_still", on_click=use_reading,
               args=(reading.ranks,), type="primary" if reading.sure and not differs else "secondary")


#: Over a photo's reading where the file chosen after that photo was refused, which only the browser knows: a type the
#: uploader does not take, a file over its size limit, or an upload that could not begin. The browser lists that file
#: after the photo, with its reason, and sends the app nothing, which went on showing the photo's reading as if it were
#: the new file's; the CSS shows these words there (an upload that failed as it went empties the uploader instead,
#: and the reading goes).
EARLIER_PHOTO = ("This is the reading of the earlier photo, {name}: the file chosen after it was refused (the reason "
                 "shows by its name). Upload another photo, or tap the cards in below.")


@st.cache_resource(max_entries=2, on_release=lambda cam: cam.close())
def _opened_server_camera(source: str) -> camera.ServerCamera:
    cam = camera.ServerCamera(source)
    if not cam.ok:
        cam.close()
        raise OSError(f"cannot open the camera {source!r}")  # an exception is not cached: the next run tries again
    return cam


def _server_camera(source: str) -> camera.ServerCamera | None:
    """The server's camera, opened once and shared; None while it cannot be opened (a camera plugged in later,
    or a file made later, is found on the next run: a failure is not kept)."""
    try:
        return _opened_server_camera(source)
    except OSError:
        return None


#: How long a window's word that it reads a camera on the server holds (:func:`_server_camera_readers`): its picture
#: says so again twice a second; a window that has gone (closed, or its tab asleep) no longer keeps a camera open
#: once this much time has passed (one named in place of it within that time stays open, as all did before).
NAMED_FOR = 10.0


@st.cache_resource
def _server_camera_readers() -> dict[str, tuple[str, float]]:
    """The camera on the server each window reads, by the window's token, and when it last said so: shared by every
    session, as the cameras are."""
    return {}


def read_server_camera(source: str | None) -> None:
    """This window reads ``source`` (None: no camera on the server), said for :func:`name_server_camera`."""
    readers, me = _server_camera_readers(), st.session_state.setdefault("_page_token", uuid.uuid4().hex[:8])
    if source is None:
        readers.pop(me, None)
    else:
        readers[me] = (source, time.monotonic())


def name_server_camera(source: str | None) -> None:
    """Note the camera on the server this window reads (None: none), and close the one it read before where no other
    window reads it (:data:`NAMED_FOR`): the table naming another (a file's path typed in place of another) left the
    first open, its file read on for good, and through the reader at every frame where a call had been read from it,
    beside the new one and sharing its reader. Closed under another window that reads it, the camera lost what that
    window had read of its call, and was let go and opened again (a file played from its start). A window whose word
    has lapsed opens it again at its next drawing (:func:`server_camera_view`)."""
    before = st.session_state.get("_server_named")
    read_server_camera(source)
    if before is not None and before != source and not _read_elsewhere(before):
        _opened_server_camera.clear(before)  # released: closed (its thread stops, the file or device is let go)
    st.session_state["_server_named"] = source


def _read_elsewhere(source: str) -> bool:
    """Whether another window has said within :data:`NAMED_FOR` that it reads ``source``; windows gone are forgotten."""
    readers, me, now = _server_camera_readers(), st.session_state.get("_page_token"), time.monotonic()
    for window, (named, at) in list(readers.items()):
        if now - at > NAMED_FOR:
            readers.pop(window, None)
    return any(named == source and window != me for window, (named, _) in list(readers.items()))


def cannot_open(source: str) -> None:
    st.error(f"The server cannot open the camera {md(repr(source))}: plug it in, or give another number, device or address.")


def server_camera_view() -> None:
    """The server's camera picture with the reader's boxes, refreshed a few times a second."""
    source = str(st.session_state.get("server_camera", "0"))
    with st.container(border=True):
        st.markdown("**Camera on the server**")
        if _server_camera(source) is None:
            cannot_open(source)
            return
        st.caption("Place the camera above the middle of the table; turn the called cards face up in view.")

        @st.fragment(run_every=0.5)
        def picture() -> None:
            read_server_camera(source)  # said again at each drawing, so that another window leaves it open
            cam = _server_camera(source)  # asked for at each drawing: another window may have closed it
            if cam is None:
                cannot_open(source)
                return
            image = cam.frame()
            silent = cam.silent_for()
            if cam.feed.problem:
                st.warning(f"The camera's picture cannot be read ({md(cam.feed.problem)}): enter the cards by hand.")
            if silent > camera.SILENT_AFTER:
                st.warning(f"No picture from the camera for {silent:.0f} s: check that it is plugged in and not in use "
                           "by another program (the app keeps trying).")
            if image is None:
                st.caption("Waiting for the first picture ...")
            else:
                st.image(image[:, :, ::-1], width="stretch")

        picture()


def live_camera() -> None:
    """The laptop's webcam in the browser, read on this machine; no outside server (no ICE servers)."""
    try:
        import av
        from streamlit_webrtc import WebRtcMode, webrtc_streamer
    except ImportError as error:
        st.warning(f"The live camera needs streamlit-webrtc and av ({error}); use a snapshot instead.")
        return
    feed: camera.LiveFeed = st.session_state.setdefault("_feed", camera.LiveFeed())

    def on_frame(frame: av.VideoFrame) -> av.VideoFrame:
        image = frame.to_ndarray(format="bgr24")
        out = feed.process(image)
        return av.VideoFrame.from_ndarray(out, format="bgr24")

    with st.container(border=True):
        st.markdown("**Camera**")
        st.caption("Place the camera above the middle of the table; turn the called cards face up in view.")
        resuming = camera_resuming()
        ctx = webrtc_streamer(
            key="camera",
            mode=WebRtcMode.SENDRECV,
            rtc_configuration={"iceServers": []},
            media_stream_constraints={"video": {"width": 640, "height": 480}, "audio": False},
            video_frame_callback=on_frame,
            async_processing=True,
        )
        resuming = resuming and not note_camera_stop(ctx.state.playing, ctx.state.signalling)
        note_camera_start(ctx.state.playing, ctx.state.signalling, resuming)
        note_camera_state(ctx.state.playing, ctx.state.signalling, resuming)
        camera_check(start=", then press START")
        if not camera.video_link_has_an_address():
            st.warning(NO_NETWORK_NOTE)
        if resuming:
            press_start_once()


#: How long a reloaded page tries to start the browser's camera by itself, and keeps the address saying it is on:
#: after a server's restart the page's old connection takes up to about 15 s to be given up (its START comes back).
RESUME_FOR = 30.0


def camera_resuming() -> bool:
    """Whether the browser's camera is to start by itself: the page's address says it was on when the page was last
    drawn (a reload ends it; the table did not stop it), and this session began under :data:`RESUME_FOR` seconds
    ago. Within that time the address keeps saying so, though the camera is not on yet: a second reload resumes
    it too."""
    ss = st.session_state
    if "_resume_since" not in ss:
        ss["_resume_since"] = time.monotonic() if st.query_params.get(ADDRESS_KEYS["live_on"]) == "on" else None
        ss["_resume_token"] = os.urandom(8).hex()  # names this session's press (a page outlives a server's restart)
    since = ss["_resume_since"]
    return since is not None and time.monotonic() - since < RESUME_FOR


def note_camera_stop(playing: bool, signalling: bool) -> bool:
    """Whether the table stopped the browser's camera since the page's last run (:func:`camera.stopped`), noting
    whether it is on now. A stop ends at once the start the page made by itself (:func:`camera_resuming`): STOP
    pressed before the first picture left the call's line saying "the camera is starting" until STARTING_FOR was
    up, and the address saying the camera was on, for a reload to start it again."""
    ss = st.session_state
    stopped = camera.stopped(ss.get("_camera_on", False), playing, signalling)
    ss["_camera_on"] = playing or signalling
    if stopped:
        ss["_resume_since"] = None
    return stopped


def note_camera_start(playing: bool, signalling: bool, resuming: bool) -> None:
    """Keep when this page began starting the browser's camera, for the call's line (:func:`camera_starting`): as
    its session began where the page starts it by itself (``resuming``), else as START was pressed (the component
    signals); forgotten once the camera is off. Before :func:`note_camera_state`, which ends the resume once it
    plays."""
    ss = st.session_state
    if not (playing or signalling or resuming):
        ss["_camera_began"] = None
    elif ss.get("_camera_began") is None:
        ss["_camera_began"] = ss["_resume_since"] if resuming else time.monotonic()


def camera_starting(feed: camera.LiveFeed) -> bool:
    """Whether the browser's camera is starting and has sent ``feed`` no picture since (:func:`camera.still_starting`).
    A reloaded page's first run draws the call's line before the camera, whose state :func:`note_camera_start`
    notes: a start by the page itself counts from this session's beginning here too."""
    resuming = camera_resuming()
    began = st.session_state.get("_camera_began")
    if began is None and resuming:
        began = st.session_state["_resume_since"]
    return camera.still_starting(began, feed.last_frame_at, time.monotonic())


def note_camera_state(playing: bool, signalling: bool, resuming: bool) -> None:
    """Keep in the page's address whether the browser's camera is on: on once it plays, off once the table stops
    it (not while it starts, nor while a reloaded page is still starting it)."""
    if playing:
        st.query_params[ADDRESS_KEYS["live_on"]] = "on"
        st.session_state["_resume_since"] = None
    elif not resuming and not signalling:
        st.query_params.pop(ADDRESS_KEYS["live_on"], None)
        st.session_state["_resume_since"] = None


def press_start_once() -> None:
    """Press the camera's START for the table, once in this session (a reload, or a server's restart under the open
    page, starts a new one), as soon as it shows, unless a player taps in the camera's box first. The component's own
    way to start from Python (``desired_playing_state``) starts it again on every run that redraws it before it
    has begun, and the second offer left the connection failing after a reload (seen in Chromium); a press is
    the path a player's tap takes. Where the camera cannot start, its START and the browser's error stay."""
    st.html(
        f"""<div class="cr-resume" style="display:none"></div>
<script>
(function() {{
  const session = {json.dumps(str(st.session_state.get("_resume_token")))};
  if (window.__cheatResumed === session) return;
  window.__cheatResumed = session;
  const until = Date.now() + {int(RESUME_FOR * 1000)};
  let tapped = false;  // a player's own tap in the camera's box (STOP, a device) ends the wait: theirs decides
  const press = () => {{
    const frame = document.querySelector('iframe[title="streamlit_webrtc.component.webrtc_streamer"]');
    const doc = frame && frame.contentDocument;
    if (doc && !doc.__cheatWatched) {{
      doc.__cheatWatched = true;
      doc.addEventListener("click", e => {{ if (e.isTrusted) tapped = true; }}, true);
    }}
    const start = doc && Array.from(doc.querySelectorAll("button")).find(b => b.textContent.trim().toLowerCase() === "start");
    if (tapped) return;
    if (start && !start.disabled) return start.click();
    if (Date.now() < until) setTimeout(press, 200);
  }};
  press();
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


#: Said under the live camera where its video link has no address to offer the browser
#: (:func:`camera.video_link_has_an_address`).
NO_NETWORK_NOTE = ("This computer is on no network, and the live camera's link to this browser needs one, though "
                   "nothing leaves the computer (a network without the internet will do): turn Wi-Fi on, or choose "
                   "Snapshot or Photo upload in the sidebar.")


CAMERA_NOTES = {
    "insecure": "This page may use a camera only as http://localhost on this computer (or over https): open it "
                "there, or choose Photo upload or No camera in the sidebar.",
    "none": "This browser sees no camera: plug one in{start}, or choose Photo upload or No camera in the sidebar.",
    "denied": "This browser was refused the camera: allow it (the camera icon in the address bar){start}.",
}


def camera_check(start: str = "") -> None:
    """Say in words why the browser's camera cannot start. The live camera's box shows the browser's own error
    ("NotFoundError: Requested device not found") only after START is pressed, and the snapshot asks for a
    permission even where there is no camera; this note names the fix before, and follows a camera plugged in
    or a permission changed. ``start`` ends the fix where a button must be pressed after it."""
    notes = "".join(f'<div class="cr-camnote" data-why="{why}">{esc(text.format(start=start))}</div>'
                    for why, text in CAMERA_NOTES.items())
    st.html(
        f"""<div class="cr-camnotes">{notes}</div>
<script>
(function() {{
  const show = why => document.querySelectorAll(".cr-camnote").forEach(e => {{
    e.style.display = e.dataset.why === why ? "block" : "none"; }});
  const check = async () => {{
    const media = navigator.mediaDevices;
    if (!window.isSecureContext || !media || !media.enumerateDevices) return show("insecure");
    try {{
      const state = navigator.permissions ? (await navigator.permissions.query({{name: "camera"}})).state : "";
      if (state === "denied") return show("denied");
    }} catch (e) {{}}
    const devices = await media.enumerateDevices();
    show(devices.some(d => d.kind === "videoinput") ? "" : "none");
  }};
  if (navigator.mediaDevices && !window.__cheatCameraWatch) {{
    window.__cheatCameraWatch = true;
    navigator.mediaDevices.addEventListener("devicechange", check);
    if (navigator.permissions) navigator.permissions.query({{name: "camera"}}).then(p => {{
      p.addEventListener("change", check); }}).catch(() => {{}});
  }}
  check();
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


# --- the match table ------------------------------------------------------------------------------


def record_winner(name: str, players: tuple[str, ...], scoring: TableKind, at: int) -> None:
    if record(tapped_result(st.session_state["_referee"].state, name, players, scoring), at):
        say_recorded()


def say_recorded() -> None:
    """The result a tap recorded, as the table's row has it: places a ranked game in progress had given come before
    the names tapped."""
    row = st.session_state["_referee"].state.table.rows[-1]
    flash("toast", f"Recorded: {words.result_text(row)}{'' if len(row.places) > 1 else '.'}")


def table_screen(referee: Referee) -> None:
    import altair as alt

    state = referee.state
    table = state.table
    log_len = len(referee.sitting.log)
    st.title("Match table", anchor=False)
    kinds = table.kinds()
    unit = "Wins" if kinds == {TableKind.MATCH} else "Points"
    summary = st.empty()  # filled once the scoring is known: with no game finished, the one chosen below
    offer = referee.sitting.setup_offer()
    # as the setup shows them: its seats in this window, else those it kept in the page's address (a reload)
    seats = st.session_state["seats"] if "seats" in st.session_state else kept_seats()
    players = players_to_tap(state, seats, offer.players)
    st.subheader("Record a winner", anchor=False)
    in_progress = state.game is not None and not state.game.over
    scoring = table.kind  # the game in progress's, or the table's choice for the games tapped in
    if players and not in_progress:
        # the setup's own choice (one key, kept in the page's address): a table that only taps results in chooses
        # its scoring here, without a game dealt
        scoring = kept_choice(st.radio, "How a game tapped in scores", list(TableKind), "rule_table", offer.table,
                              format_func=words.TABLE_LABELS.get, horizontal=True)
    summary.caption(f"{len(table.rows)} game{'s' if len(table.rows) != 1 else ''} finished · "
                    + standing_counts(kinds if table.rows else {scoring}))
    if players:
        # a ranked game in progress whose first places are taken: those stand, and the buttons give the places after
        taken = given_places(state)
        left = tuple(name for name in players if name not in taken)
        most = ranked_places_most(len(players)) - len(taken)
        if taken:
            ranked_tap = (f" The place{'s' if len(taken) > 1 else ''} taken in this game ({words.places_text(taken)}) "
                          f"stand{'' if len(taken) > 1 else 's'}: a tap gives the next place.")
        elif scoring is TableKind.RANKED and most >= 2:
            ranked_tap = (" On a ranked table the tap gives the winner alone 3 points; for the 2 and 1 points of the "
                          "places after, tap the places below.")
        else:
            ranked_tap = ""
        st.caption("For a game played without tracking: one tap on the winner." +
                   (" This also ends the game in progress." if in_progress else "") + ranked_tap)
        longest = max(len(name) for name in left)  # whole names, as on the Cheat! buttons
        per_row = min(len(left), 6 if longest <= 10 else 4)
        grid = st.container(key="grid_winner")
        for row_start in range(0, len(left), per_row):  # row by row: the seating order reads left to right
            for col, name in zip(grid.columns(per_row), left[row_start:row_start + per_row]):
                button(col, name, key=f"winner_{name}", on_click=record_winner, args=(name, players, scoring, log_len),
                       width="stretch", wrap=True, spoken=f"{name} won: record the game")
        if scoring is TableKind.RANKED and most >= 2:  # one place left (or two players): a tap is the whole result
            st.session_state["_table_players"] = players
            after = " after them" if taken else ""
            places = st.multiselect(f"Or the places{after}, in order (up to {words.number(most)})", left,
                                    max_selections=most, key="ranked_places",
                                    placeholder="Tap the players in the order they went out")
            button(st, "Record these places", key="record_places", disabled=not places, on_click=act_from_state, args=("places", log_len))
    else:
        st.caption("Add the players in the setup first.")
    if isinstance(referee.sitting.last_counted, Winner):  # a wrong tap taken back where it was made
        button(st, "Undo the last result", key="undo_result", on_click=act, args=(Undo(), log_len))

    # the standing under the winner buttons: above them, the first result recorded pushed them down, and with eight
    # players its table and chart put them under a laptop's screen
    ranking = table.ranking()
    if ranking and table.rows:  # before a game is finished, a standing of noughts and an empty chart say nothing
        st.subheader("Standing", anchor=False)
        standing, bars = st.columns([2, 3], gap="medium")  # side by side where there is room; on a phone one above
        # a plain table, as the deal's: the data grid put a Hebrew name at its cell's right edge, and a toolbar and
        # grid cells for a keyboard to go through
        names, points = [p for p, _ in ranking], [s for _, s in ranking]
        standing.table({"Player": names, unit: points}, hide_index=True)
        import pandas as pd

        chart = alt.Chart(pd.DataFrame({"player": names, "score": points})).mark_bar(color="#d93a2b").encode(
            x=alt.X("score:Q", title=unit, axis=alt.Axis(tickMinStep=1)),
            y=alt.Y("player:N", sort=names, title=None,  # ties in the standing's order
                    axis=alt.Axis(labelFontSize=16, labelOverlap=False, labelLimit=240)),
        )
        # room for the score axis below the bars, and a full 16 px label for every player
        bars.altair_chart(chart, width="stretch", height=60 + 40 * len(ranking))

    calls_section(referee)

    st.subheader("History", anchor=False)
    if table.rows:
        # the last games, or all of them on a switch: every game listed pushed the downloads a screen further down
        # with each game of a long evening (one table: the earlier games in a table of their own, folded, had
        # columns of other widths, and on a phone a table wider than its box)
        rows = table.rows
        if len(rows) > HISTORY_SHOWN and not show_all_games(len(rows)):
            rows = rows[-HISTORY_SHOWN:]
        with st.container(key="history"):
            st.table(words.history_rows(rows, TableKind.RANKED in kinds), hide_index=True)
            st.markdown("<div class='cr-phoneonly'>Who played each game: on a wider screen, or in the CSV "
                        "below.</div>", unsafe_allow_html=True)
    else:
        st.caption("No game finished yet in this sitting.")
    d1, d2 = st.columns(2)
    d1.download_button("Download the match table (CSV)", download_file(referee, referee.table_csv_file, "_table_csv"),
                       file_name=download_name("match table.csv"),
                       mime="text/csv", key="csv", on_click="ignore", wrap=True)
    d2.download_button("Download the game log (transcript)", download_file(referee, referee.transcript, "_transcript"),
                       file_name=download_name("game log.jsonl"),
                       mime="application/jsonl", key="transcript", on_click="ignore",
                       wrap=True)  # whole, on two lines where the column is narrow (cut at 800 px beside the sidebar)


def download_name(what: str) -> str:
    """A download's file name, after the sitting shown and its day (:func:`words.file_name`)."""
    return words.file_name(*st.session_state["_sitting_named"], what)


def download_file(referee: Referee, write: Callable[[], str | bytes], key: str) -> str | bytes:
    """A download of the sitting (``write``), written out again only when its log has changed: the game log written at
    every run took 0.2 s a run at 20,000 events, the match table's CSV 46 ms at 10,000 games. (Written at the tap
    instead, Streamlit's deferred download, it failed when tapped while the page was being drawn again: the run drops
    the last run's writer before it makes its own.)"""
    mark = (referee.sitting_id, len(referee.sitting.log), referee.recorded)
    kept = st.session_state.get(key)
    if kept is None or kept[0] != mark:
        kept = (mark, write())
        st.session_state[key] = kept
    return kept[1]


def calls_section(referee: Referee) -> None:
    """Each player's plays called and lies caught, and Cheat! calls made and right, over the sitting's games the
    referee followed: who bluffs best is argued about as much as who won. Before a verdict, nothing (a table of
    noughts says nothing)."""
    records = referee.sitting.calls
    if not records:
        return
    st.subheader("Calls", anchor=False)
    st.caption("In the games the referee followed: caught lying, a play called that was a lie; right, a Cheat! call "
               "on a lie; picked up, the cards taken from the pile at calls.")
    table = referee.state.table
    names = table.in_table_order(records)
    # six columns, not seven (the plays called, honest or not, left out): at 390 px a seventh went off a phone's screen
    st.table({
        "Player": names,
        "Plays": [records[p].plays for p in names],
        "Caught lying": [records[p].caught for p in names],
        "Cheat! calls": [records[p].calls for p in names],
        "Right": [records[p].right for p in names],
        "Picked up": [records[p].picked_up for p in names],
    }, hide_index=True)
    st.download_button("Download the calls (CSV)", referee.calls_csv_file(), file_name=download_name("calls.csv"),
                       mime="text/csv", key="calls_csv", on_click="ignore")


#: How many of the last games the History shows unless all are asked for.
HISTORY_SHOWN = 10


def show_all_games(games: int) -> bool:
    """The History's switch between the last games and all ``games``: the choice outlives the switch, which goes
    while undos bring the table back to ten games (at eleven it came back off), and a reload (it is kept in the
    page's address, as the sidebar's settings are)."""
    ss = st.session_state
    first = ss["_history_all"] if "_history_all" in ss else from_address("history_all", False)
    ss["_history_all"] = st.toggle(f"Show all {games} games, not only the last {HISTORY_SHOWN}", value=first,
                                   key="history_all")
    keep_in_address("history_all", False)
    return ss["_history_all"]


# --- the page -------------------------------------------------------------------------------------


def watch_other_tabs(referee: Referee, listed: tuple) -> None:
    """Another tab or a restart may write: notice a change in the stored log, in the open call, or in the sittings
    the sidebar lists (``listed``: their numbers and names; one renamed or begun in another window), and redraw."""

    @st.fragment(run_every=2)
    def watch() -> None:
        try:
            sittings = referee.store.sittings()
        except StorageError:
            # the file deleted or replaced, or unreadable: the page's own read says what is wrong, and tries again
            # (a watching window stayed on the game, as if nothing had happened, until somebody tapped in it)
            st.rerun(scope="app")
        stored = next((s.events for s in sittings if s.id == referee.sitting_id), None)
        on_the_game = st.session_state.get("screen") == "Game"  # where the open call is shown, and held
        if (stored != len(referee.sitting.log) or sittings_listed(sittings) != listed
                or (on_the_game and not still_open(referee, st.session_state.get("call")))):
            st.rerun(scope="app")

    watch()


def read_again_soon(read: Callable[[], object]) -> None:
    """A read of the database that failed, tried again every 2 s, and the page drawn again once it works: a window
    stopped on the error stayed on it for good (a watching window, after a moment's "disk I/O error" that the window
    playing never met), as its watch of the other windows was never drawn."""
    st.caption("This page tries again every 2 seconds.")

    @st.fragment(run_every=2)
    def again() -> None:
        try:
            read()
        except CheatError:
            return
        st.rerun(scope="app")

    again()


SCREENS = ["Game", "Setup", "Match table"]
#: How long taps are ignored once a deal has brought up the game screen: a second tap on "Deal and start the game",
#: a moment late, would land on whatever the game screen shows there (it took the new deal back, as "Undo the deal").
ARRIVAL_GUARD_MS = 700


#: How long after the page is drawn again a tap on the spot of the tap that changed it is still taken for the second
#: half of a double tap (a touch screen's double tap is under 300 ms; a choice seen and tapped takes longer).
DOUBLE_TAP_MS = 350
#: Said for a moment where the page holds a tap or a key (see `guard_taps`).
HELD_NOTE = "Not taken: the screen had not yet shown your last tap. Look, then tap again if you meant it."
#: The buttons that act on the game or the match table, whose taps and keys the page holds after one of them acts (see
#: `guard_taps`; the revealed cards' buttons are not among them: two quick taps on K are two kings, and a tap on a call
#: that changed meanwhile is refused and said).
ACTION_BUTTONS = ", ".join(f"{selector} button" for selector in (
    ".st-key-deal", ".st-key-undo", ".st-key-undo_result", ".st-key-next_game",
    "[class*='st-key-play_']:not(.st-key-play_many_n)", ".st-key-correct_verdict",
    ".st-key-pass", ".st-key-four", ".st-key-nocall", "[class*='st-key-cheat_']", ".st-key-apply_verdict",
    ".st-key-keep_verdict", ".st-key-cancel_call", "[class*='st-key-winner_']", ".st-key-record_places"))


def guard_taps() -> None:
    """A tap on an action button holds, for at most 3 s:
    - taps on the action buttons its screen showed, as it showed them, until the run it started has drawn the page
      again (a later ``.cr-drawn`` mark, see :func:`arrive`): a second tap before then was made on the screen as it
      stood before the first, and would act again on the game as the first left it (Undo tapped twice took back two
      events, a winner tapped twice recorded two games, in Chromium). A button the new run has drawn elsewhere (the
      Cheat! buttons after a play) takes its tap at once;
    - any tap on the first tap's spot until DOUBLE_TAP_MS after that: a double tap lands on whatever the new screen
      put there ("1" twice played for the next player too; Cheat! twice tapped in an ace).
    A key that acts (the one shown on an action button) is held until the page is drawn again, and the same key
    until DOUBLE_TAP_MS after that. A tap or key held is said for a moment (HELD_NOTE): it would seem to have acted.
    The referee refuses a tap that reaches it before its page was drawn all the same (``at``, MovedOn, and
    :func:`seen_since_last_event`); this keeps the second tap from reaching it at all.

    A tap on the deal holds every tap and acting key until the game screen has shown for ARRIVAL_GUARD_MS (see
    :func:`arrive`): the game screen draws its own buttons where the setup's were. Installed once a page."""
    st.html("""<script>
(function() {
  if (window.__cheatTapGuard) return;
  window.__cheatTapGuard = true;
  window.__cheatGuardUntil = 0;
  const ACTIONS = %s, DOUBLE_TAP_MS = %d;
  let held = null, heldUntil = 0, shown = new WeakMap(), spot = null, redrawnAt = Infinity, heldKey = null;
  const drawn = () => { const mark = document.querySelector(".cr-drawn"); return mark ? mark.dataset.run : ""; };
  // the last action's page not drawn yet; or drawn, but less than DOUBLE_TAP_MS ago
  const unseen = now => now < heldUntil && drawn() === held;
  const settling = now => now < heldUntil && now < redrawnAt + DOUBLE_TAP_MS;
  const watchRedraw = () => {
    if (Date.now() >= heldUntil) return;
    if (drawn() !== held) { redrawnAt = Date.now(); return; }
    requestAnimationFrame(watchRedraw);
  };
  const onSpot = e => {
    const p = (e.touches && e.touches[0]) || e;
    return spot !== null && p.clientX >= spot.left && p.clientX <= spot.right && p.clientY >= spot.top &&
      p.clientY <= spot.bottom;
  };
  const hold = (action, now, key) => {
    held = drawn();
    heldKey = key;
    heldUntil = now + 3000;
    redrawnAt = Infinity;
    shown = new WeakMap();
    document.querySelectorAll(ACTIONS).forEach(b => shown.set(b, b.innerText));
    spot = action.getBoundingClientRect();
    requestAnimationFrame(watchRedraw);
    if (action.closest(".st-key-deal")) window.__cheatGuardUntil = now + 3000;
  };
  // a tap or key held is said for a moment at the foot of the window (it would otherwise seem to have acted)
  const say = () => {
    let note = document.getElementById("cr-held-note");
    if (note === null) {
      note = document.createElement("div");
      note.id = "cr-held-note";
      note.setAttribute("role", "status");
      note.textContent = %s;
      note.style.cssText = "position: fixed; bottom: 1rem; left: 50%%; transform: translateX(-50%%); z-index: 100000; " +
        "background: #333; color: #fff; padding: 0.5rem 1rem; border-radius: 0.5rem; font-size: 1rem; " +
        "pointer-events: none; display: none;";
      document.body.appendChild(note);
    }
    note.style.display = "block";
    clearTimeout(note.__hide);
    note.__hide = setTimeout(() => { note.style.display = "none"; }, 4000);
  };
  const stop = e => {
    e.stopPropagation(); e.preventDefault();
    if (e.type === "click" || e.type === "keydown") say();
  };
  const guard = e => {
    if (!e.isTrusted) return;
    const now = Date.now();
    const action = e.target.closest ? e.target.closest(ACTIONS) : null;
    const stale = action && unseen(now) && shown.get(action) === action.innerText;
    const twice = settling(now) && onSpot(e);
    if (now < window.__cheatGuardUntil || stale || twice) return stop(e);
    if (e.type === "click" && action && !action.disabled) hold(action, now, null);
  };
  ["pointerdown", "mousedown", "touchstart", "click"].forEach(t => document.addEventListener(t, guard, true));
  // a key that acts (the key shown on an action button: U, 1 to 8) is held until the page shows what the key or
  // tap before it did, and the same key again until DOUBLE_TAP_MS after that (U pressed twice took back two events).
  // The key is told by its place on the keyboard (e.code), as on an AZERTY keyboard "1" is the "&" key; with Shift,
  // Streamlit's shortcuts do not act, so neither does this. A key held down repeats nothing (Streamlit's own rule).
  const pressed = e => {
    if (!e.isTrusted || e.repeat || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    const place = /^(?:Key|Digit|Numpad)([A-Z0-9])$/.exec(e.code || "");
    if (place === null) return;
    const key = place[1];
    const action = [...document.querySelectorAll(ACTIONS)].find(b => {
      const hint = b.querySelector("kbd");
      return !b.disabled && hint !== null && hint.textContent.trim().toUpperCase() === key;
    });
    if (!action) return;
    const now = Date.now();
    if (now < window.__cheatGuardUntil || unseen(now) || (key === heldKey && settling(now))) return stop(e);
    hold(action, now, key);
  };
  document.addEventListener("keydown", pressed, true);
})();
</script>""" % (json.dumps(ACTION_BUTTONS), DOUBLE_TAP_MS, json.dumps(HELD_NOTE)), unsafe_allow_javascript=True)


def spoken_names(spoken: dict[str, str]) -> dict[str, str]:
    """The buttons' names for a screen reader (see :func:`button`), by the class the browser gives each key
    ("st-key-cheat_Zo-" for "cheat_Zoë"); two keys that share a class name neither, rather than one wrongly."""
    by_class: dict[str, str | None] = {}
    for key, name in spoken.items():
        # as Streamlit's page writes it, in JavaScript: a character beyond U+FFFF (an emoji) is two units, "--"
        cls = "st-key-" + "".join(c if re.fullmatch(r"[a-zA-Z0-9_-]", c) else "-" * (1 + (ord(c) > 0xFFFF))
                                  for c in key.strip())
        by_class[cls] = None if cls in by_class else name
    return {cls: name for cls, name in by_class.items() if name is not None}


def for_every_player() -> None:
    """What the page does for a player who cannot see it or uses no mouse, installed once a page and done again each
    time a run has drawn it whole (a new ``.cr-drawn`` mark):
    - buttons get the names a screen reader says (``data-spoken``: "Ben calls Cheat!", where the button says "Ben");
    - a new verdict (with where cards not laid as claimed went), a play and the turn when they change, a call's
      cards as they are tapped in, and what the live camera says of a call once it has held a moment are said through
      a live region, as the voice says them to the table (the voice is off, or missing, in many browsers);
    - what a tap did, said in a corner, goes once the game has moved on (``data-moment``: the sitting's events, and
      the call open with its cards):
      "Took back Dev's play." left up through the next plays read as if another play had been taken back. A toast is
      known by its words among those the run that drew it showed (``data-toasts``); one whose run never finished
      stays its time;
    - after a key or a keyboard's Enter acted, the focus, which Streamlit's redraw drops to the page's body, goes back
      to the button of the same key, or to the first button of the turn: a keyboard's player went back to the top
      of the page, eleven Tabs from the first play, after each action."""
    st.html("""<script>
(function() {
  if (window.__cheatForEveryPlayer) return;
  window.__cheatForEveryPlayer = true;
  const FIRST = %s;
  let run = null, turn = null, verdicts = new Set(), keyboard = false, focused = null, told = new WeakSet();
  let spokenRun = null, spoken = [], ticks = 0, markSeen = null, markAt = 0, cards = "", lastPlay = "";
  let camSeen = null, camSince = 0, camTold = new Set();
  // a log: each thing said is a line of its own, added, which a screen reader reads in turn; one text replaced
  // (two quick undos and a play within half a second) could be replaced before it was read
  const live = document.createElement("div");
  live.id = "cr-live";
  live.setAttribute("role", "log");
  live.setAttribute("aria-live", "polite");
  live.setAttribute("aria-relevant", "additions");
  live.className = "cr-sr";
  document.body.appendChild(live);
  const keyOf = el => {
    const box = el && el.closest ? el.closest('[class*="st-key-"]') : null;
    return box ? [...box.classList].find(c => c.startsWith("st-key-")) : null;
  };
  // the page marked while a keyboard is in use: a choice's ring is drawn then only (after names were typed, Chrome
  // drew it round a radio the mouse then clicked)
  const using = on => { keyboard = on; document.documentElement.classList.toggle("cr-kbd", on); };
  document.addEventListener("keydown", () => using(true), true);
  document.addEventListener("pointerdown", () => using(false), true);
  // a click no pointer made: Enter or Space on a button, or a screen reader's own "activate" (which sends no key);
  // not this page's own click that closes a toast
  document.addEventListener("click", e => {
    if (e.detail === 0 && !e.target.closest('[data-testid="stToast"]')) using(true);
  }, true);
  // the button a keyboard reached (a mouse's click also focuses a button, which a later key must not go back to)
  document.addEventListener("focusin", e => {
    if (e.target.tagName === "BUTTON") focused = keyboard ? keyOf(e.target) : null;
  }, true);
  // what a tap did, said in a corner: its toast may come a moment after the page's mark
  const toasts = said => {
    document.querySelectorAll('[data-testid="stToast"]').forEach(t => {
      const body = t.querySelector('[data-testid="stToastText"]');  // its words, not its "view more" too
      const text = (body || t).innerText.trim();  // empty for a moment as it comes in
      if (text && !told.has(t)) { told.add(t); said.push(text); }
    });
  };
  // a toast's moment, from the latest whole page whose run showed it (Streamlit keeps one toast for the same words
  // said again, "Took back the last card (K)." twice: the second run ties it to its own moment); closed once the
  // game has moved on from that moment, and it has been up a second
  const words = text => text.replace(/[^\\p{L}\\p{N}]/gu, "");
  const momentOf = new WeakMap();
  const retire = mark => {
    const shownThen = JSON.parse(mark.dataset.toasts || "[]").map(words);
    const untrue = JSON.parse(mark.dataset.retracted || "[]").map(words);  // a place taken back: its message goes
    document.querySelectorAll('[data-testid="stToast"]').forEach(t => {
      const body = t.querySelector('[data-testid="stToastText"]');
      const text = words(body ? body.innerText : "");
      const then = momentOf.get(t);
      if (text && untrue.includes(text)) {
        const close = t.querySelector('[aria-label="Close"]');
        if (close) close.click();
        return;
      }
      if (text && shownThen.includes(text) && (!then || then.run !== mark.dataset.run)) {
        momentOf.set(t, {moment: mark.dataset.moment, run: mark.dataset.run, since: Date.now()});
        return;
      }
      if (!then) return;
      if (then.moment !== mark.dataset.moment && Date.now() - then.since > 1000) {
        const close = t.querySelector('[aria-label="Close"]');
        if (close) close.click();
      }
    });
  };
  // said at once: the turn written after a toast in the same moment replaced it before a screen reader read it
  // (one full stop between, where a toast's sentence has its own)
  const say = said => {
    if (!said.length) return;
    const line = document.createElement("div");
    line.textContent = said.reduce((all, one) => all + (/[.!?]$/.test(all) ? " " : ". ") + one);
    live.appendChild(line);
    while (live.children.length > 5) live.firstElementChild.remove();  // read already: the log stays short
  };
  const usable = sel => [...document.querySelectorAll(sel)].find(b => !b.disabled && b.offsetParent !== null);
  // what a tap did, held while its page is drawn and said after the verdict that page brings: "Ann is out: 1st place"
  // came before "Honest: Ben picks up 50 cards", the verdict that put her out
  let held = [];
  const tick = () => {
    const said = [];
    toasts(held);
    // the camera's line during a call, once it has held for 1.5 s, and each line once a call: it is drawn five times
    // a second, and every reading said as it came would drown the rest (a sure one gives its verdict before then)
    const camline = document.querySelector(".cr-camline");
    const camNow = camline ? camline.dataset.said || "" : null;
    if (camNow === null) { camSeen = null; camTold.clear(); }
    else if (camNow !== camSeen) { camSeen = camNow; camSince = Date.now(); }
    else if (camNow && !camTold.has(camNow) && Date.now() - camSince >= 1500) { camTold.add(camNow); said.push(camNow); }
    const marks = document.querySelectorAll(".cr-drawn");
    const mark = marks[marks.length - 1];
    const drawing = document.querySelector('[data-stale="true"]') || (mark && mark.dataset.run !== run);
    if (!drawing) { said.push(...held); held = []; }
    if (document.querySelector('[data-stale="true"]')) return say(said);  // a run is drawing: wait for its page
    if (!mark) return say(said);  // held said above: with no mark, nothing is drawing
    retire(mark);
    // the names at once for a new page, then about once a second (a button drawn again loses its name)
    if (mark.dataset.run !== spokenRun) {
      spokenRun = mark.dataset.run;
      spoken = Object.entries(JSON.parse(mark.dataset.spoken || "{}"));
      ticks = 0;
    }
    if (ticks++ %% 7 === 0) spoken.forEach(([cls, name]) =>
      document.querySelectorAll("." + cls + " button").forEach(b => {
        if (b.getAttribute("aria-label") !== name) b.setAttribute("aria-label", name);
      }));
    // read once a run has drawn the page whole (a new mark), and it has stood a moment: read while the page was
    // drawn, the new turn was said alone, and the verdict drawn under it a moment later after it; and the mark can
    // come before the markdown above it is in (the turn 40 ms after it, seen after a deal)
    if (mark.dataset.run !== markSeen) {
      markSeen = mark.dataset.run;
      markAt = Date.now();
    }
    if (mark.dataset.run === run || Date.now() - markAt < 200) return say(said);
    run = mark.dataset.run;
    // a verdict said once (its mark is where it stands in the log): shown again when the play after it is taken
    // back, it is not news
    const shown = document.querySelector(".cr-verdict");
    // the winner too: the end of a game was never said
    const now = [...document.querySelectorAll(".cr-turn, .cr-due, .cr-win")].map(e => e.innerText.trim()).join(". ");
    // the play, before the turn it brought (said when its words change: a play taken back and made again alike is
    // not said twice, the turn is; nor a play open to a call again when its call is taken back). Forgotten where the
    // game has no last play (a new deal, another sitting, the first play taken back): a first play alike is news
    const last = document.querySelector(".cr-played");
    const played = last ? last.dataset.said || "" : "";
    // the verdict, then what the tap did (a place it gave), then a play (one taken back shows the one before)
    if (shown && !verdicts.has(shown.dataset.verdict)) {
      said.push(shown.dataset.said || shown.innerText.trim());
      verdicts.add(shown.dataset.verdict);
    }
    said.push(...held);
    held = [];
    if (played && played !== lastPlay) said.push(played);
    if (played || !last) lastPlay = played;
    if (now && now !== turn) said.push(now);
    if (now) turn = now;
    // the cards of a call as they are tapped in
    const revealed = (document.querySelector(".cr-revealed") || {dataset: {}}).dataset.said || "";
    if (revealed && revealed !== cards) said.push(revealed);
    cards = revealed;
    say(said);
    const lost = !document.activeElement || document.activeElement === document.body;
    if (keyboard && lost) {
      const back = (focused && usable("." + focused + " button")) || FIRST.map(usable).find(b => b);
      if (back) back.focus({preventScroll: true});
    }
  };
  setInterval(tick, 150);
})();
</script>""" % json.dumps([f"{selector} button" for selector in FOCUS_FIRST]), unsafe_allow_javascript=True)


#: Where the focus goes when the button a key acted on is gone, the first there is: the buttons of the turn, of a call
#: (the cards revealed), of a game won, then any button that acts.
FOCUS_FIRST = ("[class*='st-key-cheat_']", "[class*='st-key-play_']:not(.st-key-play_many_n)", ".st-key-reveal_honest",
               "[class*='st-key-reveal_add_']", ".st-key-apply_verdict", ".st-key-next_game", ".st-key-nocall",
               "[class*='st-key-winner_']", ".st-key-undo")


def arrive(view: str, events: int) -> None:
    """A screen the window switched to opens at its top, where the turn and the rank due are, not at the height the
    last screen was scrolled to (the deal button is at the bottom of the setup); and where the setup gives way to the
    game (a deal, or the screen picked), taps are ignored for a moment (the guard a tap on the deal began ends then).
    Drawn last, in a container that is always there: nothing above the camera moves; the screen is noted here, at
    the end of a run that drew it whole (a run cut short by a tap never gets here). ``events`` is the length of
    the sitting's log: with the call open and its cards, the moment of the game the page shows, which changes with
    every event recorded or taken back and every card tapped in (see for_every_player)."""
    ss = st.session_state
    previous, ss["_drawn_view"] = ss.get("_drawn_view"), view
    ss["_runs_drawn"] = ss.get("_runs_drawn", 0) + 1
    with st.container(key="arrival"):
        # the mark of a page drawn whole, which releases the taps a tap held (see guard_taps)
        # the session's own token in it: a new session (a server started again) numbers its runs from 1 again
        token = ss.setdefault("_page_token", uuid.uuid4().hex[:8])
        st.html(f"<div class='cr-drawn' data-run='{token}:{ss['_runs_drawn']}' "
                f"data-moment='{esc(ss.get('_sitting_key', ''))}:{events}:{esc(repr(ss.get('call')))}' "
                f"data-toasts='{esc(json.dumps(ss.get('_toasted', [])))}' "
                f"data-retracted='{esc(json.dumps(ss.get('_retracted', [])))}' "
                f"data-spoken='{esc(json.dumps(spoken_names(ss.get('_spoken', {}))))}'></div>")
        guard_taps()
        for_every_player()
        if previous is None or previous == view:
            return
        ss["_arrivals"] = ss.get("_arrivals", 0) + 1
        guard = ARRIVAL_GUARD_MS if (previous, view) == ("Setup", "Game") else 0
        arrival = f"{token}:{ss['_arrivals']}"
        st.html(f"""<div class="cr-arrived" data-n="{ss['_arrivals']}"></div>
<script>
(function() {{
  // once an arrival: Streamlit may run this script again as the next screen replaces it, and a deal's guard
  // run again there held the first taps on the match table ("Not taken")
  window.__cheatArrivals = window.__cheatArrivals || new Set();
  if (window.__cheatArrivals.has("{arrival}")) return;
  window.__cheatArrivals.add("{arrival}");
  document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]').forEach(e => e.scrollTo(0, 0));
  window.scrollTo(0, 0);
  // the listener of guard_taps, which a tap on the deal set to hold every tap for 3 s, now holds them
  // for {guard} ms from here
  if ({guard} > 0) window.__cheatGuardUntil = Date.now() + {guard};
}})();
</script>""", unsafe_allow_javascript=True)


def navigate(key: str) -> None:
    choice = st.session_state.get(key)
    if choice in SCREENS:
        st.session_state["screen"] = choice


#: What the page says while the server does not answer, in place of Streamlit's "Are you connected to the internet?":
#: the referee's server runs on this computer, so the internet is not the cause.
SERVER_GONE = ("The referee's server on this computer is not answering: if it was stopped or its window closed, start "
               "it again with ./run.sh. This page connects again by itself, and the game is kept.")


def explain_lost_connection() -> None:
    """Word Streamlit's dialog for a lost connection for this app (its text cannot be set): a watcher of the page,
    started once, rewrites the dialog's sentence whenever it shows."""
    st.html(
        f"""<script>
(function() {{
  if (window.__cheatConnectionWords) return;
  window.__cheatConnectionWords = true;
  const words = {json.dumps(SERVER_GONE)};
  // two sentences: "Streamlit server is not responding. Are you connected to the internet?", and on a page opened as
  // localhost (as the README has it) "Is Streamlit still running? ...", over "streamlit run yourscript.py" in a box
  const said = t => t.includes("server is not responding") || t.includes("Is Streamlit still running");
  const reword = () => {{
    document.querySelectorAll('[role="dialog"] div').forEach(d => {{
      if (d.children.length === 0 && said(d.textContent) && d.textContent !== words) d.textContent = words;
    }});
    document.querySelectorAll('[role="dialog"] pre, [role="dialog"] code').forEach(c => {{
      if (c.textContent.includes("yourscript")) (c.closest('pre') || c).style.display = "none";
    }});
  }};
  new MutationObserver(reword).observe(document.body, {{childList: true, subtree: true}});
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


#: The widest screen on which the sidebar starts folded: on a tablet (800 px) or a phone held sideways (844 px) it
#: would take 300 px from the game, and what it holds (the sitting, the voice, the camera) is set once an evening.
#: Streamlit folds it by itself only up to 768 px.
FOLD_SIDEBAR_UP_TO = 1024


def fold_sidebar_on_small_screens() -> None:
    """Fold the sidebar once, as the page first opens on a screen up to FOLD_SIDEBAR_UP_TO wide, unless this browser
    has kept a choice of its own: Streamlit keeps a fold or an unfold tapped by hand (in the browser's local storage,
    under ``stSidebarCollapsed-...``), and a table that opened the sidebar keeps it open. Streamlit keeps this fold
    as if it had been tapped; a mark says it was the screen's, so that the same browser on a wider screen (a window
    made wider, a laptop) opens the sidebar again. A fold or an unfold tapped by hand takes the mark away."""
    st.html(
        f"""<script>
(function() {{
  if (window.__cheatSidebarFold) return;
  window.__cheatSidebarFold = true;
  let storage = null;  // where the browser keeps no local storage, nothing is known of a choice: left as it is
  try {{ storage = window.localStorage; storage.length; }} catch (e) {{ return; }}
  const MARK = "cheatSidebarFoldedForTheScreen";
  const kept = () => Object.keys(storage).filter(k => k.startsWith("stSidebarCollapsed-"));
  document.addEventListener("click", e => {{
    const toggle = '[data-testid="stSidebarCollapseButton"], [data-testid="stExpandSidebarButton"]';
    if (e.isTrusted && e.target.closest && e.target.closest(toggle)) storage.removeItem(MARK);
  }}, true);
  const press = (selector, then) => {{
    const started = Date.now();
    const attempt = () => {{
      const button = document.querySelector(selector);
      if (button) {{ button.click(); then(); return; }}
      if (Date.now() - started < 5000) setTimeout(attempt, 100);
    }};
    attempt();
  }};
  if (window.innerWidth > {FOLD_SIDEBAR_UP_TO}) {{
    if (storage.getItem(MARK)) press('[data-testid="stExpandSidebarButton"]', () => {{
      storage.removeItem(MARK);
      kept().forEach(k => storage.removeItem(k));
    }});
    return;
  }}
  if (kept().length) return;
  press('[data-testid="stSidebarCollapseButton"] button', () => storage.setItem(MARK, "1"));
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


def main() -> None:
    run_late_tap()
    st.html(CSS)
    explain_lost_connection()
    fold_sidebar_on_small_screens()
    st.query_params.pop("call", None)  # where an address of an older version kept the open call (now in the database)
    try:
        store = open_store()
    except StorageError as error:
        st.error(f"The referee cannot open its database: {md(error)}")
        if "locked" in str(error):
            # what to do, not again who has it: the storage's words above say that another program writes to it
            st.info("Close that program, or wait until it is done, then reload this page.")
            st.stop()
        if words.out_of_room(str(error)):
            # the file is whole, and opens once there is room (SQLite makes its -shm beside it): another file, as
            # the advice below has it, would open empty, as if the evening were lost
            st.info("Free some disk space: this page opens the database again by itself once there is room, and "
                    "nothing was lost.")
            read_again_soon(lambda: open_store().close())
            st.stop()
        st.info(f"The database is the file named by {DB_SETTING} (or referee.sqlite3 in the folder named by "
                f"{DATA_SETTING}; without either, {md(default_db_path(ignore_settings=True))}). Point the setting at a "
                "file in a folder you can write to, or remove it, and start the referee again with ./run.sh.")
        st.stop()
    if store.created:
        flash("info", f"A new database was started at {store.path}: every game of this table is kept there.")
    elif st.session_state.get("_file_drawn", store.identity) != store.identity:
        # another file at the path (a backup moved over it): the run read it as any, and showed its sitting without a
        # word; a tap refused for it has said so already
        if ("warning", words.TAP_ON_A_REPLACED_FILE) not in st.session_state.get("flash", []):
            flash("warning", words.FILE_REPLACED)
    st.session_state["_file_drawn"] = store.identity
    try:
        sittings, chosen = current_sitting(store)
    except StorageError as error:
        st.error(f"The referee cannot read its database: {md(error)}")
        read_again_soon(lambda: open_store().sittings())  # a new store each try: a backup put back is a new file
        st.stop()
    sidebar(store, sittings, chosen)
    if chosen is None:
        show_flashes()
        st.title("Cheat Referee", anchor=False)
        st.write("Start a sitting for this evening's table: its games and match table are kept together.")
        with st.form("first_sitting"):
            name = st.text_input("Name of the sitting", value="Tonight", key="first_sitting_name",
                                 max_chars=MAX_SITTING_NAME)
            if st.form_submit_button("Start the sitting", type="primary", key="first_sitting_create"):
                start_sitting(store, name)
        return

    # the sitting's number and the moment it was made: a new database numbers its sittings from 1 again, and
    # the browser must not take its verdicts for ones already said
    sitting_key = f"{chosen.id}@{chosen.created}"
    # read on from the sitting as this window last drew it: a run that read and replayed the whole sitting made every
    # tap of a long evening slower (Referee.read)
    drawn = st.session_state.get("_referee") if st.session_state.get("_sitting_key") == sitting_key else None
    try:
        referee = Referee.read(store, chosen.id, drawn)
    except CheatError as error:
        st.error(f"The sitting {chosen.name} cannot be read: {error}")
        # read on too: a page stopped on a damaged late event read the whole sitting up to it every 2 s
        read_again_soon(lambda: Referee.read(open_store(), chosen.id, drawn))
        st.stop()
    say_what_another_window_did(referee, sitting_key)
    forget_setup_made_before_a_deal(referee, sitting_key)
    st.session_state["_referee"] = referee
    st.session_state["_sitting_key"] = sitting_key
    st.session_state["_sitting_named"] = (chosen.name, words.local_moment(chosen.created)[0])  # the downloads' names
    show_flashes()
    state = referee.state

    default_view = "Game" if state.game is not None else "Setup"
    if "screen" not in st.session_state:
        kept = st.query_params.get("screen")
        st.session_state["screen"] = kept if kept in SCREENS else default_view
    view = st.session_state["screen"]
    put_in_address("screen", view, default_view)
    # A fresh key whenever the app switches screens itself, so the control always shows the screen in use.
    st.segmented_control("Screen", SCREENS, default=view, key=f"nav_{view}", on_change=navigate, args=(f"nav_{view}",),
                         label_visibility="collapsed")

    source = st.session_state.get("camera_source")
    if source in ("live", "server"):
        # The camera is drawn on every screen, in the same place, and hidden where it is not wanted (the setup, the
        # match table, a game won): an element taken off the page and drawn again is a new one, and the browser's
        # camera would stop there, to be started again by hand.
        shown = view == "Game" and state.game is not None and not state.game.over
        main_col, camera_col = st.container(key="split").columns([5, 3], gap="large")
        with main_col:
            screen(referee, view)
        with camera_col:
            st.html(f"<div class='cr-camera-{'shown' if shown else 'hidden'}'></div>")
            if source == "live":
                live_camera()
            else:
                server_camera_view()
    else:
        screen(referee, view)
    date_setup_in_address()
    remember_standing(referee)
    watch_other_tabs(referee, sittings_listed(sittings))
    arrive(view, len(referee.sitting.log))


def screen(referee: Referee, view: str) -> None:
    if view == "Setup":
        setup_screen(referee)
    elif view == "Match table":
        table_screen(referee)
    else:
        game_screen(referee)


main()
