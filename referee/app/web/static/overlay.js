// The OBS overlay: a fixed 1920×1080 transparent canvas drawn from the state document alone.
"use strict";

const query = new URLSearchParams(location.search);
const LAYOUTS = ["bar", "corner", "full"];
const layout = LAYOUTS.includes(query.get("layout")) ? query.get("layout") : "full";
const shownNames = (query.get("players") || "").split(",").map((name) => name.trim());
const scale = Math.min(Math.max(parseFloat(query.get("scale")) || 1, 0.25), 4);
const POPUP_SECONDS = 6;

const stage = document.getElementById("stage");
stage.className = `layout-${layout}`;
stage.style.transform = scale === 1 ? "" : `scale(${scale})`;

let current = null;            // the state shown
let received = 0;              // performance.now() when it arrived
let popupKey = null;           // the popup already shown (a reload shows only the match's end again)
let popupTimer = null;

function displayName(state, name) {
  const seat = (state.players || []).indexOf(name);
  return seat >= 0 && shownNames[seat] ? shownNames[seat] : name;
}

function matchInfo(state) {
  const options = state.options || {};
  const parts = [state.rules || ""];
  if (options.target) parts.push(`to ${options.target}`);
  if (options.hands) parts.push(`hand ${state.hand || 1} of ${options.hands}`);
  else if (state.hand) parts.push(`hand ${state.hand}`);
  if (state.rules === "turkish") parts.push("penalties: lowest wins");
  return parts.filter(Boolean).join(" · ");
}

function renderScores(state) {
  const list = document.getElementById("scores");
  const scores = state.scores || {};
  const sizes = state.hand_sizes || {};
  list.replaceChildren(...Object.keys(scores).map((name) => el("li", {
      "class": "player" + (state.turn === name ? " on-move" : ""), "data-player": name},
    el("span", {"class": "name"}, displayName(state, name)),
    el("span", {"class": "hand-size", "data-count": sizes[name] ?? ""}, sizes[name] === undefined ? "" : `${sizes[name]}▮`),
    el("span", {"class": "score"}, points(scores[name])))));
  document.getElementById("match-info").textContent = matchInfo(state);
}

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const whole = Math.max(0, Math.ceil(seconds));
  return whole >= 60 ? `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}` : String(whole);
}

function renderClock() {
  const box = document.getElementById("clock");
  const clock = current && current.clock;
  if (!clock || clock.remaining === null || clock.remaining === undefined) {
    box.textContent = "–";
    box.dataset.remaining = "";
    box.dataset.warning = "false";
    return;
  }
  const elapsed = clock.running ? (performance.now() - received) / 1000 : 0;
  const left = clock.remaining - elapsed;
  box.dataset.remaining = String(clock.remaining);
  box.textContent = clockText(left);
  const warning = clock.warning_seconds !== null && clock.warning_seconds !== undefined && left <= clock.warning_seconds;
  box.dataset.warning = String(warning);
  box.classList.toggle("warning", warning);
  box.classList.toggle("flag", left <= 0);
}

function renderInfo(state) {
  const turn = document.getElementById("turn");
  turn.dataset.player = state.turn || "";
  turn.textContent = state.turn ? `${displayName(state, state.turn)} to move` :
    (state.phase === "match-over" ? "match over" : (state.awaiting === "reveal" ? "show your hands" : state.message || ""));
  const last = state.last_play;
  const lastBox = document.getElementById("last-play");
  lastBox.dataset.tile = last ? last.tile : "";
  lastBox.textContent = last ? `${displayName(state, last.player)} played ${last.tile}` +
    (last.end && last.end !== "lead" ? ` on the ${last.end}` : "") + (last.points ? `  +${points(last.points)}` : "") : "";
  const ends = state.open_ends;
  const endsText = ends && typeof ends === "object" && !Array.isArray(ends)
    ? Object.entries(ends).map(([end, pip]) => `${end} ${pip}`).join(" · ")
    : (Array.isArray(ends) ? ends.join(" · ") : "");
  document.getElementById("ends").textContent = endsText ? `open ends: ${endsText}` : "";
  const counts = [];
  if (state.boneyard !== null && state.boneyard !== undefined) counts.push(`boneyard ${state.boneyard}`);
  document.getElementById("counts").textContent = counts.join(" · ");
}

function popupText(state, popup) {
  const result = popup.result || {};
  const name = (player) => displayName(state, player);
  if (popup.kind === "domino") return `Domino! ${name(result.winner || "")} went out`;
  if (popup.kind === "block") return "Blocked!";
  if (popup.kind === "match") {
    const winners = (result.winners || []).map(name).join(" & ");
    return winners ? `${winners} won the match` : "Match over";
  }
  return `Hand ${popup.hand || ""} over`;
}

function renderPopup(state, first) {
  const popup = state.popup;
  const box = document.getElementById("popup");
  const key = popup ? JSON.stringify([popup.kind, popup.hand, popup.t]) : null;
  if (!popup || key === popupKey) {
    if (!popup) box.classList.add("hidden");
    return;
  }
  popupKey = key;
  // After a reload only the match's end is shown again; an old hand's popup is history.
  if (first && popup.kind !== "match") return;
  box.dataset.kind = popup.kind;
  box.textContent = popupText(state, popup);
  box.classList.remove("hidden");
  clearTimeout(popupTimer);
  if (popup.kind !== "match") popupTimer = setTimeout(() => box.classList.add("hidden"), POPUP_SECONDS * 1000);
}

function render(state) {
  if (current && state.rev !== undefined && current.rev !== undefined && state.rev < current.rev) return;
  const first = current === null;
  current = state;
  received = performance.now();
  renderScores(state);
  renderInfo(state);
  renderClock();
  drawLine(document.getElementById("line"), state.line, state.last_play && state.last_play.tile);
  renderPopup(state, first);
  document.body.dataset.phase = state.phase || "";
  document.body.dataset.rev = String(state.rev || 0);
  document.body.dataset.shownAt = String(Date.now());
}

follow({state: render});
setInterval(renderClock, 200);
