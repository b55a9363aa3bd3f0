"""One cache for everything built from a pack once per pack version: name patterns, the cast, aliases, limits.

A pack is frozen and its ``content_hash`` changes with any edit (a hot reload gives a new pack object), so
``(pack.id, pack.content_hash)`` is a safe key; the last :data:`KEPT` versions are kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from skald.core.pack import EraPack

T = TypeVar("T")
KEPT = 16


def per_pack(build: Callable[[EraPack], T]) -> Callable[[EraPack], T]:
    """``build(pack)``, computed once per pack version. The value is shared: callers must not modify it."""
    cache: dict[tuple[str, str], T] = {}

    @functools.wraps(build)
    def cached(pack: EraPack) -> T:
        key = (pack.id, pack.content_hash)
        try:
            return cache[key]
        except KeyError:
            if len(cache) >= KEPT:
                cache.clear()
            value = cache[key] = build(pack)
            return value

    cached.cache_clear = cache.clear  # type: ignore[attr-defined]
    return cached
