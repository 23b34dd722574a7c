"""Presentation helpers for app.py: wording, HTML for the big screen, and the camera glue.

Nothing here decides anything about the game: every rule lives in ``assistant``.
"""
