// End of race: standings with points and par, the comparison chart (SVG), the replay
// viewer, the replay file download and "race this ghost".
import { call, store } from "./api.js";
import { Board, botTag, el } from "./board.js";
import { asGame, replayPositions } from "./engine.js";
import { isBot, shownStatus } from "./room-state.js";
import { T, TC } from "./strings.js";

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
  return toPar === 0 ? T.atPar : String(toPar).replace("-", "−");
}

/** The timeline chart of a Comparison: foundation cards over the race clock, both racers. */
export function chart(cmp, total) {
  const W = 640, H = 260, L = 40, R = 12, Top = 14, B = 40;
  const sides = [cmp.a, cmp.b];
  const tMax = Math.max(1000, ...sides.map((x) => x.end_ms ?? 0),
    ...sides.flatMap((x) => x.timeline.map((p) => p.race_clock_ms)));
  const X = (ms) => L + ((W - L - R) * ms) / tMax;
  const Y = (n) => Top + (H - Top - B) * (1 - n / total);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": T.chartName(cmp.a, cmp.b) });
  root.append(svg("title", {}, T.chartTitle(cmp.a.name, cmp.b.name)));
  for (let n = 0; n <= total; n += total > 52 ? 26 : 13) {
    root.append(svg("line", { x1: L, x2: W - R, y1: Y(n), y2: Y(n), class: "grid" }),
      svg("text", { x: L - 6, y: Y(n) + 4, class: "axis", "text-anchor": "end" }, String(n)));
  }
  const step = tMax > 600000 ? 120000 : tMax > 120000 ? 60000 : tMax > 30000 ? 10000 : 5000;
  for (let t = 0; t <= tMax; t += step) {
    root.append(svg("text", { x: X(t), y: H - B + 16, class: "axis", "text-anchor": "middle" }, clock(t).replace(/\.\d$/, "")));
  }
  root.append(svg("text", { x: W - R, y: H - 4, class: "axis", "text-anchor": "end" }, T.chartClock));
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
    root.append(svg("line", { x1: X(ms), x2: X(ms), y1: Top, y2: H - B, class: "divergence" }),
      svg("text", { x: X(ms) + 4, y: Top + 10, class: "axis divergence-label" }, T.divergeAt(div)));
  }
  const cursor = svg("line", { x1: L, x2: L, y1: Top, y2: H - B, class: "cursor", visibility: "hidden" });
  root.append(cursor);
  root.moveCursor = (ms) => { cursor.setAttribute("visibility", "visible"); cursor.setAttribute("x1", X(ms)); cursor.setAttribute("x2", X(ms)); };
  return root;
}

/** The end screen in `box`; returns `{ standings(table), destroy() }`: the first redraws
 *  the standings table and the par line in place (a `par` event's table: GET
 *  …/standings' fields), the second stops the replay and lets its board go. */
export function mountEnd(box, { code, room, me, token, say, onGhost }) {
  const total = 52 * room.rules.decks;
  const table = el("table", { class: "standings" });
  const tableBox = el("div", { class: "table-box" }, table);
  const parLine = el("p", { class: "par" });
  box.append(el("h2", { text: room.state === "closed" ? T.closedTitle : T.overTitle }), tableBox, parLine);
  // an attempt at a challenge (challenge.js): the way back to it, where the others' results show
  const challenge = store.challengeOf(code);
  if (challenge) box.append(el("p", {}, el("a", { href: `/c/${challenge}`, "data-link": true, id: "to-challenge", text: TC.backTo })));
  const racers = room.racers;
  const racerOf = (x) => racers.find((r) => r.id === x.racer) ?? x;
  const you = (r) => (r.id === me ? T.you(r.name) : r.name);
  const pick = (id, label, onchange, named = you) => el("select", { id, "aria-label": label, onchange },
    ...racers.map((r) => el("option", { value: r.id, text: named(r) })));
  const pickA = pick("cmp-a", T.compareA, compare), pickB = pick("cmp-b", T.compareB, compare);
  const others = racers.filter((r) => r.id !== me);
  pickA.value = me ?? racers[0]?.id ?? "";
  pickB.value = (me ? others[0]?.id : racers[1]?.id) ?? racers[0]?.id ?? "";
  const chartBox = el("div", { class: "chart-box", id: "chart" });
  const figures = el("p", { class: "figures" });
  box.append(el("section", { class: "compare" },
    el("h2", { text: T.headToHead }),
    el("p", {}, pickA, el("span", { text: T.against }), pickB), chartBox, figures));

  // replay viewer
  const pickR = pick("replay-racer", T.replayOf, loadReplay, (r) => r.name);
  pickR.value = me ?? racers[0]?.id ?? "";
  // scrolls in its box: a Tab stop, so that the keys can scroll it too
  const list = el("ol", { class: "moves", id: "replay-moves", tabindex: "0", "aria-label": T.replayMoves });
  const now = el("p", { class: "now", id: "replay-now", "aria-live": "polite" });
  const b = (id, text, label, onclick) => el("button", { type: "button", id, text, "aria-label": label, onclick });
  const to = (i) => () => { stop(); stepTo(i()); };
  // each label's words are in its accessible name (WCAG 2.5.3)
  const first = b("rp-first", T.rpFirst, T.rpFirstName, to(() => 0)), prev = b("rp-prev", T.rpPrev, T.rpPrevName, to(() => idx - 1)),
    play = b("rp-play", "▶", T.rpPlay, () => {
      if (timer) return stop();
      if (rep && idx >= rep.moves.length) idx = 0;
      play.textContent = "⏸"; play.setAttribute("aria-label", T.rpPause);
      timer = setInterval(() => stepTo(idx + 1), 600 / Number(speed.value));
    }),
    next = b("rp-next", T.rpNext, T.rpNextName, to(() => idx + 1)), last = b("rp-last", T.rpLast, T.rpLastName, to(() => Infinity));
  const replayBox = el("div", { class: "replay-board", id: "replay-board" });
  const viewer = new Board(replayBox, { readOnly: true, label: T.replayBoardName });
  let positions = null;
  const speed = el("select", { id: "rp-speed", "aria-label": T.rpSpeed, onchange: () => { if (timer) { stop(); play.click(); } } },
    ...[1, 2, 4, 8].map((v) => el("option", { value: v, text: `${v}×` })));
  const download = b("rp-download", T.rpDownload, null, () => {
    if (!rep) return;
    // a replay file (docs/replay.md): the replay answer with its format header
    const file = { format: "lucie-replay", format_version: 1, ...rep };
    const blob = new Blob([JSON.stringify(file, null, 1)], { type: "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `${code}-${rep.player}.lucie-replay.json` });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  const ghost = b("rp-ghost", T.rpGhost, null, async () => {
    try {
      const g = await call("POST", "/ghost-rooms", { body: { room: code, racer: pickR.value, countdown_s: 3 } });
      store.setHost(g.room.code, g.host_token);
      onGhost(g.room.code);
    } catch (e) { say(`${e}`, "error"); }
  });
  box.append(el("section", { class: "replay" }, el("h2", { text: T.replayTitle }),
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
    const wide = { points: 1, moves: 1 };
    table.replaceChildren(el("thead", {}, el("tr", {}, ...Object.entries(T.standingsHead)
      .map(([k, h]) => el("th", { scope: "col", text: h, class: wide[k] && "wide", title: k === "toPar" ? T.toParHelp : null })))),
      el("tbody", {}, ...st.standings.map((x) => el("tr", { class: x.racer === me ? "me" : "" },
        el("td", { text: String(x.rank) }),
        el("td", { class: "nm" }, x.racer === me ? T.you(x.name) : x.name, botTag(racerOf(x))),
        el("td", { text: `${x.foundation_cards}/${total}` }), el("td", { class: "wide", text: String(x.points) }),
        el("td", { class: "to-par", text: toParText(x.to_par) }),
        el("td", { text: clock(x.reach_time_ms) }), el("td", { class: "wide", text: String(x.moves) }),
        el("td", { text: T.status(shownStatus({ status: x.status, bot: isBot(racerOf(x)) })) })))));
    parLine.textContent = st.par === null ? T.parUnknown : T.parIs(st.par);
    const mine = st.standings.find((x) => x.racer === me);
    // the celebration's colour for a win only: 3rd of 3 is said plainly
    if (mine && !drawn) say(T.finished(mine.rank, st.standings.length, mine.points), mine.rank === 1 ? "good" : "");
    drawn = true;
  }
  call("GET", `/rooms/${code}/standings`, { token }).then(standings).catch((e) => say(`${e}`, "error"));

  async function compare() {
    if (!pickA.value || !pickB.value) return;
    try {
      cmp = await call("GET", `/rooms/${code}/compare/${pickA.value}/${pickB.value}`, { token });
      svgChart = chart(cmp, total);
      chartBox.replaceChildren(svgChart, el("p", { class: "legend" },
        el("span", { class: "a", text: `■ ${cmp.a.name}` }), " ", el("span", { class: "b", text: `■ ${cmp.b.name}` }), T.legendDivergence));
      const v = cmp.verdict;
      const who = v.winner === "a" ? cmp.a.name : v.winner === "b" ? cmp.b.name : null;
      figures.textContent = T.verdict(cmp, who, v.decided_by);
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
    } else replayBox.textContent = "";
    now.textContent = m ? T.replayAt(idx, n, m.move, clock(m.race_clock_ms)) : T.replayStart(rep.player, n);
    if (m && svgChart && cmp) {
      if ([cmp.a.name, cmp.b.name].includes(rep.player)) svgChart.moveCursor(m.race_clock_ms);
    }
    list.querySelector("li.current")?.scrollIntoView({ block: "nearest" });
  }
  function stop() { clearInterval(timer); timer = null; play.textContent = "▶"; play.setAttribute("aria-label", T.rpPlay); }
  function stepTo(i) { if (!rep) return; idx = Math.max(0, Math.min(rep.moves.length, i)); drawNow(); if (idx >= rep.moves.length) stop(); }
  compare(); loadReplay();
  return { standings, destroy() { stop(); viewer.destroy(); } };
}
