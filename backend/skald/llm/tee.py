"""An httpx response stream that passes a reply through as it comes and hands on its bytes once it ends: what the
recording transport (``replay.transports``) and the prompt ledger (``llm.prompt_cache``) both read under a live
stream."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx


class Tee(httpx.SyncByteStream):
    """Passes ``inner`` through chunk by chunk (the stream stays live) and calls ``done`` with all its bytes when it
    ends, broken or not."""

    def __init__(self, inner: httpx.SyncByteStream, done: Callable[[bytes], object]):
        self.inner, self.done, self.data = inner, done, bytearray()

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self.inner:
                self.data.extend(chunk)
                yield chunk
        finally:
            self.done(bytes(self.data))

    def close(self) -> None:
        self.inner.close()
