// The table manager's page: health, the camera, the events, and every command (PIN first).
"use strict";

const $ = (id) => document.getElementById(id);
let state = {};
let lastSeq = 0;
const MAX_EVENTS = 200;

async function signedIn() {
  const response = await fetch("/api/health", {cache: "no-store"});
  return response.ok;
}

async function signIn(event) {
  event.preventDefault();
  const response = await fetch("/login", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({pin: $("pin").value})});
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  if (!response.ok) {
    $("login-error").textContent = answer.error || `refused (${response.status})`;
    return;
  }
  $("login-error").textContent = "";
  start();
}

async function command(name, args) {
  const response = await fetch(`/api/command/${name}`, {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: args ? JSON.stringify(args) : ""});
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  const box = $("result");
  box.className = response.ok ? "ok" : "error";
  box.textContent = response.status === 200 ? `done: ${answer.accepted}` :
    (response.ok ? `queued: ${answer.accepted}` : answer.error);
  if (response.status === 401 || response.status === 403) showLogin();
}

function describe(event) {
  const who = event.player ? `${event.player} ` : "";
  switch (event.event) {
    case "play": return `${who}played ${event.tile}${event.end ? " on the " + event.end : ""}` +
                        `${event.points ? " +" + points(event.points) : ""}${event.missed ? " (entered by hand)" : ""}`;
    case "correct": return `corrected: ${who}played ${event.tile}, not ${event.was}`;
    case "refused": return `refused ${event.refused || event.command || ""}: ${event.error}`;
    case "hand": return `hand ${event.hand} over (${(event.result || {}).outcome || ""})`;
    case "match": return "match over";
    default: return `${event.event} ${who}`.trim();
  }
}

function addEvent(event) {
  if (event.seq !== undefined && event.seq <= lastSeq) return;
  if (event.seq !== undefined) lastSeq = event.seq;
  const list = $("events");
  list.prepend(el("li", {"data-seq": event.seq ?? "", "data-event": event.event},
                  `#${event.seq} ${describe(event)}`));
  while (list.children.length > MAX_EVENTS) list.lastChild.remove();
}

function renderState(next) {
  state = next;
  $("title").textContent = `table ${state.table || ""} · ${state.rules || ""}`;
  $("phase").textContent = state.phase || "";
  const scores = state.scores || {};
  $("scores").replaceChildren(...Object.keys(scores).map((name) => el("tr",
    {"class": state.turn === name ? "on-move" : "", "data-player": name},
    el("td", {}, name), el("td", {"class": "score"}, points(scores[name])),
    el("td", {"class": "small"}, state.turn === name ? "on move" : ""))));
  $("message").textContent = state.message || "";
  $("last-tile").textContent = state.last_play ? state.last_play.tile : "–";
  for (const id of ["player", "missed-player"]) {
    const select = $(id);
    const chosen = select.value;
    const players = state.players || [];
    if (select.options.length !== players.length || [...select.options].some((o, i) => o.value !== players[i])) {
      select.replaceChildren(...players.map((name) => el("option", {value: name}, name)));
    }
    select.value = players.includes(chosen) ? chosen : (id === "missed-player" && state.turn ? state.turn : players[0] || "");
  }
}

async function refreshHealth() {
  const response = await fetch("/api/health", {cache: "no-store"});
  if (!response.ok) return;
  const health = await response.json();
  $("overall").className = `health-${health.overall}`;
  const camera = health.camera;
  $("overall").textContent = `overall: ${health.overall} · web clients ${health.web.clients}` +
    (camera ? ` · camera ${camera.fps ?? "–"} fps, last frame ${camera.last_frame_age} s ago` : " · no camera frames");
  $("health").replaceChildren(...Object.entries(health.parts || {}).map(([part, info]) =>
    el("li", {"class": `health-${info.state}`, "data-part": part}, `${part}: ${info.state}${info.why ? " — " + info.why : ""}`)));
}

function refreshFrame() {
  const image = new Image();
  image.onload = () => { $("frame").src = image.src; $("frame-note").textContent = new Date().toLocaleTimeString(); };
  image.onerror = () => { $("frame-note").textContent = "no camera frame"; };
  image.src = `/api/frame.jpg?at=${Date.now()}`;
}

let started = false;
async function start() {
  $("login").classList.add("hidden");
  $("manager").classList.remove("hidden");
  if (started) return;
  started = true;
  const answer = await (await fetch("/api/events?since=0", {cache: "no-store"})).json();
  for (const event of answer.events || []) addEvent(event);
  follow({state: renderState, event: addEvent});
  refreshHealth();
  refreshFrame();
  setInterval(refreshHealth, 3000);
  setInterval(refreshFrame, 2000);
}

function showLogin() {
  $("manager").classList.add("hidden");
  $("login").classList.remove("hidden");
  $("pin").focus();
}

document.querySelectorAll("[data-command]").forEach((button) =>
  button.addEventListener("click", () => command(button.dataset.command)));
document.querySelectorAll("[data-player-command]").forEach((button) =>
  button.addEventListener("click", () => command(button.dataset.playerCommand, {player: $("player").value})));
$("substitute-button").addEventListener("click", () =>
  command("substitute", {player: $("player").value, substitute: $("substitute").value.trim()}));
$("correct-button").addEventListener("click", () => command("correct", {tile: $("correct-tile").value.trim()}));
$("missed-button").addEventListener("click", () => {
  const args = {player: $("missed-player").value, tile: $("missed-tile").value.trim()};
  if ($("missed-end").value) args.end = $("missed-end").value;
  command("missed", args);
});
$("login").addEventListener("submit", signIn);
$("logout").addEventListener("click", async () => { await fetch("/logout", {method: "POST"}); location.reload(); });

signedIn().then((yes) => (yes ? start() : showLogin()));
