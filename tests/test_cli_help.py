"""``--help`` at 80 columns (issue 45, item 5): every option name is printed whole, on lines that fit. Rich's
options table cut long names (``--lm-eval-alignme…``); click's plain help wraps the text instead."""

from __future__ import annotations

from typing import Any

import typer.main

from finchain_tasks.cli.main import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(the words after ``finchain``, the command) of every command and group (typer's own click)."""
    found = [(path, group)]
    if hasattr(group, "commands"):
        for name, sub in group.commands.items():
            found += _commands(sub, (*path, name))
    return found


def test_rule_every_option_name_is_whole_in_every_commands_help_at_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    root = typer.main.get_command(app)
    commands = _commands(root)
    assert len(commands) > 20
    for path, command in commands:
        with command.context_class(command, info_name=" ".join(("finchain", *path)), terminal_width=80) as ctx:
            text = command.get_help(ctx)
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= 80, (path, [line for line in lines if len(line) > 80])
        assert "…" not in text, path
        words = set(text.replace(",", " ").replace("/", " ").split())
        for param in (p for p in command.params if not getattr(p, "hidden", False)):
            for name in (*param.opts, *param.secondary_opts):
                if name.startswith("-"):
                    assert name in words, (path, name)
