// What the room page's live region says, and when (server/web/static/announce.js), in Node.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ackSay, CountdownAnnouncer, describeMove, RIVALS_EVERY_MS, RivalsAnnouncer, targetWords,
} from "../../../server/web/static/announce.js";

const pos = { fans: [["KS", "7H"], ["8C"], [], ["2D", "AD"]], cells: ["QH", null], foundations: [["C", 0], ["D", 0], ["H", 0], ["S", 0]], foundation_cards: 0 };
const game = (cards, extra = {}) => ({ position: { ...pos, foundation_cards: cards }, redeals_left: 2, ...extra });

test("each kind of move in words, its card named by what the board shows", () => {
  assert.equal(describeMove(pos, "1-2"), "7♥ from fan 1 to fan 2.");
  assert.equal(describeMove(pos, "4f"), "A♦ to its foundation.");
  assert.equal(describeMove(pos, "2c"), "8♣ to a free cell.");
  assert.equal(describeMove(pos, "c1f"), "Q♥ from the free cell to its foundation.");
  assert.equal(describeMove(pos, "c1-2"), "Q♥ from the free cell to fan 2.");
  assert.equal(describeMove(pos, "m KS 3"), "Merci: K♠ to fan 3.");
  assert.equal(describeMove(pos, "u"), "Move undone.");
});

test("an ack says the move and the cards home; autoplay its count; a redeal what is left", () => {
  assert.equal(ackSay(game(0), game(1), ["4f"], 52), "A♦ to its foundation. 1 of 52 on the foundations.");
  assert.equal(ackSay(game(0), game(3), ["4f", "4f", "1f"], 52), "Autoplay: 3 cards to the foundations. 3 of 52 on the foundations.");
  assert.equal(ackSay(game(0), game(0, { redeals_left: 1 }), ["r"], 104), "Redealt: 1 redeal left. 0 of 104 on the foundations.");
  assert.equal(ackSay(null, game(5), ["1-2"], 52), "5 of 52 on the foundations.");
});

test("a picked card's targets", () => {
  assert.deepEqual(targetWords(new Set(["12", "3", "f", "c"])), ["its foundation", "a free cell", "fan 3", "fan 12"]);
  assert.deepEqual(targetWords(new Set()), []);
});

const row = (id, cards, rank, status = "playing", me = false) => ({ id, name: id, cards, rank, status, me });

test("rivals: said when their cards or status change, at most every few seconds, never yourself", () => {
  const a = new RivalsAnnouncer();
  a.baseline([row("Ada", 0, 1, "playing", true), row("Bob", 0, 1)]);
  assert.equal(a.update([row("Ada", 0, 1, "playing", true), row("Bob", 0, 1)], 0), null); // nothing new
  assert.equal(a.update([row("Ada", 1, 1, "playing", true), row("Bob", 0, 2)], 100), null); // only me
  assert.equal(a.update([row("Ada", 1, 2, "playing", true), row("Bob", 2, 1)], 200), "Bob: 2 cards, 1st.");
  // Bob again within the period: kept, and when it may be said
  assert.equal(a.update([row("Ada", 1, 2, "playing", true), row("Bob", 3, 1)], 1200), null);
  assert.equal(a.nextAt, 200 + RIVALS_EVERY_MS);
  assert.equal(a.update([row("Ada", 1, 2, "playing", true), row("Bob", 3, 1)], 200 + RIVALS_EVERY_MS), "Bob: 3 cards, 1st.");
  assert.equal(a.nextAt, null);
  const later = 200 + 3 * RIVALS_EVERY_MS;
  assert.equal(a.update([row("Ada", 1, 3, "playing", true), row("Bob", 52, 1, "won"), row("bot-Bix", 1, 2, "stuck")], later),
    "Bob won with 52 cards, 1st. bot-Bix stuck with 1 card, 2nd.");
});

test("the countdown is said once per second it shows, then Go", () => {
  const c = new CountdownAnnouncer();
  // the page redraws every 200 ms
  const said = [3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 0, 0].map((s) => c.update(s)).filter(Boolean);
  assert.deepEqual(said, ["3", "2", "1", "Go!"]);
});
