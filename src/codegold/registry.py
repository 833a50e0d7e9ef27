"""The one registry mechanism, for retrievers, embedders and languages.

One set of rules for all three:

* a name is lowercase letters, digits, ``-``, ``_`` or ``.``, starting with a letter;
* registering a taken name is an :class:`~codegold.errors.InputError` unless
  ``replace=True``;
* built-ins register through :meth:`Registry.register`, exactly the call a third party
  makes; plugins enter the same way, from an entry point group (``codegold.<kind>s``),
  loaded when their name is first asked for (or all at once by :meth:`Registry.load_all`,
  for lookups that are not by name);
* the entry points are found without importing :mod:`importlib.metadata` (some 50 ms
  of a command's start) when no installed distribution names the group
  (:func:`may_offer`), as is usual: it is imported to read them only when one does;
* a plugin that fails to load is an :class:`~codegold.errors.EnvironmentProblem`
  naming it; an unknown name is an :class:`~codegold.errors.InputError` listing the
  known ones, plugins included.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from importlib.machinery import PathFinder
from typing import TYPE_CHECKING, Generic, TypeVar

from codegold.errors import CodegoldError, EnvironmentProblem, InputError

if TYPE_CHECKING:
    from importlib import metadata

T = TypeVar("T")

NAME = re.compile(r"^[a-z][a-z0-9_.-]*$")


class Registry(Generic[T]):
    """Named items of one kind (``kind`` words the messages), plugins from ``group``.

    ``adopt`` turns what an entry point loads into ``(name, item)`` pairs (an entry
    point may offer several, or a factory of them); by default the loaded object is the
    item, under the entry point's name. ``on_change`` runs after every registration
    (to drop what was derived from the registry).
    """

    def __init__(
        self,
        kind: str,
        group: str,
        *,
        adopt: Callable[[str, object], Iterable[tuple[str, T]]] | None = None,
        field: str | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.kind = kind
        self.group = group
        self.field = field
        self.items: dict[str, T] = {}
        self._adopt = adopt or (lambda name, loaded: [(name, loaded)])  # type: ignore[list-item]
        self._on_change = on_change
        self._all_loaded = False

    def register(self, name: str, item: T, *, replace: bool = False) -> None:
        if not NAME.match(name):
            raise InputError(
                f"{self.kind} name {name!r} must be lowercase letters, digits, '-', '_' or '.'",
                field=self.field,
            )
        if name in self.items and not replace:
            raise InputError(f"{self.kind} {name!r} is already registered", field=self.field)
        self.items[name] = item
        if self._on_change is not None:
            self._on_change()

    def entry_points(self) -> dict[str, metadata.EntryPoint]:
        found: dict[str, metadata.EntryPoint] = {}
        # importlib.metadata already loaded costs nothing more to ask
        if "importlib.metadata" not in sys.modules and not may_offer(self.group):
            return found
        from importlib import metadata

        for ep in metadata.entry_points(group=self.group):
            found.setdefault(ep.name, ep)
        return found

    def names(self) -> list[str]:
        """Every name: registered ones and those entry points offer, sorted."""
        return sorted(set(self.items) | set(self.entry_points()))

    def find(self, name: str) -> T | None:
        """The item ``name``, loading its plugin if need be; None when nobody offers it."""
        item = self.items.get(name)
        if item is not None:
            return item
        ep = self.entry_points().get(name)
        if ep is None:
            return None
        self._load(ep)
        return self.items.get(name)

    def get(self, name: str) -> T:
        """The item ``name``; an unknown name is an :class:`InputError` listing the known."""
        item = self.find(name)
        if item is None:
            raise InputError(
                f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}",
                field=self.field,
            )
        return item

    def load_all(self) -> None:
        """Load every plugin not registered yet (once per process)."""
        if self._all_loaded:
            return
        self._all_loaded = True
        for name, ep in sorted(self.entry_points().items()):
            if name not in self.items:
                self._load(ep)

    def _load(self, ep: metadata.EntryPoint) -> None:
        try:
            loaded = ep.load()
        except Exception as exc:  # a third party's import error, whatever its type
            raise EnvironmentProblem(
                f"{self.kind} plugin {ep.name!r} ({ep.value}) failed to load: {exc}"
            ) from exc
        try:
            pairs = list(self._adopt(ep.name, loaded))
        except CodegoldError:
            raise
        except Exception as exc:  # the plugin offered something of the wrong shape
            raise EnvironmentProblem(
                f"{self.kind} plugin {ep.name!r} ({ep.value}) is not usable: {exc}"
            ) from exc
        for name, item in pairs:
            if name not in self.items:
                self.register(name, item)


def may_offer(group: str) -> bool:
    """Whether an installed distribution may offer entry points of ``group``: False
    only when every place :mod:`importlib.metadata` looks is a folder (or missing) and
    no ``entry_points.txt`` of the distributions it holds (``*.dist-info``,
    ``*.egg-info``) names the group, which then has none. Anywhere else it looks (a
    zip or an egg on the path, a finder of distributions besides the path's) may
    offer some: True, and importlib.metadata is asked."""
    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return True
    needle = group.encode()
    for entry in sys.path:
        if not isinstance(entry, str) or entry.lower().endswith(".egg"):
            return True
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except NotADirectoryError:  # a zip on the path
            return True
        except OSError:  # missing: nothing there
            continue
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as text:
                    if needle in text.read():
                        return True
            except OSError:  # none (or an egg-info file): no entry points
                continue
    return False
