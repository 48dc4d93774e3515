// The club page: one live card per table on the broker (its retained state and status).
"use strict";

const tables = new Map();

function cardFor(entry) {
  const state = entry.state || {};
  const scores = state.scores || {};
  const card = el("section", {"class": "card club-card" + (entry.status === "online" ? "" : " offline"),
                              "data-table": entry.table, "data-status": entry.status || ""},
    el("span", {"class": "status", "data-health": entry.health || ""},
       (entry.status || "unknown") + (entry.health && entry.health !== "ok" ? ` · ${entry.health}` : "")),
    el("h2", {}, `${entry.table} · ${state.rules || ""}`),
    el("table", {"class": "scores"}, el("tbody", {}, ...Object.keys(scores).map((name) =>
      el("tr", {"class": state.turn === name ? "on-move" : "", "data-player": name},
         el("td", {}, name), el("td", {"class": "score"}, points(scores[name])))))),
    el("div", {"class": "small phase"}, [state.phase, state.hand ? `hand ${state.hand}` : "",
                                          state.turn ? `${state.turn} to move` : ""].filter(Boolean).join(" · ")),
    el("div", {"class": "small"}, state.last_play ? `last: ${state.last_play.player} ${state.last_play.tile}` : ""),
    entry.error ? el("div", {"class": "error"}, entry.error) : "");
  return card;
}

function render() {
  const main = document.getElementById("tables");
  main.replaceChildren(...[...tables.keys()].sort().map((name) => cardFor(tables.get(name))));
  document.getElementById("count").textContent = `${tables.size} table(s)`;
}

async function load() {
  const answer = await (await fetch("/api/club", {cache: "no-store"})).json();
  document.getElementById("no-broker").classList.toggle("hidden", answer.broker);
  for (const [name, entry] of Object.entries(answer.tables || {})) tables.set(name, entry);
  render();
}

load();
follow({state: () => {}, other: (message) => {
  if (message.type !== "club") return;
  tables.set(message.table, message);
  render();
}});
