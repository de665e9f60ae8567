"""Settings > Profiles: add, edit, remove, test connection. Keys go to the keychain, never to a file. The
dialog shows the fields, errors and results; the checks and the saving are ProfileEditor's
(app/services/session/profile_editing.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.common.engine_kind import EngineKind
from app.common.proxy_url import EXAMPLE
from app.core.profile_form import (
    SANDBOX_OWNED,
    SECRET_FIELDS,
    TEXT_FIELDS,
    ProfileForm,
    proxy_hint,
    secret_placeholder,
    secrets_sentence,
    split_proxy,
)
from app.services.session.profile_editing import KeptProxy, ProfileEditor
from app.services.session.profiles import Profile, new_profile_id
from app.services.session.session import ConsoleSession
from app.ui.screen_fit import fit_to_screen
from app.ui.settings.field_rows import FILE_FIELDS, PLACEHOLDERS, browse_row, copy_row
from app.ui.widgets.elided_label import ElidedLabel

ENGINES = (
    ("Simulated model (offline, deterministic)", EngineKind.SIMULATED),
    ("Local model: GGUF weights run by llama.cpp", EngineKind.LOCAL),
)


UNSAVED = "New profile (not saved)"


class ProfilesDialog(QDialog):
    """The profiles on the left, the chosen one's fields on the right; Save and Test connection below."""

    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.editor = ProfileEditor(session)
        self.setWindowTitle("Profiles")
        fit_to_screen(self, 760, 660)  # every field shown where the screen allows; they scroll where not
        self.list = QListWidget(objectName="profiles")
        self.list.currentRowChanged.connect(self._load)
        add = QPushButton("Add", objectName="add_profile")
        add.clicked.connect(self.add_profile)
        remove = QPushButton("Remove", objectName="remove_profile")
        remove.clicked.connect(self.remove_profile)
        left = QVBoxLayout()
        left.addWidget(self.list)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        left.addLayout(row)

        self.fields: dict[str, QLineEdit] = {}
        form = QFormLayout()
        for name, label in TEXT_FIELDS:
            self.fields[name] = QLineEdit(objectName=name, placeholderText=PLACEHOLDERS.get(name, ""))
            if name in FILE_FIELDS:
                form.addRow(label, browse_row(self.fields[name], name, self))
            else:
                form.addRow(label, self.fields[name])
            if name == "proxy":
                # Whole at 800x600; the schemes in full where there is room for them, the tooltip.
                self.fields[name].setPlaceholderText(f"{EXAMPLE}; empty: $HTTPS_PROXY")
                self.fields[name].setToolTip(f"{EXAMPLE}, https://… or socks5://…; empty: $HTTPS_PROXY")
                self.proxy_hint = ElidedLabel(objectName="proxy_hint")
                self.fields[name].textChanged.connect(self._check_proxy)
                self.fields[name].editingFinished.connect(self._mask_proxy_password)
                form.addRow("", self.proxy_hint)
        self.first_byte_wait = QSpinBox(objectName="first_byte_wait", minimum=5, maximum=3600, suffix=" s")
        self.first_byte_wait.setToolTip(
            "How long a streamed answer may take to begin. A proxy that buffers sends nothing until the "
            "whole answer is there, so this is longer than the 30 s other requests get."
        )
        form.addRow("Wait for first byte", self.first_byte_wait)
        self.websocket_mode = QCheckBox("Use WebSocket mode for responses", objectName="websocket_mode")
        self.websocket_mode.setToolTip("The Playground's requests go over one socket per conversation")
        form.addRow("", self.websocket_mode)
        # The embedded sandbox's engine (the Local sandbox profile only).
        self.engine = QComboBox(objectName="engine")
        for label, value in ENGINES:
            self.engine.addItem(label, str(value))  # plain text in the item: Qt keeps no enum
        self.fields["model_file"] = QLineEdit(
            objectName="model_file", placeholderText="empty: Gemma 3 270M from the `local` extra"
        )
        self.engine_status = QLabel(objectName="engine_status")
        self.engine_status.setWordWrap(True)
        self.engine_status.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a file name and an error
        # The caption follows the choice (and the engine, as it restarts or loads), never the one before.
        self.engine.currentIndexChanged.connect(self._engine_changed)
        session.engine_changed.connect(self._engine_changed)  # a bound slot: let go when the dialog goes
        self.engine_rows = [
            self.engine,
            browse_row(self.fields["model_file"], "model_file", self),
            self.engine_status,
        ]
        form.addRow("Sandbox engine", self.engine_rows[0])
        form.addRow("Model file", self.engine_rows[1])
        form.addRow("", self.engine_rows[2])
        self.form = form
        self.copy_buttons: dict[str, QToolButton] = {}
        for name, label in SECRET_FIELDS:
            edit = QLineEdit(objectName=name)
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            self.fields[name] = edit
            if name in ("client_key_password", "proxy_password"):
                form.addRow(label, edit)
                continue
            secret_row, copy = copy_row(edit, name, label)
            copy.clicked.connect(lambda _checked=False, n=name: self.copy_secret(n))
            self.copy_buttons[name] = copy
            form.addRow(label, secret_row)
        # Outside the form: a word-wrapped label in a form row is given one line's height and clipped.
        self.where = QLabel(objectName="where")
        self.where.setWordWrap(True)
        self.where.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.result_label = QLabel(objectName="result")
        self.result_label.setWordWrap(True)
        test = QPushButton("Test connection", objectName="test")
        test.clicked.connect(self.test_connection)
        save = QPushButton("Save", objectName="save")
        save.clicked.connect(self.save)
        # Enter in a field saves what was typed; a QDialog would otherwise press its first button, Add.
        for button in (add, remove, test):
            button.setAutoDefault(False)
        save.setDefault(True)
        # The fields scroll on a small screen (fifteen rows pass 600 px); Test, Save and the result stay put.
        fields_page = QWidget()
        fields_layout = QVBoxLayout(fields_page)
        fields_layout.setContentsMargins(0, 0, 0, 0)
        fields_layout.addLayout(form)
        fields_layout.addWidget(self.where)
        fields_layout.addStretch(1)
        scroll = QScrollArea(objectName="profile_fields", widgetResizable=True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(fields_page)
        right = QVBoxLayout()
        right.addWidget(scroll, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(test)
        buttons.addWidget(save)
        right.addLayout(buttons)
        right.addWidget(self.result_label)

        body = QHBoxLayout()
        # The list holds a name or two; the fields' hints (a proxy URL, a model file) need the width.
        body.addLayout(left, 1)
        body.addLayout(right, 3)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(close)
        self.profiles: list[Profile] = []
        self.reload()

    def _check_proxy(self, text: str) -> None:
        """The Proxy URL checked as it is typed: what will be used, or why it cannot be. One short line (a
        wrapped label in a form row is clipped, and a long one would widen the dialog past a small screen):
        elided to the row's width, the whole sentence is the tooltip, and Save or Test shows it in full."""
        hint = proxy_hint(text)
        self.proxy_hint.setToolTip(hint.tooltip or hint.text)
        self.proxy_hint.setText(hint.text)

    def _mask_proxy_password(self) -> None:
        """A password typed into the Proxy URL leaves it as soon as the field does: it goes to the masked
        Proxy password field (and at Save to the keychain), so it is on screen only while typed."""
        split = split_proxy(self.fields["proxy"].text())
        if split is not None:
            self.fields["proxy_password"].setText(split.password)
            self.fields["proxy"].setText(split.public)

    def copy_secret(self, name: str) -> None:
        """The stored key on the clipboard, on the person's request: how a sandbox key is found."""
        from PySide6.QtGui import QGuiApplication

        profile = self.profile
        value = self.editor.stored_secret(profile, name) if profile is not None else None
        if value:
            QGuiApplication.clipboard().setText(value)
            self.result_label.setText("Copied to the clipboard.")

    def reload(self, select: str | None = None) -> None:
        self.profiles = self.session.profiles.all()
        self.list.blockSignals(True)
        self.list.clear()
        for profile in self.profiles:
            self.list.addItem(profile.name)
        self.list.blockSignals(False)
        ids = [p.id for p in self.profiles]
        wanted = select or self.session.profiles.current_id()
        self.list.setCurrentRow(ids.index(wanted) if wanted in ids else 0)
        self._load(self.list.currentRow())

    @property
    def profile(self) -> Profile | None:
        row = self.list.currentRow()
        return self.profiles[row] if 0 <= row < len(self.profiles) else None

    def _engine_changed(self, _what: object) -> None:
        self._show_engine_caption()

    def _show_engine_caption(self) -> None:
        chosen = str(self.engine.currentData())
        self.engine_status.setText(
            self.editor.engine_caption(self.profile, chosen, self.engine.currentText())
        )

    def _load(self, _row: int) -> None:
        profile = self.profile
        if profile is None:
            return
        for name, _ in TEXT_FIELDS:
            value = getattr(profile, name)
            self.fields[name].setText(", ".join(value) if isinstance(value, list) else str(value))
        sandbox = profile.is_sandbox
        for name in SANDBOX_OWNED:
            self.fields[name].setReadOnly(sandbox)
        if sandbox:
            self.fields["base_url"].setText("(the embedded local sandbox)")
        for row in self.engine_rows:
            self.form.setRowVisible(row, sandbox)
        self.engine.setCurrentIndex(max(0, self.engine.findData(str(profile.engine))))
        self.fields["model_file"].setText(profile.model_file)
        self.first_byte_wait.setValue(profile.first_byte_wait)
        self.websocket_mode.setChecked(profile.websocket_mode)
        # A console.ini that still holds the proxy's password in its URL (no keychain took it at start): the
        # field shows the URL without it, the password goes to the masked field, and Save moves it.
        split = split_proxy(profile.proxy) if profile.proxy else None
        if split is not None:
            self.fields["proxy"].setText(split.public)
            self.fields["proxy_password"].setText(split.password)
        self._show_engine_caption()
        sources = self.editor.secret_sources(profile)
        for secret in sources:
            self.fields[secret.name].clear()
            self.fields[secret.name].setPlaceholderText(
                secret_placeholder(secret.source, sandbox, secret.env)
            )
            if secret.name in self.copy_buttons:
                self.copy_buttons[secret.name].setEnabled(secret.source != "none")
        labelled = [(secret.label, secret.source) for secret in sources]
        self.where.setText(secrets_sentence(labelled, self.editor.keychain_problem()))
        self.result_label.clear()

    def _form(self) -> ProfileForm:
        """The fields as typed, for the editor to check and keep."""
        return ProfileForm(
            texts={
                name: edit.text() for name, edit in self.fields.items() if name not in dict(SECRET_FIELDS)
            },
            engine=self.engine.currentData(),
            first_byte_wait=self.first_byte_wait.value(),
            websocket_mode=self.websocket_mode.isChecked(),
            secrets={name: self.fields[name].text() for name, _ in SECRET_FIELDS},
        )

    def _show_proxy(self, proxy: KeptProxy | None) -> None:
        """The Proxy URL as kept; the password it carried, masked, when none was typed there."""
        if proxy is not None:
            if proxy.password:
                self.fields["proxy_password"].setText(proxy.password)
            self.fields["proxy"].setText(proxy.url)

    def save(self) -> bool:
        profile = self.profile
        if profile is None:
            return False
        outcome = self.editor.save(profile, self._form(), kept=self._rename_row)
        self._show_proxy(outcome.proxy)
        if (
            outcome.ok
        ):  # the list and the secret fields show what is stored (the name, "stored in the keychain")
            self.reload(select=profile.id)
        self.result_label.setText(outcome.message)
        return outcome.ok

    def add_profile(self) -> None:
        """A draft, empty, with examples as placeholders: kept (and in the toolbar's list) only once saved."""
        self.profiles = [p for p in self.profiles if self.session.profiles.get(p.id) is not None]
        profile = Profile(id=new_profile_id(), name="")
        self.profiles.append(profile)
        self.list.blockSignals(True)
        self.list.clear()
        for existing in self.profiles:
            self.list.addItem(existing.name or UNSAVED)
        self.list.setCurrentRow(len(self.profiles) - 1)
        self.list.blockSignals(False)
        self._load(self.list.currentRow())
        self.fields["name"].setFocus()

    def _rename_row(self, profile: Profile) -> None:
        row = next((i for i, p in enumerate(self.profiles) if p.id == profile.id), -1)
        if row >= 0 and self.list.item(row) is not None:
            self.list.item(row).setText(profile.name)

    def remove_profile(self) -> None:
        profile = self.profile
        if profile is None:
            return
        if refused := self.editor.removal_refused(profile):
            self.result_label.setText(refused)
            return
        answer = QMessageBox.question(
            self, "Remove profile", f"Remove “{profile.name}” and its keys from the keychain?"
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.editor.remove(profile)
            self.reload()

    def test_connection(self) -> None:
        profile = self.profile
        if profile is None:
            return
        test = self.editor.connection_test(profile, self._form())
        self._show_proxy(test.proxy)
        if test.settings is not None:
            self.result_label.setText("Testing…")
        self.editor.start_test(test, self.result_label.setText)
