// The page of `solver serve`: the board, its moves, the solve stream and the player, the
// compare view. Every board is checked by the server (the command line's parser); this file
// only draws and asks.
"use strict";

const $ = (id) => document.getElementById(id);
const client = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
const state = { rows: 4, cols: 4, tiles: [], goal: [], goalName: "blank-last", solution: null, step: 0,
                playing: null, busy: false };

function say(text) { $("message").textContent = text || ""; }

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                  body: JSON.stringify({ client, ...body }) });
  return res;
}

async function ask(path, body) {
  const res = await post(path, body);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

// ---- the board ----
function tileSize() {
  const n = Math.max(state.rows, state.cols);
  return Math.min(72, Math.floor(360 / n));
}

function draw() {
  const board = $("board"), t = tileSize(), gap = 4;
  board.style.setProperty("--tile", t + "px");
  board.style.width = (state.cols * (t + gap) + gap) + "px";
  board.style.height = (state.rows * (t + gap) + gap) + "px";
  const blank = state.tiles.indexOf(0);
  const have = new Map(Array.from(board.children, (el) => [Number(el.dataset.tile), el]));
  if (have.size !== state.tiles.length - 1) { board.replaceChildren(); have.clear(); }
  state.tiles.forEach((tile, cell) => {
    if (tile === 0) return;
    let el = have.get(tile);
    if (!el) {
      el = document.createElement("div");
      el.className = "tile";
      el.dataset.tile = tile;
      el.textContent = tile;
      el.addEventListener("click", () => userMove(Number(el.dataset.tile)));
      board.appendChild(el);
    }
    const r = Math.floor(cell / state.cols), c = cell % state.cols;
    el.style.transform = `translate(${gap + c * (t + gap)}px, ${gap + r * (t + gap)}px)`;
    el.classList.toggle("home", state.goal[cell] === tile);
    el.classList.toggle("movable", adjacent(cell, blank));
  });
  board.dataset.tiles = state.tiles.join(" ");
  board.dataset.solved = String(state.tiles.join(" ") === state.goal.join(" "));
}

function adjacent(a, b) {
  const ra = Math.floor(a / state.cols), ca = a % state.cols, rb = Math.floor(b / state.cols), cb = b % state.cols;
  return Math.abs(ra - rb) + Math.abs(ca - cb) === 1;
}

function slide(tile) {
  const cell = state.tiles.indexOf(tile), blank = state.tiles.indexOf(0);
  if (cell < 0 || !adjacent(cell, blank)) return false;
  state.tiles[blank] = tile;
  state.tiles[cell] = 0;
  return true;
}

function userMove(tile) {
  if (state.busy) return;
  if (slide(tile)) { forget(); draw(); $("board-text").value = boardText(); }
}

function boardText() {
  const w = String(state.rows * state.cols - 1).length;
  const lines = [];
  for (let r = 0; r < state.rows; r++)
    lines.push(state.tiles.slice(r * state.cols, (r + 1) * state.cols).map((t) => (t ? String(t) : "_").padStart(w)).join(" "));
  return lines.join("\n");
}

function setBoard(data) {
  Object.assign(state, { rows: data.rows, cols: data.cols, tiles: data.tiles.slice(), goal: data.goal_tiles.slice() });
  $("board").replaceChildren();
  $("board").classList.remove("stale");
  forget();
  draw();
  $("board-text").value = boardText();
  $("board-text").rows = state.rows;
  say("");
}

function onKey(e) {
  // An arrow slides the tile on that side of the gap the arrow's way (ArrowLeft: the tile right of the gap moves left).
  const d = { ArrowLeft: [0, 1], ArrowRight: [0, -1], ArrowUp: [1, 0], ArrowDown: [-1, 0] }[e.key];
  if (!d || e.target.closest("input, textarea, select")) return;
  e.preventDefault();
  const blank = state.tiles.indexOf(0), r = Math.floor(blank / state.cols) + d[0], c = blank % state.cols + d[1];
  if (r >= 0 && r < state.rows && c >= 0 && c < state.cols) userMove(state.tiles[r * state.cols + c]);
}

// ---- entering boards ----
async function enter(e) {
  e.preventDefault();
  const rows = Number($("rows").value) || null, cols = Number($("cols").value) || null;
  try {
    setBoard(await ask("/api/board", { board: $("board-text").value, goal: $("goal").value, rows, cols }));
    state.goalName = $("goal").value;
  } catch (err) {  // (the board on screen is not the one typed: its answer goes, the board fades)
    forget();
    $("board").classList.add("stale");
    say(err.message);
  }
}

async function generate(moves) {
  const [rows, cols] = $("size").value.split("x").map(Number);
  try {
    setBoard(await ask("/api/random", { rows, cols, goal: $("goal").value, moves }));
    state.goalName = $("goal").value;
  } catch (err) { say(err.message); }
}

// ---- solving ----
function forget() {
  pause();
  state.solution = null;
  state.step = 0;
  $("player").hidden = true;
  $("result").hidden = true;
}

function count(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(2) + " G";
  if (n >= 1e6) return (n / 1e6).toFixed(1) + " M";
  if (n >= 1e3) return (n / 1e3).toFixed(1) + " k";
  return String(Math.round(n));
}

function clock(s) { s = Math.floor(s); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; }

async function stream(path, body, onEvent) {
  const res = await post(path, body);
  if (!res.ok) { const data = await res.json(); throw new Error(data.error || res.statusText); }
  const reader = res.body.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line) onEvent(JSON.parse(line));
    }
  }
}

// While a search runs, the time since it began ticks beside the status line, which changes
// only when the search says something (a long iteration says nothing for a while).
function busy(on) {
  clearInterval(state.ticking);
  if (on) {
    const began = performance.now();
    const tick = () => { $("elapsed").textContent = clock((performance.now() - began) / 1000); };
    tick();
    state.ticking = setInterval(tick, 500);
  } else $("elapsed").textContent = "";
  state.busy = on;
  for (const id of ["solve", "compare", "set", "scramble", "random", "reset"]) $(id).disabled = on;
  $("stop").disabled = !on;
}

function current() {
  return { board: state.tiles.join(" "), goal: state.goal.join(" "), rows: state.rows, cols: state.cols,
           pattern: $("pattern").value.trim() || null, timeout: Number($("timeout").value) || null };
}

async function solve() {
  forget();
  say("");
  busy(true);
  const started = performance.now();
  let info = {};
  $("status").textContent = "loading tables...";
  try {
    const answer = $("answer").value;
    await stream("/api/solve", { ...current(), algorithm: $("algorithm").value || null,
                                 heuristic: $("heuristic").value || null, anytime: answer === "anytime",
                                 within: answer && answer !== "anytime" ? Number(answer) : null }, (ev) => {
      if (ev.event === "note") $("status").textContent = ev.message;
      else if (ev.event === "start") { info = ev; $("status").textContent = `searching with ${ev.algorithm} / ${ev.heuristic}...`; }
      else if (ev.event === "iteration") $("status").textContent = `bound ${ev.bound}: no solution is shorter`;
      else if (ev.event === "progress")
        $("status").textContent = `bound ${ev.bound} (no solution is shorter) · ${count(ev.generated)} generated · ` +
          `${count(ev.rate)}/s · ${clock(ev.seconds)} · iteration ${Math.round(100 * ev.done / Math.max(ev.total, 1))}% of ${ev.total} subtrees`;
      else if (ev.event === "bounded") {
        const gap = ev.length === null ? "" : ` · gap ${(100 * (ev.length / ev.lower_bound - 1)).toFixed(1)}%`;
        $("status").textContent = (ev.length === null ? "no solution yet" : `best so far ${ev.length} moves`) +
          ` · no solution is shorter than ${ev.lower_bound}${gap} · ${ev.seconds.toFixed(1)} s`;
        $("status").dataset.gap = ev.length === null ? "" : ev.length / ev.lower_bound - 1;
      }
      else if (ev.event === "solution") showSolution(ev, info, performance.now() - started);
      else if (ev.event === "stopped") {
        $("status").textContent = "";
        const why = { stopped: "stopped (you pressed Stop)", timeout: "stopped at its time limit",
                      limit: "stopped at its node limit" }[ev.reason] || ev.reason;
        showResult([["search", `${ev.algorithm} ${why}`],
                    ["proven", `no solution is shorter than ${ev.lower_bound} moves`, "missed"],
                    ["nodes", `${ev.nodes_expanded.toLocaleString()} expanded, ${ev.nodes_generated.toLocaleString()} generated`],
                    ["time", `${ev.seconds.toFixed(1)} s`]]);
        $("result").dataset.lowerBound = ev.lower_bound;
      } else if (ev.event === "error") { $("status").textContent = ""; say(ev.message); }
    });
  } catch (err) { $("status").textContent = ""; say(err.message); }
  busy(false);
}

function showResult(pairs) {
  const dl = $("result");
  dl.replaceChildren();
  for (const [k, v, cls] of pairs) {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = k; dd.textContent = v;
    if (cls) dd.className = cls;
    dl.append(dt, dd);
  }
  delete dl.dataset.lowerBound;
  dl.hidden = false;
}

// The bound a bounded answer proved: green where it met what was asked (the optimum, or the
// gap asked for), amber with what was missed where the search stopped first.
function proven(sol) {
  const text = `no solution is shorter than ${sol.lower_bound}: gap ${(100 * sol.gap).toFixed(1)}%`;
  if (sol.ended === "within" || sol.ended === "optimal") return ["proven", text, "optimal"];
  const asked = sol.within ? `the ${Math.round(100 * (sol.within - 1))}% asked for` : "the optimum";
  return ["proven", `${text} (${sol.ended}): ${asked} not reached`, "missed"];
}

function tableNames(files) {
  if (!files.length) return "none";
  const shown = files.slice(0, 3).join(", ");
  return files.length > 3 ? `${files.length} files: ${shown} and ${files.length - 3} more` : shown;
}

function showSolution(sol, info, ms) {
  state.solution = sol;
  state.start = state.tiles.slice();
  state.step = 0;
  $("status").textContent = "";
  const bounded = sol.lower_bound !== undefined;
  showResult([
    ["length", `${sol.length} moves`],
    ["", sol.optimal ? `optimal (${sol.proof})` : `not proven optimal (${sol.proof})`, sol.optimal ? "optimal" : ""],
    ...(bounded ? [proven(sol)] : []),
    ["search", `${sol.algorithm} / ${sol.heuristic}`],
    ["tables", tableNames(info.tables || [])],
    ["nodes", (bounded ? "IDA*, for the bound: " : "") +
              `${sol.nodes_expanded.toLocaleString()} expanded, ${sol.nodes_generated.toLocaleString()} generated`],
    ["time", `${sol.seconds.toFixed(3)} s searching, ${(ms / 1000).toFixed(3)} s on this page`],
  ]);
  $("result").dataset.length = sol.length;
  if (bounded) { $("result").dataset.gap = sol.gap; $("result").dataset.bound = sol.lower_bound; }
  else { delete $("result").dataset.gap; delete $("result").dataset.bound; }
  const list = $("moves-list");
  list.replaceChildren(...sol.moves.map((t, i) => {
    const li = document.createElement("li");
    li.textContent = t;
    li.title = `move ${i + 1}: ${sol.directions[i]}`;
    li.addEventListener("click", () => { pause(); seek(i + 1); });
    return li;
  }));
  $("player").hidden = false;
  showStep();
}

// ---- the player ----
function seek(target) {
  const sol = state.solution;
  if (!sol) return;
  target = Math.max(0, Math.min(sol.length, target));
  if (Math.abs(target - state.step) > 1) { state.tiles = state.start.slice(); state.step = 0; }
  while (state.step < target) slide(sol.moves[state.step++]);
  while (state.step > target) slide(sol.moves[--state.step]);  // sliding the same tile again undoes a move
  draw();
  showStep();
}

function showStep() {
  const sol = state.solution;
  $("step").textContent = `move ${state.step} of ${sol.length}`;
  $("player").dataset.step = state.step;
  $("player").dataset.state = state.playing ? "playing" : (state.step === sol.length ? "ended" : "paused");
  $("play").textContent = state.playing ? "Pause" : "Play";
  Array.from($("moves-list").children).forEach((li, i) => {
    li.classList.toggle("done", i < state.step - 1);
    li.classList.toggle("current", i === state.step - 1);
  });
}

function delay() { return 1200 / Number($("speed").value); }

function play() {
  const sol = state.solution;
  if (!sol) return;
  if (state.playing) return pause();
  if (state.step === sol.length) seek(0);
  const tick = () => {
    if (state.step >= sol.length) { pause(); return; }
    $("board").style.setProperty("--move", Math.min(250, delay() * 0.8) + "ms");
    seek(state.step + 1);
    state.playing = setTimeout(tick, delay());
    showStep();
  };
  state.playing = setTimeout(tick, 0);
  showStep();
}

function pause() {
  if (state.playing) clearTimeout(state.playing);
  state.playing = null;
  if (state.solution) showStep();
}

// ---- compare ----
async function compare() {
  say("");
  busy(true);
  const body = $("compare-table").tBodies[0];
  body.replaceChildren();
  $("compare-table").dataset.done = "false";
  try {
    await stream("/api/compare", current(), (ev) => {
      if (ev.event === "row") {
        const tr = document.createElement("tr");
        const cells = ev.message === undefined
          ? [ev.algorithm, ev.heuristic, ev.length, ev.optimal ? "yes" : "not proven", ev.nodes_expanded.toLocaleString(),
             ev.nodes_generated.toLocaleString(), ev.seconds.toFixed(3)]
          : [ev.algorithm, ev.heuristic];
        for (const v of cells) { const td = document.createElement("td"); td.textContent = v; tr.append(td); }
        if (ev.message !== undefined) {
          const td = document.createElement("td");
          td.colSpan = 5; td.className = "note"; td.textContent = ev.message;
          tr.append(td);
        }
        body.append(tr);
      } else if (ev.event === "error") say(ev.message);
    });
  } catch (err) { say(err.message); }
  $("compare-table").dataset.done = "true";
  busy(false);
}

function showView(id) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === id);
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== id;
}

// ---- start ----
window.addEventListener("DOMContentLoaded", async () => {
  $("enter").addEventListener("submit", enter);
  $("scramble").addEventListener("click", () => generate(Number($("moves").value) || 0));
  $("random").addEventListener("click", () => generate(null));
  $("reset").addEventListener("click", () => generate(0));
  $("solve").addEventListener("click", solve);
  $("stop").addEventListener("click", () => post("/api/stop", {}));
  $("compare").addEventListener("click", compare);
  $("play").addEventListener("click", play);
  $("fwd").addEventListener("click", () => { pause(); seek(state.step + 1); });
  $("back").addEventListener("click", () => { pause(); seek(state.step - 1); });
  $("first").addEventListener("click", () => { pause(); seek(0); });
  $("last").addEventListener("click", () => { pause(); seek(state.solution ? state.solution.length : 0); });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));
  document.addEventListener("keydown", onKey);
  try {
    const info = await (await fetch("/api/info")).json();
    $("version").textContent = "version " + info.version;
    $("compare-cells").textContent = info.compare_cells;
    $("timeout").max = info.max_seconds;
    $("timeout").value = Math.min(Number($("timeout").value), info.max_seconds);
  } catch (err) { say("the server does not answer: is `solver serve` still running?"); }
  await generate(30);
  document.body.dataset.ready = "true";
});
