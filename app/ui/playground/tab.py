"""The Playground tab: compose, stream, attach, chain, search, structure, and see every number."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.figures import token_totals
from app.services.playground.conversations import ConversationKeeper, ConversationsService
from app.services.playground.function_library import FunctionLibrary
from app.services.playground.prompt_source import PromptSource
from app.services.playground.service import PlaygroundService
from app.services.session.session import ConsoleSession
from app.services.session.ui_state import PlaygroundState

from ..widgets.fitting_label import FittingLabel
from ..widgets.flow_layout import flow_row
from ..widgets.keyboard import tab_chain
from .attachments import AttachmentBar, ImageDrops
from .composer import Composer
from .conversations import ConversationSidebar
from .cost_total import ConversationCost
from .empty_state import install_empty_state
from .model_box import ModelBox
from .options_panel import OptionsPanel
from .options_split import OptionsSplit
from .prompt_panel import PromptPanel
from .side_split import SideSplit
from .transcript import Transcript
from .view_sync import ViewSync

if TYPE_CHECKING:  # imported where first used: a launch builds no turn, dialog, comparison or find bar
    from app.core.playground.schema_check import SchemaCheck
    from app.core.playground.turns import RequestOptions
    from app.core.prompt_turns import StoredPrompt
    from app.services.playground.compare import CompareService

    from .compare import CompareDialog
    from .find_bar import FindBar, Match
    from .turn_view import TurnView


class PlaygroundTab(ImageDrops, QWidget):
    allow_ip_requested = Signal(int)  # the turn the allowlist refused
    settings_requested = Signal()
    prompt_version_requested = Signal(str, str)  # a stored prompt's id and version, for the Prompts tab

    def __init__(
        self,
        session: ConsoleSession,
        parent: QWidget | None = None,
        conversations: ConversationsService | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.service = PlaygroundService(session, self)
        self.conversations = conversations or ConversationsService(session.data_dir, session.bus, self)
        self.keeper = ConversationKeeper(self.service, self.conversations, self)
        self.function_library = FunctionLibrary(session.data_dir, session.bus, self)
        self.prompt_source = PromptSource(session, self.keeper, self)  # the stored prompt sent from, if any
        self.setAcceptDrops(True)
        self._build()
        self.view_sync = ViewSync(self.service, self.transcript, self._build_view, self)
        self.views = self.view_sync.views
        self.empty_state = install_empty_state(self)  # examples to try, until a conversation starts
        self.view_sync.streaming.connect(self.composer.set_streaming)
        # A refused image belonged to the conversation left behind.
        self.view_sync.cleared.connect(self.attachment_bar.notice.clear)
        self.service.totals_changed.connect(self._show_totals)
        session.client_changed.connect(self.reload_models)
        self.reload_models()

    # -- layout -----------------------------------------------------------------------------------

    def _build(self) -> None:
        top = QHBoxLayout()
        self.model = ModelBox(self.session)
        self.model.setAccessibleName("Model")
        self.web_search = QCheckBox("Web search", objectName="web_search")
        self.chain = QCheckBox("Chain on server", objectName="chain", checked=True)
        self.chain.setToolTip("On: send previous_response_id. Off: send the whole history as messages.")
        new = QPushButton("New conversation", objectName="new_conversation")
        new.clicked.connect(self.keeper.new)
        code = QPushButton("Get code", objectName="get_code")
        code.clicked.connect(self.show_code)
        pick = self.prompt_button = QPushButton("Prompt…", objectName="choose_prompt")
        pick.clicked.connect(self.choose_prompt)
        # The totals shorten before a control wraps (the whole line in the tooltip), and the controls wrap onto
        # a second line (800 px, twice the scale on a laptop) before the figure goes or the window widens.
        self.totals = FittingLabel(objectName="totals")
        controls = flow_row(QLabel("Model"), self.model, self.web_search, self.chain, new, pick, code)
        top.addWidget(controls, 1)
        top.addWidget(self.totals)

        self.options_panel = OptionsPanel()
        panel = self.options_panel
        panel.functions.library = self.function_library
        self.functions = panel.functions
        self.model.currentTextChanged.connect(panel.set_model)
        self.model.currentTextChanged.connect(self._show_function_support)
        self.session.models_changed.connect(self._show_function_support)
        self.structured, self.schema_edit = panel.structured, panel.schema_edit
        self.schema_status = panel.schema_status
        self.params_toggle, self.instructions = panel.params_toggle, panel.instructions

        self.attachment_bar = AttachmentBar()
        # Beside where the next message is written, on no line of its own (the top row is full at 800 px).
        self.cost_total = ConversationCost(self.service).end_row_of(self.attachment_bar)

        self.composer = Composer()
        self.message = self.composer.message
        self.send_button, self.stop_button = self.composer.send_button, self.composer.stop_button
        self.message.image_pasted.connect(self.attachment_bar.attach_qimage)
        self.composer.send_clicked.connect(self.send)
        self.composer.stop_clicked.connect(self.stop)
        self.prompt_panel = PromptPanel(self.prompt_source, self.composer, self.attachment_bar.url_button)
        self.prompt_panel.open_requested.connect(self.prompt_version_requested)

        self.transcript = Transcript()
        self.transcript.setObjectName("conversation")
        self.conversation_splitter = OptionsSplit(self.transcript, self.options_panel)
        self.options_scroll = self.conversation_splitter.options_scroll

        self.sidebar = ConversationSidebar(self.conversations)
        self.sidebar.open_requested.connect(self.keeper.open)
        self.sidebar.new_requested.connect(self.keeper.new)
        self.sidebar.compare_requested.connect(self.open_compare)
        self.keeper.opened.connect(self._conversation_opened)
        main = QWidget()
        self.splitter = splitter = SideSplit(self.sidebar, main)  # saved conversations on the left
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(splitter)
        layout = QVBoxLayout(main)
        layout.addLayout(top)
        self.totals.give_way_to(controls, main)
        layout.addWidget(self.conversation_splitter, 1)
        layout.addWidget(self.attachment_bar)
        layout.addWidget(self.prompt_panel)
        layout.addWidget(self.composer)
        # Tab in reading order: the conversations on the left, the row above the conversation, the
        # conversation, its options, then what is sent; Tab leaves the message box for Send (Composer).
        bar, side = self.attachment_bar, self.sidebar
        tab_chain(side.search, side.new_button, side.list, side.compare_button, self.model, self.web_search)
        tab_chain(
            self.web_search, self.chain, new, code, self.transcript, self.instructions, self.params_toggle
        )
        tab_chain(new, self.prompt_button, code)
        tab_chain(bar.attach_button, bar.url_button, self.message, self.send_button, self.stop_button)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.send)
        QShortcut(QKeySequence("Ctrl+Enter"), self, self.send)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, lambda: self.find_bar.open_bar())
        QShortcut(QKeySequence("Ctrl+Shift+M"), self, lambda: self.open_compare())

    @cached_property
    def find_bar(self) -> FindBar:
        """Built at its first Ctrl+F, above the conversation as a browser's (its code and widgets would be ~8 ms
        of a launch that finds nothing)."""
        from .find_bar import FindBar

        bar = FindBar.above(self.conversation_splitter, lambda: self.service.turns)
        bar.go_to.connect(self._show_match)
        return bar

    @cached_property
    def compare(self) -> CompareService:
        """Made at the first comparison: a launch compares nothing."""
        from app.services.playground.compare import CompareService

        return CompareService(self.session, self.keeper, self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.composer.fit_to(event.size().height())

    def setVisible(self, visible: bool) -> None:
        if visible and self.testAttribute(Qt.WidgetAttribute.WA_Resized):  # given its size by the window:
            self.splitter.share(self.width())  # split before the first show's layout
        super().setVisible(visible)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.splitter.share(self.width())  # shown with no size given first

    def saved_options(self) -> dict[str, Any]:
        """What the next launch restores: the model, the switches and the options panel."""
        state = PlaygroundState(self.model.currentText(), self.web_search.isChecked(), self.chain.isChecked())
        self.options_panel.save_into(state)
        return state.to_saved()

    def restore_options(self, saved: dict[str, Any]) -> None:
        state = PlaygroundState.from_saved(saved)  # a damaged value is the control's default
        self.model.preferred = state.model
        self.web_search.setChecked(state.web_search)
        self.chain.setChecked(state.chain)
        self.options_panel.restore(state)

    def _conversation_opened(self, conversation_id: str) -> None:
        self.sidebar.mark_current(conversation_id or None)
        if (model := self.service.last_model()) is not None:
            self.model.prefer(model)
        if (offered := self.service.offered_tools()) is not None:
            self.functions.set_tool_settings(offered)

    def _show_function_support(self) -> None:
        self.functions.set_model_support(self.model.currentText(), self.model.calls_functions())

    def reload_models(self) -> None:
        self.model.reload()

    # -- schema -----------------------------------------------------------------------------------

    def schema(self) -> SchemaCheck:
        return self.options_panel.schema()

    # -- sending ----------------------------------------------------------------------------------

    def options(self) -> RequestOptions:
        """What the next request is sent with: the model and switches above, the options panel's values."""
        model, web_search, chain = (
            self.model.currentText(),
            self.web_search.isChecked(),
            self.chain.isChecked(),
        )
        return self.options_panel.request_options(model, web_search, chain)

    def send(self) -> None:
        text, source = self.message.toPlainText().strip(), self.prompt_source.use
        if (not text and not self.attachments and source is None) or self.prompt_source.problem():
            return  # a prompt's empty variable: the panel above says which
        if self.structured.isChecked():
            check = self.schema()
            if not check.ok:
                self.schema_status.setText(check.message + " Fix the schema or turn structured output off.")
                return
        stores = bool(self.prompt_source.stores())  # None, not known yet, holds Send (problem above)
        self.service.send(text, self.attachment_bar.take(), self.options(), source, stores)
        self.message.clear()

    def use_prompt(self, stored: StoredPrompt, values: dict[str, str] | None = None, model: str = "") -> None:
        """Send from this stored prompt version in the open conversation, its variables filled with `values`
        (each still editable), on `model` (else the prompt's own): the Prompts tab and Evals call this."""
        self.prompt_source.start(stored, values)
        self.model.prefer(model or stored.model or self.model.currentText())

    def choose_prompt(self) -> None:
        from .prompt_picker import PromptPicker  # built at the first use: a launch picks no prompt

        self.prompt_picker = PromptPicker(self.session, self)
        self.prompt_picker.chosen.connect(self.use_prompt)
        self.prompt_picker.open()

    def stop(self) -> None:
        self.service.stop()

    def retry(self, index: int) -> None:
        self.service.resend_from(index, self.service.turns[index].prompt, self.options())
        self.message.setFocus()  # the button pressed went with the turns it replaced

    def edit(self, index: int) -> None:
        from .dialogs import ask_edit  # loaded at the first edit, not at launch

        text = ask_edit(self, self.service.turns[index].prompt, len(self.service.turns) - index - 1)
        if text:
            self.service.resend_from(index, text, self.options())
            self.message.setFocus()

    # -- views ------------------------------------------------------------------------------------

    def _build_view(self, index: int) -> TurnView:
        from .turn_view import TurnView

        view = TurnView(self.service, index)
        view.edit_requested.connect(self.edit)
        view.regenerate_requested.connect(self.retry)
        view.retry_requested.connect(self.retry)
        view.inspect_requested.connect(self.inspect)
        view.allow_ip_requested.connect(self.allow_ip_requested.emit)
        view.settings_requested.connect(self.settings_requested.emit)
        view.outputs_submitted.connect(self._send_outputs)
        view.prompt_requested.connect(self.prompt_version_requested)
        return view

    def _send_outputs(self, index: int, outputs: dict[str, str]) -> None:
        """The person's outputs go back to the model: the view follows its answer, the focus goes to the
        message box (Send outputs hides, and Qt would move the focus on to the toolbar)."""
        self.message.setFocus()
        self.transcript.follow()
        self.service.submit_outputs(index, outputs)

    def _show_match(self, match: Match) -> None:
        """A match of the find bar: its turn's view (built if it waited) selects it and comes into sight."""
        from .find_bar import show_match

        view = self.views[match.turn]  # building it may put earlier turns in, anchoring the view
        # The match is where the person looks now: the anchor kept for the earlier turns would pull the view
        # back to the turn that was on top (after a relayout, as when Esc closes the bar).
        self.transcript.release_anchor()
        show_match(view, self.transcript, match, self.find_bar.field.text())

    def _show_totals(self) -> None:
        totals = token_totals(turn.figures for turn in self.service.turns)
        split = f"in {totals.input_tokens:,} · out {totals.output_tokens:,}"
        tokens = f"{totals.total_tokens:,} tokens"
        whole = f"Session: {split} · total {tokens}"
        self.totals.set_forms([whole, f"{split} · {tokens}", tokens])
        self.totals.setToolTip(whole)

    def inspect(self, index: int) -> None:
        from .dialogs import TextTabsDialog, inspector_text

        TextTabsDialog("Inspector", inspector_text(self.service.turns[index]), self).show()

    def code_snippets(self) -> dict[str, str]:
        typed, source = self.message.toPlainText().strip(), self.prompt_source.use
        stores = self.prompt_source.stores()
        return self.service.code_snippets(typed, self.attachments, self.options(), source, bool(stores))

    def show_code(self) -> None:
        from .dialogs import TextTabsDialog

        TextTabsDialog("Get code", self.code_snippets(), self).show()

    def open_compare(self, conversation_id: str = "") -> CompareDialog | None:
        """Compare a saved conversation (the open one by default) on another model."""
        from .compare import show_compare

        models = [self.model.itemText(row) for row in range(self.model.count())]
        dialog = show_compare(self, self.compare, conversation_id or None, models, self.keeper.open)
        if (
            dialog is not None
        ):  # closed, the focus goes back to the message box, not the window's first control
            dialog.finished.connect(lambda _result: self.message.setFocus())
        return dialog
