"""World events from events.yaml: triggers, effects, once-only, and no moves for defeated NPCs."""

from __future__ import annotations

import pytest
from skald.core import events as ev
from skald.core.pack import EventEffects, EventTrigger, WorldEvent
from skald.packs.loader import load_pack
from skald.rules.start import new_state
from skald.rules.world import tick_events
from support import apply_turn


@pytest.fixture(scope="module")
def base():
    return load_pack("cinder_reach")


def with_event(pack, **trigger):
    event = WorldEvent(
        id="test_strike", news="{faction} walk off the lifts.", locations=["slag_and_lantern"], factions=["union"],
        trigger=EventTrigger(**({"every_ticks": 3} | trigger)),
        effects=EventEffects(faction_power={"union": 1}, rumor="scab_list" if "scab_list" in pack.rumors else None,
                             npc_moves={"tobin_marsh": "union_hall"}, stress=1),
    )
    return pack.model_copy(update={"events": {"test_strike": event}})


def fired(events):
    return [e for e in events if isinstance(e, ev.EventFired)]


def test_an_event_fires_on_its_tick_with_every_effect(base):
    pack = with_event(base)
    state = new_state(pack, seed=1)  # 08:00, tick 2 of 240-minute ticks
    events = tick_events(state, pack, 240, travelled=False)  # crosses into tick 3
    kinds = [e.type for e in events]
    assert fired(events) and fired(events)[0].data["factions"] == ["union"]
    assert any(isinstance(e, ev.News) and e.data["text"] == "Ninth Shift Union walk off the lifts." for e in events)
    assert {"data": {"faction": "union", "delta": 1}, "type": "FACTION_MOVE"} in [{"type": e.type, "data": e.data}
                                                                                 for e in events]
    assert {"npc": "tobin_marsh", "to": "union_hall"} in [e.data for e in events if isinstance(e, ev.NpcMove)]
    assert "STRESS_CHANGE" in kinds  # the player is at one of the event's locations
    after = apply_turn(state.persistent(), events, pack, 1)
    assert after.world.npc_locations["tobin_marsh"] == "union_hall" and after.player.stress == 1


def test_conditions_keep_an_event_quiet(base):
    state = new_state(base, seed=1)
    assert not fired(tick_events(state, with_event(base, every_ticks=4), 240, travelled=False))  # tick 3 only
    assert not fired(tick_events(state, with_event(base, from_tick=9), 240, travelled=False))
    assert not fired(tick_events(state, with_event(base, min_power={"union": 10}), 240, travelled=False))
    assert not fired(tick_events(state, with_event(base, arc_stage="CLIMAX"), 240, travelled=False))
    assert not fired(tick_events(state, with_event(base, chance=0.0), 240, travelled=False))


def test_a_once_only_event_fires_once(base):
    pack = with_event(base, every_ticks=1, once=True)
    state = new_state(pack, seed=1)
    first = tick_events(state, pack, 240, travelled=False)
    assert len(fired(first)) == 1
    later = apply_turn(state.persistent(), first, pack, 1)
    assert later.world.fired_events == ["test_strike"]
    again = tick_events(state.model_copy(update={"world": later.world}), pack, 240, travelled=False)
    assert not fired(again)


def test_events_do_not_move_defeated_npcs(base):
    pack = with_event(base)
    state = new_state(pack, seed=1)
    state.world.defeated_npcs.append("tobin_marsh")
    assert not [e for e in tick_events(state, pack, 240, travelled=False) if isinstance(e, ev.NpcMove)
                and e.data["npc"] == "tobin_marsh"]


def test_events_away_from_the_player_cost_no_stress(base):
    pack = with_event(base)
    state = new_state(pack, seed=1).model_copy(update={"location": "scrip_market"})
    assert "STRESS_CHANGE" not in [e.type for e in tick_events(state, pack, 240, travelled=False)]
