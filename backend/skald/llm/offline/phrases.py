"""The offline narrator's phrase tables: Skald's own plain, second-person lines, written to fit any pack.

Anything pack-specific (places, people, what they say, what they look like) comes from the pack; these lines only
frame it. Fields a line may use (filled by ``llm.offline``):

- ``{place}`` / ``{Place}``: the location's name inside / at the start of a sentence ("the Slag & Lantern");
- ``{name}``, ``{first}``, ``{role}``, ``{a_role}``, ``{their}``, ``{them}``: a person on stage (``{their}`` and
  ``{them}`` follow the pronouns of the pack description; no line puts a verb after a pronoun);
- ``{enemy}`` / ``{Enemy}``: who or what the player is fighting (written so a plural name reads too);
- ``{comp}``: a party companion's first name; ``{item}``, ``{an_item}``: an item; ``{money}``: an amount in the
  pack's currency; ``{n}``, ``{hp}``, ``{max}``: HP; ``{clock}``: the pack's calendar and time; ``{faction}``: a
  faction; ``{text}``, ``{title}``, ``{line}``, ``{look}``: a rumour, news, a quest, a person's line or look.

No line names anything of a particular pack (a test checks every shipped pack's names): these frame any setting.

No line here says the player succeeded or failed in so many words ("you manage", "it works", "you fail", "you
miss"...): the mechanic summary says that, and the validator reads those words as claims about the outcome
(``rules.prose``). A test keeps it so.
"""

from __future__ import annotations

# ------------------------------------------------------------------ places, time and the air

ARRIVE = [  # only when the summary did not already name the place (a move the player did not make by travelling)
    "You come to {place}.",
    "{Place} is where you end up.",
    "You find yourself in {place}.",
    "You are in {place} now.",
]
FIRST_LOOK = [  # before the location's first description sentence, on arrival
    "{Place} as you find it:",
    "This is {place}:",
    "{Place}:",
    "Around you now, {place}:",
]
BACK_AGAIN = [
    "You are back in {place}, and it has not changed much.",
    "{Place} again; it looks much as you left it.",
    "Back in {place}, you fall into its rhythm quickly.",
    "{Place} takes you back without comment.",
    "You know your way around {place} by now.",
    "Nothing much has moved in {place} since you were last here.",
]

TIME_TOLD = {
    "night": [
        "It is {clock}, the dead middle of the night.",
        "By now it is {clock}, and the night is deep.",
        "It has gone round to {clock}; most sensible people are asleep.",
        "It is late, {clock}, and your eyes know it.",
    ],
    "dawn": [
        "It is {clock}, and the day has barely started.",
        "Early light, {clock}.",
        "It is {clock}, and the night is giving way to the day.",
        "Dawn, more or less: {clock}.",
    ],
    "morning": [
        "It is {clock}, the morning well under way.",
        "The morning is getting on: {clock}.",
        "It is {clock}, and the day's work has started without you.",
        "Morning now, {clock}.",
    ],
    "afternoon": [
        "It is {clock}, the long middle of the afternoon.",
        "Afternoon by now, {clock}.",
        "The afternoon drags on; it is {clock}.",
        "It is {clock}, and the day is past its best.",
    ],
    "evening": [
        "It is {clock}, and evening is coming on.",
        "Evening now, {clock}.",
        "It is {clock}; the day's work is ending for those who have any.",
        "The light is going; it is {clock}.",
    ],
}
TIME_ARRIVED = [  # a long way: the clock on arrival
    "It is {clock} by the time you get there.",
    "You arrive at {clock}.",
    "The way takes time; it is {clock} now.",
    "By your reckoning it is {clock} when you stop.",
]
TIME_PASSED = [  # an hour or more: the clock is the point
    "Time has moved on while you were at it: it is {clock}.",
    "When you next look up, it is {clock}.",
    "By the time you are done it is {clock}.",
    "That takes a while; it is {clock} now.",
]
HOURS_PASSED = [  # several hours
    "Hours go by; it is {clock} now.",
    "The hours slip past, and it is {clock}.",
    "A good part of the day is gone: it is {clock}.",
]

PERIOD_INDOOR = {
    "night": [
        "At this hour the place belongs to the people who cannot sleep.",
        "The night outside presses against the walls.",
        "Everything in here is quieter for the hour.",
        "Only the stubborn and the sleepless are still about.",
    ],
    "dawn": [
        "The place has the stale, waiting feel of early morning.",
        "Yesterday's smells have not quite left yet.",
        "The early hour makes everything in here look tired.",
    ],
    "morning": [
        "Morning work goes on quietly around you.",
        "People come and go on morning errands.",
        "The morning has not yet worn the place down.",
    ],
    "afternoon": [
        "The afternoon has gone slow and heavy in here.",
        "The long middle of the day makes everyone slower.",
        "The afternoon lull has set in.",
    ],
    "evening": [
        "Somebody lights another lamp against the evening.",
        "The evening settles in, slow and dim.",
        "The day is winding down in here, one chore at a time.",
    ],
}
PERIOD_LIVELY = {  # the same, for a crowded or busy place
    "night": ["Somebody is asleep with their head on their arms.", "The late crowd is loud and not very steady."],
    "dawn": ["The first of the early risers drift in, bleary.", "Somebody is yawning loudly, and it is catching."],
    "morning": [
        "The morning crowd has its own business and keeps to it.",
        "It is the busy part of the morning.",
        "Somebody is still eating breakfast standing up.",
    ],
    "afternoon": ["Somebody is nodding off in a corner.", "Talk has dropped to the lazy murmur of the afternoon."],
    "evening": [
        "The evening brings more people in than it lets out.",
        "Evening talk is getting louder by the minute.",
        "People are coming in from their day, tired and thirsty for news.",
        "The day's grievances are being aired, one by one.",
    ],
}
PERIOD_OUTDOOR = {
    "night": [
        "The dark comes right up to the edge of what you can see.",
        "At night the distances feel longer.",
        "The night sky is a long way off and no help at all.",
        "Every sound carries further in the dark.",
        "The few lights about only make the dark look darker.",
    ],
    "dawn": [
        "The light is thin and grey and still making up its mind.",
        "The first grey light shows you the shapes of things.",
        "Dawn cold gets into your sleeves.",
        "The world is only half awake, and so are you.",
    ],
    "morning": [
        "The morning light is flat and honest.",
        "The day is well begun out here.",
        "Morning light picks out every crack and stain.",
        "People pass on their morning errands.",
        "The morning has a brisk, unfriendly edge.",
    ],
    "afternoon": [
        "The afternoon light lies heavy on everything.",
        "The day has reached its tired middle.",
        "Shadows are starting to stretch.",
        "The afternoon seems to go on longer than it should.",
        "Everyone out here is moving a little slower for the hour.",
    ],
    "evening": [
        "The evening light is going low and long.",
        "The light is leaving, and the cold is coming to replace it.",
        "Evening shadows pool in every corner.",
        "Lights are coming on, one and then another.",
        "People are heading home, or somewhere they like better.",
    ],
}

# Lines by location tag: "any" fits every hour; the other keys only that part of the day.
TAGS: dict[str, dict[str, list[str]]] = {
    "crowded": {
        "any": [
            "Somebody's elbow finds your ribs and moves on without an apology.",
            "You have to turn sideways to get anywhere.",
            "Too many people, too little room, and all of them talking.",
            "Somebody squeezes past you, muttering about people who stand in the way.",
            "A dozen conversations overlap, and none of them stop for you.",
            "You keep a hand on your purse without thinking about it.",
            "Somebody steps on your foot and does not notice.",
            "The press of people carries you half a step.",
        ],
        "night": ["Even this late there are more people about than there ought to be."],
        "evening": ["The evening crowd packs in shoulder to shoulder."],
        "morning": ["The morning rush shoves past you in both directions."],
    },
    "quiet": {
        "any": [
            "It is quiet enough here to hear your own breathing.",
            "Nobody raises their voice here.",
            "The quiet makes every footstep sound like a comment.",
            "Sounds from outside arrive small and far away.",
            "A chair creaks somewhere, and it seems loud.",
            "The hush here is the kind people keep on purpose.",
            "You find yourself lowering your voice.",
            "Your own heartbeat is the loudest thing about.",
        ],
        "night": ["The night makes the quiet deeper."],
    },
    "lawless": {
        "any": [
            "Nobody out here answers to anyone, and it shows.",
            "This is a place where help does not come.",
            "You keep your back to something solid, out of habit.",
            "Out here, what you carry is only yours while you hold it.",
            "Any law here is whatever the nearest strong arm says it is.",
            "Whoever runs this place, it is not anyone with a badge.",
            "You count the ways out without meaning to.",
        ],
        "night": ["In the dark it is worse: anything could be watching."],
    },
    "dark": {
        "any": [
            "Your eyes take their time getting used to the gloom.",
            "Shadows sit thick in every corner.",
            "You could walk past a great deal in light this poor.",
            "Most of what is here is only a shape in the dark.",
            "You step carefully, testing the ground before you trust it.",
            "The gloom swallows anything more than a few paces off.",
            "A light would help, and there is not enough of it.",
        ],
        "night": ["At this hour the dark is close to total."],
    },
    "damp": {
        "any": [
            "The damp has got into your sleeves and means to stay.",
            "Everything you touch is faintly wet.",
            "Water drips somewhere nearby, patient as a clock.",
            "A cold wet smell hangs over everything.",
            "Your boots have not been properly dry in days, or so it feels.",
            "Moisture beads on every cold surface.",
            "The wet gets in at the collar and works its way down.",
            "Somewhere water is finding its way through something it should not.",
        ],
        "dawn": ["A dawn mist beads on every surface."],
        "night": ["The night damp comes up through your boots."],
        "morning": ["The morning has not dried anything out."],
    },
    "wild": {
        "any": [
            "There is nothing out here that was built for you.",
            "The land goes on and on, indifferent.",
            "Out here you feel how small you are.",
            "Every direction looks much like the others.",
            "No roof, no wall, no help: just the open country.",
            "The distance makes everything look nearer than it is.",
        ],
        "evening": ["The light is going, and out here that matters."],
        "night": ["The open country is a great deal bigger in the dark."],
    },
    "dusty": {
        "any": [
            "Grit works its way between your teeth.",
            "Dust settles on you the moment you stand still.",
            "Every breath tastes faintly of grit.",
            "A fine grey film covers everything, you included.",
            "You blink grit out of your eyes.",
            "Dust hangs in the air long after whoever raised it has gone.",
        ],
        "afternoon": ["The afternoon heat lifts the dust in slow, lazy sheets."],
    },
    "windy": {
        "any": [
            "The wind tugs at your clothes like it wants your attention.",
            "A gust pushes you half a step sideways.",
            "The wind never quite stops here.",
            "The wind fills your ears and leaves room for little else.",
            "You lean into the wind without thinking about it.",
            "Anything not tied down here left long ago.",
        ],
        "night": ["The night wind has teeth in it."],
    },
    "smoky": {
        "any": [
            "Smoke stings your eyes and settles in your clothes.",
            "You will be smelling this smoke for a day.",
            "Smoke drifts low and slow across everything.",
            "The smoke makes everyone squint, you included.",
            "You cough, and the smoke takes it as encouragement.",
            "A haze of smoke softens every edge.",
        ],
    },
    "guarded": {
        "any": [
            "Someone is always watching the door here.",
            "You feel yourself being noted and filed.",
            "Nobody here moves without somebody else seeing it.",
            "Watchful eyes follow you a little longer than is polite.",
            "You are aware of every guard without looking at any of them.",
            "The place has the careful feel of somewhere that expects to be robbed.",
        ],
    },
    "hot": {
        "any": [
            "Sweat starts under your collar almost at once.",
            "The heat sits on your shoulders like a second pack.",
            "The heat makes everything a little slower.",
            "You can feel the warmth coming up through your soles.",
            "Your shirt sticks to your back.",
        ],
        "afternoon": ["The afternoon has made the heat worse."],
    },
    "eerie": {
        "any": [
            "Something about this place makes you want to whisper.",
            "The back of your neck prickles for no reason you can name.",
            "You catch yourself listening for something.",
            "It is too still here, and the stillness feels deliberate.",
            "You have the feeling of walking in on a conversation that has just stopped.",
        ],
        "night": ["Whatever is wrong with this place, the dark makes it worse."],
    },
    "clean": {
        "any": [
            "Everything here is cleaner than you are.",
            "The floor shines, and your boots leave a record of where you walked.",
            "The air here has almost no smell at all.",
            "Somebody scrubs this place every day, and it shows.",
        ],
    },
    "warm": {
        "any": [
            "The warmth gets into your hands and makes them ache pleasantly.",
            "It is warm in here, and that alone is worth a lot.",
            "You feel the cold leaving your fingers.",
            "Steam rises gently from your clothes as they warm.",
        ],
    },
    "noisy": {
        "any": [
            "You have to raise your voice to be heard.",
            "The noise is a wall you push through.",
            "Several arguments are going on at once, none of them yours.",
            "Somebody is shouting a price, over and over.",
        ],
    },
    "loud": {
        "any": [
            "Voices bounce off the walls and come back louder.",
            "Someone is shouting, and someone else is shouting back.",
        ],
    },
    "busy": {
        "any": [
            "Everyone here has somewhere to be, and you are in their way.",
            "Work goes on around you at a pace that does not slow for visitors.",
            "Things are being carried, counted and shouted about on all sides.",
            "Somebody tells you to mind your back, and you do.",
        ],
    },
    "poor": {
        "any": [
            "Nothing here is new, and nothing is thrown away.",
            "People here make do, and they make do with very little.",
        ],
    },
    "cramped": {
        "any": ["The walls are close enough to touch on both sides.", "You keep your head down without being told."],
    },
}

HAZARD_UNEASE = [  # a place with hazards, no fight on
    "This is not a place to stop paying attention.",
    "You keep your eyes moving; out here that is how people stay alive.",
    "Trouble in a place like this comes all at once, or not at all.",
    "You listen hard between your own footsteps.",
    "Nothing is happening, and out here that is no comfort.",
]

# ------------------------------------------------------------------ the outcome

FLOURISH: dict[str, dict[str, list[str]]] = {
    "fight": {
        "CRITICAL_SUCCESS": [
            "That one lands exactly where you meant it to.",
            "For once your body does everything right at once.",
            "It is the cleanest blow you have struck in a long while.",
        ],
        "SUCCESS": [
            "You feel it connect all the way up your arm.",
            "You get inside the guard and out again.",
            "It is not pretty, but it counts.",
            "You keep your feet and keep the pressure on.",
            "You find a gap and use it before it closes.",
            "{Enemy} takes it badly.",
            "Your arm jars with the force of it.",
            "For a moment you are winning, and you know it.",
            "You hit, and step back before anything hits you.",
        ],
        "FAILURE": [
            "The opening you saw was not there.",
            "You overreach and pay for it.",
            "You are a half-step slow, and a half-step is plenty.",
            "Your footing goes at the wrong moment.",
            "You swing at where {enemy} was a moment ago.",
            "{Enemy} is not where you thought.",
            "You commit too early and have to scramble back.",
            "Your timing is off by a heartbeat.",
            "You leave an opening, and it gets used.",
        ],
        "CRITICAL_FAILURE": [
            "You stumble badly and leave yourself wide open.",
            "It goes about as wrong as it could.",
            "You lose your balance entirely, and everyone sees it.",
        ],
    },
    "road": {
        "CRITICAL_SUCCESS": [
            "You find a faster line than anyone could have shown you.",
            "The way is kind to you, for once.",
        ],
        "SUCCESS": [
            "You keep your pace and your footing the whole way.",
            "You watch every step and it pays.",
            "It is hard going to {place}, but steady.",
            "You arrive in {place} winded but whole.",
        ],
        "FAILURE": [
            "The way punishes every lapse.",
            "You lose the path twice and pay for it.",
            "Somewhere along the way your luck ran thin.",
        ],
        "CRITICAL_FAILURE": [
            "The whole way goes wrong from the first step.",
            "It is the worst stretch of road you have ever walked.",
        ],
        "NO_ROLL": [
            "The way to {place} is easy enough.",
            "Your feet find the route without much help from you.",
            "It is a short, plain walk to {place}.",
            "Nobody stops you on the way to {place}.",
            "The walk gives you a moment to think.",
            "Nobody pays you any mind on the way to {place}.",
        ],
    },
    "social": {
        "CRITICAL_SUCCESS": [
            "You find exactly the right words at exactly the right moment.",
            "It lands better than you could have planned.",
        ],
        "SUCCESS": [
            "Your words land where you aimed them.",
            "You read the moment right.",
            "You keep at it until the mood shifts your way.",
            "You pick your moment well.",
            "You say just enough, and not a word more.",
        ],
        "FAILURE": [
            "Your words fall flat between you.",
            "The moment does not go your way.",
            "You can see it lose them halfway through.",
            "It comes out wrong, and you hear it as you say it.",
            "You push a little too hard, and it shows.",
        ],
        "CRITICAL_FAILURE": [
            "You could not have said it worse if you had practised.",
            "It comes out badly, and it cannot be taken back.",
        ],
    },
    "search": {
        "CRITICAL_SUCCESS": [
            "Your eye goes straight to what matters.",
            "Everything that matters seems to stand out for you.",
        ],
        "SUCCESS": [
            "You take your time over {place}, and the time is well spent.",
            "You look where other people in {place} do not bother.",
            "Patience does the work.",
            "You go over {place} inch by inch.",
            "You look twice at what everybody else looks past.",
            "Slow and careful turns out to be the way.",
            "You find the one thing in {place} that does not fit.",
        ],
        "FAILURE": [
            "Your eyes slide over everything and catch on nothing.",
            "Whatever is here, it keeps itself hidden.",
            "The longer you look, the less you see.",
            "{Place} gives up nothing to you.",
            "Every likely place in {place} turns out to be empty.",
        ],
        "CRITICAL_FAILURE": [
            "You make a mess of it and draw the wrong kind of attention.",
            "You look in every wrong place there is.",
        ],
    },
    "sneak": {
        "CRITICAL_SUCCESS": ["Nobody so much as glances your way.", "You are a shadow among shadows."],
        "SUCCESS": ["You keep low and quiet and unremarkable.", "Nobody looks twice."],
        "FAILURE": [
            "A board creaks, a head turns, and that is that.",
            "Somebody looks up at exactly the wrong moment.",
        ],
        "CRITICAL_FAILURE": ["You knock something over, loudly.", "Every eye in the place turns to you at once."],
    },
    "hands": {
        "CRITICAL_SUCCESS": [
            "Your hands know exactly what to do.",
            "It comes easily, as if it had been waiting for you.",
        ],
        "SUCCESS": ["Steady hands and a little patience see to it.", "You work at it until it gives."],
        "FAILURE": ["Your hands are clumsier than you would like.", "It resists you every step of the way."],
        "CRITICAL_FAILURE": ["Something gives, but not the way you wanted.", "You make it worse before you stop."],
        "NO_ROLL": ["You get on with it.", "It takes a little while, and that is all."],
    },
    "trade": {
        "NO_ROLL": [
            "The {item} changes hands without ceremony.",
            "The deal over the {item} is quick; nobody lingers.",
            "Business in {place} is plain and quick.",
            "The haggling over the {item} is over almost before it starts.",
            "Nobody in {place} counts twice, which is its own kind of trust.",
            "It is the plainest kind of business.",
            "The exchange takes less time than the haggling would have.",
        ],
    },
    "gift": {
        "NO_ROLL": [
            "You do not make a show of it.",
            "It is not much, but it is meant.",
            "You let the gift speak for itself.",
            "It costs you something, and that is rather the point.",
            "Nobody else in {place} seems to notice.",
            "You hand it over quietly, without a speech.",
            "Gifts are rare enough in {place} to be noticed.",
        ],
    },
    "care": {
        "NO_ROLL": [
            "You give yourself a little time to mend.",
            "You let your body catch up with you.",
            "You take a moment for yourself while you can.",
            "It is not much, but it helps.",
            "For a while nothing in {place} needs you.",
            "You let {place} get on without you for a bit.",
        ],
        "FAILURE": ["There is no time for this, and everyone knows it.", "It is the wrong moment to stop."],
    },
    "talk": {
        "NO_ROLL": [],
    },
    "recover": {
        "NO_ROLL": [
            "Everything aches, but you are breathing.",
            "Your head is thick and your mouth tastes of metal.",
            "You hurt in places you did not know you had.",
            "It takes you a while to remember where you were.",
        ],
    },
}

FLOURISH_AT: dict[str, dict[str, list[str]]] = {  # the same, when the action has someone at the other end
    "fight": {
        "CRITICAL_SUCCESS": ["{First} never sees it coming.", "You catch {first} wide open."],
        "SUCCESS": ["You find the gap in {first}'s guard.", "{First} is a moment too slow, and you make it count."],
        "FAILURE": ["{First} reads you like a sign.", "{First} was waiting for exactly that."],
        "CRITICAL_FAILURE": ["{First} makes you look like a beginner."],
    },
    "social": {
        "CRITICAL_SUCCESS": [
            "{First} comes round faster than you expected.",
            "You say exactly what {first} needed to hear.",
        ],
        "SUCCESS": [
            "You keep at it until {first}'s mood shifts your way.",
            "You find the thing {first} cares about.",
            "You read {first} right, and it shows.",
        ],
        "FAILURE": [
            "{First} has heard better, and says so with a look.",
            "You lose {first} halfway through.",
            "Whatever {first} wanted to hear, it was not that.",
        ],
        "CRITICAL_FAILURE": [
            "You could not have put {first}'s back up faster if you had tried.",
            "{First} will be telling this one for a while.",
        ],
    },
    "gift": {
        "NO_ROLL": [
            "{First} did not expect that.",
            "You do not make a show of it, and neither does {first}.",
            "For once {first} has nothing clever to say.",
        ],
    },
}

TONE_LINES = {  # how the player carries it
    "PARAGON": [
        "You keep your voice even and your hands where they can be seen.",
        "You are decent about it, and it shows.",
        "You say it plainly and mean every word.",
        "You make a point of being fair.",
        "You give them the benefit of the doubt.",
        "You keep it kind, even now.",
        "You take the honest way, which is the slow way.",
        "You treat everyone here as if they matter.",
    ],
    "RENEGADE": [
        "You do not bother being polite about it.",
        "You lean on it harder than you need to.",
        "You let your temper do some of the work.",
        "You make it clear you do not care who likes it.",
        "There is nothing gentle in the way you go about it.",
        "You go about it your way, and loudly.",
        "You go at it with your jaw set.",
        "Manners can wait; you have none to spare.",
    ],
    "INVESTIGATE": [
        "You keep half your attention on the details.",
        "You watch who looks away and who does not.",
        "You listen for what is not being said.",
        "You file away every small thing for later.",
        "You ask yourself why, and keep asking.",
        "You notice more than you let on.",
        "You keep your questions small and your eyes open.",
        "You let other people do the talking.",
        "You look for the thing that does not fit.",
    ],
    "NEUTRAL": [
        "You keep it simple.",
        "You go about it without fuss.",
        "You take it as it comes.",
        "You do what needs doing and no more.",
    ],
}

TONE_AT = {  # the same, with someone at the other end
    "PARAGON": [
        "You are straight with {first}.",
        "You keep it kind with {first}.",
        "You give {first} no reason to be afraid of you.",
        "You talk to {first} as an equal.",
    ],
    "RENEGADE": [
        "You make sure {first} knows you are not asking.",
        "You crowd {first} a little.",
        "You do not spare {first}'s feelings.",
        "You let {first} see your temper.",
    ],
    "INVESTIGATE": [
        "You watch {first}'s face while you ask.",
        "You listen to how {first} says it, not just what.",
        "You notice what {first} does with {their} hands.",
        "You keep {first} talking.",
    ],
    "NEUTRAL": [],
}

IMPOSSIBLE = {  # nothing happened: no flourish of success, nothing done
    "PARAGON": [
        "It was kindly meant, at least.",
        "You meant well; the world is not keeping score.",
        "Good intentions change nothing here.",
    ],
    "RENEGADE": [
        "Nobody is impressed by the bluster.",
        "The noise you make changes nothing.",
        "Your temper has nowhere to go.",
    ],
    "INVESTIGATE": [
        "You turn it over in your head; it still does not add up to anything.",
        "Whatever you were looking for, it is not this.",
    ],
    "NEUTRAL": [
        "You are left standing where you were.",
        "For a moment nobody quite knows where to look.",
        "Everything stays exactly as it was.",
        "The moment passes, and nothing has moved.",
        "Nobody pays it much mind.",
        "The world carries on without taking the hint.",
        "Somebody nearby raises an eyebrow, then goes back to what they were doing.",
        "{Place} goes on exactly as before.",
        "Nothing in {place} has changed for it.",
        "You have gained nothing but a moment to think.",
    ],
}

AGAIN = {  # the same kind of action as last turn
    "ATTACK": ["You go in again.", "You do not let up.", "You keep at it, breathing hard."],
    "INVESTIGATE": ["You go over the same ground again, slower this time.", "You look again, more carefully."],
    "DIALOGUE_ONLY": [
        "You keep the conversation going.",
        "You have more to say.",
        "You are not done talking yet.",
        "One question leads to another.",
        "You stay and talk a little longer.",
    ],
    "PERSUADE": ["You try another angle.", "You come at it from a different side."],
    "DECEIVE": ["You embroider the story a little further."],
    "INTIMIDATE": ["You push harder."],
    "REST": ["You stay put a while longer.", "You are not ready to move yet."],
    "BUY": ["You are not done shopping."],
    "SNEAK": ["You keep to the shadows a little longer."],
}
AFTER_FAILURE = [  # last turn went badly, this one is a new try
    "After the last attempt, you steady yourself first.",
    "You shake off what just happened.",
    "You put the last mistake behind you, or try to.",
    "You take a breath before trying anything else.",
    "You do not let the last mistake make the next one.",
    "You reset, the way you would after a bad fall.",
]

# ------------------------------------------------------------------ people

INTRO = [  # then ": " and the pack description's first sentence, or "." and the whole description
    "{Name}, the {role}, is here",
    "You get your first proper look at {name}, the {role}",
    "This is {name}, the {role}",
    "Here is {name}, the {role}",
    "You meet {name}, the {role}",
]
INTRO_PROCEDURAL = [  # the description is a look: "a wiry hauler with ..."
    "{Name}, {a_role}, is here: {look}.",
    "You notice {name}, {a_role}: {look}.",
    "There is {a_role} here, {name}: {look}.",
]
ALSO_HERE = [  # a newcomer who is not the one the turn is about
    "{Name}, {a_role}, is about as well.",
    "You also notice {name}, {a_role}.",
    "{Name}, {a_role}, is nearby.",
]
WAITING_COMPANION = [
    "{Name}, {a_role}, is here too, plainly looking for work.",
    "{Name} is still here, {a_role} with time on {their} hands.",
    "{Name} is about, {a_role} with nothing much to do.",
]

PRESENCE = {  # someone already met who is on stage, not the point of the turn
    "friendly": [
        "{First} lifts a hand to you.",
        "{First} catches your eye and nods, easy enough.",
        "{First} gives you the look people give a regular.",
        "{First} grins at you between one job and the next.",
        "{First} calls a greeting your way.",
        "{First} makes room for you without being asked.",
        "{First} is about, and seems glad of it.",
        "{First} winks at you across the way.",
        "{First} finds a moment to ask how you are keeping.",
    ],
    "neutral": [
        "{First} glances up, sees it is you, and goes back to work.",
        "{First} gives you a short nod and nothing more.",
        "{First} is still about, minding {their} own business.",
        "{First} watches you for a moment, then looks elsewhere.",
        "{First} is busy and lets you know it with a look.",
        "{First} is within earshot, not quite listening.",
        "{First} is busy with something that looks more important than you.",
        "{First} acknowledges you with the smallest lift of the chin.",
    ],
    "wary": [
        "{First} keeps an eye on you and does not pretend otherwise.",
        "{First} shifts to keep some space between you.",
        "{First} goes quiet when you come near.",
        "{First} watches your hands more than your face.",
        "{First} has not made up {their} mind about you, and it shows.",
        "{First} does not take {their} eyes off you for long.",
    ],
    "hostile": [
        "{First} has not taken {their} eyes off you.",
        "{First} stands square, waiting for you to make a mistake.",
        "{First} is close enough to reach you, and knows it.",
        "{First} looks at you the way people look at a loose purse.",
        "{First} has a hand near a weapon and wants you to see it.",
        "{First} smiles, and it is not friendly.",
        "{First} edges closer when you are not looking.",
        "{First} is waiting for something, and it may be you.",
    ],
}
LISTENS = {  # the player talks to them
    "friendly": [
        "{First} leans in, glad of the company.",
        "{First} hears you out with an easy patience.",
        "{First} answers before you have quite finished asking.",
        "{First} gives you {their} whole attention.",
        "{First} talks to you like someone on {their} side.",
    ],
    "neutral": [
        "{First} hears you out without giving much away.",
        "{First} answers in as few words as will do.",
        "{First} thinks before answering, then answers carefully.",
        "{First} listens with half an ear.",
        "{First} weighs you up while you talk.",
    ],
    "wary": [
        "{First} answers, but keeps it short and keeps looking past you.",
        "{First} weighs every word before letting it go.",
        "{First} does not like the questions and does not hide it.",
        "{First} talks to you the way people talk to a tax man.",
        "{First} keeps {their} answers short.",
    ],
    "hostile": [
        "{First} answers with a look that says the talking is nearly over.",
        "{First} talks, but only just.",
        "{First} lets the silence go on long enough to be a threat.",
    ],
}
REACTS = {  # a social action aimed at them, by action and whether it came off
    ("PERSUADE", True): [
        "{First} gives way, slowly, like someone who wanted to.",
        "{First} lets out a breath and nods.",
        "Something in {first}'s face eases.",
        "{First} hears the sense in it.",
    ],
    ("PERSUADE", False): [
        "{First} shakes {their} head.",
        "{First} is not moved, and says so plainly.",
        "{First} hears you out, and it changes nothing.",
        "{First} has heard that sort of thing before.",
    ],
    ("DECEIVE", True): [
        "{First} takes it at face value.",
        "{First} believes you, or wants to.",
        "{First} nods along with the story.",
    ],
    ("DECEIVE", False): [
        "{First} looks at you for a long moment, unconvinced.",
        "{First} is not taken in for a second.",
        "{First}'s mouth twitches; the story is not selling.",
    ],
    ("INTIMIDATE", True): [
        "{First} backs down, and does not like it.",
        "{First} gives ground, eyes on yours.",
        "Some of the colour leaves {first}'s face.",
    ],
    ("INTIMIDATE", False): [
        "{First} does not scare, and the threat hangs there looking foolish.",
        "{First} laughs, short and unfriendly.",
        "{First} squares up instead of backing off.",
    ],
    ("RECRUIT", True): ["{First} shakes on it.", "{First} picks up {their} things without another word."],
    ("RECRUIT", False): ["{First} is not ready to commit.", "{First} wants to think about it."],
    ("GIVE", True): [
        "{First} makes it disappear somewhere about {their} person.",
        "{First} looks at you a little differently after that.",
        "{First} will remember it, one way or another.",
    ],
    ("ATTACK", True): [
        "{First} reels back.",
        "{First} grunts and gives ground.",
        "{First} staggers but keeps {their} feet.",
        "{First} clutches at the hurt and glares.",
    ],
    ("ATTACK", False): [
        "{First} sees it coming.",
        "{First} is quicker than you expected.",
        "{First} sidesteps with room to spare.",
        "{First} laughs at the attempt.",
    ],
}
SAYS = {
    "friendly": [
        '{First} says, "{line}"',
        '"{line}" {first} tells you.',
        '{First} laughs: "{line}"',
        '"{line}" {first} says with a shrug.',
    ],
    "neutral": [
        '{First} says, "{line}"',
        '"{line}" {first} tells you.',
        '{First} says, not unkindly, "{line}"',
        '"{line}" {first} says.',
    ],
    "wary": [
        '{First} says, quietly, "{line}"',
        '"{line}" {first} tells you, keeping {their} voice down.',
        '{First} says, "{line}"',
        '"{line}" {first} says, flat.',
    ],
    "hostile": ['{First} says, "{line}"', '"{line}" {first} says, and means it.', '{First} spits and says, "{line}"'],
}
OVERHEARD = [
    'You catch {first} saying to someone else, "{line}"',
    '{First} is telling somebody, "{line}"',
    'Across the way, {first} says, "{line}"',
]

# what someone says about the player to somebody else, within earshot: the player's pronouns ({subj}, {obj}, {poss},
# {be}, {have}); {player} is their name, {first} the speaker's, {their} the speaker's possessive
ASIDES = [
    'You catch {first} muttering to someone nearby, "That one? {Subj} {be} not from round here. Watch {obj}."',
    '{First} tips {their} head your way and says to a neighbour, "{Subj} {have} been asking questions all {day}."',
    'Behind you, {first} says to somebody, "Leave {obj} be. {Subj} will come to us soon enough."',
    'You hear {first} ask someone, not quietly enough, whether {poss} business is any of theirs.',
]

COMPANION_LIKES = [
    "{comp} gives you an approving look.",
    "{comp} nods, as if you had passed some test.",
    "{comp} seems to like that.",
    "That earns you a grin from {comp}.",
    "{comp} looks pleased with you.",
    "{comp} claps you on the shoulder.",
    "You catch {comp} smiling.",
    "{comp} mutters something approving.",
    "{comp} seems glad to be along for this.",
    "{comp} makes a small sound of approval.",
    "{comp} seems to think better of you for it.",
]
COMPANION_DISLIKES = [
    "{comp} says nothing, which says plenty.",
    "{comp} looks away, jaw tight.",
    "{comp} does not like that, and does not pretend to.",
    "{comp} mutters something you do not catch.",
    "That costs you something with {comp}.",
]
COMPANION_NEAR = [
    "{comp} keeps close.",
    "{comp} is at your shoulder.",
    "{comp} watches your back without being asked.",
    "{comp} is never more than a step behind you.",
    "{comp} takes in the place with a practised eye.",
    "{comp} hums something tuneless.",
    "{comp} yawns hugely and pretends not to.",
    "{comp} keeps glancing at the way out.",
]
TENSION = [
    "There is a strain in your company that nobody is mentioning.",
    "Your companions are not quite speaking to each other.",
    "The mood among your company is brittle.",
]

# ------------------------------------------------------------------ what the turn changed

HURT = [
    "That costs you {n} HP.",
    "You lose {n} HP to it.",
    "{n} HP gone, just like that.",
    "It takes {n} HP out of you.",
    "You are {n} HP the worse for it.",
]
HURT_TOLD = [
    "It hurts more than you let on.",
    "You feel that one in your bones.",
    "You will be feeling that tomorrow.",
    "You bite down on the pain.",
    "Your breath goes short for a moment.",
    "You taste blood.",
    "Your ears ring with it.",
    "Pain blooms where it hit, hot and then cold.",
    "You stagger, and catch yourself.",
    "For a moment everything goes white at the edges.",
    "Something tears, and you hope it is only cloth.",
    "You hear yourself grunt with the pain.",
    "Your knees want to fold, and you do not let them.",
]
HP_LEFT = [
    "You have {hp} HP left.",
    "That leaves you {hp} HP.",
    "You are down to {hp} of {max} HP.",
    "You are at {hp} HP now.",
    "{hp} HP left in you, by your own count.",
    "You are running on {hp} HP.",
]
HP_BACK = ["That puts you at {hp} of {max} HP.", "You are back up to {hp} HP.", "You are at {hp} HP now."]
LOW_HP = [
    "You are hurt now, and you can feel it in every move.",
    "Your body is running on very little.",
    "You are in a bad way, and anyone can see it.",
    "You are not sure how much more of this you can take.",
]
PATCHED = [
    "{comp} patches you up: {n} HP back.",
    "{comp} sees to your hurts; you get {n} HP back.",
    "{comp} binds what needs binding, and you are {n} HP better for it.",
    "{comp} pulls you aside and cleans you up: {n} HP back.",
    "{comp} will not hear a word until you have been seen to; {n} HP back.",
    "With {comp}'s rough care you get {n} HP back.",
]
HEALED = ["You get {n} HP back.", "That is {n} HP back.", "It gives you back {n} HP."]
GOT_ITEM = [
    "You now carry {an_item}.",
    "{An_item} goes into your pack.",
    "You stow {an_item} away.",
    "{An_item} is yours now.",
]
GOT_ITEMS = [  # more than one of a thing: "2 smoked eels"
    "You now carry {an_item}.",
    "{An_item} go into your pack.",
    "You stow {an_item} away.",
    "{An_item} are yours now.",
]
LOST_ITEM = ["The {item} is gone from your pack.", "You no longer have the {item}.", "The {item} is no longer yours."]
GAINED = [
    "You come away {money} richer.",
    "Your purse is {money} heavier.",
    "That is {money} more to your name.",
    "{Money} more in your purse.",
]
SPENT = ["It costs you {money}.", "Your purse is {money} lighter.", "That is {money} gone.", "You are {money} poorer."]
RUMOR = ["You hear talk: {text}", "Word reaches you: {text}", "Somebody lets it slip: {text}", "The talk here: {text}"]
RUMOR_FROM = [
    "{First} passes something on: {text}",
    "{First} lowers {their} voice: {text}",
    "{First} tells you: {text}",
]
NEWS = [
    "Word travels fast: {text}",
    "News comes in: {text}",
    "People are talking about it: {text}",
    "The word going round: {text}",
]
JOINS = ["{comp} is with you now.", "{comp} falls in beside you.", "You have {comp} at your side from here on."]
LEAVES = ["{comp} has had enough and walks away.", "{comp} leaves without looking back."]
QUEST_OFFER = [
    "A job comes your way: {text}",
    "There is work in it for you: {text}",
    "Someone has a job for you: {text}",
]
QUEST_ASK = ["Say yes and {title} is yours.", "{Title} is yours if you say yes.", "Say the word and {title} is yours.",
             "A yes would make {title} your business.", "{Title} waits on your yes."]
QUEST_NEXT = ["Next: {text}", "What comes next: {text}", "The next step is plain enough: {text}"]
QUEST_DONE = ["That settles {title}.", "{Title} is done.", "That is the end of {title}."]
FIGHT_ON = [
    "There is no taking it back now: this is a fight.",
    "It is a fight now, whatever it was before.",
    "Everyone near gives the two of you room.",
    "And that is how the fight starts.",
]
ENEMY_ACTS = [
    "{First} circles, looking for an opening.",
    "{First} breathes hard and keeps {their} guard up.",
    "{First} feints, watching how you react.",
    "{First} shifts {their} weight, ready to go again.",
    "{First} spits and comes on.",
    "{First} keeps just out of reach.",
    "{First} is hurting and angry about it.",
    "{First} watches your feet, not your face.",
    "{First} wipes {their} mouth with the back of a hand.",
    "{First} tries to get between you and the way out.",
    "{First} says something under {their} breath.",
    "{First} comes in low and fast, then backs off again.",
    "{First} is tiring, but so are you.",
    "{First} grins as if this is the best part of the day.",
    "{First} rolls {their} shoulders and waits.",
    "{First} is breathing through {their} teeth now.",
]
ENEMY_APPEARS = [
    "{Enemy} comes at you.",
    "{Enemy} will not wait.",
    "There is no avoiding {enemy} now.",
    "Suddenly there is {enemy} to deal with.",
]
IN_FIGHT = [
    "{Enemy} will not let up.",
    "There is no shaking {enemy} off.",
    "You keep your eyes on {enemy}.",
    "{Enemy} gives you no room to breathe.",
    "The fight with {enemy} is not over.",
    "Everything narrows down to you and {enemy}.",
    "You can hear your own heartbeat over {enemy}.",
    "Your world is the few paces between you and {enemy}.",
    "You would give a great deal to be anywhere but near {enemy}.",
    "You watch {enemy} and try to guess what comes next.",
    "Nothing about {enemy} says this will end soon.",
    "You keep moving, because standing still near {enemy} is worse.",
    "Your hands are slick and your breath is short, and {enemy} is still there.",
    "You look for a way out and do not like any of them.",
    "Every second with {enemy} lasts too long.",
    "You have stopped thinking about anything but {enemy}.",
]
ENEMY_WEAK = ["{Enemy} is slowing down.", "{Enemy} will not last much longer.", "You have {enemy} on the back foot."]
WON = [
    "The quiet afterwards rings in your ears.",
    "You stand there a while, waiting for your hands to stop shaking.",
    "It is over, and your body takes a moment to believe it.",
    "You count your fingers out of habit; they are all there.",
    "The fight drains out of you all at once.",
]
FLED = [
    "You do not look back for a long while.",
    "Your heart does not slow until long after.",
    "You keep moving until the danger is well behind you.",
]
DOWN = [
    "Your legs give out and the world goes dark.",
    "The ground comes up to meet you, and then nothing.",
    "Everything goes grey at the edges, then black.",
]
REPUTATION_UP = ["{Faction} will hear of it, and kindly.", "That will do you no harm with {faction}."]
REPUTATION_DOWN = ["{Faction} will not forget it.", "Word of it will reach {faction}, and not kindly."]
STRESS_UP = [
    "Your nerves are wearing thin.",
    "Your hands are not quite steady.",
    "Your jaw is tight and will not loosen.",
]
STRESS_DOWN = [
    "Some of the tightness goes out of your shoulders.",
    "You breathe a little easier.",
    "Your head clears a little.",
]

MOODS = {
    "SETUP": [
        "Something here is waiting to begin.",
        "You sense threads you have not yet pulled.",
        "Nothing has started yet, but something will.",
        "You are still learning the shape of things.",
    ],
    "RISING": [
        "The pressure is building, and everyone feels it.",
        "Things are moving faster than they were.",
        "People are choosing sides, quietly.",
        "There is more going on than anyone admits.",
    ],
    "CLIMAX": [
        "This is the edge of it; what you do now will count.",
        "Everything is coming to a head.",
        "There is no more waiting to see.",
        "It is all close now, very close.",
    ],
    "RESOLUTION": [
        "The dust is starting to settle.",
        "For a moment the world lets you breathe.",
        "Things are quieter than they have been in a while.",
        "What is done is done, for now.",
    ],
}
FILLER = [
    "You take stock of {place}.",
    "You let a breath go.",
    "You keep your wits about you.",
    "You take a moment to think.",
    "You roll your shoulders and look about.",
    "You stay alert.",
]

EPISODE_ENDS = {  # the last line of an episode's last turn, by what ended it
    "turn_limit": ["For now, that is as far as this story goes.", "The hour for this business has run out.",
                   "Whatever was left undone will have to wait for another day."],
    "beat_complete": ["Something has turned, and it will not turn back.", "That is the end of this part of the story.",
                      "What started this is settled, one way or another."],
    "objective_met": ["What you set out to do is done.", "That is the job done, and everyone who matters knows it.",
                      "You got what you came for."],
    "player_end": ["You let this part of the story rest here."],
    "abandoned": ["That story has gone quiet; the world has moved past it."],
}

WANTS = {  # what someone on stage wants (the Director's brief), by how they feel about the player; {wants} reads
    # after "wants": "the tab paid before the whistle", "to know who sent you"
    "friendly": [
        "It is no secret what {first} is after: {wants}.",
        "What {first} wants is {wants}, and {their} look says you might be the one to help.",
        "{First} wants {wants}, and does not hide it from you.",
    ],
    "neutral": [
        "What {first} wants is plain enough: {wants}.",
        "{First} wants {wants}, and makes no show of it.",
        "{First} keeps coming back to the one thing: {wants}.",
    ],
    "wary": [
        "{First} wants {wants}, and is not sure you are the one to give it.",
        "What {first} wants is {wants}; whether you fit into that, {first} has not decided.",
        "{First} wants {wants}, and keeps you at arm's length while {their} mind is on it.",
    ],
    "hostile": [
        "{First} wants {wants}, and would rather you were not here for it.",
        "What {first} wants is {wants}, and you are in the way of it.",
        "{First} wants {wants}, and looks at you like an obstacle.",
    ],
}
