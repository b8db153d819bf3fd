"""Typos on the command line: the command's own usage, the closest name, and exit status 2.

The parser class of every command (``tabletop.arguments.Parser``) does this once for all of
them; these tests try it on several commands, once as a real process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import main

ROOT = Path(__file__).resolve().parents[2]


def refused(capsys, *argv: str) -> str:
    """``tabletop ARGV`` in-process, which must stop with status 2: its standard error."""
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == "", err
    assert "Traceback" not in err
    return err


def test_a_typo_in_a_demo_option_shows_the_demo_usage_and_the_option_meant():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "tabletop", "demo", "--sped", "1"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: tabletop demo [-h]")
    assert done.stderr.endswith("tabletop demo: error: unknown option --sped: "
                                "did you mean --speed?\n")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("argv, meant", [
    (["replay", "--keepgoing"], "--keep-going"),
    (["simulate", "--seeds", "3"], "--seed"),
    (["export", "1", "--fromat=csv"], "--format"),
    (["watch", "--sorce", "sim"], "--source"),
    (["slip", "1", "--txt"], "--text"),
])
def test_a_typo_in_an_option_names_the_option_of_that_command(capsys, argv, meant):
    err = refused(capsys, *argv)
    command = argv[0]
    typo = next(word for word in argv if word.startswith("--")).partition("=")[0]
    assert err.startswith(f"usage: tabletop {command} ")
    assert err.splitlines()[-1] == (f"tabletop {command}: error: unknown option {typo}: "
                                    f"did you mean {meant}?")


def test_an_option_like_none_of_the_commands_points_to_its_help(capsys):
    err = refused(capsys, "games", "--everything")
    assert err.startswith("usage: tabletop games ")
    assert err.splitlines()[-1] == ("tabletop games: error: unknown option --everything: "
                                    "see tabletop games --help for its options")


def test_an_extra_argument_is_refused_by_its_command(capsys):
    err = refused(capsys, "export", "1", "2")
    assert err.startswith("usage: tabletop export ")
    assert "unexpected argument 2 (see tabletop export --help)" in err


@pytest.mark.parametrize("typo, meant", [("similate", "simulate"), ("calibate", "calibrate"),
                                         ("vision-reprot", "vision-report")])
def test_a_typo_in_a_command_name_names_the_command_meant(capsys, typo, meant):
    err = refused(capsys, typo)
    assert err.startswith("usage: tabletop [-h] [--version] COMMAND")
    assert f"tabletop: error: unknown command {typo!r}: did you mean {meant}? " \
           f"(commands: replay, games, " in err


def test_a_command_name_like_none_lists_the_commands(capsys):
    err = refused(capsys, "frobnicate")
    assert "unknown command 'frobnicate' (commands: replay, " in err
    assert "did you mean" not in err


@pytest.mark.parametrize("argv, complaint", [
    (["simulate", "--games", "x"], "argument --games: must be a whole number, got 'x'"),
    (["simulate", "--players", "4.5"], "argument --players: must be a whole number, got '4.5'"),
    (["export", "one"], "argument GAME: must be a whole number, got 'one'"),
    (["demo", "--speed", "fast"], "argument --speed: must be a number, got 'fast'"),
    (["markers", "--out", "m.png", "--size-mm", "4o"],
     "argument --size-mm: must be a number, got '4o'"),
    (["watch", "--source", "sim", "--fps", "ten"], "argument --fps: must be a number, got 'ten'"),
])
def test_a_malformed_number_says_what_a_number_must_be(capsys, argv, complaint):
    err = refused(capsys, *argv)
    assert err.startswith(f"usage: tabletop {argv[0]} ")
    assert err.splitlines()[-1] == f"tabletop {argv[0]}: error: {complaint}"


@pytest.mark.parametrize("argv, complaint", [
    (["demo", "--rules", "acquir"], "argument --rules: invalid choice 'acquir': did you mean "
                                    "acquire? (choose from acquire, acquisitions, megacquire-gold)"),
    (["export", "1", "--format", "cvs"],
     "argument --format: invalid choice 'cvs': did you mean csv? (choose from jsonl, json, csv)"),
])
def test_a_typo_in_a_choice_names_the_choice_meant(capsys, argv, complaint):
    err = refused(capsys, *argv)
    assert err.splitlines()[-1] == f"tabletop {argv[0]}: error: {complaint}"


def test_negative_numbers_are_values_not_options(capsys):
    """``--seed -3`` is a seed, as argparse reads it; the typo check must not take it for an
    option."""
    assert main(["simulate", "--games", "1", "--seed", "-3"]) == 0
    assert "last game (seed -3)" in capsys.readouterr().out
