"""The entries table with 100,000 entries: load, sort, and one filter keystroke, against a plain Python
filter of the same list in the same run. Run: python -m tests.perf.bench_allowlist_table  (offscreen)
"""

from __future__ import annotations

import ipaddress
import os
import random
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTableView

from app.api.admin import Allowlist, parse
from app.models.entries import EntriesModel
from app.netrules import covering, nearest, relate
from app.netrules.index import EntryIndex

COUNT = 100_000


def entries(count: int) -> list[dict[str, Any]]:
    rng = random.Random(5)
    made = []
    for i in range(count):
        if i % 4:
            network = ipaddress.ip_network((rng.getrandbits(32), rng.randint(16, 32)), strict=False)
        else:
            network = ipaddress.ip_network((rng.getrandbits(128), rng.randint(32, 128)), strict=False)
        made.append(
            {
                "id": f"ipal_{i:06x}",
                "cidr": network.with_prefixlen,
                "description": f"site {i % 977} office",
                "created_at": 1_790_000_000 + i,
            }
        )
    return made


def timed(action: Callable[..., object]) -> float:
    started = time.perf_counter()
    action()
    QApplication.processEvents()
    return time.perf_counter() - started


def main() -> None:
    app = QApplication.instance() or QApplication([])
    data = entries(COUNT)
    model = EntriesModel()
    view = QTableView()
    view.setModel(model)
    view.setSortingEnabled(True)
    view.verticalHeader().setVisible(False)  # as in the Security tab
    view.resize(1000, 700)
    view.show()
    started = time.perf_counter()
    typed = list(parse(Allowlist, {"enabled": True, "entries": data}, "an allowlist").entries)
    parsed = time.perf_counter() - started
    load = timed(lambda: model.set_entries(typed, ipaddress.ip_address("198.51.100.7")))
    sort = timed(lambda: view.sortByColumn(0, Qt.SortOrder.AscendingOrder))
    keystrokes = []
    for text in ("s", "si", "sit", "site", "site ", "site 4", "site 42"):
        keystrokes.append(timed(lambda text=text: model.set_filter(text)))
    clear = timed(lambda: model.set_filter(""))
    started = time.perf_counter()
    plain = [entry for entry in data if "site 4" in entry["cidr"] or "site 4" in entry["description"].lower()]
    plain_time = time.perf_counter() - started
    print(f"entries:                        {COUNT:,}")
    print(f"load (model + first paint):     {load * 1000:,.0f} ms  (goal < 1,000 ms)")
    print(f"typed models parsed at the edge: {parsed * 1000:,.0f} ms (pydantic, once per load)")
    print(f"sort by address:                {sort * 1000:,.0f} ms")
    print(
        f"one filter keystroke (worst):   {max(keystrokes) * 1000:,.1f} ms  (goal < 50 ms); "
        f"median {sorted(keystrokes)[len(keystrokes) // 2] * 1000:,.1f} ms"
    )
    print(f"clearing the filter:            {clear * 1000:,.1f} ms")
    print(f"plain Python filter, same list: {plain_time * 1000:,.1f} ms ({len(plain):,} hits)")
    print(
        f"worst keystroke (filter + repaint) vs the plain filter alone: {max(keystrokes) / plain_time:.2f}x"
    )
    index_figures(data)
    _ = app


def best_of(action: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def index_figures(data: list[dict[str, Any]]) -> None:
    """The add form's live check (relations) and Check an IP, each keystroke, against linear scans."""
    build = best_of(lambda: EntryIndex.of_entries(data), runs=3)
    index = EntryIndex.of_entries(data)
    networks = [(entry["id"], ipaddress.ip_network(entry["cidr"])) for entry in data]
    plain = [network for _id, network in networks]
    new = ipaddress.ip_network("10.20.0.0/16")
    address = ipaddress.ip_address("10.20.30.40")
    assert index.relate(new) == relate(new, networks)
    assert index.holding(address) == covering(address, plain)
    indexed_relate = best_of(lambda: index.relate(new))
    linear_relate = best_of(lambda: relate(new, networks), runs=3)
    indexed_check = best_of(lambda: (index.holding(address), index.nearest(address)))
    linear_check = best_of(lambda: (covering(address, plain), nearest(address, plain)), runs=3)
    print(f"entry index, built once per load: {build * 1000:,.0f} ms")
    print(
        f"add form, relations of one range: {indexed_relate * 1000:,.2f} ms indexed "
        f"vs {linear_relate * 1000:,.0f} ms linear scan ({linear_relate / indexed_relate:,.0f}x)"
    )
    print(
        f"Check an IP (holding + nearest):  {indexed_check * 1000:,.2f} ms indexed "
        f"vs {linear_check * 1000:,.0f} ms linear scan ({linear_check / indexed_check:,.0f}x)"
    )


if __name__ == "__main__":
    main()
