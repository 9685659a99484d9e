"""Settings: which generator and embedder, how to run them (GPU layers,
threads, context size), and where the generator actually runs. Saved to the
user's config dir; a change of model says what will be re-indexed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.llm.catalogue import EMBEDDER, GENERATOR, Catalogue
from engine.llm.settings import (CATALOGUE, FILE, FOLDER, MIN_CONTEXT, REMOTE, ModelChoice, ModelSettings,
                                 reindex_notice)
from engine.llm.types import EndpointSettings

_FILE_CHOICE = "__file__"
_REMOTE_CHOICE = "__remote__"


class ModelPicker(QGroupBox):
    """A catalogue model, a file or folder of the user's, or an endpoint."""

    def __init__(self, title: str, role: str, catalogue: Catalogue, choice: ModelChoice, parent=None):
        super().__init__(title, parent)
        self.role = role
        self._original = choice
        self.combo = QComboBox(self)
        for model in catalogue.by_role(role):
            state = "" if model.installed_folder() else " (not downloaded)"
            default = " \u2014 default" if model.default else ""
            self.combo.addItem(f"{model.name}{default}{state}", model.id)
        self.combo.addItem("A GGUF file\u2026" if role == GENERATOR else "An ONNX model folder\u2026", _FILE_CHOICE)
        self.combo.addItem("An OpenAI-compatible server\u2026", _REMOTE_CHOICE)
        self.path = QLineEdit(self)
        self.path.setPlaceholderText("/path/to/model.gguf" if role == GENERATOR else "/path/to/model-folder")
        browse = QPushButton("Browse\u2026", self)
        browse.clicked.connect(self._browse)
        self.url = QLineEdit(self)
        self.url.setPlaceholderText("http://127.0.0.1:8080")
        self.model = QLineEdit(self)
        self.model.setPlaceholderText("the server's model name (optional)")
        path_row = QWidget(self)
        row = QHBoxLayout(path_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.details = QLabel(self)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        small = self.details.font()
        small.setPointSizeF(small.pointSizeF() * 0.9)
        self.details.setFont(small)
        self.catalogue = catalogue
        # The details line sits under the form, not in it: a form row sizes a
        # wrapping label for the wrong width and leaves a blank band.
        column = QVBoxLayout(self)
        form = QFormLayout()
        column.addLayout(form)
        column.addWidget(self.details)
        form.addRow("Model:", self.combo)
        form.addRow("File:", path_row)
        form.addRow("Server URL:", self.url)
        form.addRow("Server model:", self.model)
        self._rows = {"file": path_row, "url": self.url, "model": self.model}
        self.form = form
        self.combo.currentIndexChanged.connect(self._update)
        self._load(choice, catalogue)
        self._update()

    def _load(self, choice: ModelChoice, catalogue: Catalogue) -> None:
        if choice.source == CATALOGUE:
            model_id = choice.id or catalogue.default(self.role).id
            self.combo.setCurrentIndex(max(0, self.combo.findData(model_id)))
        elif choice.source in (FILE, FOLDER):
            self.combo.setCurrentIndex(self.combo.findData(_FILE_CHOICE))
            self.path.setText(choice.path or "")
        elif choice.source == REMOTE and choice.endpoint:
            self.combo.setCurrentIndex(self.combo.findData(_REMOTE_CHOICE))
            self.url.setText(choice.endpoint.url)
            self.model.setText(choice.endpoint.model or "")

    def _update(self) -> None:
        data = self.combo.currentData()
        self.form.setRowVisible(self._rows["file"], data == _FILE_CHOICE)
        self.form.setRowVisible(self._rows["url"], data == _REMOTE_CHOICE)
        self.form.setRowVisible(self._rows["model"], data == _REMOTE_CHOICE)
        self.details.setText(self._describe(data))

    def _describe(self, data) -> str:
        if data == _FILE_CHOICE:
            return ("A GGUF file on this machine, run by llama.cpp." if self.role == GENERATOR
                    else "A folder holding model.onnx and tokenizer.json.")
        if data == _REMOTE_CHOICE:
            return "A server on this machine or your network that speaks the OpenAI API (llama-server, LM Studio, Ollama)."
        model = self.catalogue.get(data) if data else None
        if model is None:
            return ""
        facts = []
        if model.context_length:
            facts.append(f"context {model.context_length:,} tokens")
        if model.dimension and "dimensional" not in (model.notes or ""):
            facts.append(f"{model.dimension}-dimensional vectors")
        if model.ram_mb:
            facts.append(f"about {model.ram_mb:,} MB of memory")
        facts.append(f"licence {model.license}")
        text = "; ".join(facts) + "."
        text = text[0].upper() + text[1:]
        return f"{text} {model.notes}".strip()

    def _browse(self) -> None:
        if self.role == GENERATOR:
            path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", str(Path.home()), "GGUF models (*.gguf)")
        else:
            path = QFileDialog.getExistingDirectory(self, "Choose an ONNX model folder", str(Path.home()))
        if path:
            self.path.setText(path)

    def choice(self) -> ModelChoice:
        data = self.combo.currentData()
        if data == _FILE_CHOICE:
            return ModelChoice(source=FILE if self.role == GENERATOR else FOLDER, path=self.path.text().strip())
        if data == _REMOTE_CHOICE:
            return ModelChoice(source=REMOTE, endpoint=EndpointSettings(url=self.url.text().strip(),
                                                                        model=self.model.text().strip() or None))
        if data == self.catalogue.default(self.role).id and not self._original.id:
            return ModelChoice(source=CATALOGUE)  # keep following the default
        return ModelChoice(source=CATALOGUE, id=data)


SITUATING_CHOICES = (
    ("Automatic: with generators of 1B parameters or more", "auto"),
    ("Always", "on"),
    ("Never", "off"),
)
ANSWER_CHOICES = (
    ("The evidence, then the model's answer", "model"),
    ("The evidence only (no model call)", "evidence"),
)


class SettingsDialog(QDialog):
    def __init__(self, settings: ModelSettings, device_text: str = "", parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(560)
        self.original = settings
        catalogue = self.catalogue = Catalogue.load()
        self.generator = ModelPicker("Generator (writes answers, summaries, cards)", GENERATOR, catalogue,
                                     settings.generator, self)
        self.embedder = ModelPicker("Embedder (finds passages by meaning)", EMBEDDER, catalogue, settings.embedder, self)
        running = QGroupBox("Running the models", self)
        form = QFormLayout(running)
        self.gpu_layers = QSpinBox(self)
        self.gpu_layers.setRange(-1, 999)
        self.gpu_layers.setSpecialValueText("all (automatic)")
        self.gpu_layers.setValue(-1 if settings.gpu_layers in (None, "auto") else int(settings.gpu_layers))
        self.gpu_layers.setToolTip("Layers of the generator offloaded to the GPU; 0 runs on the CPU only")
        self.threads = QSpinBox(self)
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(settings.threads or 0)
        self.context = QSpinBox(self)
        self.context.setRange(0, 262144)
        self.context.setSingleStep(1024)
        self.context.setSpecialValueText("the model's own (at most 8,192)")
        self.context.setToolTip(f"Tokens the generator reads at once: at least {MIN_CONTEXT:,}")
        self.context.setValue(settings.context_size or 0)
        self.device = QLabel(device_text or "The generator is not loaded yet.", self)
        self.device.setWordWrap(True)
        form.addRow("GPU layers:", self.gpu_layers)
        form.addRow("Threads:", self.threads)
        form.addRow("Context size:", self.context)
        form.addRow("Running on:", self.device)
        indexing = QGroupBox("Indexing", self)
        self.situating = self._choices(
            SITUATING_CHOICES, settings.situating_sentences,
            "One sentence per passage that places it in the book, searched with the passage. Small models "
            "write them badly (with the 135M default they lowered retrieval), and each one is a model call "
            "while indexing.")
        QFormLayout(indexing).addRow("Situating sentences:", self.situating)
        asking = QGroupBox("Asking", self)
        self.answers = self._choices(
            ANSWER_CHOICES, settings.answers,
            "The evidence (the book's own sentences, with citations) comes in milliseconds. A model's answer "
            "under it takes the model's time: on a CPU with the small default model, half a minute for a "
            "draft that often says little.")
        QFormLayout(asking).addRow("Answers:", self.answers)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.generator)
        layout.addWidget(self.embedder)
        layout.addWidget(running)
        layout.addWidget(indexing)
        layout.addWidget(asking)
        layout.addStretch(1)
        layout.addWidget(buttons)

    def _choices(self, choices, current: str, tip: str) -> QComboBox:
        box = QComboBox(self)
        for text, value in choices:
            box.addItem(text, value)
        box.setCurrentIndex(max(0, box.findData(current)))
        box.setToolTip(tip)
        return box

    def settings(self) -> ModelSettings:
        layers = self.gpu_layers.value()
        return ModelSettings(
            generator=self.generator.choice(), embedder=self.embedder.choice(),
            gpu_layers="auto" if layers < 0 else layers, threads=self.threads.value() or None,
            context_size=max(self.context.value(), MIN_CONTEXT) if self.context.value() else None,
            situating_sentences=self.situating.currentData(),
            answers=self.answers.currentData(),
        )

    def changes(self) -> list[str]:
        """What saving would mean for indexed books, in words."""
        new = self.settings()
        notes = []
        for role in (GENERATOR, EMBEDDER):
            before, after = self._describe(self.original.choice(role), role), self._describe(new.choice(role), role)
            if before != after:
                notes.append(reindex_notice(role, before, after))
        if new.situating_sentences != self.original.situating_sentences:
            notes.append("Books whose situating sentences this turns on or off will redo their summaries and cards "
                         "(their passages stay searchable meanwhile).")
        return notes

    def _describe(self, choice: ModelChoice, role: str) -> str:
        """"The default" and the default's own id are the same model."""
        if choice.source == CATALOGUE and not choice.id:
            return self.catalogue.default(role).id
        return choice.describe()

    def accept(self) -> None:
        notes = self.changes()
        if notes:
            answer = QMessageBox.question(self, "Change models?", "\n\n".join(notes) + "\n\nSave these settings?")
            if answer != QMessageBox.StandardButton.Yes:
                return
        super().accept()
