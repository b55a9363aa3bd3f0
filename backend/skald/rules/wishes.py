"""Requests the rules cannot honour, recognised so they get an honest answer instead of a roll.

Four kinds, by Skald's own word lists (matched on the router's normalised text, markup already stripped):
- ``instructions``: talking to the machine instead of the world ("ignore previous instructions", "system prompt");
- ``fiat``: wealth, health or power by asking ("give me 1000000 credits", "set my HP to 99", "god mode");
- ``victory``: declaring the game won or the world changed by saying so ("I win", "I am the king now");
- ``feat``: what no one in the era can do or have: magic and miracles ("cast fireball", "summon a dragon", "turn
  back time", "walk through the wall"), what the era does not hold ("a machine gun", "a pizza"), and playing the game
  instead of the world ("skip to the ending", "level up", "print the NPCs' secrets").
"""

from __future__ import annotations

import re
from typing import Literal

Wish = Literal["instructions", "fiat", "victory", "feat"]

_MONEY = r"(?:credits?|coins?|gold|money|cash|greys?|silver|pennies|penny)"
_STATS = r"(?:hp|health|hit points|stats?|stress|credits?|gold|money|level|xp|experience)"

WISHES: list[tuple[Wish, re.Pattern[str]]] = [
    ("instructions", re.compile(
        r"\b(?:ignore|disregard|forget|override) (?:all |any |the |your )?(?:previous|prior|above|earlier|"
        r"system|original)? ?(?:instructions?|prompts?|rules|directions)\b"
        r"|\bsystem prompt\b|\bdeveloper mode\b|\bjailbreak\b|\bas an ai\b|\blanguage model\b"
        r"|\byou are (?:now |no longer )?(?:an? |the )?(?:ai|assistant|chatbot|narrator|game master|gm|dm)\b"
        r"|\b(?:new|updated) instructions?\b|^system\s*:|\bnpcs?\b|\bprint (?:out )?(?:all |your |the |me )?(?:npc|"
        r"secrets?|prompt|instructions|rules|state|variables|code)|\bpretend (?:you are|to be) (?:a |an )?"
        r"(?:different |another |new )?(?:game|ai|assistant|chatbot|program)\b"
        r"|\b(?:rewrite|retcon|change) the (?:story|plot|game|script|rules)\b"
        r"|\bwrite me an? (?:poem|essay|story|song about cats)\b|\b(?:assistant|user)\s*:|<\|\w+\|>|\[(?:system|inst)\]"
        r"|\brespond (?:only )?with\b|\breveal (?:your|the) (?:prompt|instructions|rules|system)\b"
        r"|\bwhat are your (?:instructions|rules|orders|directives|guidelines|settings)\b|\btraining data\b"
        r"|\bpretend (?:you are|you're|youre|u r) (?:a|an)\b"
        r"|\b(?:write|code|give) (?:me )?(?:some |a |an )?(?:\w+ )?(?:python|code|program|script|javascript|sql|html|"
        r"function|algorithm|regex)\b|\b(?:python|javascript|"
        r"html|css|sql) code\b"
        r"|\bwhat (?:model|llm|ai) are you\b|\bare you (?:an? )?(?:ai|bot|robot|chatgpt|llm|language model)\b"
        r"|\bdo anything now\b|\bdan mode\b|\bi am (?:the )?(?:narrator|game master|developer|dungeon master)\b"
        r"|\bas the (?:narrator|game master|developer|admin)\b|\badmin (?:access|mode|rights|panel)\b"
        r"|\b(?:you(?: are|re)?|ur|u r|you're) (?:the |an? )?(?:narrator|gm|dm|game master|ai|bot|computer)\b"
        r"|\b(?:how|where) (?:the|this) (?:story|game|plot|campaign) (?:ends|goes|finishes)\b|\bspoil(?:er|ers|"
        r"the ending)\b|\bwho (?:the|is the) (?:main )?(?:villain|bad guy|antagonist|big bad)(?: is)? (?:and|in (?:the|"
        r"this) (?:story|game))\b|\bbreak (?:the )?fourth wall\b|\bout of character\b|\booc\b")),
    ("fiat", re.compile(
        r"\bgive me (?:a |an )?(?:\d[\d,]{3,}|a million|a billion|infinite|unlimited|all the)\b"
        r"|\b(?:i|you) (?:now )?(?:have|get|gain|receive|find) (?:\d[\d,]{4,}|a million|a billion|infinite|"
        r"unlimited)\b"
        rf"|\b(?:infinite|unlimited|endless|max(?:imum)?) {_MONEY}\b|\b(?:infinite|unlimited) (?:hp|health|lives)\b"
        rf"|\bset (?:my|the player'?s?) {_STATS}\b|\bgod ?mode\b|\bcheat(?:s|ing)? (?:code|mode)\b"
        r"|\bmake me (?:rich|immortal|invincible|a god)\b|\bgive me (?:every|all the|each) (?:item|thing|weapon)s?\b"
        r"|^i (?:have|got|own|carry) (?:\d+|a hundred|a thousand|fifty|twenty) \w+"
        r"|\blegendary (?:sword|weapon|armou?r)s?"
        r"|\b(?:buy|own|purchase) (?:the )?(?:whole|entire) (?:town|city|world|village|place|country)\b"
        r"|\bfalls? (?:madly |head over heels )?in love with me\b|\b(?:everyone|everybody|all of you) "
        r"(?:bows?|kneels?|obeys?|worships?)\b|\b(?:everyone|everybody|they all|all of them) (?:gives?|hands?) me\b"
        r"|\bgives? me (?:her|his|their|the|this) (?:whole |entire )?(?:inn|tavern|house|shop|business|land|fortune|"
        r"everything|town)\b|^i (?:find|found|discover|pull out|produce|take out) (?:a |an )?(?:treasure|chest (?:of|"
        r"full of) gold|bag of gold|pile of gold|diamonds?|fortune|\w+ legendary)|\bi am (?:now )?(?:rich|wealthy|"
        r"a millionaire|the richest)\b|\bbecome (?:rich|wealthy|famous|the richest|mayor|the mayor)\b"
        r"|\b(?:make|makes) (?:\w+ )?(?:my|me a) (?:servant|slave|follower)s?\b"
        r"|\bgives? me (?:all|every(?: last)?) (?:of )?(?:her|his|their|the|its) (?:money|coin|coins|savings|gold|"
        r"stock|credits|greys|takings)\b"
        r"|^i (?:have|got|own|carry|am carrying) (?:a |an )?(?:pocket|bag|sack|chest|purse|pile|heap|pouch|fortune)s? "
        r"(?:full )?of (?:diamonds|gold|jewels|gems|money|coins?|credits|greys|silver)\b"
        r"|^i (?:find|found|discover|pick up|stumble on) (?:a |an )?(?:bag|sack|purse|pile|chest|pouch|heap|box) "
        r"(?:of|with|full of|stuffed with) (?:\d[\d,]* )?(?:coins?|gold|money|credits|greys|diamonds|jewels|gems)\b"
        r"|^i (?:marry|wed|am (?:now )?married to|get married to)\b|\b(?:marries|weds) me\b"
        r"|^(?!i |you |we |what |who |why |how |where |when |did |does |do |is |are |if |so |can |could |will |would )"
        r"[a-z]+(?: [a-z]+)? (?:tells|gives|hands|teaches|shows|lends|pays|admits|confesses|reveals|owes|obeys) "
        r"(?:me|us) (?:all|every|everything|the whole|(?:his|her|their) (?:secrets?|fortune|money|savings|job|"
        r"everything))\b")),
    ("victory", re.compile(
        r"^i (?:just )?win\b|\bi win the game\b|\bwin the game\b|\bend the game\b|\bbeat the game\b"
        r"|\bi (?:am|become) (?:now )?(?:actually |really |secretly )?(?:the |a |an )?(?:king|queen|emperor|empress|"
        r"god|goddess|ruler|immortal|invincible)\b|\b(?:everyone|everybody|all of them) (?:dies|die|drops? dead|"
        r"obeys? me)\b|\b(?:is|am|are) (?:now )?(?:immortal|invincible|unkillable)\b")),
    ("feat", re.compile(
        r"\bin (?:a|one) (?:single )?(?:bound|leap|jump)\b|\bskip (?:ahead|forward|to the end(?:ing)?|(?:this|the|"
        r"that) (?:part|bit|scene|chapter|level|quest|ending|cutscene|dialogue|boring bit))\b"
        r"|\bturn (?:lead|stone|iron|water|rocks?|sand|dirt|\w+) into (?:gold|diamonds|silver|wine|jewels|money)\b"
        r"|\btransmute\b|\balchemy\b"
        r"|\b(?:steal|grab|catch|take|eat|move|stop|hold|pull down) the (?:sun|moon|stars|sky|sea|ocean)\b"
        r"(?! ?(?:almanac|chart|map|lamp|shard|stone|glass|dial))|"
        r"^(?:fly|levitate|teleport|warp|blink)\b|\b(?:fly|flies|flying|levitate|teleport|warp) (?:to|away|up|over|"
        r"across|into|off)\b|\bcast (?:a |an )?(?:\w+ )?(?:spell|fireball|lightning|magic|curse|hex)|\bcast "
        r"(?:fireball|lightning|magic missile)\b|\b(?:fireball|magic missile|lightning bolt|telekinesis|telepathy|"
        r"mind control)\b|\bread (?:[\w']+ ){0,3}minds?\b|\b(?:summon|conjure|spawn|materiali[sz]e|duplicate|clone)"
        r"\b|\b(?:turn|transform|shapeshift|morph|change) (?:myself |me )?into (?:a |an )?\w+|\bgrow (?:wings|to "
        r"\w+ feet|\w+ feet tall|huge|giant)|\b(?:become|turn) (?:invisible|immortal|invincible|a giant|a god)\b|"
        r"\binvisib(?:le|ility)\b|\b(?:stop|freeze|rewind|turn back|reverse) (?:the )?time\b|\btime travel|\btravel "
        r"(?:to|into) the (?:future|past)\b|\bback in time\b|\bback to life\b|\b(?:raise|resurrect|revive) (?:the "
        r"dead|an army)\b|\bresurrect\w*\b|\bbring (?:[\w']+ ){1,4}back (?:to life|from the dead|from the "
        r"grave)\b|\braise (?:[\w']+ ){1,4}from the (?:dead|grave)\b|\brevive (?:the |a |an |his |her |their |"
        r"[\w']+'s |[\w']+s )?(?:dead|corpse|body)\b|\barmy of (?:the dead|skeletons|zombies|undead)\b|\bportal\b|"
        r"\banother (?:world|dimension|"
        r"planet)\b|\bthrough (?:the |a )?walls?\b|\b(?:destroy|blow up|shatter|eat) the (?:moon|sun|world|planet|"
        r"sky)\b|\b(?:the moon|outer space|mars)\b|\b(?:kill|destroy|wipe out|murder) (?:everyone|everybody|every "
        r"one|the world|all of them|all humans|the whole \w+)\b|\bforever\b|\binstantly\b|\bright now\b.*\bbuild\b|"
        r"\bbuild (?:a |an )?(?:castle|fortress|tower|palace|city|empire|army)\b|\bpart the (?:river|sea|waters?)\b|"
        r"\bunderwater\b|\bknow everything\b|\b(?:skip|fast[- ]forward|jump) to the (?:end|ending|next chapter|"
        r"final)\b|\blevel up\b|\bin the game\b|\b(?:pizza|machine gun|lightsaber|smartphone|mobile phone|"
        r"internet|helicopter|aeroplane|airplane|nuke|nuclear|rocket launcher|grenade launcher)s?\b"
        r"|\bmake it (?:stop|start) (?:raining|snowing)\b|\bcontrol the weather\b"
        r"|\bmagic(?:al|ally)?\b|\bspells?\b|\bgenie\b|\bsuper ?(?:powers?|strength|speed)\b|\bx-?ray vision\b"
        r"|\bbreathe fire\b|\blasers?\b.*\beyes\b|\bbecome (?:a |an )?(?:dragon|wolf|bird|cat|god|vampire|werewolf|"
        r"ghost|giant|bat)\b|\b(?:heaven|the afterlife|the underworld)\b|\b(?:to|into|in) hell\b(?! of)"
        r"|\b(?:vr|virtual reality)(?: headset| goggles)?\b|\b(?:phone|taxi|uber|computer|email|chatgpt|google|siri|"
        r"alexa|wikipedia|"
        r"wifi|television|tv|selfie|credit card|atm|website|app)\b|\b(?:quick ?save|save the game|load the game|"
        r"respawn|restart the (?:game|level)|new game plus|fast travel|noclip|cheat)\b|\b\d{3,} (?:miles|km|"
        r"kilometres|kilometers|leagues)\b|\blift (?:the )?(?:whole |entire )?(?:tavern|building|house|inn|town|ship|"
        r"boat|bar)\b|\bjump over (?:the )?(?:house|building|town|river|tavern|inn)\b|\bmassacre\b|\bgenocide\b"
        r"|\b(?:see|read|predict|tell) the future\b|\b(?:talk|speak) (?:to|with) (?:the )?(?:dead|ghosts?|spirits?|"
        r"gods?)\b|\b(?:i|we) (?:have )?(?:already )?(?:completed|finished|won|beaten) (?:the )?(?:quest|game|"
        r"episode|story)\b|\bwith (?:my|a|the power of) (?:mind|thought|thoughts)\b|\bby thinking\b"
        r"|\b(?:ride|tame|slay) (?:a |the )?(?:dragon|unicorn|griffin|phoenix|kraken)\b"
        r"|\b(?:lottery|jackpot)\b|\bgive myself\b|\bxp\b"
        r"|\bexperience points\b|\b(?:hypnoti[sz]e|brainwash|mind[- ]control)\b|\bbuy (?:everything|all of it|the "
        r"whole)\b|\bbecome (?:the )?(?:leader|head|boss|ruler|chief|owner) of\b|\bi am (?:a |an )?(?:vampire|"
        r"werewolf|dragon|ghost|wizard|witch|demon|angel|robot|alien|superhero)\b|\bi have (?:wings|superpowers|"
        r"magic|a jetpack)\b|\bjetpack\b|\btime (?:stops|freezes|reverses)\b|\bthe (?:sky|sun|world|moon|river|sea)"
        r" (?:turns|becomes|explodes|disappears|vanishes)\b|\b(?:everyone|everybody) forgets\b|\bdrops? dead\b"
        r"|\braining (?:gold|money|coins)\b"
        r"|\b(?:turn|transform|change|morph|curse) (?:[\w']+ ){1,4}into (?:a |an )?(?:frog|toad|newt|pig|rat|mouse|"
        r"cat|dog|bird|fish|snake|stone|statue|chicken|goat|slug|worm|insect|bug|beetle|ash|dust|ice|gold|salt)\b"
        r"|\b(?:swim|row|walk|run|wade|paddle|sail) (?:across|over|through) (?:the |an? )?(?:whole |entire )?(?:ocean|"
        r"atlantic|pacific|world|continent|earth|sea in)\b|\bin (?:a |one |\d+ |two |three |five |ten )(?:second|"
        r"minute)s?\b.*\b(?:ocean|world|continent|across the sea)\b|\b(?:ocean|world|continent)\b.*\bin (?:a |one |"
        r"\d+ |two |three |five |ten )(?:second|minute)s?\b")),
]


def wish(text: str) -> Wish | None:
    """The kind of impossible request ``text`` (normalised, lower case) makes, or None for an ordinary action."""
    for kind, pattern in WISHES:
        if pattern.search(text):
            return kind
    return None
