// Skald's play page: a client of the HTTP API on the same server (see docs/play.md). Plain JavaScript, no build.
// Every campaign this browser holds a token for lives in localStorage under "skald.campaigns" (id, token, and what
// the start screen shows of it), never in the URL; each tab's own campaign is in its sessionStorage ("skald.current"),
// so a reload keeps a tab on its campaign whatever another tab started.
"use strict";

const STORE = "skald.campaigns";
const OLD_STORE = "skald.campaign";  // one campaign, as pages before the list kept it: moved into the list
const CURRENT = "skald.current";
const $ = (id) => document.getElementById(id);
const NODE_WORDS = {
  router: "reading your move", mechanic: "rolling the check", encounter: "seeing who is about",
  world_sim: "the world moves on", companion: "your companions react", arc_planner: "the story turns",
  episode: "the episode", director: "setting the scene", scene: "the people talk", character: "someone answers",
  narrator: "telling it", validator: "checking the telling", refiner: "what next", evaluator: "how it went",
  commit: "saving", meta: "looking it up", timeline: "moving through time",
};

const game = { id: null, token: null, turn: 0, busy: false, offer: [], firstShown: null, packs: [], setup: null };

// ------------------------------------------------------------------------------------------------ API

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.detail ? String(body.detail) : `the server answered ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

// A request to the API with the campaign's token: the decoded JSON answer, or with another `accept` (the map's
// "image/svg+xml") the answer's text. An error answer (JSON) throws an ApiError.
async function api(method, path, body, accept = "application/json") {
  const headers = { "Accept": accept, "Skald-Words": "page" };  // replies name the page's buttons (skald.words)
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (game.token) headers["Authorization"] = `Bearer ${game.token}`;
  let reply;
  try {
    reply = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, { detail: "The server did not answer: is `skald serve` still running?" });
  }
  if (reply.status === 204) return null;
  if (reply.ok && accept !== "application/json") return reply.text();
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) throw new ApiError(reply.status, data);
  return data;
}

// Server-Sent Events over a POST body: fetch and read the stream, one event per blank-line-separated block.
async function streamTurn(input, onEvent) {
  const headers = { "Content-Type": "application/json", "Accept": "text/event-stream",
                    "Authorization": `Bearer ${game.token}`, "Skald-Words": "page" };
  let reply;
  try {
    reply = await fetch(`/campaigns/${encodeURIComponent(game.id)}/turns/stream`, {
      method: "POST", headers, body: JSON.stringify({ input, expected_turn: game.turn }) });
  } catch (err) {
    throw new ApiError(0, { detail: "The server did not answer: is `skald serve` still running?" });
  }
  if (!reply.ok) throw new ApiError(reply.status, await reply.json().catch(() => ({})));
  const reader = reply.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let kind = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(kind, JSON.parse(data.join("\n")));
    }
  }
}

// ------------------------------------------------------------------------------------------------ notices

let retryAction = null;

function notify(message, retry) {
  $("notice-text").textContent = message;
  retryAction = retry || null;
  $("notice-retry").hidden = !retry;
  $("notice").hidden = false;
}

function explain(err) {
  if (err.status === 409) {
    return "This campaign moved on elsewhere (another tab or player played a turn, or one is being played). " +
           "Its latest state is shown now; play your move again if it still makes sense.";
  }
  if (err.status === 401 || err.status === 404) return "This campaign is not available any more.";
  if (err.status === 422) return `That cannot be played: ${err.message}`;
  if (err.status === 0) return err.message;
  return `Something went wrong: ${err.message}`;
}

// ------------------------------------------------------------------------------------------------ start

async function showStart() {
  $("game").hidden = true;
  $("leave").hidden = true;
  $("offline").hidden = true;  // the game's label: no game is shown
  $("start").hidden = false;
  if (!game.packs.length) {
    try {
      game.packs = await api("GET", "/packs");
    } catch (err) {
      notify(explain(err), showStart);
      return;
    }
    const select = $("pack");
    select.textContent = "";
    for (const pack of game.packs) select.append(new Option(`${pack.name} (${pack.era})`, pack.id));
    showBackgrounds();
  }
  showCampaigns();
  $("pack").focus();
}

function showBackgrounds() {
  const pack = game.packs.find((p) => p.id === $("pack").value);
  const select = $("background");
  select.textContent = "";
  if (!pack) return;
  $("pack-about").textContent = pack.tone || "";
  for (const bg of pack.backgrounds) select.append(new Option(bg.name, bg.id));
  showBackgroundAbout();
}

function showBackgroundAbout() {
  const pack = game.packs.find((p) => p.id === $("pack").value);
  const bg = pack && pack.backgrounds.find((b) => b.id === $("background").value);
  $("background-about").textContent = bg ? bg.description : "";
}

async function startCampaign(event) {
  event.preventDefault();
  $("start-button").disabled = true;
  try {
    const seed = $("seed").value.trim();
    const made = await api("POST", "/campaigns", {
      pack: $("pack").value, background: $("background").value || null, name: $("name").value.trim() || "Wren",
      seed: seed ? Number(seed) : null });
    begin(made);
  } catch (err) {
    notify(explain(err), () => $("new-form").requestSubmit());
  } finally {
    $("start-button").disabled = false;
  }
}

function begin(made) {
  remember(made.campaign_id, made.token, { name: made.state.name, pack: made.state.pack });
  enterGame(made.scene);
}

function packName(id) {
  const pack = game.packs.find((p) => p.id === id);
  return pack ? pack.name : id;
}

// The campaigns this browser holds (most recently played first), the old single entry moved in.
function campaigns() {
  let list;
  try { list = JSON.parse(localStorage.getItem(STORE) || "[]"); } catch (err) { list = []; }
  if (!Array.isArray(list)) list = [];
  let old = null;
  try { old = JSON.parse(localStorage.getItem(OLD_STORE) || "null"); } catch (err) { old = null; }
  if (old && old.id && old.token && !list.some((c) => c.id === old.id)) {
    list.push({ id: old.id, token: old.token, played: 0 });
    localStorage.setItem(STORE, JSON.stringify(list));
  }
  localStorage.removeItem(OLD_STORE);
  return list.filter((c) => c && c.id && c.token).sort((a, b) => (b.played || 0) - (a.played || 0));
}

// This tab plays campaign `id` now; `about` (name, pack, place, turn) updates what the start screen says of it.
function remember(id, token, about = {}) {
  game.id = id;
  game.token = token;
  sessionStorage.setItem(CURRENT, id);
  note(id, { token, ...about });
}

function note(id, about) {
  const list = campaigns();
  const held = list.find((c) => c.id === id);
  const entry = Object.assign(held || { id }, about, { played: Date.now() });
  if (!held) list.push(entry);
  localStorage.setItem(STORE, JSON.stringify(list));
}

function forget(id) {
  localStorage.setItem(STORE, JSON.stringify(campaigns().filter((c) => c.id !== id)));
  if (sessionStorage.getItem(CURRENT) === id) sessionStorage.removeItem(CURRENT);
}

// The start screen's list: each campaign with where it stands, to resume or forget (with a confirmation).
function showCampaigns() {
  const list = campaigns();
  $("mine").hidden = list.length === 0;
  const box = $("my-campaigns");
  box.textContent = "";
  for (const c of list) {
    const li = document.createElement("li");
    const text = document.createElement("span");
    const who = c.name ? `${c.name}${c.pack ? `, ${packName(c.pack)}` : ""}` : "A campaign";
    const turns = c.turn === undefined ? null : c.turn === 0 ? "not played yet" : `turn ${c.turn}`;
    const where = [c.place, turns].filter(Boolean).join(", ");
    const when = c.played ? `last played ${new Date(c.played).toLocaleString([], { dateStyle: "medium",
                                                                                   timeStyle: "short" })}` : "";
    text.textContent = [who, where, when].filter(Boolean).join(" · ");
    li.append(text,
      branchButton("Resume", `Resume ${who}`, () => resumeCampaign(c)),
      branchButton("Forget", `Forget ${who}`, () => {
        if (!window.confirm(`Forget ${who} in this browser? The campaign stays saved on the server, but this page `
                            + "will not be able to open it again.")) return;
        forget(c.id);
        showCampaigns();
      }));
    box.append(li);
  }
}

async function resumeCampaign(c) {
  remember(c.id, c.token);
  try {
    enterGame(await api("GET", `/campaigns/${encodeURIComponent(c.id)}/scene`));
  } catch (err) {
    if (err.status === 401 || err.status === 404) {
      forget(c.id);
      game.id = game.token = null;
      notify("That campaign is not on this server any more, so this browser forgot it.");
      return showStart();
    }
    notify(explain(err), () => resumeCampaign(c));
  }
}

// Guided creation, as a form-like conversation: one question at a time, choices as buttons (free text only where the
// question takes it), readable labels, the answers so far above; Finish once the required answers exist. With a
// model, a conversation with the setup role instead. The ordinary start form steps aside meanwhile.
async function startSetup() {
  $("setup").hidden = false;
  $("new").hidden = $("mine").hidden = true;
  $("guided").hidden = true;
  $("guide-title").textContent = `Your character in ${packName($("pack").value)}`;
  $("guide-about").textContent = "One question at a time. Back returns to the start without making anything.";
  $("setup-log").textContent = "";
  $("setup-error").textContent = "";
  try {
    const reply = await api("POST", "/campaigns/setup", { pack: $("pack").value });
    game.setup = reply.setup_id;
    showSetup(reply);
  } catch (err) {
    notify(explain(err), startSetup);
  }
}

const GUIDE = { title: "", about: "" };  // the start screen's words for the guide, put back on leaving it

function leaveSetup() {
  game.setup = null;
  $("guide-title").textContent = GUIDE.title;
  $("guide-about").textContent = GUIDE.about;
  $("setup").hidden = true;
  $("guided").hidden = false;
  $("new").hidden = false;
  showCampaigns();
}

function showSetup(reply) {
  game.setupAsked = reply.question;
  $("setup-error").textContent = "";
  const q = reply.question;
  if (reply.mode === "model") {
    if (reply.reply) addSetupLine("guide", reply.reply);
    $("setup-question").hidden = true;
    $("setup-form").hidden = false;
    $("setup-input-label").textContent = "Tell the guide about your character";
  } else if (q) {
    $("setup-question").hidden = false;
    $("setup-asked").textContent = q.text + (q.required ? "" : " (you may leave this to the suggestion)");
    const box = $("setup-choices");
    box.textContent = "";
    q.choices.forEach((choice, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = choice.label === q.default_label ? "suggested" : "";
      button.textContent = choice.label;
      if (choice.label === q.default_label) button.append(" (suggested)");
      if (choice.about) {
        const about = document.createElement("span");
        about.className = "about";
        about.textContent = choice.about;
        button.append(about);
      }
      button.addEventListener("click", () => answerSetup(String(i + 1), choice.label));
      box.append(button);
    });
    $("setup-form").hidden = !q.free_text;
    $("setup-input-label").textContent = q.choices.length ? "Or in your own words" : "Your answer";
    $("setup-input").placeholder = `empty: ${q.default_label}`;
  } else {
    $("setup-question").hidden = true;
    $("setup-form").hidden = true;
    addSetupLine("guide", "That is everything: finish and play.");
  }
  $("setup-finish").hidden = !reply.can_finish;
  $("setup-finish").textContent = reply.mode === "questions" && q ? "Finish and play (the rest as suggested)"
    : "Finish and play";
  // focus the question, never a choice: a key typed there must not answer it (Space and Enter press a button)
  if ($("setup-form").hidden || reply.mode !== "questions") $("setup-asked").focus();
  else $("setup-input").focus();
}

function addSetupLine(who, text, asked) {
  const item = document.createElement("li");
  item.className = who;
  if (asked) {
    const q = document.createElement("span");
    q.className = "asked";
    q.textContent = `${asked} `;
    const a = document.createElement("strong");
    a.textContent = text;
    item.append(q, a);
  } else {
    item.textContent = text;
  }
  $("setup-log").append(item);
}

// An answer: a choice's number (shown as its label) or typed words; empty takes the suggestion.
async function answerSetup(text, shown) {
  const q = game.setupAsked;
  if (game.answering) return;  // one answer at a time: a second click or key waits for the first
  game.answering = true;
  for (const b of $("setup-choices").querySelectorAll("button")) b.disabled = true;
  try {
    const reply = await api("POST", `/setup/${encodeURIComponent(game.setup)}/messages`, { text });
    if (q) addSetupLine("answer", shown || text || q.default_label, q.text);
    else addSetupLine("you", text);
    showSetup(reply);
  } catch (err) {
    if (err.status === 422) $("setup-error").textContent = err.message;
    else notify(explain(err));
    for (const b of $("setup-choices").querySelectorAll("button")) b.disabled = false;
  } finally {
    game.answering = false;
  }
}

async function sendSetup(event) {
  event.preventDefault();
  const text = $("setup-input").value.trim();
  $("setup-input").value = "";
  await answerSetup(text, text);
}

async function finishSetup() {
  try {
    begin(await api("POST", `/setup/${encodeURIComponent(game.setup)}/finish`, {}));
    leaveSetup();
  } catch (err) {
    notify(explain(err), finishSetup);
  }
}

// ------------------------------------------------------------------------------------------------ the game

function enterGame(scene) {
  $("start").hidden = true;
  $("game").hidden = false;
  $("leave").hidden = false;
  $("log").textContent = "";
  $("new-turn").hidden = true;
  game.turn = scene.turn_number;
  game.firstShown = scene.turn_number + 1;  // the turns before it load on demand, the last one at once (below)
  $("offline").hidden = !scene.offline;
  addEntry(scene.turn_number ? "Where you are" : "The story begins", scene.text);
  showOffer(scene.suggestions);
  $("earlier").hidden = scene.turn_number === 0;
  note(game.id, { place: scene.state.location_name, turn: scene.turn_number });
  game.episode = scene.episode;
  setBusy(false);
  refreshPanels();
  $("input").focus({ preventScroll: true });
  if (scene.turn_number) {  // a reload shows the last turn's text, not only where you are, and lands at the box
    earlier(1).then(() => bringIntoView($("log").lastElementChild));
  }  // (at the start, addEntry above has brought the only entry into view)
}

// On load: this tab's campaign, else the one played last, else the start screen.
async function resume() {
  const list = campaigns();
  const mine = sessionStorage.getItem(CURRENT);
  const saved = list.find((c) => c.id === mine) || list[0];
  if (!saved) return showStart();
  return resumeCampaign(saved);
}

function addEntry(heading, text, extra) {
  const item = document.createElement("li");
  item.className = "entry";
  const head = document.createElement("p");
  head.className = "said";
  head.textContent = heading;
  const body = document.createElement("div");
  body.className = "narration";
  body.setAttribute("aria-live", "polite");
  setText(body, text);
  item.append(head, body);
  if (extra) item.append(extra);
  const follow = following();
  $("log").append(item);
  if (follow) bringIntoView(item); else $("new-turn").hidden = false;
  return body;
}

// Follow the turn: the newest entry's start, the suggestions and the box in view, unless the player has scrolled
// up to read; then a "New turn" button brings them back.
function following() {
  const form = $("turn-form").getBoundingClientRect();
  return $("log").children.length === 0 || (form.top < window.innerHeight && form.bottom > 0);
}

function bringIntoView(item) {
  const top = item.getBoundingClientRect().top + window.scrollY - 8;
  const formBottom = $("turn-form").getBoundingClientRect().bottom + window.scrollY + 8;
  window.scrollTo({ top: Math.max(0, Math.min(top, formBottom - window.innerHeight)), behavior: "instant" });
  $("new-turn").hidden = true;
}

function setText(node, text) {
  node.textContent = "";
  for (const para of String(text || "").split(/\n{2,}/)) {
    const p = document.createElement("p");
    p.textContent = para;
    node.append(p);
  }
}

function showOffer(suggestions) {
  game.offer = suggestions || [];
  const box = $("suggestions");
  box.textContent = "";
  game.offer.forEach((s, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `suggestion tone-${s.tone}`;
    button.dataset.key = String(i + 1);
    button.textContent = `${i + 1}. ${s.label}`;
    const cost = suggestionCost(s);
    const meta = document.createElement("span");
    meta.className = "cost";
    meta.textContent = cost;
    button.append(meta);
    button.setAttribute("aria-label", `${i + 1}. ${s.label}. ${cost}`);
    button.title = `${s.tone.toLowerCase()}: ${cost}`;
    button.addEventListener("click", () => play(String(i + 1), s.label));
    box.append(button);
  });
}

// What a suggestion costs, in words: "10 min · risky · presence" (the label already says a route's minutes).
function suggestionCost(s) {
  const time = s.minutes === null || s.minutes === undefined || /\(\d+ min\)/.test(s.label) ? null
    : s.minutes >= 60 ? `${Math.round(s.minutes / 6) / 10} h` : `${s.minutes} min`;
  return [time, String(s.risk).toLowerCase(), s.stat].filter(Boolean).join(" · ");
}

function setBusy(busy) {
  game.busy = busy;
  for (const b of document.querySelectorAll("#suggestions button, #play, #undo, #redo, #retry, #fork, #leave, "
                                            + "#branches button, #next-episode, .next-episode, #commands")) {  // nothing that cannot act mid-turn
    b.disabled = busy;
  }
  for (const id of ["undo", "retry"]) $(id).disabled = busy || game.turn === 0;  // nothing to undo at the start
}

// Honest progress: after SLOW_MS with nothing new from the server, say so, and offer to keep waiting or to stop the
// turn (POST .../cancel: it ends before anything is saved, unless it is already being saved).
const SLOW_MS = 5000;
let quiet = null;
let stopping = false;
function waiting() {
  clearTimeout(quiet);
  if (stopping) return;
  quiet = setTimeout(() => {
    $("progress").textContent = "Still waiting: nothing new for 5 seconds, so the server or the model is slow. Keep "
      + "waiting, and the turn shows here when it is done, or stop it: nothing of it is saved.";
    $("slow").hidden = false;
  }, SLOW_MS);
}

async function stopTurn() {
  $("slow").hidden = true;
  stopping = true;
  clearTimeout(quiet);
  $("progress").textContent = "Stopping the turn: it ends before anything is saved…";
  try {
    const reply = await api("POST", `/campaigns/${encodeURIComponent(game.id)}/cancel`);
    if (reply.state === "too_late") {
      $("progress").textContent = "Too late to stop: the turn is being saved, and shows here in a moment.";
    }
  } catch (err) {
    notify(explain(err));
  }
}

class Stopped extends Error {}

async function play(input, shown, typed = false) {
  if (game.busy || !input.trim()) return;
  setBusy(true);
  if (typed && $("input").value.trim() === input.trim()) $("input").value = "";  // sent: what is typed next is kept
  hint("");
  $("notice").hidden = true;
  const body = addEntry(`> ${shown || input}`, "");
  body.setAttribute("aria-busy", "true");
  let streamed = "";
  let final = null;
  waiting();
  try {
    await streamTurn(input, (kind, data) => {
      waiting();  // something came: the quiet starts over
      // a turn being stopped keeps saying so: a stage that reports after the click does not take its words back
      if (kind === "progress") { if (!stopping) $("progress").textContent = `${NODE_WORDS[data.node] || data.node}…`; }
      else if (kind === "token") {  // the narration is arriving: that is the stage running, whatever came before
        if (!streamed && !stopping) $("progress").textContent = `${NODE_WORDS.narrator}…`;
        streamed += data.text;
        setText(body, streamed);
      }
      else if (kind === "replace") { streamed = data.text; setText(body, streamed); }
      else if (kind === "turn") final = data;
      else if (kind === "cancelled") throw new Stopped(data.detail);
      else if (kind === "error") throw new ApiError(data.status, data);
    });
    if (!final) throw new ApiError(500, { detail: "the turn ended without a result" });
    finishTurn(body, final);
  } catch (err) {
    body.closest("li").remove();
    if (typed && !$("input").value) $("input").value = input;  // not played: the words are back in the box
    if (err instanceof Stopped) {
      hint(typed ? "Stopped: nothing was played, and your words are back in the box." : "Stopped: nothing was played.");
    } else {
      notify(explain(err), err.status === 409 ? null : () => play(input, shown));
      if (err.status === 409) await catchUp();
    }
  } finally {
    clearTimeout(quiet);
    stopping = false;
    $("slow").hidden = true;
    body.setAttribute("aria-busy", "false");
    $("progress").textContent = "";
    setBusy(false);
    $("input").focus({ preventScroll: true });  // where the page shows the turn is bringIntoView's to say
  }
}

function finishTurn(body, turn) {
  setText(body, turn.text);
  body.classList.toggle("command-output", turn.intent === "META");  // /help, /journal, /episode keep their lines
  const item = body.closest("li");
  if (turn.mechanic && turn.mechanic.roll !== null) {
    const check = document.createElement("p");
    check.className = "check";
    const m = turn.mechanic;
    check.textContent = `d20 ${m.roll} → ${m.total} vs DC ${m.dc}: ${String(m.outcome).toLowerCase().replace("_", " ")}`;
    item.append(check);
  }
  if (turn.scene && turn.scene.lines.length) item.append(sceneLines(turn.scene));
  if (turn.episode && (turn.episode.started || turn.episode.ended)) item.append(episodeCard(turn.episode));
  if (turn.warnings && turn.warnings.length) {
    const details = document.createElement("details");
    details.className = "warnings";
    const summary = document.createElement("summary");
    summary.textContent = `${turn.warnings.length} note(s) on this turn`;
    const list = document.createElement("ul");
    for (const w of turn.warnings) { const li = document.createElement("li"); li.textContent = w; list.append(li); }
    details.append(summary, list);
    item.append(details);
  }
  if (turn.offline) $("offline").hidden = false;
  for (const stale of $("log").querySelectorAll(".episode-card .next-episode")) {  // only the newest result's
    if (!item.contains(stale)) stale.remove();
  }
  game.turn = turn.turn_number;
  game.episode = turn.episode && !turn.episode.ended ? turn.episode : null;
  if (turn.state) note(game.id, { place: turn.state.location_name, turn: turn.turn_number });
  $("branch").textContent = turn.branch && turn.branch !== "main" ? `branch ${turn.branch}` : "";
  showOffer(turn.suggestions);
  refreshPanels(turn.state);
  if ($("new-turn").hidden) bringIntoView(item);  // following: the whole turn, now that it is told
}

// A multi-character scene's lines this turn, by speaker (folded: the narration already weaves them in).
function sceneLines(scene) {
  const details = document.createElement("details");
  details.className = "scene-lines";
  const summary = document.createElement("summary");
  summary.textContent = `What was said (${scene.lines.length} line${scene.lines.length === 1 ? "" : "s"})` +
    (scene.ended ? `; the scene ended (${scene.goal_achieved ? "goal met" : scene.ended.replace("_", " ")})` : "");
  const list = document.createElement("ol");
  for (const line of scene.lines) {
    const li = document.createElement("li");
    const who = document.createElement("strong");
    who.textContent = line.speaker + (line.target ? ` to ${line.target}` : "") + ": ";
    li.append(who, document.createTextNode(line.content + (line.nonverbal ? ` (${line.nonverbal})` : "")));
    list.append(li);
  }
  details.append(summary, list);
  return details;
}

// An episode that began or ended this turn: its premise, or how it went.
function episodeCard(episode) {
  const card = document.createElement("section");
  card.className = "episode-card";
  const title = document.createElement("h3");
  const lines = [];
  const e = episode.evaluation;
  if (episode.ended && e) {
    title.textContent = `Episode ${e.number} ends: ${e.title} (${e.outcome})`;
    lines.push(e.summary, `You played it as ${e.playstyle}, over ${e.story_turns} turn${e.story_turns === 1 ? "" : "s"}.`);
    for (const m of e.key_moments.slice(0, 4)) lines.push(`Turn ${m.turn}: ${m.line}`);
    lines.push(`Next: ${e.next_hook}`);
  } else {
    title.textContent = `Episode ${episode.number} begins: ${episode.title}`;
    if (episode.premise) lines.push(episode.premise);
  }
  card.append(title);
  for (const line of lines) { const p = document.createElement("p"); p.textContent = line; card.append(p); }
  if (episode.ended && e) {
    card.append(shareLink(e.share_id));
    if (e.next_episode) {
      const next = document.createElement("button");
      next.type = "button";
      next.className = "next-episode";
      next.textContent = `Next episode: ${e.next_title || e.next_episode}`;
      next.addEventListener("click", () => play("/next", next.textContent));
      card.append(next);
    }
  }
  return card;
}

// Between episodes, a button under the story starts the one suggested next (GET .../episodes says which).
function showNextEpisode(episodes) {
  const between = !episodes.current && episodes.evaluations.length > 0;  // not before the first has begun
  if (!between) document.querySelectorAll(".episode-card .next-episode").forEach((b) => b.remove());
  const offer = between && (episodes.suggested || episodes.available[0]);
  $("next-episode").hidden = !offer;
  if (offer) {
    $("next-episode").textContent = `Next episode: ${offer.title}`;
    $("next-episode").dataset.id = offer.id;
  }
}

// "Share this result": a link anyone can open (?share=ID), no campaign or token in it.
function shareLink(shareId) {
  const p = document.createElement("p");
  const link = document.createElement("a");
  link.href = `?share=${encodeURIComponent(shareId)}`;
  link.target = "_blank";
  link.rel = "noopener";
  link.textContent = "Share this result";
  p.append(link, document.createTextNode(` (share id ${shareId}): whoever opens the link sees this result, its `
    + "summary and key moments, and nothing else of your campaign."));
  return p;
}

// A result opened by its share id (?share=ID): shown above whatever else the page shows.
async function showShared(shareId) {
  const box = $("shared");
  try {
    const e = await api("GET", `/episodes/${encodeURIComponent(shareId)}`);
    const title = document.createElement("h2");
    title.textContent = `A shared episode: ${e.title} (${e.pack}, episode ${e.number}, ${e.outcome})`;
    const lines = [e.summary, `Played as ${e.playstyle}, over ${e.story_turns} turn${e.story_turns === 1 ? "" : "s"}.`,
                   ...e.key_moments.map((m) => `Turn ${m.turn}: ${m.line}`)];
    box.replaceChildren(title, ...lines.map((line) => { const p = document.createElement("p"); p.textContent = line; return p; }));
  } catch (err) {
    box.replaceChildren(Object.assign(document.createElement("p"), {
      textContent: err.status === 404 ? "No episode result has that share id on this server." : explain(err) }));
  }
  box.hidden = false;
}

// After a 409: show where the campaign stands now.
async function catchUp() {
  try {
    const known = game.turn;
    const page = await api("GET", `/campaigns/${encodeURIComponent(game.id)}/turns?after_turn=${known}&limit=20`);
    for (const t of page.turns) {  // what was played elsewhere, then where things stand
      const body = addEntry(`Turn ${t.turn_number}, played elsewhere: > ${t.input}`, t.text);
      if (t.intent === "META") body.classList.add("command-output");
    }
    const scene = await api("GET", `/campaigns/${encodeURIComponent(game.id)}/scene`);
    game.turn = scene.turn_number;
    game.episode = scene.episode;
    addEntry("Where things stand now", scene.text);
    showOffer(scene.suggestions);
    refreshPanels();
  } catch (err) {
    notify(explain(err), catchUp);
  }
}

async function timeline(path, label) {
  if (game.busy) return;
  setBusy(true);
  try {
    const turn = await api("POST", `/campaigns/${encodeURIComponent(game.id)}/${path}`,
                           { expected_turn: game.turn });
    const body = addEntry(`> ${label}`, "");
    finishTurn(body, turn);
  } catch (err) {
    notify(err.body && err.body.reason ? err.message : explain(err));
    if (err.status === 409 && !(err.body && err.body.reason)) await catchUp();
  } finally {
    setBusy(false);
  }
}

// A new branch at the current turn (the API's POST /branches); the page then plays on it.
async function fork() {
  const asked = window.prompt("Name the new branch, e.g. bolder-plan (letters, digits, '.', '_' or '-'; spaces "
                              + "become '-'):", `branch-${game.turn}`);
  if (!asked || !asked.trim()) return;
  const name = asked.trim().replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 40);
  if (!name) {
    notify("A branch name needs at least one letter or digit.");
    return;
  }
  try {
    const turn = await api("POST", `/campaigns/${encodeURIComponent(game.id)}/branches`, { name });
    finishTurn(addEntry(`> fork ${name}`, ""), turn);
  } catch (err) {
    notify(err.body && err.body.reason ? err.message : explain(err));
  }
}

async function earlier(count = 10) {
  const before = game.firstShown;
  const after = Math.max(0, before - 1 - count);
  try {
    const page = await api("GET", `/campaigns/${encodeURIComponent(game.id)}/turns?after_turn=${after}&limit=${count}`);
    const first = $("log").firstChild;
    for (const t of page.turns.filter((x) => x.turn_number < before)) {
      const item = document.createElement("li");
      item.className = "entry old";
      const head = document.createElement("p");
      head.className = "said";
      head.textContent = `Turn ${t.turn_number}: > ${t.input}`;
      const body = document.createElement("div");
      body.className = t.intent === "META" ? "narration command-output" : "narration";
      setText(body, t.text);
      item.append(head, body);
      $("log").insertBefore(item, first);
    }
    game.firstShown = after + 1;
    $("earlier").hidden = after === 0;
  } catch (err) {
    notify(explain(err), earlier);
  }
}

// ------------------------------------------------------------------------------------------------ panels

async function refreshPanels(status) {
  const base = `/campaigns/${encodeURIComponent(game.id)}`;
  try {
    const [view, party, quests, rumors, news, inventory, map, branches, episodes, drawing] = await Promise.all([
      status ? Promise.resolve(null) : api("GET", base), api("GET", `${base}/party`), api("GET", `${base}/quests`),
      api("GET", `${base}/rumors`), api("GET", `${base}/news`), api("GET", `${base}/inventory`),
      api("GET", `${base}/map`), api("GET", `${base}/branches`), api("GET", `${base}/episodes`),
      api("GET", `${base}/map.svg`, undefined, "image/svg+xml").catch((err) => {
        if (err.status === 503) return null;  // the server cannot draw maps (no Graphviz): the places as text
        throw err;
      })]);
    showStatus(status || view);
    if (view) note(game.id, { name: view.name, pack: view.pack });
    fill("party", party, (c) => `${c.name}, ${c.role}${c.in_party ? " (with you)" : ""}: affinity ${c.affinity}`,
         "No companions yet.");
    fill("quests", quests, (q) => `${q.title} (${String(q.status).toLowerCase()}${q.objective ? `, stage ${q.stage + 1}` : ""})` +
         (q.objective ? `: ${q.objective}` : "") + (q.hint ? ` ${q.hint}` : ""), "No quests taken.");
    fill("inventory", inventory.items, (i) => `${i.name}${i.qty > 1 ? ` ×${i.qty}` : ""}`, "Nothing carried.");
    fill("rumors", rumors.known, (r) => r.text, "No rumors heard yet.");
    fill("news", news.news.slice(-3), (n) => n, "");
    drawMap(map, drawing);
    showBranches(branches, map);
    showNextEpisode(episodes);
  } catch (err) {
    if (err.status !== 409) notify(explain(err), () => refreshPanels());
  }
}

// The campaign's branches (GET .../branches): where each stands, a switch and a delete for the others; Redo shows
// when the current one has undone turns to replay.
function showBranches(branches, map) {
  const names = new Map(map.locations.map((l) => [l.id, l.name]));
  const list = $("branches");
  list.textContent = "";
  const current = branches.find((b) => b.current);
  $("redo").hidden = !current || current.tip_turn <= current.head_turn;
  for (const b of branches) {
    const li = document.createElement("li");
    const text = document.createElement("span");
    const from = b.forked_from ? `, from ${b.forked_from} at turn ${b.forked_at}` : "";
    text.textContent = `${b.name}${b.current ? " (you are here)" : ""}: turn ${b.head_turn}, ` +
                       `${names.get(b.location) || b.location}${from}`;
    li.append(text);
    if (!b.current) {
      li.append(branchButton("Switch", `Switch to branch ${b.name}`, () => switchTo(b.name)));
      if (b.name !== "main") {  // the campaign's first line stays (the command /delete-branch main can still remove it)
        li.append(branchButton("Delete", `Delete branch ${b.name}`, () => deleteBranch(b.name)));
      }
    }
    list.append(li);
  }
  if (branches.length === 1) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = "Only this line so far. \u201cStart a branch here\u201d keeps it and tries another way.";
    list.append(li);
  }
}

function branchButton(label, describe, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "quiet small";
  button.textContent = label;
  button.setAttribute("aria-label", describe);
  button.addEventListener("click", action);
  return button;
}

// Switching shows the other branch from where it stands: the story so far is that branch's (earlier turns load on
// demand), not the one the page was showing.
async function switchTo(name) {
  if (game.busy) return;
  setBusy(true);
  try {
    const turn = await api("POST", `/campaigns/${encodeURIComponent(game.id)}/branches/${encodeURIComponent(name)}/switch`);
    enterGame(await api("GET", `/campaigns/${encodeURIComponent(game.id)}/scene`));
    $("branch").textContent = turn.branch && turn.branch !== "main" ? `branch ${turn.branch}` : "";
  } catch (err) {
    notify(err.body && err.body.reason ? err.message : explain(err));
  } finally {
    setBusy(false);
  }
}

async function deleteBranch(name) {
  if (game.busy || !window.confirm(`Delete branch ${name}? Its turns that no other branch shares are gone for good.`)) {
    return;
  }
  try {
    await api("DELETE", `/campaigns/${encodeURIComponent(game.id)}/branches/${encodeURIComponent(name)}`);
    refreshPanels();
  } catch (err) {
    notify(err.body && err.body.reason ? err.message : explain(err));
  }
}

function showStatus(s) {
  const rows = [["Place", s.location_name], ["Time", `${s.time_of_day}, ${s.clock}`],
                ["Health", `${s.hp} / ${s.max_hp}${s.defeated ? " (down)" : ""}`], ["Stress", String(s.stress)],
                ["Money", s.money]];
  if (s.combat) rows.push(["Fighting", `${s.combat.enemy_name} (${s.combat.enemy_hp} HP)`]);
  const e = game.episode;
  if (e) {  // how long the running episode has left, so its end is never a surprise
    const left = e.remaining === null || e.remaining === undefined ? "no turn limit"
      : e.remaining === 0 ? "its last story turn" : `${e.remaining} story turn${e.remaining === 1 ? "" : "s"} left`;
    rows.push(["Episode", `${e.title}: ${left}`]);
  }
  const list = $("status");
  list.textContent = "";
  for (const [k, v] of rows) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v; dd.dataset.field = k.toLowerCase();
    list.append(dt, dd);
  }
}

function fill(id, items, line, empty) {
  const list = $(id);
  list.textContent = "";
  if (!items.length && empty) { const li = document.createElement("li"); li.className = "empty"; li.textContent = empty; list.append(li); }
  for (const item of items) { const li = document.createElement("li"); li.textContent = line(item); list.append(li); }
}

// The map: the server's drawing (GET .../map.svg: Graphviz's SVG, the same as `skald pack map ID --player`), its
// places the "place" elements with "current" and "visited" classes; or, when the server cannot draw it, the places
// and their ways as a list.
function drawMap(map, drawing) {
  const box = $("map");
  box.textContent = "";
  const here = map.locations.find((l) => l.current);
  const summary = `Map: you are at ${here ? here.name : "an unknown place"}; ` +
                  `${map.locations.filter((l) => l.visited).length} of ${map.locations.length} places visited`;
  const svg = drawing ? svgElement(drawing) : null;
  if (svg) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", summary);
    box.append(svg);  // drawn at its own size: the panel scrolls sideways rather than shrink the names
    centreMap();
    return;
  }
  const names = new Map(map.locations.map((l) => [l.id, l.name]));
  const list = document.createElement("ul");
  list.className = "map-list";
  list.setAttribute("aria-label", summary);
  for (const place of map.locations) {
    const ways = map.links.filter((k) => k.a === place.id || k.b === place.id).map((k) =>
      `${names.get(k.a === place.id ? k.b : k.a)} ${k.minutes} min` +
      (k.risk === "SAFE" ? "" : ` (${String(k.risk).toLowerCase()})`));
    const item = document.createElement("li");
    item.className = `place${place.current ? " current" : ""}${place.visited ? " visited" : ""}`;
    item.dataset.id = place.id;
    item.textContent = `${place.name}${place.current ? " (you are here)" : place.visited ? " (visited)" : ""}` +
                       (ways.length ? `: ${ways.join(", ")}` : "");
    list.append(item);
  }
  box.append(list);
}

// On a screen narrower than the map, scroll the map to where you are.
function centreMap() {
  const box = $("map"), spot = box.querySelector("svg g.place.current");
  if (!spot || box.scrollWidth <= box.clientWidth) return;
  const at = spot.getBoundingClientRect(), frame = box.getBoundingClientRect();
  box.scrollLeft += at.left + at.width / 2 - (frame.left + frame.width / 2);
}

// An <svg> element for this page from SVG text, or null when it is not SVG. Graphviz draws no script and no style
// attribute (the page's CSP would refuse both); scripts and foreign content are dropped all the same.
function svgElement(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.namespaceURI !== "http://www.w3.org/2000/svg" || root.localName !== "svg") return null;
  root.querySelectorAll("script, foreignObject").forEach((node) => node.remove());
  return document.importNode(root, true);
}

// ------------------------------------------------------------------------------------------------ wiring

// Under the box: what an empty Enter needs, and how close a long line is to the limit.
const LIMIT = 2000;
function hint(text) { $("input-hint").textContent = text; }

function onTyped() {
  const value = $("input").value;
  const n = value.length;
  const picked = /^[1-4]$/.test(value.trim()) ? game.offer[Number(value.trim()) - 1] : null;
  if (picked) return hint(`Enter plays suggestion ${value.trim()}: ${picked.label}. Keep typing to write your own.`);
  hint(n >= LIMIT ? `That is the most one turn takes (${LIMIT} characters); anything longer is cut.`
    : n > LIMIT * 0.75 ? `${n} / ${LIMIT} characters` : "");
}

function onKey(event) {
  if ($("game").hidden || game.busy || event.ctrlKey || event.metaKey || event.altKey) return;
  // 1-4 play a suggestion only from outside the box (in it, a digit starts a sentence: "2 drinks, please"), and
  // only while it is empty; in the box, 1-4 and Enter play it (the form's submit)
  const inField = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement && document.activeElement.tagName);
  const typing = inField || $("input").value !== "";
  if (!typing && /^[1-4]$/.test(event.key) && game.offer[Number(event.key) - 1]) {
    event.preventDefault();
    play(event.key, game.offer[Number(event.key) - 1].label);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  GUIDE.title = $("guide-title").textContent;
  GUIDE.about = $("guide-about").textContent;
  $("pack").addEventListener("change", showBackgrounds);
  $("background").addEventListener("change", showBackgroundAbout);
  $("new-form").addEventListener("submit", startCampaign);
  $("guided").addEventListener("click", startSetup);
  $("setup-form").addEventListener("submit", sendSetup);
  $("setup-finish").addEventListener("click", finishSetup);
  $("setup-back").addEventListener("click", leaveSetup);
  $("turn-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = $("input").value.trim();
    if (!typed) {
      hint("Type what you do (\"ask Hesper about the water\", \"go to Kettle Row\"), or pick one of the four "
        + "suggestions: click it, or type its number and press Enter.");
      return;
    }
    const picked = /^[1-4]$/.test(typed) ? game.offer[Number(typed) - 1] : null;  // a number plays a suggestion
    play(typed, picked ? picked.label : typed, true);
  });
  $("input").addEventListener("input", onTyped);
  $("input").addEventListener("paste", (event) => {
    const pasted = (event.clipboardData && event.clipboardData.getData("text")) || "";
    if ($("input").value.length + pasted.length > LIMIT) {
      setTimeout(() => hint(`Pasted text was cut to ${LIMIT} characters, the most one turn takes.`), 0);
    }
  });
  $("undo").addEventListener("click", () => timeline("undo", "undo"));
  $("redo").addEventListener("click", () => timeline("redo", "redo"));
  $("retry").addEventListener("click", () => timeline("retry", "retry"));
  $("fork").addEventListener("click", fork);
  $("stop-turn").addEventListener("click", stopTurn);
  $("keep-waiting").addEventListener("click", () => { $("slow").hidden = true; waiting(); });
  $("commands").addEventListener("click", () => play("/help", "Commands you can type"));  // no time passes
  $("next-episode").addEventListener("click", () => play(`/next ${$("next-episode").dataset.id}`,
                                                         $("next-episode").textContent));
  $("earlier").addEventListener("click", () => earlier());
  $("leave").addEventListener("click", () => {  // the campaign stays in the list, to resume from there
    sessionStorage.removeItem(CURRENT);
    game.id = game.token = null;
    $("log").textContent = "";
    showOffer([]);
    showStart();
  });
  $("notice-close").addEventListener("click", () => { $("notice").hidden = true; });
  $("new-turn").addEventListener("click", () => {
    const last = $("log").lastElementChild;
    if (last) bringIntoView(last);
    $("input").focus({ preventScroll: true });
  });
  window.addEventListener("scroll", () => { if (!$("new-turn").hidden && following()) $("new-turn").hidden = true; });
  $("notice-retry").addEventListener("click", () => { $("notice").hidden = true; if (retryAction) retryAction(); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", centreMap);
  const share = new URLSearchParams(window.location.search).get("share");
  if (share) showShared(share);
  resume();
});
