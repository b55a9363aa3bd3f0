"""API access tokens: only a sha256 of each token is stored (table ``api_tokens``); a check compares hashes in
constant time. The token itself is written in the same transaction as its campaign (``writer.create_campaign``)."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3

_NO_TOKEN = hashlib.sha256(b"no token for this campaign").hexdigest()  # compared when a campaign has no token


def token_hash(token: str) -> str:
    """The hex sha256 of ``token`` (lone surrogates are hashed as they are, never an error)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(conn: sqlite3.Connection, campaign_id: str, token: str | None) -> bool:
    """Whether ``token`` is ``campaign_id``'s token. A campaign without a token (or no campaign at all) is compared
    against a dummy hash, so every answer takes the same path and the same time."""
    presented = token_hash(token or "")
    row = conn.execute("SELECT token_hash FROM api_tokens WHERE campaign_id = ?", (campaign_id,)).fetchone()
    same = hmac.compare_digest(presented, row[0] if row else _NO_TOKEN)
    return bool(token) and row is not None and same
