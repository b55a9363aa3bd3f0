"""The off-stage world: ticks bring faction moves, news, spreading rumors and roaming NPCs, reproducibly."""

from __future__ import annotations

from skald.core import events as ev
from skald.core.state import GameState
from skald.rules.world import tick_events
from support import apply_turn


def _types(events) -> list[str]:
    return [e.type for e in events]


def _to_boundary(state: GameState, pack) -> int:
    """Minutes from now to the next world tick boundary."""
    tick = pack.era.rules.world_tick_minutes
    return tick - state.world.time_minutes % tick


def test_crossing_a_tick_boundary_moves_the_world(state, pack):
    events = tick_events(state, pack, _to_boundary(state, pack), travelled=False)
    types = _types(events)
    assert types[0] == "WORLD_TICK"
    assert events[0].data["tick"] == state.world.time_minutes // pack.era.rules.world_tick_minutes + 1
    assert types.count("WORLD_TICK") == 1
    assert "FACTION_MOVE" in types and "NEWS" in types
    move = next(e for e in events if isinstance(e, ev.FactionMove))
    news = next(e for e in events if isinstance(e, ev.News))
    assert move.data["faction"] in pack.factions and move.data["delta"] in (-1, 1)
    assert pack.factions[move.data["faction"]].name in news.data["text"]
    assert "{faction}" not in news.data["text"]


def test_rumors_spread_on_ticks(state, pack):
    events = tick_events(state, pack, _to_boundary(state, pack), travelled=False)
    spread = [e.data["rumor"] for e in events if isinstance(e, ev.RumorSpread)]
    assert len(spread) == 1
    assert spread[0] in pack.rumors and spread[0] not in state.world.public_rumors


def test_no_tick_and_no_travel_gives_nothing(state, pack):
    assert _to_boundary(state, pack) > 10
    assert tick_events(state, pack, 10, travelled=False) == []
    assert tick_events(state, pack, 0, travelled=False) == []


def test_travel_without_a_tick_only_spreads_talk(make_state, pack):
    kinds = set()
    for seed in range(40):
        state = make_state(seed=seed)
        state.campaign.turn_number = seed
        events = tick_events(state, pack, 5, travelled=True)
        kinds |= set(_types(events))
        assert len(events) <= 1
    assert kinds == {"RUMOR_SPREAD"}  # sometimes, and never a tick


def test_same_seed_same_world(make_state, pack):
    a, b = make_state(seed=11), make_state(seed=11)
    minutes = _to_boundary(a, pack) + 2 * pack.era.rules.world_tick_minutes
    assert tick_events(a, pack, minutes, travelled=True) == tick_events(b, pack, minutes, travelled=True)


def test_different_seeds_different_worlds(make_state, pack):
    minutes = 3 * pack.era.rules.world_tick_minutes
    worlds = {str(tick_events(make_state(seed=s), pack, minutes, travelled=False)) for s in range(6)}
    assert len(worlds) > 1


def test_a_long_rest_crosses_several_ticks(state, pack):
    tick = pack.era.rules.world_tick_minutes
    minutes = _to_boundary(state, pack) + 2 * tick  # three boundaries
    events = tick_events(state, pack, minutes, travelled=False)
    ticks = [e.data["tick"] for e in events if isinstance(e, ev.WorldTick)]
    first = state.world.time_minutes // tick + 1
    assert ticks == [first, first + 1, first + 2]
    assert _types(events).count("NEWS") == 3
    spread = [e.data["rumor"] for e in events if isinstance(e, ev.RumorSpread)]
    assert len(spread) == len(set(spread))  # a rumor spreads once


def test_a_very_long_absence_reports_at_most_three_ticks(state, pack):
    events = tick_events(state, pack, 10 * pack.era.rules.world_tick_minutes, travelled=False)
    ticks = [e.data["tick"] for e in events if isinstance(e, ev.WorldTick)]
    assert len(ticks) == 3
    after = apply_turn(state.persistent(), events, pack, 1)
    assert after.world.tick == max(ticks)


def test_faction_power_stays_in_range_over_a_long_campaign(make_state, pack):
    state = make_state(seed=5)
    tick = pack.era.rules.world_tick_minutes
    for _ in range(120):
        events = tick_events(state, pack, tick, travelled=False)
        state = GameState(**dict(apply_turn(state.persistent(), events, pack, 1)))
        state.world.time_minutes += tick
        assert all(0 <= p <= 10 for p in state.world.faction_power.values())
    assert len(state.world.news) <= 8
    assert set(state.world.public_rumors) == set(pack.rumors)  # every hidden rumor got out eventually


def test_roaming_npcs_move_along_their_routes(make_state, pack):
    moved = {}
    for seed in range(10):
        state = make_state(seed=seed)
        for e in tick_events(state, pack, 3 * pack.era.rules.world_tick_minutes, travelled=False):
            if isinstance(e, ev.NpcMove):
                moved.setdefault(e.data["npc"], set()).add(e.data["to"])
    assert moved
    for npc_id, places in moved.items():
        assert len(pack.npcs[npc_id].roams) > 1
        assert places <= set(pack.npcs[npc_id].roams)


def test_defeated_npcs_do_not_roam(make_state, pack):
    for seed in range(10):
        state = make_state(seed=seed)
        state.world.defeated_npcs = [n.id for n in pack.npcs.values()]
        events = tick_events(state, pack, 3 * pack.era.rules.world_tick_minutes, travelled=False)
        assert "NPC_MOVE" not in _types(events)
