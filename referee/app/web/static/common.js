// Shared by the overlay, the manager's page and the club page: the state feed and tile drawing.
"use strict";

// Fetch the whole state once, then follow the WebSocket; on a drop, reconnect and fetch again
// (OBS reloads or hides a source at will: every view is rebuilt from one state message).
function follow(handlers) {
  let delay = 500;
  let socket = null;
  async function load() {
    try {
      const response = await fetch("/api/state", {cache: "no-store"});
      if (response.ok) handlers.state(await response.json());
    } catch (error) { /* the socket's state message follows */ }
  }
  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws`);
    socket.onopen = () => { delay = 500; if (handlers.open) handlers.open(socket); };
    socket.onmessage = (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch (error) { return; }
      if (data.type === "state") handlers.state(data.state);
      else if (data.type === "event" && handlers.event) handlers.event(data.event);
      else if (handlers.other) handlers.other(data);
    };
    socket.onclose = () => {
      if (handlers.closed) handlers.closed();
      setTimeout(() => { load(); connect(); }, delay);
      delay = Math.min(delay * 2, 8000);
    };
  }
  load();
  connect();
  return () => socket;
}

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function points(value) {
  if (value === null || value === undefined) return "–";
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 10) / 10);
}

// Pip positions in a 3×3 grid (0..2) for 0..9 pips.
const PIPS = {
  0: [], 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
  4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
  6: [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]],
  7: [[0, 0], [0, 1], [0, 2], [1, 1], [2, 0], [2, 1], [2, 2]],
  8: [[0, 0], [0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1], [2, 2]],
  9: [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1], [2, 2]],
};
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

// The line of play from the state's `line` (referee/app/lineview.py): boxes on a grid whose unit
// is half a tile; `a` is the left/top half's pips, `b` the right/bottom half's.
function drawLine(target, line, lastTile) {
  const unit = 40;
  target.replaceChildren();
  const tiles = (line && line.tiles) || [];
  const [x0, y0, x1, y1] = (line && line.bounds) || [0, 0, 0, 0];
  const pad = 0.3;
  target.setAttribute("viewBox", `${(x0 - pad) * unit} ${(y0 - pad) * unit} ` +
                                 `${Math.max(x1 - x0 + 2 * pad, 1) * unit} ${Math.max(y1 - y0 + 2 * pad, 1) * unit}`);
  for (const tile of tiles) {
    const horizontal = tile.dir === "h";
    const w = (horizontal ? 2 : 1) * unit, h = (horizontal ? 1 : 2) * unit;
    const left = tile.x * unit - w / 2, top = tile.y * unit - h / 2;
    const group = svg("g", {"class": "tile" + (tile.tile === lastTile ? " last" : ""),
                            "data-tile": tile.tile, "data-arm": tile.arm, "data-n": tile.n});
    group.append(svg("rect", {x: left + 1, y: top + 1, width: w - 2, height: h - 2, rx: unit / 8,
                              "class": "face"}));
    const divider = horizontal
      ? svg("line", {x1: left + w / 2, y1: top + 5, x2: left + w / 2, y2: top + h - 5, "class": "divider"})
      : svg("line", {x1: left + 5, y1: top + h / 2, x2: left + w - 5, y2: top + h / 2, "class": "divider"});
    group.append(divider);
    [tile.a, tile.b].forEach((count, half) => {
      const hx = horizontal ? left + half * unit : left, hy = horizontal ? top : top + half * unit;
      for (const [px, py] of PIPS[count] || []) {
        const [gx, gy] = horizontal ? [py, px] : [px, py];   // a lying half shows its rows across
        group.append(svg("circle", {cx: hx + unit * (0.22 + 0.28 * gx), cy: hy + unit * (0.22 + 0.28 * gy),
                                    r: unit * 0.075, "class": "pip"}));
      }
    });
    if (line.spinner && line.spinner.n === tile.n) group.classList.add("spinner");
    target.append(group);
  }
}
