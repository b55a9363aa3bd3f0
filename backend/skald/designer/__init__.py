"""Designer tools that play the game's rules over a pack: ``lint`` (``skald pack lint``) asks the router how each
quest stage's objective reads and the prompts what of the style guide a model is given. They stand above ``rules/``
and ``llm/``, which they run; what only reads a pack (loading, overlays, the travel analysis, the map) is in
``packs/``."""
