"""Rows of the Profiles form that are more than a line edit: a path with a Browse button, a secret with a
Copy button."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QToolButton, QWidget

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

# The file picker's caption and filters for each path field.
FILE_FIELDS = {
    "ca_bundle": ("Choose a CA bundle", "Certificates (*.pem *.crt *.cer);;All files (*)"),
    "client_cert": ("Choose the client certificate", "Certificates (*.pem *.crt *.cer);;All files (*)"),
    "client_key": ("Choose the client key", "Keys (*.pem *.key);;All files (*)"),
    "model_file": ("Choose GGUF weights", "GGUF weights (*.gguf);;All files (*)"),
}


def with_button(edit: QLineEdit, button: QToolButton) -> QWidget:
    """The field taking the row's width, the button at its end."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    layout.addWidget(button)
    return row


def browse_row(edit: QLineEdit, name: str, dialog: QWidget) -> QWidget:
    """A path field with "Browse…": a file picker (a child of `dialog`) starting where the path points."""
    caption, filters = FILE_FIELDS[name]

    def browse() -> None:
        current = Path(edit.text()).expanduser()
        start = current.parent if current.name else Path.home()
        picker = QFileDialog(dialog, caption, str(start), filters)
        picker.setFileMode(QFileDialog.FileMode.ExistingFile)
        picker.fileSelected.connect(edit.setText)
        picker.open()

    button = QToolButton(objectName=f"browse_{name}", text="Browse…")
    button.clicked.connect(browse)
    return with_button(edit, button)


def copy_row(edit: QLineEdit, name: str, label: str) -> tuple[QWidget, QToolButton]:
    """A secret field with "Copy" (the stored value, for $SERVICE_… in a terminal); connect its `clicked`."""
    button = QToolButton(objectName=f"copy_{name}", text="Copy")
    button.setToolTip(f"Copy the stored {label.lower()} to the clipboard (for $SERVICE_… in a terminal)")
    return with_button(edit, button), button
