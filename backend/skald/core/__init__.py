"""The data core: every shape Skald's turns, saves and frontends share, and nothing that computes with them.

- ``vocab``: the closed vocabularies (intents, action classes, outcomes, tones, risks, stats);
- ``pack``: an era pack as loaded (the schema designers write to; ``packs/`` loads, checks and lints it);
- ``persistent``: what a campaign keeps between turns; ``events``: the typed events a turn stages, and the one fold
  that applies them; ``transcripts``: multi-character scenes as said;
- ``brief``: the Director's scene brief; ``records``: what one turn makes on its way (router output, check result,
  LLM calls, scene tasks, timeline moves); ``state``: ``GameState``, the graph's state;
- ``views``: what a player sees (the builders that compute views sit above the rules, in ``skald.views``);
- ``memo``: a cache of values derived from one loaded pack.

The core imports only itself, the text helpers (``skald.text``, ``skald.words``) and the errors (``skald.errors``):
never the rules, the LLM roles, retrieval, the store, the nodes, the packs' loader or a frontend
(``tests/test_core_boundary.py``).
"""
