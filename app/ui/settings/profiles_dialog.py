"""Settings > Profiles: add, edit, remove, test connection. Keys go to the keychain, never to a file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
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
from app.common.proxy_url import EXAMPLE, BadProxyUrl, parse_proxy_url
from app.common.secrets import KeychainUnavailable
from app.services.session.profiles import Profile, new_profile_id
from app.services.session.session import ConsoleSession
from app.ui.screen_fit import fit_to_screen

SECRET_FIELDS = (
    ("api_key", "API key"),
    ("admin_key", "Admin key"),
    ("client_key_password", "Client key passphrase"),
    ("proxy_password", "Proxy password"),
)
TEXT_FIELDS = (
    ("name", "Name"),
    ("base_url", "Base URL"),
    ("org_id", "Organization id"),
    ("project_id", "Project id"),
    ("brand", "Brand word"),
    ("models", "Models (comma-separated)"),
    ("ca_bundle", "CA bundle file"),
    ("client_cert", "Client certificate"),
    ("client_key", "Client key file"),
    ("proxy", "Proxy URL"),
)
# Examples, never values: a new profile starts empty and these show what goes where.
PLACEHOLDERS = {
    "name": "e.g. Production",
    "base_url": "https://api.example.com/v1",
    "org_id": "org_… (for the Security tab)",
    "project_id": "proj_… (optional)",
    "brand": "service",
    "models": "empty: the brand's four models",
    "proxy": "empty: none, or e.g. http://proxy.example:3128",
}
FILE_FIELDS = {
    "ca_bundle": ("Choose a CA bundle", "Certificates (*.pem *.crt *.cer);;All files (*)"),
    "client_cert": ("Choose the client certificate", "Certificates (*.pem *.crt *.cer);;All files (*)"),
    "client_key": ("Choose the client key", "Keys (*.pem *.key);;All files (*)"),
    "model_file": ("Choose GGUF weights", "GGUF weights (*.gguf);;All files (*)"),
}
ENGINES = (
    ("Simulated model (offline, deterministic)", EngineKind.SIMULATED),
    ("Local model: GGUF weights run by llama.cpp", EngineKind.LOCAL),
)


UNSAVED = "New profile (not saved)"


class ProfilesDialog(QDialog):
    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
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
                form.addRow(label, self._with_browse(name))
            else:
                form.addRow(label, self.fields[name])
            if name == "proxy":
                self.fields[name].setPlaceholderText(f"{EXAMPLE} (or socks5://…); empty: $HTTPS_PROXY")
                self.proxy_hint = QLabel(objectName="proxy_hint")
                self.fields[name].textChanged.connect(self._check_proxy)
                self.fields[name].editingFinished.connect(self._mask_proxy_password)
                form.addRow("", self.proxy_hint)
        self.first_byte_wait = QSpinBox(objectName="first_byte_wait", minimum=5, maximum=3600, suffix=" s")
        self.first_byte_wait.setToolTip(
            "How long a streamed answer may take to begin. A proxy that buffers sends nothing until the "
            "whole answer is there, so this is longer than the 30 s other requests get."
        )
        form.addRow("Wait for first byte", self.first_byte_wait)
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
        self.engine_rows = [self.engine, self._with_browse("model_file"), self.engine_status]
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
            secret_row = QWidget()
            row_layout = QHBoxLayout(secret_row)
            row_layout.setContentsMargins(0, 0, 0, 0)
            row_layout.addWidget(edit, 1)
            copy = QToolButton(objectName=f"copy_{name}", text="Copy")
            copy.setToolTip(
                f"Copy the stored {label.lower()} to the clipboard (for $SERVICE_… in a terminal)"
            )
            copy.clicked.connect(lambda _checked=False, n=name: self.copy_secret(n))
            row_layout.addWidget(copy)
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
        body.addLayout(left, 1)
        body.addLayout(right, 2)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body)
        layout.addWidget(close)
        self.profiles: list[Profile] = []
        self.reload()

    def _with_browse(self, name: str) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.fields[name], 1)
        browse = QToolButton(objectName=f"browse_{name}", text="Browse…")
        browse.clicked.connect(lambda: self.browse(name))
        layout.addWidget(browse)
        return row

    def _check_proxy(self, text: str) -> None:
        """The Proxy URL checked as it is typed: what will be used, or why it cannot be. One short line (a
        wrapped label in a form row is clipped, and a long one would widen the dialog past a small screen);
        the whole sentence is the tooltip, and Save or Test shows it in full."""
        self.proxy_hint.setToolTip("")
        if not text.strip():
            self.proxy_hint.setText("")
            return
        try:
            proxy = parse_proxy_url(text)
        except BadProxyUrl as error:
            self.proxy_hint.setText(f"✗ {error.short}")
            self.proxy_hint.setToolTip(str(error))
            return
        moved = " (password to the keychain)" if proxy.password else ""
        self.proxy_hint.setText(f"→ {proxy.public}{moved}")

    def _mask_proxy_password(self) -> None:
        """A password typed into the Proxy URL leaves it as soon as the field does: it goes to the masked
        Proxy password field (and at Save to the keychain), so it is on screen only while typed."""
        try:
            proxy = parse_proxy_url(self.fields["proxy"].text())
        except BadProxyUrl:
            return
        if proxy.password:
            self.fields["proxy_password"].setText(proxy.password)
            self.fields["proxy"].setText(proxy.public)

    def copy_secret(self, name: str) -> None:
        """The stored key on the clipboard, on the person's request: how a sandbox key is found."""
        from PySide6.QtGui import QGuiApplication

        profile = self.profile
        if profile is None:
            return
        env = {"api_key": profile.api_key_env, "admin_key": profile.admin_key_env}.get(name)
        value = self.session.secrets.get(profile.id, name, env)
        if value:
            QGuiApplication.clipboard().setText(value)
            self.result_label.setText("Copied to the clipboard.")

    def browse(self, name: str) -> None:
        """A file picker for a path field, starting where the current path points."""
        caption, filters = FILE_FIELDS[name]
        current = Path(self.fields[name].text()).expanduser()
        start = current.parent if current.name else Path.home()
        dialog = QFileDialog(self, caption, str(start), filters)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.fields[name].setText)
        dialog.open()

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
        """What answers now, read from the running engine; and, when another engine is chosen, that it
        answers once saved."""
        profile = self.profile
        if profile is None or not profile.is_sandbox:
            self.engine_status.setText("")
            return
        running = self.session.sandbox.engine_status().text.removeprefix("Sandbox: ")
        chosen = str(self.engine.currentData())
        text = f"Now answering: {running}."
        if chosen != (profile.engine or "simulated"):
            text += f"\nAfter Save: {self.engine.currentText()} (the sandbox restarts with it)."
        self.engine_status.setText(text.replace("..", "."))

    def _load(self, _row: int) -> None:
        profile = self.profile
        if profile is None:
            return
        for name, _ in TEXT_FIELDS:
            value = getattr(profile, name)
            self.fields[name].setText(", ".join(value) if isinstance(value, list) else str(value))
        sandbox = profile.is_sandbox
        for name in ("base_url", "org_id", "project_id"):
            self.fields[name].setReadOnly(sandbox)
        if sandbox:
            self.fields["base_url"].setText("(the embedded local sandbox)")
        for row in self.engine_rows:
            self.form.setRowVisible(row, sandbox)
        self.engine.setCurrentIndex(max(0, self.engine.findData(str(profile.engine))))
        self.fields["model_file"].setText(profile.model_file)
        self.first_byte_wait.setValue(profile.first_byte_wait)
        self._show_proxy_masked(profile)
        self._show_engine_caption()
        sources = []
        for name, label in SECRET_FIELDS:
            env = {"api_key": profile.api_key_env, "admin_key": profile.admin_key_env}.get(name)
            source = self.session.secrets.source(profile.id, name, env)
            self.fields[name].clear()
            self.fields[name].setPlaceholderText(
                {
                    "keychain": "stored in the keychain",
                    "session": "minted by the console for this session"
                    if sandbox
                    else "kept for this session",
                    "environment": f"from ${env}",
                    "none": "not set",
                }[source]
            )
            sources.append(f"{label}: {source}")
            if name in self.copy_buttons:
                self.copy_buttons[name].setEnabled(source != "none")
        problem = self.session.secrets.problem()
        self.where.setText(
            ("⚠ " + problem + " " if problem else "")
            + "Secrets: "
            + "; ".join(sources)
            + ". Leave a secret field empty to keep what is stored."
        )
        self.result_label.clear()

    def _show_proxy_masked(self, profile: Profile) -> None:
        """A console.ini that still holds the proxy's password in its URL (no keychain took it at start):
        the field shows the URL without it, the password goes to the masked field, and Save moves it."""
        try:
            proxy = parse_proxy_url(profile.proxy) if profile.proxy else None
        except BadProxyUrl:
            return
        if proxy is not None and proxy.password:
            self.fields["proxy"].setText(proxy.public)
            self.fields["proxy_password"].setText(proxy.password)

    def _form_profile(self) -> Profile | None:
        profile = self.profile
        if profile is None:
            return None
        for name, _ in TEXT_FIELDS:
            if profile.is_sandbox and name in ("base_url", "org_id", "project_id"):
                continue
            text = self.fields[name].text().strip()
            if name == "models":
                profile.models = [m.strip() for m in text.split(",") if m.strip()]
            else:
                setattr(profile, name, text)
        if profile.is_sandbox:
            profile.engine = EngineKind.read(self.engine.currentData())
            profile.model_file = self.fields["model_file"].text().strip()
        profile.first_byte_wait = self.first_byte_wait.value()
        return profile

    def _split_proxy(self, profile: Profile) -> bool:
        """The Proxy URL as it will be kept: scheme added, its password moved to the Proxy password field
        (then the keychain). False, with the reason shown, when it cannot be a proxy URL."""
        if not profile.proxy:
            return True
        try:
            proxy = parse_proxy_url(profile.proxy)
        except BadProxyUrl as error:
            self.result_label.setText(f"✗ Proxy URL: {error}")
            return False
        if proxy.password and not self.fields["proxy_password"].text():
            self.fields["proxy_password"].setText(proxy.password)
        profile.proxy = proxy.public
        self.fields["proxy"].setText(proxy.public)
        return True

    def save(self) -> bool:
        profile = self._form_profile()
        if profile is None:
            return False
        if not profile.name:
            self.result_label.setText("✗ A profile needs a name.")
            return False
        if not self._split_proxy(profile):
            return False
        for path_field in ("ca_bundle", "client_cert", "client_key", "model_file"):
            value = getattr(profile, path_field)
            if value and not Path(value).expanduser().is_file():
                self.result_label.setText(f"✗ {value} is not a file.")
                return False
        # The profile itself first: a key the keychain refuses (or the person keeps out of it) must not
        # take the typed name, URL and ids down with it.
        self.session.profiles.save(profile)
        self._rename_row(profile)
        said = ""
        for name, label in SECRET_FIELDS:
            value = self.fields[name].text()
            if value:
                try:
                    where = self.session.store_secret(
                        profile.id, name, value, f"the {label.lower()} of “{profile.name}”"
                    )
                except KeychainUnavailable as error:
                    env = {"api_key": profile.api_key_env, "admin_key": profile.admin_key_env}.get(name)
                    instead = f" Set ${env} in the environment instead, or" if env else ""
                    self.result_label.setText(
                        f"✓ Profile saved. ✗ {label} not saved: {error}{instead} unlock or install a keychain"
                        " and save again (the field keeps what you typed)."
                    )
                    return False
                said = f"✓ Saved; {label.lower()} kept in the {where}."
        # The list and the secret fields show what is now stored (the name, "stored in the keychain").
        self.reload(select=profile.id)
        self.result_label.setText(said or "✓ Saved.")
        if profile.id == self.session.profiles.current_id():
            self.session.tasks.start("session.activate", self.session.activate(profile.id))
        return True

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
        if profile.is_sandbox:
            self.result_label.setText(
                "The local sandbox profile stays; it is what the console falls back to."
            )
            return
        answer = QMessageBox.question(
            self, "Remove profile", f"Remove “{profile.name}” and its keys from the keychain?"
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.session.secrets.delete_profile(profile.id)
            self.session.profiles.remove(profile.id)
            self.reload()

    def test_connection(self) -> None:
        profile = self._form_profile()
        if profile is None:
            return
        if profile.is_sandbox and self.session.profile is not None:
            profile = self.session.profile
        if not self._split_proxy(profile):
            return
        password = self.fields["proxy_password"].text()
        try:
            settings = self.session.settings_for(profile, proxy_password=password or None)
        except BadProxyUrl as error:
            self.result_label.setText(f"✗ Proxy URL: {error}")
            return
        for name in ("api_key", "admin_key"):
            if self.fields[name].text():
                setattr(settings, name, self.fields[name].text())
        self.result_label.setText("Testing…")

        async def run() -> None:
            said = "✗ The test failed: the log says why."
            try:
                said = await self.session.test_settings(settings, profile.org_id)
            finally:  # whatever happened, the person sees it here, not only in the log
                self.result_label.setText(said)

        self.session.tasks.start("settings.test", run())
