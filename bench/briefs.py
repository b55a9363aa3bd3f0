"""The Director/Actor brief's LLM calls: the 30-turn script (``data/scripts/cinder_reach_30.txt``) played through the
real engine (a real SQLite file, seed 3) with the online client talking to Skald's scripted model (an in-process
httpx transport that answers like Ollama), waiting for background briefs between turns as a player who reads does.

Figures: the ``director`` calls made before the narrator's first request of each story turn, per route (TALK,
ACTION), split by how the turn got its brief (target: 0 on a cached or prefetched brief, and 0 overall since the
role is never called inside a turn); and the average ``director`` calls per story turn over the session (target
<= 0.3). Counts, not timings.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import httpx
from skald.engine import Engine
from skald.llm.client import ROLE_HEADER, LLMClient
from skald.packs.cache import PackCache
from skald.replay.scripted import ScriptedOllama
from skald.replay.session import REPLAY_URL
from skald.settings import Settings

SCRIPT = Path(__file__).resolve().parents[1] / "data" / "scripts" / "cinder_reach_30.txt"
PER_TURN_TARGET = 0.3


class Counting(httpx.BaseTransport):
    """The scripted model, noting the role of every chat request in order."""

    def __init__(self) -> None:
        self.inner = ScriptedOllama(turn_of=lambda: 0)
        self.roles: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/api/chat"):
            self.roles.append(request.headers.get(ROLE_HEADER, "?"))
        return self.inner.handle_request(request)


def run() -> list[str]:
    transport = Counting()
    settings = Settings(llm="on", ollama_base_url=REPLAY_URL, retrieval=False)
    llm = LLMClient(settings, online=True, transport=transport, sleep=lambda seconds: None)
    before: Counter[tuple[str, str]] = Counter()
    turns: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory(prefix="skald-bench-briefs-") as folder:
        engine = Engine(Path(folder) / "bench.db", llm=llm, packs=PackCache(), retriever=None)
        engine.create_campaign("cinder_reach", seed=3, campaign_id="bench")
        engine.settle()
        opening = transport.roles.count("director")
        story = 0
        for line in [x for x in SCRIPT.read_text().splitlines() if x.strip()]:
            seen = len(transport.roles)
            played = engine.play_turn("bench", line)
            roles = transport.roles[seen:]
            if played.view is not None and played.view.brief is not None:
                story += 1
                route = (played.view.intent.value if played.view.intent else "?", played.view.brief.source)
                turns[route] += 1
                upto = roles.index("narrator") if "narrator" in roles else len(roles)
                before[route] += roles[:upto].count("director")
            engine.settle()
        engine.close()
    total = transport.roles.count("director")
    out = [f"briefs: director calls before the narrator's first token, {story} story turns of {SCRIPT.name}"]
    for route in sorted(turns):
        out.append(f"  {route[0]:<7} brief {route[1]:<10} {turns[route]:>3} turns: "
                   f"{before[route] / turns[route]:.2f} calls a turn  (target 0)")
    per_turn = total / story if story else 0.0
    out.append(f"  director calls a story turn: {per_turn:.2f} ({total} calls, {opening} of them the opening "
               f"brief)  (target <= {PER_TURN_TARGET})")
    return out


if __name__ == "__main__":
    for text in run():
        print(text)
