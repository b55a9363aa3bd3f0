"""Run-time settings, read from the environment (prefix ``SKALD_``) with pydantic-settings.

``SKALD_OLLAMA_BASE_URL`` applies to every LLM role. ``SKALD_<ROLE>_MODEL`` picks the model per role
(``SKALD_DIRECTOR_MODEL``, ``SKALD_NARRATOR_MODEL``, ``SKALD_SUGGESTION_REFINER_MODEL``).
``SKALD_LLM=off`` skips Ollama entirely and uses the deterministic fallbacks (the offline narrator).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROLES = ("director", "narrator", "suggestion_refiner")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SKALD_", extra="ignore")

    db_path: Path = Path("data/saves/skald.db")
    default_pack: str = "cinder_reach"
    llm: Literal["auto", "on", "off"] = Field("auto", description="auto: use Ollama when it answers at start")
    ollama_base_url: str = "http://127.0.0.1:11434"
    director_model: str = "llama3.2:3b"
    narrator_model: str = "llama3.1:8b"
    suggestion_refiner_model: str = "llama3.2:3b"
    llm_timeout_s: float = Field(60.0, gt=0, description="seconds per LLM call")
    probe_timeout_s: float = Field(1.0, gt=0, description="seconds to wait for Ollama's /api/tags at start")
    max_input_chars: int = Field(2000, ge=1)

    def model_for(self, role: str) -> str:
        return getattr(self, f"{role}_model")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
