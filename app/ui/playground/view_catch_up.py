"""When the turn views follow their turns: once a request is on its way, and at most about 33 times a second.

- The view of a turn just sent is built once its request is written (or a frame later, when connecting takes
  longer), so that building and drawing it overlaps the server's work instead of holding the request back.
- A search, a function call or a status that changed while a turn streams is shown at the next catch-up (a
  request written, the text's flush interval, the turn's end), not at each event; a change to a turn that
  is not running (which allowlist refused it, read after its end) is shown at once. Shown at each event,
  states that last a few milliseconds would be laid out and drawn for nothing (a function turn's view six
  times).

Together these keep a function turn in the Playground at ~1.05x the wall time of the official client making
the same two requests, where it would be ~1.35x without them (tests/perf/bench_functions).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from app.services.playground.service import FLUSH_INTERVAL_MS

from .lazy_turn_views import LazyTurnViews

FRAME_MS = 16  # a view waits at most this long for its request to be written


class ViewCatchUp(QObject):
    """Builds the views waiting in `views` and shows the turns that changed again (`refresh`), all at once."""

    def __init__(
        self,
        views: LazyTurnViews,
        refresh: Callable[[int], None],
        running: Callable[[int], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._views = views
        self._refresh = refresh
        self._running = running
        self._changed: set[int] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.catch_up)

    def view_waiting(self) -> None:
        """A turn was sent and its view waits (LazyTurnViews.add(later=True))."""
        self._due_within(FRAME_MS)

    def turn_changed(self, index: int) -> None:
        if not self._running(index):
            self._refresh(index)
            return
        self._changed.add(index)
        self._due_within(FLUSH_INTERVAL_MS)

    def turn_done(self, index: int) -> None:
        """The turn's end is shown whole (its view's finish refreshes it): no catch-up of its own is due."""
        self._changed.discard(index)

    def forget(self) -> None:
        """The conversation was cleared: nothing waits any more."""
        self._changed.clear()
        self._timer.stop()

    def catch_up(self) -> None:
        self._timer.stop()
        self._views.build_waiting()
        changed, self._changed = sorted(self._changed), set()
        for index in changed:
            self._refresh(index)

    def _due_within(self, milliseconds: int) -> None:
        if not self._timer.isActive() or self._timer.remainingTime() > milliseconds:
            self._timer.start(milliseconds)
