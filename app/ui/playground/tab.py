"""The Playground tab: compose, stream, attach, chain, search, structure, and see every number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.conversations import ConversationKeeper, ConversationsService
from app.services.images import ImageProblem, prepare_file, prepare_qimage, prepare_url
from app.services.playground import Attachment, PlaygroundService, RequestOptions
from app.services.session import ConsoleSession
from app.services.snippets import all_snippets
from app.services.turns import SchemaCheck, check_schema

from .conversations import ConversationSidebar
from .dialogs import TextTabsDialog, inspector_text
from .transcript import Transcript
from .turn_view import TurnView

EXAMPLE_SCHEMA = json.dumps(
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
        "required": ["answer", "confidence"],
        "additionalProperties": False,
    },
    indent=2,
)


class MessageEdit(QPlainTextEdit):
    """The message box; pasting an image attaches it."""

    image_pasted = Signal(QImage)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if source.hasImage():
            self.image_pasted.emit(QImage(source.imageData()))
        else:
            super().insertFromMimeData(source)


class PlaygroundTab(QWidget):
    allow_ip_requested = Signal(str)
    settings_requested = Signal()

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
        self.attachments: list[Attachment] = []
        self.max_image_side = 2048
        self.views: list[TurnView] = []
        self.setAcceptDrops(True)
        self._build()
        self.service.turn_added.connect(self._add_view)
        self.service.text_flushed.connect(lambda index, chunk: self.views[index].append_text(chunk))
        self.service.turn_updated.connect(lambda index: self.views[index].refresh_details())
        self.service.turn_finished.connect(self._finish_view)
        self.service.totals_changed.connect(self._show_totals)
        self.service.conversation_reset.connect(self._clear_views)
        session.client_changed.connect(self.reload_models)
        self.reload_models()

    # -- layout -----------------------------------------------------------------------------------

    def _build(self) -> None:
        top = QHBoxLayout()
        self.model = QComboBox(objectName="model")
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.model.currentTextChanged.connect(lambda _name: self._show_what_serves_each_model())
        self.session.models_changed.connect(self._show_what_serves_each_model)
        self.web_search = QCheckBox("Web search", objectName="web_search")
        self.chain = QCheckBox("Chain on server", objectName="chain", checked=True)
        self.chain.setToolTip(
            "On: send previous_response_id. Off: send the whole history as a message array."
        )
        new = QPushButton("New conversation", objectName="new_conversation")
        new.clicked.connect(self.keeper.new)
        code = QPushButton("Get code", objectName="get_code")
        code.clicked.connect(self.show_code)
        self.totals = QLabel(objectName="totals")
        for widget in (QLabel("Model"), self.model, self.web_search, self.chain, new, code):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.totals)

        self.instructions = QLineEdit(objectName="instructions", placeholderText="Instructions (optional)")
        self.params_toggle = QToolButton(text="Parameters ▸", checkable=True, objectName="params_toggle")
        self.params = QWidget(objectName="params")
        form = QFormLayout(self.params)
        self.temperature = self._spin(QDoubleSpinBox(objectName="temperature"), -0.1, 2.0, 0.1)
        self.top_p = self._spin(QDoubleSpinBox(objectName="top_p"), -0.05, 1.0, 0.05)
        self.max_tokens = QSpinBox(objectName="max_tokens", minimum=15, maximum=1_000_000, value=15)
        self.max_tokens.setSpecialValueText("default")
        form.addRow("Temperature", self.temperature)
        form.addRow("Top p", self.top_p)
        form.addRow("Max output tokens", self.max_tokens)
        self.params.hide()
        self.params_toggle.toggled.connect(self._toggle_params)

        self.structured = QCheckBox("Structured output (JSON schema)", objectName="structured")
        self.schema_edit = QPlainTextEdit(EXAMPLE_SCHEMA, objectName="schema")
        self.schema_edit.setMaximumHeight(140)
        self.schema_status = QLabel(objectName="schema_status")
        self.schema_edit.hide()
        self.schema_status.hide()
        self.structured.toggled.connect(self._toggle_schema)
        self.schema_edit.textChanged.connect(self._check_schema)

        self.thumbs = QHBoxLayout()
        attach = QPushButton("Attach image…", objectName="attach")
        attach.clicked.connect(self._attach_dialog)
        attach_url = QPushButton("Image URL…", objectName="attach_url")
        attach_url.clicked.connect(self._attach_url_dialog)
        self.image_notice = QLabel(objectName="image_notice")
        self.image_notice.setStyleSheet("color: #cf222e;")
        attach_row = QHBoxLayout()
        attach_row.addWidget(attach)
        attach_row.addWidget(attach_url)
        attach_row.addLayout(self.thumbs)
        attach_row.addWidget(self.image_notice, 1)

        self.message = MessageEdit(objectName="message_edit")
        self.message.setPlaceholderText("Message (Ctrl+Enter to send, Esc to stop; paste or drop images)")
        self.message.setMaximumHeight(110)
        self.message.image_pasted.connect(self._attach_qimage)
        self.send_button = QPushButton("Send", objectName="send")
        self.send_button.clicked.connect(self.send)
        self.stop_button = QPushButton("Stop", objectName="stop", enabled=False)
        self.stop_button.clicked.connect(self.stop)
        send_row = QHBoxLayout()
        send_row.addWidget(self.message, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        send_row.addLayout(buttons)

        self.transcript = Transcript()
        self.transcript.setObjectName("conversation")

        # Saved conversations on the left, in a splitter a person can narrow or close at 800 px.
        self.sidebar = ConversationSidebar(self.conversations)
        self.sidebar.open_requested.connect(self.keeper.open)
        self.sidebar.new_requested.connect(self.keeper.new)
        self.keeper.opened.connect(lambda conversation_id: self.sidebar.mark_current(conversation_id or None))
        main = QWidget()
        splitter = QSplitter(objectName="playground_splitter")
        splitter.addWidget(self.sidebar)
        splitter.addWidget(main)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([200, 900])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(splitter)
        layout = QVBoxLayout(main)
        layout.addLayout(top)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.instructions)
        layout.addWidget(self.params_toggle)
        layout.addWidget(self.params)
        layout.addWidget(self.structured)
        layout.addWidget(self.schema_edit)
        layout.addWidget(self.schema_status)
        layout.addLayout(attach_row)
        layout.addLayout(send_row)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.send)
        QShortcut(QKeySequence("Ctrl+Enter"), self, self.send)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)

    @staticmethod
    def _spin(spin: QDoubleSpinBox, low: float, high: float, step: float) -> QDoubleSpinBox:
        spin.setRange(low, high)
        spin.setSingleStep(step)
        spin.setValue(low)
        spin.setSpecialValueText("default")  # the value below the range means "let the service decide"
        return spin

    def _toggle_params(self, shown: bool) -> None:
        self.params.setVisible(shown)
        self.params_toggle.setText("Parameters ▾" if shown else "Parameters ▸")

    def _toggle_schema(self, shown: bool) -> None:
        self.schema_edit.setVisible(shown)
        self.schema_status.setVisible(shown)
        self._check_schema()

    def reload_models(self) -> None:
        profile = self.session.profile
        current = self.model.currentText()
        self.model.clear()
        if profile is not None:
            self.model.addItems(profile.model_names)
            if current in profile.model_names:
                self.model.setCurrentText(current)
            self.model.setMinimumWidth(self.model.sizeHint().width())  # never "service-p" in a small window
            self._show_what_serves_each_model()

    def _show_what_serves_each_model(self) -> None:
        """Each name's real model (the server's `owned_by`: the local sandbox names the weights file)."""
        details = self.session.model_details
        for row in range(self.model.count()):
            name = self.model.itemText(row)
            behind = details.get(name, "")
            self.model.setItemData(row, f"{name}: {behind}" if behind else name, Qt.ItemDataRole.ToolTipRole)
        current = self.model.currentText()
        self.model.setToolTip(f"{current}: {details[current]}" if details.get(current) else "")

    # -- schema -----------------------------------------------------------------------------------

    def schema(self) -> SchemaCheck:
        """The schema typed in the editor, or the reason it cannot be used."""
        return check_schema(self.schema_edit.toPlainText())

    def _check_schema(self) -> None:
        check = self.schema()
        self.schema_status.setText(check.message)
        self.schema_status.setStyleSheet("color: #1a7f37;" if check.ok else "color: #cf222e;")

    # -- images -----------------------------------------------------------------------------------

    def _add_attachment(self, make: Any) -> None:
        try:
            attachment = make()
        except ImageProblem as problem:
            self.image_notice.setText(str(problem))  # refused: never sent, nothing else is spoiled
            return
        self.image_notice.clear()
        self.attachments.append(attachment)
        self._render_thumbs()

    def attach_file(self, path: Path) -> None:
        self._add_attachment(lambda: prepare_file(path, self.max_image_side))

    def _attach_qimage(self, image: QImage) -> None:
        self._add_attachment(lambda: prepare_qimage(image, max_side=self.max_image_side))

    def attach_url(self, url: str) -> None:
        self._add_attachment(lambda: prepare_url(url))

    def _attach_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Attach images", "", "Images (*.png *.jpg *.jpeg *.webp *.gif)"
        )
        for path in paths:
            self.attach_file(Path(path))

    def _attach_url_dialog(self) -> None:
        url, ok = QInputDialog.getText(self, "Image URL", "https:// address of the image")
        if ok and url:
            self.attach_url(url)

    def remove_attachment(self, index: int) -> None:
        del self.attachments[index]
        self._render_thumbs()

    def _render_thumbs(self) -> None:
        while self.thumbs.count():
            item = self.thumbs.takeAt(0)
            widget = item.widget() if item else None
            if widget:
                widget.deleteLater()
        for index, attachment in enumerate(self.attachments):
            button = QToolButton(text=f"✕ {attachment.label[:40]} (~{attachment.tokens} tok)")
            button.setObjectName(f"thumb{index}")
            button.setToolTip(f"{attachment.label}\nClick to remove")
            button.clicked.connect(lambda _=False, i=index: self.remove_attachment(i))
            self.thumbs.addWidget(button)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        data = event.mimeData()
        if data.hasImage():
            self._attach_qimage(QImage(data.imageData()))
        for url in data.urls():
            if url.isLocalFile():
                self.attach_file(Path(url.toLocalFile()))
            else:
                self.attach_url(url.toString())
        event.acceptProposedAction()

    # -- sending ----------------------------------------------------------------------------------

    def options(self) -> RequestOptions:
        schema = self.schema().schema if self.structured.isChecked() else None
        return RequestOptions(
            model=self.model.currentText(),
            instructions=self.instructions.text(),
            temperature=None if self.temperature.value() < 0 else round(self.temperature.value(), 2),
            top_p=None if self.top_p.value() < 0 else round(self.top_p.value(), 2),
            max_output_tokens=None if self.max_tokens.value() < 16 else self.max_tokens.value(),
            web_search=self.web_search.isChecked(),
            schema=schema,
            chain_on_server=self.chain.isChecked(),
        )

    def send(self) -> None:
        text = self.message.toPlainText().strip()
        if not text and not self.attachments:
            return
        if self.structured.isChecked():
            check = self.schema()
            if not check.ok:
                self.schema_status.setText(check.message + " Fix the schema or turn structured output off.")
                return
        self.service.send(text, self.attachments, self.options())
        self.message.clear()
        self.attachments = []
        self._render_thumbs()

    def stop(self) -> None:
        self.service.stop()

    def retry(self, index: int) -> None:
        self.service.resend_from(index, self.service.turns[index].prompt, self.options())

    def edit(self, index: int) -> None:
        turn = self.service.turns[index]
        text, ok = QInputDialog.getMultiLineText(self, "Edit message", "Send again from here:", turn.prompt)
        if ok and text.strip():
            self.service.resend_from(index, text.strip(), self.options())

    # -- views ------------------------------------------------------------------------------------

    def _add_view(self, index: int) -> None:
        view = TurnView(self.service, index)
        view.edit_requested.connect(self.edit)
        view.regenerate_requested.connect(self.retry)
        view.retry_requested.connect(self.retry)
        view.inspect_requested.connect(self.inspect)
        view.allow_ip_requested.connect(self.allow_ip_requested.emit)
        view.settings_requested.connect(self.settings_requested.emit)
        self.views.append(view)
        self.transcript.add_turn(view)
        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)

    def _finish_view(self, index: int) -> None:
        if index < len(self.views):
            schema = self.views[index].turn.schema
            for earlier in self.views[:index]:
                earlier.action_buttons["regenerate"].hide()
            self.views[index].finish(index == len(self.service.turns) - 1, schema)
        self.send_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def _clear_views(self) -> None:
        self.transcript.clear()
        self.views = []
        self.send_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def _show_totals(self) -> None:
        totals = self.service.totals()
        self.totals.setText(
            f"Session: in {totals.input_tokens:,} · out {totals.output_tokens:,} · "
            f"total {totals.total_tokens:,} tokens"
        )

    def inspect(self, index: int) -> None:
        TextTabsDialog("Inspector", inspector_text(self.service.turns[index]), self).show()

    def code_snippets(self) -> dict[str, str]:
        profile = self.session.profile
        body = self.service.build_body(
            self.message.toPlainText().strip() or "Hello", self.attachments, self.options()
        )
        base_url = self.session.client.base_url if self.session.client else ""
        return all_snippets(base_url, body, profile.api_key_env if profile else "SERVICE_API_KEY")

    def show_code(self) -> None:
        TextTabsDialog("Get code", self.code_snippets(), self).show()
