"""The console's command line tells a person about the sandbox's own commands."""

from __future__ import annotations

import pytest

from app.__main__ import parse_args


def test_help_names_the_sandbox_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "service-console sandbox --help" in text and "allowlist show|enable|disable|remove" in text
