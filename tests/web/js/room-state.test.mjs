// The room page's pure room state (server/web/static/room-state.js), in Node: events in,
// state out; the ranking; what the page shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  applyEvent, controls, countdownLeft, fmtClock, gameNote, isBot, modeOf, racerRows, ranked,
  shownStatus, waitActions,
} from "../../../server/web/static/room-state.js";

const racer = (id, join, extra = {}) => ({
  id, name: id, join_order: join, ready: false, status: "waiting", foundation_cards: 0, moves: 0,
  redeals_used: 0, merci_used: 0, reach_time_ms: null, finished_ms: null, final: false, bot: false, ...extra,
});
const room = (racers, extra = {}) => ({ id: "r1", code: "ABCDEF", state: "waiting", seq: 0, racers,
  race_clock_ms: null, starts_in_ms: null, deal_number: null, rules: { decks: 1, merci: true }, ...extra });
const progress = (id, cards, moves, reach, extra = {}) => ({ type: "progress", racer: id, foundation_cards: cards, moves,
  redeals_used: 0, merci_used: 0, status: "playing", reach_time_ms: reach, race_clock_ms: 1000, seq: 9, ...extra });

test("events make the room: joined, ready, countdown, started, progress, finished, race over", () => {
  let r = room([racer("ada", 1)]);
  r = applyEvent(r, { type: "joined", racer: racer("bob", 2), seq: 1, race_clock_ms: null });
  r = applyEvent(r, { type: "ready", racer: "bob", ready: true, seq: 2, race_clock_ms: null });
  assert.deepEqual(r.racers.map((x) => [x.id, x.ready]), [["ada", false], ["bob", true]]);
  r = applyEvent(r, { type: "countdown", starts_in_ms: 3000, seq: 3, race_clock_ms: null });
  assert.equal(r.state, "countdown"); assert.equal(r.starts_in_ms, 3000); assert.equal(modeOf(r), "wait");
  r = applyEvent(r, { type: "started", deal_number: 7, seq: 4, race_clock_ms: 0 });
  assert.equal(modeOf(r), "race"); assert.equal(r.deal_number, 7); assert.equal(r.race_clock_ms, 0);
  assert.deepEqual(r.racers.map((x) => x.status), ["playing", "playing"]);
  r = applyEvent(r, progress("bob", 3, 5, 800));
  assert.deepEqual([r.racers[1].foundation_cards, r.racers[1].moves, r.racers[1].reach_time_ms, r.seq], [3, 5, 800, 9]);
  r = applyEvent(r, { type: "finished", racer: "bob", status: "resigned", seq: 10, race_clock_ms: 2000 });
  assert.deepEqual([r.racers[1].status, r.racers[1].final, r.racers[1].finished_ms], ["resigned", true, 2000]);
  r = applyEvent(r, { type: "race_over", final: true, standings: [{ rank: 1 }], par: null, seq: 11, race_clock_ms: 2100 });
  assert.equal(r.state, "over"); assert.equal(modeOf(r), "end"); assert.deepEqual(r.standings, [{ rank: 1 }]);
  r = applyEvent(r, { type: "closed", seq: 12, race_clock_ms: 2100 });
  r = applyEvent(r, { type: "par", final: true, standings: [], par: 40, seq: 13, race_clock_ms: 2100 });
  assert.equal(r.state, "closed"); assert.equal(r.par, 40);
});

test("an event leaves the room it was given as it was", () => {
  const before = room([racer("ada", 1)], { state: "racing" });
  const copy = structuredClone(before);
  const after = applyEvent(before, progress("ada", 1, 1, 10));
  assert.deepEqual(before, copy);
  assert.notEqual(after.racers[0], before.racers[0]);
});

test("a racer leaving a waiting room goes; leaving a race stays, final", () => {
  const waiting = applyEvent(room([racer("ada", 1), racer("bob", 2)]), { type: "left", racer: "bob", seq: 1 });
  assert.deepEqual(waiting.racers.map((x) => x.id), ["ada"]);
  const racing = applyEvent(room([racer("ada", 1), racer("bob", 2)], { state: "racing" }), { type: "left", racer: "bob", seq: 1 });
  assert.deepEqual([racing.racers[1].status, racing.racers[1].final], ["left", true]);
});

test("ranking: cards, then reach time; ties share a rank in join order, moves do not reorder", () => {
  const rs = [racer("c", 3), racer("a", 1), racer("b", 2)];
  assert.deepEqual(ranked(rs).map((x) => [x.racer.id, x.rank]), [["a", 1], ["b", 1], ["c", 1]]);
  // every racer moving while all have 0 cards: the order stays (the "jumping")
  let r = room(rs, { state: "racing" });
  const orders = new Set();
  for (const [id, moves] of [["c", 1], ["a", 1], ["a", 2], ["b", 5], ["c", 9]]) {
    r = applyEvent(r, progress(id, 0, moves, null));
    orders.add(racerRows(r, "a").map((x) => x.id).join());
  }
  assert.deepEqual([...orders], ["a,b,c"]);
  // a card puts a racer ahead; the earlier reach time first at equal cards
  r = applyEvent(r, progress("c", 1, 10, 5000));
  r = applyEvent(r, progress("b", 1, 6, 4000));
  assert.deepEqual(racerRows(r, "a").map((x) => [x.id, x.rank]), [["b", 1], ["c", 2], ["a", 3]]);
  r = applyEvent(r, progress("a", 2, 3, 9000));
  assert.deepEqual(racerRows(r, "a").map((x) => [x.id, x.rank, x.me]), [["a", 1, true], ["b", 2, false], ["c", 3, false]]);
});

test("a reach time of null ranks as 0 (rules.md); equal cards and reach time tie", () => {
  const rows = ranked([racer("late", 1, { foundation_cards: 4, reach_time_ms: 10 }), racer("dealt", 2, { foundation_cards: 4, reach_time_ms: null }),
    racer("also", 3, { foundation_cards: 4, reach_time_ms: 0 })]);
  assert.deepEqual(rows.map((x) => [x.racer.id, x.rank]), [["dealt", 1], ["also", 1], ["late", 3]]);
});

test("a computer racer that concedes shows as stuck; a person's resignation as resigned", () => {
  assert.equal(shownStatus(racer("bot-Ada", 1, { bot: true, status: "resigned" })), "stuck");
  assert.equal(shownStatus(racer("bot-Bix", 1, { bot: undefined, status: "resigned" })), "stuck"); // by name
  assert.equal(shownStatus(racer("Ada", 1, { status: "resigned" })), "resigned");
  assert.equal(shownStatus(racer("bot-Ada", 1, { bot: true, status: "won" })), "won");
  assert.equal(isBot({ name: "bot-x", bot: false }), false);
  const r = room([racer("ada", 1), racer("bot-Ada", 2, { bot: true, status: "resigned", final: true })], { state: "racing" });
  assert.deepEqual(racerRows(r, "ada").map((x) => [x.id, x.status, x.final, x.bot]),
    [["ada", "waiting", false, false], ["bot-Ada", "stuck", true, true]]);
});

test("the waiting room: the host gets Start and no ready toggle; a racer the toggle; a spectator neither", () => {
  const r = room([racer("ada", 1, { ready: true }), racer("bob", 2)]);
  assert.deepEqual(waitActions(r, { me: "ada", host: true }), { ready: false, readyPressed: true, start: true, startEnabled: true });
  assert.deepEqual(waitActions(r, { me: "bob", host: false }), { ready: true, readyPressed: false, start: false, startEnabled: false });
  assert.deepEqual(waitActions(r, {}), { ready: false, readyPressed: false, start: false, startEnabled: false });
  assert.equal(waitActions({ ...r, state: "countdown" }, { me: "ada", host: true }).startEnabled, false);
  // a host with no seat (a ghost room made from the end screen) still starts
  assert.equal(waitActions(r, { me: null, host: true }).start, true);
});

test("the toolbar follows the game", () => {
  const game = { legal_moves: ["3f", "r"], can_undo: true, final: false, redeals_left: 2, merci_available: false };
  assert.deepEqual(controls(game, { merci: true }),
    { redealsLeft: 2, redeal: true, undo: true, autoplay: true, merciShown: true, merci: false, resign: true });
  assert.deepEqual(controls({ ...game, legal_moves: [], final: true, merci_available: true }, { merci: false }),
    { redealsLeft: 2, redeal: false, undo: false, autoplay: false, merciShown: false, merci: true, resign: false });
});

test("the racer's line, the countdown, the clock", () => {
  assert.equal(gameNote({ status: "won", final: true }), "won");
  assert.equal(gameNote({ status: "stuck", final: false }), "stuck");
  assert.equal(gameNote({ status: "resigned", final: true }), "over");
  assert.equal(gameNote({ status: "playing", final: false }), null);
  assert.deepEqual([3000, 2001, 2000, 1, 0, -5].map((e) => countdownLeft(3000, 3000 - e)), [3, 3, 2, 1, 0, 0]);
  assert.deepEqual([null, 0, 59999, 61000, -5].map(fmtClock), ["–:–", "0:00", "0:59", "1:01", "0:00"]);
});
