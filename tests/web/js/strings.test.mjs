// The room page's words (server/web/static/strings.js), in Node: every accessible name of
// a place on the board starts with what the place shows (WCAG 2.5.3, label in name).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardGlyph } from "../../../server/web/static/cards.js";
import { ordinal, T } from "../../../server/web/static/strings.js";

test("a card's name: what it shows, then its name and place", () => {
  assert.equal(T.fanCard("7H", 3, true), "7♥, seven of hearts, fan 3, top");
  assert.equal(T.fanCard("TS", 18, false), "10♠, ten of spades, fan 18, covered");
  assert.equal(T.foundationCard("QD"), "Q♦, queen of diamonds, on the diamonds foundation");
  assert.equal(T.cellCard("AC", 2), "A♣, ace of clubs, free cell 2");
  for (const rank of "A23456789TJQK") {
    for (const suit of "CDHS") {
      const card = rank + suit;
      for (const name of [T.fanCard(card, 1, true), T.fanCard(card, 1, false), T.foundationCard(card), T.cellCard(card, 1)]) {
        assert.ok(name.startsWith(`${cardGlyph(card)}, `), name);
      }
    }
  }
});

test("ordinals and plurals", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 111, 112].map(ordinal),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th", "112th"]);
  assert.equal(T.finished(3, 3, 15), "You finished 3rd of 3 with 15 points.");
  assert.equal(T.rivalSay("Bob", 1, 2, "playing"), "Bob: 1 card, 2nd.");
  assert.equal(T.rivalSay("Bob", 0, 1, "timed_out"), "Bob timed out with 0 cards, 1st.");
});
