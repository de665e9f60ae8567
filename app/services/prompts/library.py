"""The organization's stored prompts as the library shows them: the list (with its search), the versions
of the prompt open, and saves. Every call runs as a named task of the session; a new search cancels the one
before it."""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.api.prompts import StoredPrompt
from app.api.requests import ResponseCreateParams
from app.core.prompts.draft import PromptDraft, missing, prompt_request
from app.services.session.session import ConsoleSession


class PromptLibrary(QObject):
    """State: `prompts` (latest version of each), `versions` (of the prompt open, newest first)."""

    listed = Signal()  # `prompts` was read again
    versions_read = Signal()  # `versions` holds the open prompt's versions
    saved = Signal(StoredPrompt)  # what a save made
    failed = Signal(str)  # a sentence for the person
    answered = Signal(str, str)  # the answer's text, and which prompt and version it came from

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.prompts: list[StoredPrompt] = []
        self.versions: list[StoredPrompt] = []
        self.search = ""
        self.busy = False

    def _client_or_fail(self) -> bool:
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self.failed.emit(
                "The prompt library needs the profile's admin key (stored prompts are the organization's)."
            )
            return False
        return True

    def refresh(self, search: str | None = None) -> None:
        if search is not None:
            self.search = search
        if self._client_or_fail():
            self.session.tasks.start("prompts.list", self._list())

    def open(self, prompt_id: str) -> None:
        if self._client_or_fail():
            self.session.tasks.start("prompts.versions", self._versions(prompt_id))

    def save(self, draft: PromptDraft, note: str, prompt_id: str | None) -> None:
        """A new prompt (`prompt_id` None) or the next version of one; a version is never changed."""
        problem = draft.problem()
        if problem:
            self.failed.emit(problem)
            return
        if self._client_or_fail():
            self.busy = True
            self.session.tasks.start("prompts.save", self._save(draft, note, prompt_id))

    def send(self, stored: StoredPrompt, values: dict[str, str], model: str = "") -> None:
        """One response from this version with these values (the `prompt` parameter: the service keeps it)."""
        empty = missing(stored, values)
        if empty:
            self.failed.emit("Fill in " + ", ".join(empty) + " before sending.")
            return
        if self.session.client is None:
            self.failed.emit("Connect to a service first.")
            return
        # A prompt that names no model is answered by the one asked for, else the service's first.
        model = model or stored.model or next(iter(self.session.model_details), "")
        body = cast(ResponseCreateParams, prompt_request(stored, values, stores_prompts=True, model=model))
        self.session.tasks.start("prompts.send", self._send(stored, body))

    def code(self, stored: StoredPrompt, values: dict[str, str], model: str = "") -> dict[str, str]:
        """Get code: this version with these values as curl, Python and Node.js, through the `prompt`
        parameter (the service keeps the prompt); the key is read from the environment, never written."""
        from app.core.playground.snippets import all_snippets
        from app.core.profile import snippet_network

        model = model or stored.model or next(iter(self.session.model_details), "")
        body = prompt_request(stored, values, stores_prompts=True, model=model)
        client, profile = self.session.client, self.session.profile
        env_var = profile.api_key_env if profile else "SERVICE_API_KEY"
        return all_snippets(
            client.base_url if client else "", body, env_var, snippet_network(profile, self.session.secrets)
        )

    async def _send(self, stored: StoredPrompt, body: ResponseCreateParams) -> None:
        client = self.session.client
        assert client is not None
        try:
            response = await client.responses.create(body)
        except ApiError as error:
            self.failed.emit(f"The prompt was not answered: {error}")
            return
        self.answered.emit(response.output_text, f"{stored.name}, version {stored.version}")

    async def _list(self) -> None:
        client = self.session.client
        assert client is not None
        try:
            self.prompts = await client.prompts.latest(self.search)
        except ApiError as error:
            self.failed.emit(f"The prompts could not be read: {error}")
            return
        self.listed.emit()

    async def _versions(self, prompt_id: str) -> None:
        client = self.session.client
        assert client is not None
        try:
            self.versions = await client.prompts.versions(prompt_id)
        except ApiError as error:
            self.failed.emit(f"The prompt's versions could not be read: {error}")
            return
        self.versions_read.emit()

    async def _save(self, draft: PromptDraft, note: str, prompt_id: str | None) -> None:
        client = self.session.client
        assert client is not None
        try:
            body = draft.body(note)
            if prompt_id is None:
                made = await client.prompts.create(body)
            else:
                made = await client.prompts.add_version(prompt_id, body)
        except ApiError as error:
            self.failed.emit(f"The prompt was not saved: {error}")
            return
        finally:
            self.busy = False
        self.saved.emit(made)
        await self._versions(made.id)
        await self._list()
