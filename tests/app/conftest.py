"""Helpers for the AppTest tests: every test runs the real app.py against its own temporary database."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "referee.sqlite3"
    monkeypatch.setenv("CHEAT_REFEREE_DB", str(path))
    monkeypatch.delenv("CHEAT_REFEREE_DATA", raising=False)
    # AppTest cannot run the WebRTC component (it needs a live server): the tests enter cards by hand.
    monkeypatch.setenv("CHEAT_REFEREE_CAMERA", "none")
    return path


def open_app(address: dict | None = None) -> AppTest:
    """The app in a fresh session; with ``address``, the page's query parameters of another session, as a
    reload keeps them (and nothing else of that session)."""
    at = AppTest.from_file(APP, default_timeout=30)
    for key, value in (address or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def reloaded(at: AppTest) -> AppTest:
    """The page of ``at`` loaded again: its address kept, its session gone."""
    return open_app(dict(at.query_params.items()))


def restarted(at: AppTest) -> AppTest:
    """The page of ``at`` after the server was restarted under it: a new session, the address kept, and its first run
    carrying every widget's value as the page shows it, as the browser sends them when it reconnects (with a choice
    made as it came back: ``set_value`` and no run). AppTest has no public way to send widget values with a session's
    first run; ``_run`` is what its own ``run()`` calls with them."""
    again = AppTest.from_file(APP, default_timeout=30)
    for key, value in at.query_params.items():
        again.query_params[key] = value
    again._run(at.main.root.get_widget_states())
    assert not again.exception, again.exception
    return again


def text(at: AppTest) -> str:
    """Everything the page says in markdown, tags stripped, as one string."""
    parts = [m.value for m in at.markdown] + [m.value for m in at.main.get("caption")]
    inline = re.sub(r"</?span[^>]*>", "", " ".join(parts))  # a span is inline: "<span>Maya</span>'s turn"
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", inline)))


def spoken(at: AppTest) -> str:
    """What a screen reader reading the whole page hears of its markdown: :func:`text` without what is hidden from it
    (``aria-hidden``)."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(
        r"<span aria-hidden='true'>.*?</span>", "", " ".join(m.value for m in at.markdown)))))


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning]


def refusals(at: AppTest) -> list[str]:
    """The errors, and what the corner says of a tap not recorded (words.REFUSED)."""
    return errors(at) + [t.value for t in at.toast if t.proto.duration >= 10]


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def add_players(at: AppTest, *names: str) -> None:
    for name in names:
        at.text_input(key="new_player").input(name)
        click(at, "add_player")


def start_sitting(at: AppTest, name: str = "Tonight") -> None:
    at.text_input(key="first_sitting_name").input(name)
    click(at, "first_sitting_create")


def deal(at: AppTest, *names: str, **rules) -> AppTest:
    """A new sitting (if none), the players in seating order, the house rules given by widget key, then the deal."""
    if any(b.key == "first_sitting_create" for b in at.button):
        start_sitting(at)
    add_players(at, *names)
    for key, value in rules.items():
        widget = at.main.get("radio") + at.main.get("selectbox") + at.main.get("toggle")
        match = [w for w in widget if w.key == key]
        assert match, f"no rule widget {key}"
        match[0].set_value(value).run()
    click(at, "deal")
    return at
