"""The conversation's turn views kept in step with the service's turns: a view for each turn added, its
text as it streams, its end shown when the turn ends, all gone with the conversation."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.core.playground.status import TurnStatus
from app.services.playground.service import PlaygroundService

from .lazy_turn_views import LazyTurnViews
from .transcript import Transcript
from .view_catch_up import ViewCatchUp

if TYPE_CHECKING:  # the tab's `build` imports it with the first turn shown
    from .turn_view import TurnView


class ViewSync(QObject):
    """Follows `service`'s turn signals with the views in `views`, built by `build`."""

    streaming = Signal(bool)  # True: a turn's view was added and it is answered; False: it ended, or went
    cleared = Signal()  # the conversation's views are gone: what was shown beside them goes too

    def __init__(
        self,
        service: PlaygroundService,
        transcript: Transcript,
        build: Callable[[int], TurnView],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self.views = LazyTurnViews(lambda: service.turns, build, transcript)
        self.catch_up = ViewCatchUp(self.views, self._refresh_view, service.is_running, self)
        service.turn_added.connect(self.add_view)
        service.text_flushed.connect(lambda index, chunk: self.views[index].append_text(chunk))
        service.turn_updated.connect(self.catch_up.turn_changed)
        service.request_sent.connect(self.catch_up.catch_up)
        service.turn_finished.connect(self.finish_view)
        service.turn_shown.connect(self.finish_view)
        service.conversation_reset.connect(self.clear)
        service.prices.changed.connect(self.show_costs_again)

    def add_view(self, index: int) -> None:
        # A turn just sent is built once its request is written (see ViewCatchUp); a reopened one at once.
        just_sent = self._service.turns[index].status == TurnStatus.PENDING
        self.views.add(index, later=just_sent)
        if just_sent:
            self.catch_up.view_waiting()
        self.streaming.emit(True)

    def finish_view(self, index: int) -> None:
        self.catch_up.turn_done(index)
        last = len(self._service.turns) - 1
        view = self.views.get(index)  # a reopened conversation's earlier turns are built later, finished
        if view is not None:
            for earlier in self.views.built():  # only the last answer can be regenerated
                if earlier is not view:
                    earlier.action_buttons["regenerate"].hide()
            view.finish(index == last, view.turn.schema)
        if index == last:
            self.views.settle()
        self.streaming.emit(False)

    def clear(self) -> None:
        self.catch_up.forget()
        self.views.clear()
        self.cleared.emit()
        self.streaming.emit(False)

    def show_costs_again(self) -> None:
        """Other prices: each finished answer's cost is said again (views built later use them anyway)."""
        for view in self.views.built():
            view.show_cost_again()

    def _refresh_view(self, index: int) -> None:
        view = self.views.get(index)
        if view is not None:
            view.refresh_details()
