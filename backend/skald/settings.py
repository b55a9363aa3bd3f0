"""Run-time settings, read from the environment (prefix ``SKALD_``) with pydantic-settings.

Globals: ``SKALD_DB_URL`` (the store: ``sqlite:///PATH`` or ``postgresql://...``; unset: the save file
``SKALD_DB_PATH``), ``SKALD_DB_POOL_SIZE`` (PostgreSQL connections per process), ``SKALD_DB_SYNCHRONOUS`` (NORMAL |
FULL, SQLite's), ``SKALD_DEFAULT_PACK``,
``SKALD_LLM`` (auto | on | off), ``SKALD_OLLAMA_BASE_URL``,
``SKALD_LLM_TIMEOUT_S``, ``SKALD_TURN_BUDGET_S`` (seconds for all of a turn's LLM calls), the circuit breaker
(``SKALD_BREAKER_FAILURES``, ``SKALD_BREAKER_SECONDS``) and
transient-error retries (``SKALD_RETRIES``, ``SKALD_RETRY_BACKOFF_S``), and ``SKALD_LOG_FILE`` (where library and
Skald logs go, ``skald.logs``).

Scenes (``docs/scenes.md``): ``SKALD_SCENE_LINES_PER_BEAT``, ``SKALD_SCENE_BEATS_PER_TURN``.

Per role (``director``, ``narrator``, ``suggestion_refiner``, ``evaluator``, ``beat_classifier``, ``character``,
``moderator``, ``setup``, ``interpreter``):
``SKALD_<ROLE>_<KEY>`` for each key in
:data:`ROLE_KEYS`, e.g. ``SKALD_NARRATOR_MODEL`` or ``SKALD_SUGGESTION_REFINER_TIMEOUT_S``. A role key left
unset takes the role's default (:data:`ROLE_DEFAULTS`), and ``base_url`` / ``timeout_s`` take the global value.

:func:`load_settings` is the start-up entry point: it refuses unknown ``SKALD_*`` variables (a typo would
otherwise be silently ignored) and invalid values, with one clear message naming every problem.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, ValidationError, create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

from skald.store_targets import target

ROLES = ("director", "narrator", "suggestion_refiner", "evaluator", "beat_classifier", "character", "moderator",
         "setup", "interpreter")
PREFIX = "SKALD_"


class RoleConfig(BaseModel):
    """One LLM role, fully resolved. Tokens are model tokens; times are seconds of wall-clock time."""

    role: str
    provider: Literal["ollama"] = "ollama"
    model: str
    base_url: str
    temperature: float = Field(ge=0, le=2)
    num_ctx: int = Field(ge=256, description="max context window in tokens (prompt + output)")
    num_predict: int = Field(ge=16, description="tokens reserved for the output")
    timeout_s: float = Field(gt=0, description="hard deadline for one call, retries included")
    attempts: int = Field(ge=1, le=10, description="structured-output attempts with validation feedback")
    enabled: bool = True
    think: bool | None = Field(False, description="let a thinking model (qwen3, deepseek-r1) reason before it "
                               "answers; false: Ollama's think=false; None: the model's own default. Reasoning that "
                               "still comes is stripped (llm.hygiene)")
    prompt_tokens: int | None = Field(None, ge=64, description="the most prompt tokens the role's prompt is trimmed "
                                      "to (lore and older turns go first, llm.budget), so a local model prefills it "
                                      "fast; None: only the context window bounds it")
    keep_alive: str = Field("30m", description="how long Ollama keeps the model loaded after a call (Ollama's "
                            "keep_alive: '30m', '1h', '-1' for ever, '0' to unload at once)")


# One model for every role by default, with one context size: on a machine that holds one model at a time (an 8 GB
# GPU: an 8B q4 model is about 4.9 GB, and its KV cache at 8,192 tokens about 1 GB), a second model, or the same one
# asked with another num_ctx, is a reload of seconds at every switch between roles. Bigger machines may give roles
# models of their own (docs/llm.md recommends some); a CPU-only one is better served by a 3B model for every role.
DEFAULT_MODEL = "llama3.1:8b"
DEFAULT_NUM_CTX = 8192


def _defaults(temperature: float, num_predict: int, attempts: int, **extra: Any) -> dict[str, Any]:
    return {"model": DEFAULT_MODEL, "num_ctx": DEFAULT_NUM_CTX, "temperature": temperature,
            "num_predict": num_predict, "attempts": attempts, **extra}


ROLE_DEFAULTS: dict[str, dict[str, Any]] = {
    # writes a scene's brief (JSON, core.brief.BriefDraft) in the background, once a scene outlives a turn; its
    # prompt starts with the narrator's of the turn just played (served from Ollama's cache), so it is not trimmed
    "director": _defaults(0.2, 384, 3),
    # the prose, and the turn's four suggestions reworded after it (llm.tail); its prompt is bounded by its lore
    # (prompts.LORE_TOKENS) and its window of recent turns (prompts.HISTORY_BLOCK)
    "narrator": _defaults(0.7, 480, 1),
    # rewords the suggestions only when the narrator's reply did not (llm.tail)
    "suggestion_refiner": _defaults(0.2, 320, 3, prompt_tokens=700),
    # writes an ended episode's summary (once an episode, after the narration)
    "evaluator": _defaults(0.4, 320, 3),
    # may move an episode's beat forward; off by default: it would be an LLM call before the narrator every turn
    "beat_classifier": _defaults(0.0, 80, 2, enabled=False),
    # speaks for one character in a multi-character scene: one tag line (rules.tag_line), all characters in parallel
    "character": _defaults(0.8, 120, 1, prompt_tokens=900),
    # judges a scene beat against its goal (JSON); off by default: the goal flags and triggers are the rules'
    "moderator": _defaults(0.0, 160, 2, enabled=False),
    # guided creation (llm.conversation): talks a character or pack content through, then calls a tool to submit it
    "setup": _defaults(0.4, 512, 3),
    # reads a line the parser could not place as one closed action of the scene (rules.interpretation), JSON
    "interpreter": _defaults(0.0, 120, 2),
}
# key -> (type, description); every key is optional per role and falls back as the module docstring says
ROLE_KEYS: dict[str, tuple[Any, str]] = {
    "provider": (Literal["ollama"] | None, "LLM provider (only ollama)"),
    "model": (str | None, "model name as Ollama knows it"),
    "base_url": (str | None, "Ollama URL for this role (default SKALD_OLLAMA_BASE_URL)"),
    "temperature": (float | None, "sampling temperature, 0-2"),
    "num_ctx": (int | None, "context window, tokens"),
    "num_predict": (int | None, "output tokens reserved"),
    "timeout_s": (float | None, "seconds per call (default SKALD_LLM_TIMEOUT_S)"),
    "attempts": (int | None, "structured-output attempts"),
    "enabled": (bool | None, "false: always use the deterministic fallback"),
    "think": (bool | None, "true: let a thinking model reason first (default false)"),
    "keep_alive": (str | None, "Ollama keep_alive for this role's model (default 30m)"),
    "prompt_tokens": (int | None, "the most prompt tokens the role's prompt is trimmed to"),
}


class SettingsError(ValueError):
    """Unknown or invalid ``SKALD_*`` settings; the message lists every problem and the fix."""


class _Base(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore")

    db_path: Path = Path("data/saves/skald.db")
    db_url: str | None = Field(None, pattern=r"^(sqlite:///.+|postgres(ql)?://.+)$", description="the store: "
                               "sqlite:///PATH (a save file; the default is SKALD_DB_PATH) or "
                               "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (several workers; docs/deploy.md)")
    reload_packs: bool = Field(False, description="skald serve: reload an era pack when its files change (what "
                               "--reload-packs sets for every worker)")
    db_pool_size: int = Field(8, ge=1, le=100, description="PostgreSQL: connections each process keeps at most")
    default_pack: str = "cinder_reach"
    llm: Literal["auto", "on", "off"] = Field("auto", description="auto: use Ollama when it answers at start")
    ollama_base_url: str = "http://127.0.0.1:11434"
    llm_timeout_s: float = Field(60.0, gt=0, description="default seconds per LLM call")
    turn_budget_s: float = Field(20.0, gt=0, description="seconds of wall clock one turn's LLM calls may take in all, "
                                 "from the start of the turn; a role left without time uses its offline fallback")
    probe_timeout_s: float = Field(1.0, gt=0, description="seconds to wait for Ollama's /api/tags at start")
    max_input_chars: int = Field(2000, ge=1)
    db_synchronous: Literal["FULL", "NORMAL"] = Field(
        "NORMAL", description="SQLite synchronous mode of the save file: FULL survives power loss and OS crashes "
        "(one fsync per turn), NORMAL survives a crash of Skald itself (a power loss may drop the last turns)")
    retries: int = Field(2, ge=0, le=5, description="retries of a call after a transient error")
    retry_backoff_s: float = Field(0.25, ge=0, description="first retry delay; doubles each retry")
    breaker_failures: int = Field(3, ge=1, description="consecutive failures that open a role's circuit")
    breaker_seconds: float = Field(60.0, ge=0, description="how long an open circuit keeps the role in fallback")
    chroma_path: Path = Field(Path("data/chroma"), description="the lore index (derived from the packs)")
    embeddings: str = Field("wordllama", pattern=r"^(wordllama|ollama:.+)$",
                            description="wordllama (offline, ships in its wheel) or ollama:<model>")
    retrieval: bool = Field(True, description="false: no lore retrieval in prompts")
    log_file: str = Field("data/logs/skald.log", description="where the logs of Skald and its libraries go (httpx, "
                          "chromadb, uvicorn's access lines), appended; empty: nowhere. `--debug` shows them on stderr "
                          "too")
    scene_lines_per_beat: int = Field(3, ge=1, le=8, description="spoken lines a scene beat keeps at most (the "
                                      "moderator's priority decides which)")
    scene_beats_per_turn: int = Field(2, ge=1, le=4, description="scene beats played per player turn: the second "
                                      "lets the characters answer each other")
    admin_key: SecretStr | None = Field(None, description="HTTP API: a key that may list every campaign")
    api_create_per_minute: int = Field(10, ge=0, description="HTTP API: POST /campaigns per client IP (and per "
                                       "bearer token) in any 60 s; over it 429 with Retry-After; 0: unbounded")

    @property
    def database(self) -> str | Path:
        """The store to open: ``SKALD_DB_URL`` when set (a PostgreSQL URL, or the path in ``sqlite:///PATH``), else
        the save file ``SKALD_DB_PATH``."""
        if self.db_url is None:
            return self.db_path
        return target(self.db_url)

    def role(self, name: str) -> RoleConfig:
        """The resolved configuration of one role. :raises SettingsError: unknown role."""
        if name not in ROLES:
            raise SettingsError(f"unknown LLM role {name!r}; roles: {', '.join(ROLES)}")
        values = dict(ROLE_DEFAULTS[name])
        for key in ROLE_KEYS:
            given = getattr(self, f"{name}_{key}")
            if given is not None:
                values[key] = given
        values.setdefault("base_url", self.ollama_base_url)
        values.setdefault("timeout_s", self.llm_timeout_s)
        try:
            return RoleConfig(role=name, **values)
        except ValidationError as exc:
            raise SettingsError(_explain(exc, f"{PREFIX}{name.upper()}_")) from None

    def roles(self) -> dict[str, RoleConfig]:
        """Every role's configuration, with one ``num_ctx`` per model and server: the largest any of its roles asks
        for. Ollama reloads a model asked with another context size (the KV cache is sized at load), so two roles
        sharing a model with different windows would reload it at every switch."""
        configs = {name: self.role(name) for name in ROLES}
        widest: dict[tuple[str, str], int] = {}
        for cfg in configs.values():
            key = (cfg.base_url.rstrip("/"), cfg.model)
            widest[key] = max(widest.get(key, 0), cfg.num_ctx)
        return {name: cfg if cfg.num_ctx == widest[(cfg.base_url.rstrip("/"), cfg.model)] else
                cfg.model_copy(update={"num_ctx": widest[(cfg.base_url.rstrip("/"), cfg.model)]})
                for name, cfg in configs.items()}

    def model_for(self, role: str) -> str:
        return self.role(role).model


Settings = create_model(
    "Settings",
    __base__=_Base,
    __doc__="Skald's settings; see the module docstring for every variable.",
    **{f"{role}_{key}": (kind, Field(None, description=desc)) for role in ROLES for key, (kind, desc) in
       ROLE_KEYS.items()},
)


def _explain(exc: ValidationError, prefix: str) -> str:
    lines = []
    for err in exc.errors():
        name = f"{prefix}{'_'.join(str(p) for p in err['loc']).upper()}"
        lines.append(f"  {name}={err.get('input')!r}: {err['msg']}")
    return "invalid settings:\n" + "\n".join(lines)


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """``SKALD_*`` variables that name no setting, each with a close match when there is one."""
    known = {f"{PREFIX}{name}".upper() for name in Settings.model_fields}
    out = []
    for name in sorted(environ):
        upper = name.upper()
        if upper.startswith(PREFIX) and upper not in known:
            close = difflib.get_close_matches(upper, known, n=1, cutoff=0.8)
            out.append(f"  {name}: not a Skald setting" + (f"; did you mean {close[0]}?" if close else ""))
    return out


def load_settings() -> _Base:
    """Settings from the process environment, checked completely.

    :raises SettingsError: unknown ``SKALD_*`` variables, invalid values, or a role that does not resolve.
    """
    problems = unknown_variables(os.environ)
    try:
        settings = Settings()
    except ValidationError as exc:
        problems += _explain(exc, PREFIX).splitlines()[1:]
        settings = None
    if settings is not None:
        for name in ROLES:
            try:
                settings.role(name)
            except SettingsError as exc:
                problems += str(exc).splitlines()[1:]
    if problems:
        raise SettingsError("invalid settings:\n" + "\n".join(problems) + "\nSee `skald models` and README.md.")
    return settings


@lru_cache(maxsize=1)
def get_settings() -> _Base:
    """The process's settings, loaded once (see :func:`load_settings`)."""
    return load_settings()


def settings_or_exit() -> _Base:
    """For a command's start: the settings, or a clear message on stderr and exit status 2 when the environment has
    unknown or invalid ``SKALD_*`` variables."""
    try:
        return get_settings()
    except SettingsError as exc:
        print(f"skald: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
