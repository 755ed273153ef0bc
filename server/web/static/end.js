// End of race: standings with points and par, the comparison chart (SVG), the replay
// viewer, the replay file download and "race this ghost".
import { call, store } from "./api.js";
import { Board, botTag, el, plural } from "./board.js";
import { asGame, replayPositions } from "./engine.js";
import { hooks } from "./nav.js";

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}
function clock(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}.${String(Math.floor((ms % 1000) / 100))}`;
}

/** A standing's `to_par` as the API gives it (par − foundation cards: the cards still
 *  short of par; 0 at par, negative past it), "–" while par is unknown. */
export function toParText(toPar) {
  if (toPar === null || toPar === undefined) return "–";
  return toPar === 0 ? "0 (par)" : String(toPar).replace("-", "−");
}
export const TO_PAR_HELP = "Cards to par: par − your foundation cards (0: par reached)";

/** The timeline chart of a Comparison: foundation cards over the race clock, both racers. */
export function chart(cmp, total) {
  const W = 640, H = 260, L = 40, R = 12, T = 14, B = 40;
  const sides = [cmp.a, cmp.b];
  const tMax = Math.max(1000, ...sides.map((x) => x.end_ms ?? 0),
    ...sides.flatMap((x) => x.timeline.map((p) => p.race_clock_ms)));
  const X = (ms) => L + ((W - L - R) * ms) / tMax;
  const Y = (n) => T + (H - T - B) * (1 - n / total);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": `Foundation cards over the race clock: ${cmp.a.name} ${cmp.a.foundation_cards}, ${cmp.b.name} ${cmp.b.foundation_cards}` });
  root.append(svg("title", {}, `${cmp.a.name} against ${cmp.b.name}`));
  for (let n = 0; n <= total; n += total > 52 ? 26 : 13) {
    root.append(svg("line", { x1: L, x2: W - R, y1: Y(n), y2: Y(n), class: "grid" }),
      svg("text", { x: L - 6, y: Y(n) + 4, class: "axis", "text-anchor": "end" }, String(n)));
  }
  const step = tMax > 600000 ? 120000 : tMax > 120000 ? 60000 : tMax > 30000 ? 10000 : 5000;
  for (let t = 0; t <= tMax; t += step) {
    root.append(svg("text", { x: X(t), y: H - B + 16, class: "axis", "text-anchor": "middle" }, clock(t).replace(/\.\d$/, "")));
  }
  root.append(svg("text", { x: W - R, y: H - 4, class: "axis", "text-anchor": "end" }, "race clock"));
  // who led when: a band under the axis
  for (const seg of cmp.lead?.segments ?? []) {
    if (!seg.leader) continue;
    root.append(svg("rect", { x: X(seg.start_ms), y: H - B + 22, width: Math.max(1, X(seg.end_ms) - X(seg.start_ms)), height: 5, class: `lead ${seg.leader}` }));
  }
  sides.forEach((side, i) => {
    let d = `M ${X(0)} ${Y(side.start_foundation_cards ?? 0)}`;
    for (const p of side.timeline) d += ` H ${X(p.race_clock_ms).toFixed(1)} V ${Y(p.foundation_cards).toFixed(1)}`;
    d += ` H ${X(side.end_ms ?? tMax).toFixed(1)}`;
    root.append(svg("path", { d, class: `line ${i ? "b" : "a"}` }));
  });
  const div = cmp.divergence;
  if (div && div.move_index) {
    const at = [cmp.a, cmp.b].map((x) => x.timeline[div.move_index - 1]?.race_clock_ms).filter((v) => v !== undefined);
    const ms = at.length ? Math.min(...at) : 0;
    root.append(svg("line", { x1: X(ms), x2: X(ms), y1: T, y2: H - B, class: "divergence" }),
      svg("text", { x: X(ms) + 4, y: T + 10, class: "axis divergence-label" }, `diverge at move ${div.move_index}${div.a_move ? ` (${div.a_move} / ${div.b_move ?? "–"})` : ""}`));
  }
  const cursor = svg("line", { x1: L, x2: L, y1: T, y2: H - B, class: "cursor", visibility: "hidden" });
  root.append(cursor);
  root.moveCursor = (ms) => { cursor.setAttribute("visibility", "visible"); cursor.setAttribute("x1", X(ms)); cursor.setAttribute("x2", X(ms)); };
  return root;
}

/** The end screen in `box`; returns `{ standings(table) }`, which redraws the standings
 *  table and the par line in place (a `par` event's table: GET …/standings' fields). */
export function mountEnd(box, { code, room, me, token, say, onGhost }) {
  const total = 52 * room.rules.decks;
  const table = el("table", { class: "standings" });
  const tableBox = el("div", { class: "table-box" }, table);
  const parLine = el("p", { class: "par" });
  box.append(el("h2", { text: room.state === "closed" ? "The room was closed" : "Race over" }), tableBox, parLine);
  const racers = room.racers;
  const you = (r) => r.name + (r.id === me ? " (you)" : "");
  const pick = (id, label, onchange, named = you) => el("select", { id, "aria-label": label, onchange },
    ...racers.map((r) => el("option", { value: r.id, text: named(r) })));
  const pickA = pick("cmp-a", "Compare", compare), pickB = pick("cmp-b", "against", compare);
  const others = racers.filter((r) => r.id !== me);
  pickA.value = me ?? racers[0]?.id ?? "";
  pickB.value = (me ? others[0]?.id : racers[1]?.id) ?? racers[0]?.id ?? "";
  const chartBox = el("div", { class: "chart-box", id: "chart" });
  const figures = el("p", { class: "figures" });
  box.append(el("section", { class: "compare" },
    el("h2", { text: "Head to head" }),
    el("p", {}, pickA, el("span", { text: " against " }), pickB), chartBox, figures));

  // replay viewer
  const pickR = pick("replay-racer", "Replay of", loadReplay, (r) => r.name);
  pickR.value = me ?? racers[0]?.id ?? "";
  const list = el("ol", { class: "moves", id: "replay-moves" });
  const now = el("p", { class: "now", id: "replay-now", "aria-live": "polite" });
  const b = (id, text, label, onclick) => el("button", { type: "button", id, text, "aria-label": label, onclick });
  const to = (i) => () => { stop(); stepTo(i()); };
  // each label's words are in its accessible name (WCAG 2.5.3)
  const first = b("rp-first", "|◀ First", "First move", to(() => 0)), prev = b("rp-prev", "◀ Step", "Step back", to(() => idx - 1)),
    play = b("rp-play", "▶", "play", () => {
      if (timer) return stop();
      if (rep && idx >= rep.moves.length) idx = 0;
      play.textContent = "⏸"; play.setAttribute("aria-label", "pause");
      timer = setInterval(() => stepTo(idx + 1), 600 / Number(speed.value));
    }),
    next = b("rp-next", "Step ▶", "Step forward", to(() => idx + 1)), last = b("rp-last", "Last ▶|", "Last move", to(() => Infinity));
  const replayBox = el("div", { class: "replay-board", id: "replay-board" });
  const viewer = new Board(replayBox, { readOnly: true });
  let positions = null;
  const speed = el("select", { id: "rp-speed", "aria-label": "speed", onchange: () => { if (timer) { stop(); play.click(); } } },
    ...[1, 2, 4, 8].map((v) => el("option", { value: v, text: `${v}×` })));
  const download = b("rp-download", "Download replay", "Download the replay file", () => {
    if (!rep) return;
    // a replay file (docs/replay.md): the replay answer with its format header
    const file = { format: "lucie-replay", format_version: 1, ...rep };
    const blob = new Blob([JSON.stringify(file, null, 1)], { type: "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `${code}-${rep.player}.lucie-replay.json` });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  const ghost = b("rp-ghost", "Race this ghost", "Race this racer's recorded game", async () => {
    try {
      const g = await call("POST", "/ghost-rooms", { body: { room: code, racer: pickR.value, countdown_s: 3 } });
      store.setHost(g.room.code, g.host_token);
      onGhost(g.room.code);
    } catch (e) { say(`${e}`, "error"); }
  });
  box.append(el("section", { class: "replay" }, el("h2", { text: "Replay" }),
    el("p", {}, pickR, " ", download, " ", ghost),
    el("div", { class: "controls" }, first, prev, play, next, last, speed), now, replayBox, list));

  let cmp = null; let svgChart = null; let rep = null; let idx = 0; let timer = null;

  // the table is drawn from GET …/standings, then again, in place, from the `par` event
  // (race.js): the rest of the end screen (chart, replay viewer) stays as it is
  let drawn = false; let parShown = false;
  function standings(st) {
    if (parShown && st.par === null) return; // an answer older than the par's table
    parShown = st.par !== null;
    // on a phone the "wide" columns (points, moves) hide: the message says the points
    const wide = { Points: 1, Moves: 1 };
    table.replaceChildren(el("thead", {}, el("tr", {}, ...["#", "Racer", "Cards", "Points", "Cards to par", "Time", "Moves", "Status"]
      .map((h) => el("th", { scope: "col", text: h, class: wide[h] && "wide", title: h === "Cards to par" ? TO_PAR_HELP : null })))),
      el("tbody", {}, ...st.standings.map((x) => el("tr", { class: x.racer === me ? "me" : "" },
        el("td", { text: String(x.rank) }),
        el("td", { class: "nm" }, x.name + (x.racer === me ? " (you)" : ""), botTag(racers.find((r) => r.id === x.racer) ?? x)),
        el("td", { text: `${x.foundation_cards}/${total}` }), el("td", { class: "wide", text: String(x.points) }),
        el("td", { class: "to-par", text: toParText(x.to_par) }),
        el("td", { text: clock(x.reach_time_ms) }), el("td", { class: "wide", text: String(x.moves) }),
        el("td", { text: x.status.replace("_", " ") })))));
    parLine.textContent = st.par === null ? "Par: the solver has not found it yet." : `Par: ${st.par} cards (the most this deal allows with these redeals). Cards to par = par − foundation cards.`;
    const mine = st.standings.find((x) => x.racer === me);
    if (mine && !drawn) say(`You finished ${mine.rank}${["th", "st", "nd", "rd"][mine.rank % 10 > 3 || Math.floor(mine.rank / 10) === 1 ? 0 : mine.rank % 10]} of ${st.standings.length} with ${mine.points} points.`, "good");
    drawn = true;
  }
  call("GET", `/rooms/${code}/standings`).then(standings).catch((e) => say(`${e}`, "error"));

  async function compare() {
    if (!pickA.value || !pickB.value) return;
    try {
      cmp = await call("GET", `/rooms/${code}/compare/${pickA.value}/${pickB.value}`, { token });
      svgChart = chart(cmp, total);
      chartBox.replaceChildren(svgChart, el("p", { class: "legend" },
        el("span", { class: "a", text: `■ ${cmp.a.name}` }), " ", el("span", { class: "b", text: `■ ${cmp.b.name}` }), " ┆ divergence"));
      const v = cmp.verdict;
      const who = v.winner === "a" ? cmp.a.name : v.winner === "b" ? cmp.b.name : null;
      const side = (x) => `${x.name}: ${plural(x.foundation_cards, "card")}, ${plural(x.moves, "move")}`;
      figures.textContent = `${side(cmp.a)} · ${side(cmp.b)} · ${who ? `${who} ahead (${v.decided_by.replace("_", " ")})` : "a tie"} · lead changed ${plural(cmp.lead.changes, "time")}.`;
      drawNow();
    } catch (e) { chartBox.textContent = `${e}`; }
  }
  async function loadReplay() {
    stop();
    try {
      rep = await call("GET", `/rooms/${code}/racers/${pickR.value}/replay`, { token });
      idx = 0; positions = null;
      try { positions = await replayPositions(rep); } catch (e) { positions = null; } // WebCrypto needs a secure origin
      list.replaceChildren(...rep.moves.map((m) => el("li", {}, el("code", { text: m.move }), el("span", { class: "muted", text: ` ${clock(m.race_clock_ms)}` }))));
      drawNow();
    } catch (e) { now.textContent = `${e}`; }
  }
  function drawNow() {
    if (!rep) return;
    const n = rep.moves.length;
    list.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === idx - 1));
    const m = rep.moves[idx - 1];
    if (positions) {
      const g = asGame(positions[idx]);
      viewer.set(g);
      hooks.replay = { player: rep.player, index: idx, total: rep.moves.length, fans: g.position.fans, foundations: g.position.foundations };
    } else replayBox.textContent = "";
    now.textContent = m ? `Move ${idx} of ${n}: ${m.move} at ${clock(m.race_clock_ms)}` : `${rep.player}: ${plural(n, "move")} — press play`;
    if (m && svgChart && cmp) {
      if ([cmp.a.name, cmp.b.name].includes(rep.player)) svgChart.moveCursor(m.race_clock_ms);
    }
    list.querySelector("li.current")?.scrollIntoView({ block: "nearest" });
  }
  function stop() { clearInterval(timer); timer = null; play.textContent = "▶"; play.setAttribute("aria-label", "play"); }
  function stepTo(i) { if (!rep) return; idx = Math.max(0, Math.min(rep.moves.length, i)); drawNow(); if (idx >= rep.moves.length) stop(); }
  compare(); loadReplay();
  return { standings };
}
