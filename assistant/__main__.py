"""Command line: ``python -m assistant replay [--json] FILE`` (see shared/rules/TRANSCRIPT.md)."""

from __future__ import annotations

import argparse
import json
import sys

from .sitting import TranscriptError, replay, state_to_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant", description="Cheat Referee's rules core")
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a sitting's transcript and print its state")
    replay_cmd.add_argument("--json", action="store_true", help="print the state as JSON")
    replay_cmd.add_argument("file", help="a transcript in JSON Lines")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as handle:
            sitting = replay(handle)
    except OSError as error:
        print(f"cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"cannot read {args.file}: it is not UTF-8 text", file=sys.stderr)
        return 2
    except TranscriptError as error:
        print(str(error), file=sys.stderr)
        return 2
    state = state_to_json(sitting.state)
    if args.json:
        print(json.dumps(state))
    else:
        print(_summary(state))
    return 0


def _summary(state: dict) -> str:
    lines = []
    game = state["game"]
    if game is None:
        lines.append("No game dealt yet.")
    else:
        if game["over"]:
            lines.append(f"Game over. Places: {', '.join(game['places']) or 'none'}")
        else:
            lines.append(f"{game['turn']} to play, claiming {' or '.join(game['ranks_allowed'])}; pile {game['pile']}")
        lines.extend(f"  {name}: {count} cards" for name, count in game["hands"].items())
    table = state["table"]
    lines.append(f"Table ({table['kind']}), {table['games']} games:")
    lines.extend(f"  {name}: {score}" for name, score in table["scores"].items())
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
