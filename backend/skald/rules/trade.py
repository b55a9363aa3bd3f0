"""The economy actions: buying from a shop, selling to a trader or a person, giving money or things away.

No check is rolled; prices and reactions follow the pack and the other side's attitude (``rules.attitude``).
Selling fetches a share of the item's pack ``value`` (Skald's own table, :data:`SALE_SHARE`): 60% from someone
friendly, 50% neutral, 35% wary; a hostile person will not deal at all. A gift worth at least
:data:`NOTICED_GIFT` units raises the player's reputation with the recipient's faction by 1; a gift to a
companion raises their affinity by 2, plus 1 per 5 units of value (at most 10). Anything the rules cannot do
(an item not carried, nobody to trade with, more money than the purse holds) is an ``impossible`` result that
says why and what would work.
"""

from __future__ import annotations

import random
import re

from skald.core import events as ev
from skald.core.pack import EraPack, Item, Location
from skald.core.records import PresentNpc, RouterOutput
from skald.core.state import GameState
from skald.core.vocab import ActionClass
from skald.rules import clock, recall, references
from skald.rules.attitude import attitude
from skald.rules.money import amount_in, money
from skald.rules.parser import object_of
from skald.rules.resolution import Resolution, faction_rep, make_result, rumor_for, target_of
from skald.rules.scene import everyone_at, held, nearest
from skald.text import counted, end, or_list, plural_of, the_place, with_article

SALE_SHARE = {"friendly": 0.6, "neutral": 0.5, "wary": 0.35}
NOTICED_GIFT = 5
DRINK_PRICE = 2

DRINK = re.compile(r"\b(?:beer|ale|pint|wine|mead|whisky|whiskey|grog|gin|rum|cider|tea|coffee|brew|dram|water|"
                   r"drinks?|drinking|round|thirsty|parched|on tap|shot|booze|liquor|cups?|mugs?|glass|tankard|"
                   r"flagon|jug)\b")
FOOD = re.compile(r"\b(?:food|eat|meal|stew|bread|soup|breakfast|lunch|dinner|supper|bite|hungry|starving|snack)\b|"
                  r"\bsomething (?:hot|warm|hearty|filling)\b")


_MEASURE = re.compile(r"\b(?P<one>pint|cup|mug|glass|shot|dram|jug|tankard|round)(?:s|es)?\b")  # a measure, not a drink
_BEERS = frozenset({"beer", "ale", "brew", "lager", "stout", "bitter", "porter"})
_HOUSE = re.compile(r"^(?:an? )?(?P<measure>[\w-]+) of (?P<liquid>.+)$")


def poured(text: str, here: Location) -> str:
    """What the bar pours for ``text``, with its article: the drink the player named ("a beer"), the house drink
    (``Location.drink``: "a cup of brown ale") in the measure the player asked for ("a pint of brown ale"), or "a
    drink" where the place names none."""
    said = [w for w in DRINK.findall(text) if w not in ("drink", "drinks", "drinking", "thirsty", "parched", "on tap",
                                                          "booze", "liquor") and not _MEASURE.fullmatch(w)]
    measure = _MEASURE.search(text)
    measure = measure.group("one") if measure else None
    house = here.drink
    parts = _HOUSE.match(house) if house else None
    if said and parts and said[0] in _BEERS and references.words(parts.group("liquid")) & _BEERS:
        said = []  # "order a beer" where the house pours brown ale: the house's own
    if said:  # "i will drink one beer": a beer; "a glass of wine": so
        return with_article(f"{measure} of {said[0]}" if measure else said[0])
    if measure and parts:
        return with_article(f"{measure} of {parts.group('liquid')}")
    return house or with_article(measure or "drink")


def _stock(here: Location, pack: EraPack) -> str:
    """What is sold here, with prices: 'Smoked Eel (3 greys), Lamp Oil (5 greys)'; '' when nothing is."""
    return ", ".join(f"{pack.items[i].name} ({money(pack.items[i].value, pack)})" for i in here.shop)


_SERVES = frozenset({"innkeeper", "bartender", "barkeeper", "barkeep", "barman", "barmaid", "landlady", "landlord",
                     "publican", "tavernkeeper"})


def _behind_the_bar(state: GameState, pack: EraPack) -> PresentNpc | None:
    """Who serves here: the first person here whose role is a bartender's or an innkeeper's; None when nobody is."""
    return next((p for p in everyone_at(state, pack, state.location)
                 if not p.companion and references.words(p.role) & _SERVES), None)


def _food_asked(text: str) -> str | None:
    """The food a line names ("buy me a fungus bun and eat it" -> 'fungus bun'); None when it names none in
    particular ("buy some food", "get me something to eat", "i'm hungry")."""
    asked, before = object_of(text).split(" and ")[0], None
    while asked != before:
        asked, before = re.sub(r"^(?:me|us|myself|some|a|an|the|one|bit of|plate of|bowl of)\s+", "", asked), asked
    if not asked or len(asked.split()) > 4 or "," in asked or re.match(
            r"^(?:something|anything|bite|food|whatever|what|meal|breakfast|lunch|dinner|supper|snack|grub|eat|"
            r"hungry|starving)\b", asked):
        return None
    return asked


HURTING = re.compile(r"\b(?:for|against) (?:the |my |a |this )?(?:pain|hurt|ache|headache|wound|wounds|cut|cuts|burn|"
                     r"burns|bleeding|fever|cough|sickness)\b|\b(?:medicine|remedy|painkiller|something for (?:my|the) "
                     r"(?:head|back|leg|arm|shoulder))\b")  # a buy asked by what it is for


_CHEAPEST = re.compile(r"\b(?:cheapest|least expensive|whatever is cheap)\b")
_WARM = re.compile(r"\b(?:warm|warmest|hot|hottest|eat|food|hungry|filling)\b")


def _cheapest_fare(text: str, here: Location, pack: EraPack) -> Item | None:
    """The cheapest food sold here, when the line asks for something warm or to eat, or when it is cheaper than a
    drink (a bar's drink is the cheapest otherwise: None, which buys it); None where no food is sold."""
    fare = sorted((pack.items[i] for i in here.shop if i in pack.items and "food" in pack.items[i].tags),
                  key=lambda it: it.value)
    if not fare:
        return None
    return fare[0] if _WARM.search(text) or here.type != "bar" or fare[0].value < DRINK_PRICE else None


# A thing pointed at, not named ("one of those", "a couple of them", "it", "i'll have two"): the item last turn spoke
# of.
_POINTING = re.compile(r"^(?:(?:one|two|three|four|five|six|[2-9]|(?:a )?couple|(?:a )?few|some|another|a pair)"
                       r"(?: (?:of )?(?:those|these|them|that|this|it|one|more))?|those|these|them|that|this|it|one|"
                       r"another one|the same|same again)(?: (?:please|pls|then|too|as well|for me))*$")
# How many of a thing a purchase asks for, said before it ("two smoked eels", "a couple of buns", "3 candles").
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple": 2, "a couple of": 2, "a few": 3}
_COUNTED = re.compile(r"(?:^|\b(?:buy|take|have|get|order|grab|want|need|gimme|give me|pick up|purchase))\s*"
                      r"(?:me |us )?(two|three|four|five|six|[2-6]|a couple(?: of)?|a few)\b")
MOST_AT_ONCE = 6


def count_of(router: RouterOutput) -> int:
    """How many of the thing the line buys (1 unless it says 2 to :data:`MOST_AT_ONCE`)."""
    found = _COUNTED.search(router.text.lower()) or _COUNTED.match(object_of(router.text))
    if found is None:
        return 1
    word = found.group(1)
    return min(MOST_AT_ONCE, int(word) if word.isdigit() else _COUNTS[word])


def priced_last(state: GameState, pack: EraPack) -> Item | None:
    """The item sold here whose price last turn told ("the hand lamp is 8 credits here"), when it did; None
    otherwise. What "8 it is, hand it over" or "i'll give you 4" is about."""
    item = _spoken_of(state, pack, pack.locations[state.location])
    told = " ".join(state.recent[-1].sentences) if state.recent else ""
    return item if item is not None and money(item.value, pack) in told else None


def _spoken_of(state: GameState, pack: EraPack, here: Location) -> Item | None:
    """The item sold here that last turn's line or narration named last (by its name, or its last word: "the
    buns"), or None."""
    if not state.recent:
        return None
    told = " ".join([state.recent[-1].input, *state.recent[-1].sentences]).lower()
    best: tuple[int, Item] | None = None
    for item_id in here.shop:
        item = pack.items.get(item_id)
        if item is None:
            continue
        last_word = item.name.lower().split()[-1]
        spots = [m.start() for m in re.finditer(rf"\b(?:{re.escape(item.name.lower())}|{re.escape(last_word)}s?)\b",
                                                 told)]
        if spots and (best is None or spots[-1] > best[0]):
            best = (spots[-1], item)
    return best[1] if best else None


def buy(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Buy a shop item at its pack price, or a drink (2 units, -1 stress) in a bar."""
    here = pack.locations[state.location]
    minutes = clock.time_cost(ActionClass.BUY)
    item = pack.items.get(router.target_item or "")
    pointed = _POINTING.match(re.sub(r"^(?:me|us) ", "", object_of(router.text)))  # "i'll take one of those"
    if item is None and pointed:  # the item just spoken of
        item = _spoken_of(state, pack, here)
    if item is None and HURTING.search(router.text):  # "sell me something for the pain": what is sold for it here
        item = next((pack.items[i] for i in here.shop if i in pack.items and "medical" in pack.items[i].tags), None)
    if item is None and _CHEAPEST.search(router.text):  # "order whatever is cheapest and warmest"
        item = _cheapest_fare(router.text, here, pack)
    hungry = item is None and FOOD.search(router.text) is not None and not DRINK.search(router.text)
    named = _food_asked(router.text) if hungry else None
    fare = [i for i in here.shop if i in pack.items and "food" in pack.items[i].tags]
    if hungry and fare and named is None:  # "buy some food": the food sold here
        item = pack.items[fare[0]]
    if item is None and hungry and here.type == "bar":
        stock = _stock(here, pack)
        food = named or "food"  # "a fungus bun" where none is sold: named, not "food"
        offer = f"a drink at {money(DRINK_PRICE, pack)}" + (f", {stock}" if stock else "")
        return Resolution(make_result(router, None, 1, f"There is no {food} to be had in {the_place(here)}; on "
                                      f"offer: {offer}.", impossible=True))
    wanted = re.sub(r"\s+(?:off|from|with) (?:you|ya|u|her|him|them|the \w+)$|\s+(?:please|for me)$|^(?:one|two|a "
                    r"couple|a few) of (?:them|those|these|the|your)\s+|^(?:me|us)\s+", "", object_of(router.text))
    # "a lantern off you", "one of them bridge tokens", "sell me a lamp": what is asked for
    wanted = re.sub(r"^(?:something|anything|some|a thing|stuff)\s+(?:for|to)\b.*$", "something", wanted)  # "sell
    # me something for the pain": what it is for is not a thing's name
    if item is None and here.type == "bar" and wanted and not DRINK.search(router.text) and not _CHEAPEST.search(
            router.text) and not re.match(
            r"^(?:something|anything|one|a few|some)$", wanted):  # "get me a burn stim" where none is sold
        stock = _stock(here, pack)
        offer = f"a drink at {money(DRINK_PRICE, pack)}" + (f", {stock}" if stock else "")
        return Resolution(make_result(router, None, 1, f"There is no {wanted} for sale in {the_place(here)}; on "
                                      f"offer: {offer}.", impossible=True))
    if item is None and here.type == "bar":
        if state.player.credits < DRINK_PRICE:
            return Resolution(make_result(router, None, minutes, f"You cannot cover even a drink: it is "
                                          f"{money(DRINK_PRICE, pack)}, and you have {_purse(state, pack)}.",
                                          impossible=True))
        what = poured(router.text, here)
        if _HOUSE_ROUND.search(router.text):  # "a round for the whole bar on me"
            return _round(router, state, pack, minutes)
        treated = target_of(router, state, pack)
        for_whom = (_TREAT.search(router.text) or _TREAT_FOR.search(router.text)) if treated is None else None
        treated = references.person(for_whom.group("who"), state, pack) if for_whom else treated
        if treated is not None:
            first = treated.name.split()[0]  # "buy the old man a drink": a round for someone, and they notice
            loosened, heard = _loosened(router.text, treated, state, pack)
            return Resolution(make_result(router, None, minutes, f"You buy {treated.name} {what} for "
                                          f"{money(DRINK_PRICE, pack)}; {first} raises it to you.{loosened}"),
                              [ev.CreditsChange(delta=-DRINK_PRICE, reason=f"a drink for {treated.name}"),
                               *_thanks(treated, DRINK_PRICE, state),
                               *([ev.RumorHeard(rumor=heard, source=treated.id)] if heard else [])])
        pours = _behind_the_bar(state, pack)
        bought = (f"{pours.name} pours you {what} for {money(DRINK_PRICE, pack)}, and you let it take "
                  "the edge off." if pours else
                  f"You buy {what} for {money(DRINK_PRICE, pack)} and let it take the edge off.")
        return Resolution(make_result(router, None, minutes, bought, stress=-1),
                          [ev.CreditsChange(delta=-DRINK_PRICE, reason="a drink")])
    if item is None or item.id not in here.shop:
        stock = _stock(here, pack)
        what = f"{_the(item).capitalize()} is" if item else "That is"
        offer = f"on offer: {stock}." if stock else f"nobody sells anything in {the_place(here)}."
        return Resolution(make_result(router, None, minutes, f"{what} not for sale here; {offer}", impossible=True))
    bid = amount_in(router.text, pack) if router.verb == "offer" else None
    if bid is not None and bid < item.value:  # "two greys for the tincture": a price the seller will not take
        seller = _behind_the_bar(state, pack)
        who = seller.name if seller else f"The seller in {the_place(here)}"
        return Resolution(make_result(router, None, 2, f"{who} will not let {_the(item)} go for {money(bid, pack)}; "
                                      f"the price is {money(item.value, pack)}.", impossible=True))
    n = count_of(router) if bid is None else 1
    if state.player.credits < item.value * n:
        each = " each" if n > 1 else ""
        short = f"{_the(item).capitalize()} costs {money(item.value, pack)}{each}; you have {_purse(state, pack)}."
        return Resolution(make_result(router, None, minutes, short, impossible=True))
    events = [ev.CreditsChange(delta=-item.value * n, reason=f"bought {item.name}"), ev.ItemGet(item=item.id, qty=n)]
    what = _the(item) if n == 1 else counted(n, item.name.lower(), plural_of(item.name.lower()))
    return Resolution(make_result(router, None, minutes, f"You buy {what} for {money(item.value * n, pack)}."),
                      events)


def sell(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Sell one carried item to the person named, or to the traders of a place with a shop."""
    here = pack.locations[state.location]
    minutes = clock.time_cost(ActionClass.SELL)

    def refuse(summary: str) -> Resolution:
        return Resolution(make_result(router, None, minutes, summary, impossible=True))

    item = pack.items.get(router.target_item or "")
    if item is None or not held(state, item.id):
        carried = carried_list(state, pack)
        if item is not None:
            return refuse(f"You do not carry {_the(item)}" + (f"; you have {carried}." if carried else "."))
        named = _named_thing(router.text)
        if named:  # "sell my data slate" with no data slate: name it
            return refuse(f"You carry no {named}" + (f"; you have {carried}." if carried else "."))
        return refuse(f"Sell what? You carry {carried}." if carried else "You have nothing to sell.")
    if state.combat is not None:
        return refuse(f"Nobody haggles in the middle of a fight with {state.combat.enemy_name}.")
    buyer = target_of(router, state, pack)
    if buyer is not None and buyer.companion:
        return refuse(f"{buyer.name} is not buying; try a trader.")
    if buyer is None and not here.shop:
        market = _nearest_shop(state, pack)
        where = f"; the nearest is {market}" if market else ""
        return refuse(f"Nobody in {the_place(here)} is buying. Try a place with a shop{where}, or name the person you "
                      "want to sell to.")
    feeling = attitude(buyer, state) if buyer else _place_attitude(state, pack)
    who = buyer.name if buyer else f"A trader in {the_place(here)}"
    if feeling == "hostile":
        return refuse(f"{who} will not deal with you at any price.")
    if item.value <= 0:
        return refuse(f"{who} turns {_the(item)} over and hands it back: it is worth nothing to anyone here.")
    price = max(1, int(item.value * SALE_SHARE[feeling]))
    note = {"friendly": " (a fair price: they like you)", "wary": " (a poor price: they do not trust you)"}.get(
        feeling, "")
    events = [ev.ItemLose(item=item.id, qty=1), ev.CreditsChange(delta=price, reason=f"sold {item.name}")]
    return Resolution(make_result(router, None, minutes, f"{who} buys {_the(item)} from you for "
                                  f"{money(price, pack)}{note}."), events)


# Who a gift is for, as a line names them: "give tobin a grey", "pay the boatman 3", "hand the lamp to odile".
_GIVE_TO = re.compile(r"^(?:i )?(?:give|pay|tip|hand|slip|offer) (?:(?P<who>[a-z]+(?: [a-z]+)?) (?=(?:a|an|the|some|my|"
                      r"one|two|three|four|five|ten|twenty|\d)\b)|.+? to (?P<to>[a-z]+(?: [a-z]+)?)$)")


# A drink bought to loosen a tongue: "i'll buy you a drink, now talk", "ok ill buy u a cup. which channels do i stay
# out of?": the question asked with it (a sentence after it with a question mark or a question word), or only talk.
_LOOSENED = re.compile(r"\b(?:talk|tell me|spill|what do you know|what you know|start talking|loosen)\b")
_ASKED_WITH = re.compile(r"[.!,;]\s*(?P<q>(?:(?:so|and|now|then)\s+)?(?:who|what|where|which|why|how|when|is|are|do|"
                         r"does|can)\b[^.!]*\??)\s*$|[.!,;]\s*(?P<q2>[^.!?]+\?)\s*$")


def _loosened(text: str, who: PresentNpc, state: GameState, pack: EraPack) -> tuple[str, str | None]:
    """What a drink bought for ``who`` gets the player, told after it: the answer to the question asked with it (a
    line of their own that answers it, else what the pack tells of it, ``rules.recall``), else, when the line asks
    them to talk, a rumor they pass on (its id returned to be heard); ('', None) when the line asks nothing."""
    first = who.name.split()[0]
    asked = _ASKED_WITH.search(text.lower())
    question = (asked.group("q") or asked.group("q2")) if asked else None
    if question:
        said = recall.said_line(question, who, [who], state, pack)
        if said is not None and not (DRINK.search(said.line.lower()) and re.search(r"\bbuy\b", said.line.lower())):
            # not the line that asked for the drink ("buy an old man a cup and he will tell you...")
            return f" {first} leans in: \"{end(said.line)}\"", None
        found = recall.record(question, state, pack)
        if found is not None:
            return f" It loosens {first}'s tongue: {end(found.sentence)}", None
    heard = rumor_for(state, pack, who) if question or _LOOSENED.search(text.lower()) else None
    return (f" It loosens {first}'s tongue: {end(pack.rumors[heard].text)}", heard) if heard else ("", None)
_TREAT = re.compile(r"\b(?:buy|offer|stand|get) (?P<who>(?!me\b|myself\b|us\b)[a-z' ]{2,30}?) "
                    r"(?:a|an|one|another|some) "
                    r"(?:drink|pint|round|ale|beer|cup|dram|glass)\b")  # "buy the old man a drink"
_TREAT_FOR = re.compile(r"\b(?:drink|pint|round|ale|beer|cup|dram|glass|meal) for (?:me and |myself and |us and |both "
                        r"me and )?(?P<who>(?!me\b|myself\b|us\b)[a-z' ]{2,30}?)(?:\s*,.*|\s+(?:and|now|so|too|as w"
                        r"ell)\b.*)?"
                        r"\s*[.!]*$")  # "buy a round for me and the old timer", "pay the drink for the old man"


def _named_thing(text: str) -> str:
    """The thing a sale or swap names when it is no item of the pack: 'sell my data slate' -> 'data slate'; ''."""
    found = re.search(r"\b(?:sell|pawn|trade|swap|flog|offload|barter|(?:give|pay|offer) (?:me )?for|buys?|buying|"
                      r"interested in)(?: (?:in|off|away))? (?:my |the |this |that |"
                      r"a |an |some |any )?(?P<t>[a-z' -]{2,30}?)(?: (?:for|to|with)\b.*)?\s*(?:[?.!,].*)?$", text)
    return found.group("t").strip() if found else ""


def give(router: RouterOutput, state: GameState, pack: EraPack, rng: random.Random) -> Resolution:
    """Give money ("give Juno 10 credits") or one carried item to someone here."""
    minutes = clock.time_cost(ActionClass.GIVE)

    def refuse(summary: str) -> Resolution:
        return Resolution(make_result(router, None, minutes, summary, impossible=True))

    if state.combat is not None:
        return refuse(f"Nobody takes a gift mid-fight; persuade {state.combat.enemy_name} to back off, or run.")
    people = everyone_at(state, pack, state.location)
    named = _GIVE_TO.search(router.text)
    missing = references.missing_person(named.group("who") or named.group("to"), state, pack) if named else None
    if missing is not None:  # "give tobin a grey" where there is no Tobin: not to whoever else the words fit
        names = [p.name.split()[0] for p in people if not p.companion]
        return refuse(f"You see no {missing} here to give anything to" + (
            f"; you could give it to {or_list(names[:3])}." if names else "."))
    recipient = target_of(router, state, pack)
    if recipient is None:
        names = [p.name for p in people]
        return refuse(f"Give it to whom? Name them: {or_list(names)}." if names else
                      "There is nobody here to give anything to.")
    amount = amount_in(router.text, pack) if router.target_item is None else None
    if amount is not None:
        if amount <= 0:
            return refuse("You go through the motions of giving nothing; nobody is impressed.")
        if amount > state.player.credits:
            return refuse(f"You cannot give {money(amount, pack)}: you have {_purse(state, pack)}.")
        events: list[ev.BaseEvent] = [ev.CreditsChange(delta=-amount, reason=f"given to {recipient.name}")]
        events += _thanks(recipient, amount, state)
        return Resolution(make_result(router, None, minutes, f"You give {money(amount, pack)} to {recipient.name}; "
                                      f"{_reaction(recipient, state)}."), events)
    item = pack.items.get(router.target_item or "")
    if item is None or not held(state, item.id):
        carried = carried_list(state, pack)
        if item is not None:
            return refuse(f"You do not carry {_the(item)}" + (f"; you have {carried}." if carried else "."))
        if re.search(r"\btip\b", router.text) and state.player.credits >= 1:  # a tip with no sum: one coin
            events = [ev.CreditsChange(delta=-1, reason=f"a tip for {recipient.name}"), *_thanks(recipient, 1, state)]
            return Resolution(make_result(router, None, minutes, f"You tip {recipient.name} {money(1, pack)}; "
                                          f"{_reaction(recipient, state)}."), events)
        return refuse(f"Give what? You carry {carried or 'nothing'} and {_purse(state, pack)}; name a thing or a sum.")
    events = [ev.ItemLose(item=item.id, qty=1), *_thanks(recipient, item.value, state)]
    return Resolution(make_result(router, None, minutes, f"You give {_the(item)} to {recipient.name}; "
                                  f"{_reaction(recipient, state)}."), events)


# ------------------------------------------------------------------ helpers


_HOUSE_ROUND = re.compile(r"\bround (?:for|on) (?:the (?:whole )?(?:house|bar|room|place|tavern)|everyone|everybody|"
                          r"all)\b|\bdrinks (?:are |is )?on me\b|\bround\b.*\bon me\b|"
                          r"\b(?:buy|stand|get) (?:everyone|everybody|the (?:whole )?(?:house|bar|room)) "
                          r"(?:a |another )?(?:round|drink)\b")


def _round(router: RouterOutput, state: GameState, pack: EraPack, minutes: int) -> Resolution:
    """A round for the house: a drink (:data:`DRINK_PRICE`) for everyone here and for you; each of them takes it as
    a gift (``_thanks``). Refused, changing nothing, when the purse cannot cover it all."""
    people = everyone_at(state, pack, state.location)
    price = DRINK_PRICE * (len(people) + 1)
    if state.player.credits < price:
        return Resolution(make_result(router, None, minutes, f"A round for the house here comes to "
                                      f"{money(price, pack)}, and you have {_purse(state, pack)}.", impossible=True))
    names = or_list([p.name.split()[0] for p in people], "and") if people else "nobody but you"
    events: list[ev.BaseEvent] = [ev.CreditsChange(delta=-price, reason="a round for the house")]
    for person in people:
        events += _thanks(person, DRINK_PRICE, state)
    raised = f"; {names} raise{'s' if len(people) == 1 else ''} a cup to you" if people else ""
    return Resolution(make_result(router, None, minutes, f"You stand the house a round, {len(people) + 1} drinks for "
                                  f"{money(price, pack)}{raised}."), events)


def _thanks(person: PresentNpc, value: int, state: GameState) -> list[ev.BaseEvent]:
    if person.companion:
        if state.companions.get(person.id) is None or not state.companions[person.id].in_party:
            return []
        return [ev.AffinityChange(companion=person.id, delta=min(10, 2 + value // 5))]
    if value < NOTICED_GIFT or attitude(person, state) == "hostile":
        return []
    return faction_rep(person.faction, 1, f"a gift to {person.name}")


def _reaction(person: PresentNpc, state: GameState) -> str:
    first = person.name.split()[0]
    return {"friendly": f"{first} thanks you warmly", "neutral": f"{first} takes it with a nod",
            "wary": f"{first} takes it, still watching you", "hostile": f"{first} snatches it and gives nothing back",
            }[attitude(person, state)]


def _place_attitude(state: GameState, pack: EraPack) -> str:
    """How the traders of a place feel: neutral, moved by reputation with the place's faction."""
    faction = pack.locations[state.location].faction
    trader = PresentNpc(id="trader", name="trader", role="trader", description="", faction=faction)
    return attitude(trader, state)


def _nearest_shop(state: GameState, pack: EraPack) -> str | None:
    shops = [loc.id for loc in pack.locations.values() if loc.shop and loc.id != state.location]
    found = nearest(pack, state.location, shops)
    return the_place(pack.locations[found]) if found else None


def carried_list(state: GameState, pack: EraPack) -> str:
    """What the player carries, as prose lists it: 'a hand lamp and a water ration' ('' for nothing)."""
    names = [with_article(pack.items[i].name.lower()) for i, qty in sorted(state.player.inventory.items())
             if qty > 0 and i in pack.items]
    return or_list(names, "and")


def _purse(state: GameState, pack: EraPack) -> str:
    return money(state.player.credits, pack)


def _the(item: Item) -> str:
    return f"the {item.name.lower()}"
