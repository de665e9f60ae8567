"""The stored prompt the Playground sends from: one per conversation (its version and the values typed for
its variables), and whether the service in use keeps that version.

Whether it does is asked once per profile and version (`GET …/prompts/{id}/versions/{version}` with the
admin key, docs/contract.md "Stored prompts in the Playground"): a version the service answers is sent as
the `prompt` parameter; anything else (no admin key, a 404, a service with no prompts API) gets the
prompt's text with the values filled in, which every service understands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.services.session.session import ConsoleSession

from .conversations import ConversationKeeper

if TYPE_CHECKING:
    from app.core.prompt_turns import PromptUse, StoredPrompt

TASK = "playground.prompt_check"


class PromptSource(QObject):
    """State: `use` (the open conversation's prompt, or None) and `stores()` (None while it is asked)."""

    changed = Signal()  # a prompt was chosen or put away, a value typed, or the service's answer came

    def __init__(
        self, session: ConsoleSession, keeper: ConversationKeeper, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.conversation = ""  # the open conversation's id; "" for one not yet started
        self._uses: dict[str, PromptUse] = {}
        self._kept: dict[tuple[str, str, str], bool] = {}  # (profile, prompt, version): the service has it
        session.client_changed.connect(self._client_changed)
        keeper.started.connect(self._started)
        keeper.opened.connect(self._opened)

    @property
    def use(self) -> PromptUse | None:
        return self._uses.get(self.conversation)

    def start(self, stored: StoredPrompt, values: dict[str, str] | None = None) -> None:
        """Send from `stored` in the open conversation, its variables filled with `values` where given."""
        from app.core.prompt_turns import PromptUse

        given = values or {}
        kept = {name: given.get(name, "") for name in stored.variables}
        self._uses[self.conversation] = PromptUse(stored, kept)
        self._check()
        self.changed.emit()

    def set_value(self, name: str, value: str) -> None:
        use = self.use
        if use is not None and use.values.get(name) != value:
            use.values[name] = value
            self.changed.emit()

    def put_away(self) -> None:
        if self._uses.pop(self.conversation, None) is not None:
            self.changed.emit()

    # -- the conversation shown -------------------------------------------------------------------

    def _started(self, conversation_id: str) -> None:
        """The new conversation was saved under an id: its prompt goes with it."""
        if "" in self._uses:
            self._uses[conversation_id] = self._uses.pop("")

    def _opened(self, conversation_id: str) -> None:
        self.conversation = conversation_id
        self._check()
        self.changed.emit()

    # -- does the service keep it ---------------------------------------------------------------------

    def _key(self, use: PromptUse) -> tuple[str, str, str]:
        profile = self.session.profile
        return (profile.id if profile else "", use.stored.id, use.stored.version)

    def stores(self) -> bool | None:
        """Whether the service in use keeps the prompt's version (None: not known yet, asked now)."""
        use = self.use
        return None if use is None else self._kept.get(self._key(use))

    def problem(self) -> str:
        """Why Send must wait ("" when it need not, or when no prompt is in use)."""
        use = self.use
        if use is None:
            return ""
        if use.missing():
            return use.send_problem()
        if self.stores() is None:
            return f"Checking whether the service keeps {use.label}…"
        return ""

    def _check(self) -> None:
        use = self.use
        if use is not None and self._key(use) not in self._kept:
            self.session.tasks.start(TASK, self._ask(use, self._key(use)))

    async def _ask(self, use: PromptUse, key: tuple[str, str, str]) -> None:
        from app.api.errors import ApiError

        client = self.session.client
        kept = False
        if client is not None and client.has_key("admin"):
            try:
                await client.prompts.retrieve(use.stored.id, use.stored.version)
                kept = True
            except ApiError:  # not found, no prompts API, unreachable: the text goes, which any service reads
                kept = False
        self._kept[key] = kept
        self.changed.emit()

    def _client_changed(self) -> None:
        """Another profile or the same one connected again: ask again (an unreachable service may be back)."""
        self._kept.clear()
        self._check()
