"""`service-console settings`: the window's settings read and changed from a terminal through the same model
and file; a value the model refuses is refused with the option's bounds, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.profile import Profile
from app.core.settings import ConsoleFolders, SettingsFile
from tests.cli.cli_support import app_command, cli, environment


def settings(home: Path, *args: str) -> tuple[int, str, str]:
    run = app_command("settings", *args, "--home", str(home), env=environment())
    return run.code, run.out, run.err


def test_a_setting_set_from_the_command_line_is_the_window_s(tmp_path: Path) -> None:
    assert settings(tmp_path, "set", "security.refresh_seconds", "60") == (
        0,
        "security.refresh_seconds = 60\n",
        "",
    )
    assert settings(tmp_path, "set", "security.transfer_folder", "/srv/exports")[0] == 0
    saved = SettingsFile(ConsoleFolders.under(tmp_path).settings_file).load()
    assert saved.security.refresh_seconds == 60 and saved.security.transfer_folder == "/srv/exports"
    code, out, _err = settings(tmp_path, "show", "security")
    assert code == 0 and json.loads(out)["refresh_seconds"] == 60


def test_a_value_the_model_refuses_changes_nothing(tmp_path: Path) -> None:
    code, _out, err = settings(tmp_path, "set", "security.refresh_seconds", "2")
    assert code == 2 and "outside 5–86400" in err
    code, _out, err = settings(tmp_path, "set", "echo.enabled", "maybe")
    assert code == 2 and "not true or false" in err
    code, _out, err = settings(tmp_path, "set", "nothing.here", "1")
    assert code == 2 and "No option “nothing.here”" in err
    code, _out, err = settings(tmp_path, "set", "profiles", "[]")
    assert code == 2 and "File > Profiles" in err
    assert not ConsoleFolders.under(tmp_path).settings_file.exists()


def test_options_lists_each_option_with_its_default_and_what_it_is_for(tmp_path: Path) -> None:
    code, out, _err = settings(tmp_path, "options")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("security.refresh_seconds "))
    assert line == (
        "security.refresh_seconds (int, default 30): "
        "How often the shown allowlist is read again while the tab is visible"
    )


def test_profiles_are_read_from_the_settings_file_and_an_unmigrated_console_ini_is_named(
    tmp_path: Path,
) -> None:
    folders = ConsoleFolders.under(tmp_path)
    SettingsFile(folders.settings_file).update(
        lambda saved: saved.profiles.append(
            Profile(id="p-1", name="Staging", base_url="http://127.0.0.1:9/v1")
        )
    )
    code, out, _err = settings(tmp_path, "show", "profiles")
    assert code == 0 and json.loads(out)[0]["name"] == "Staging"
    folders.settings_file.unlink()
    folders.legacy_settings_file.write_text("[General]\ncurrent_profile=p-1\n")
    run = cli("list", "--home", str(tmp_path), "--profile", "Staging", env=environment())
    assert (
        run.code == 2 and "open the console once" in run.err and str(folders.legacy_settings_file) in run.err
    )
