// The board's keyboard grid (server/web/static/grid-nav.js), in Node.
import assert from "node:assert/strict";
import { test } from "node:test";

import { nextCell, remember, resolve } from "../../../server/web/static/grid-nav.js";

// the foundations (4), then fans of 3, 1, 2 cards (the last cell: the top card)
const rows = [{ key: "f", fan: false, size: 4 }, { key: "fan:1", fan: true, size: 3 },
  { key: "fan:2", fan: true, size: 1 }, { key: "fan:3", fan: true, size: 2 }];

test("arrows: ↓ ↑ between rows onto a fan's top card, ← → along a row, stopping at the ends", () => {
  assert.deepEqual(nextCell(rows, { row: 0, col: 2 }, "ArrowDown"), { row: 1, col: 2 });
  assert.deepEqual(nextCell(rows, { row: 1, col: 0 }, "ArrowDown"), { row: 2, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 2, col: 0 }, "ArrowDown"), { row: 3, col: 1 });
  assert.deepEqual(nextCell(rows, { row: 3, col: 1 }, "ArrowDown"), { row: 3, col: 1 });
  assert.deepEqual(nextCell(rows, { row: 1, col: 2 }, "ArrowUp"), { row: 0, col: 2 }); // to the foundations
  assert.deepEqual(nextCell(rows, { row: 3, col: 1 }, "ArrowUp"), { row: 2, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 0, col: 0 }, "ArrowUp"), { row: 0, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 1, col: 2 }, "ArrowLeft"), { row: 1, col: 1 });
  assert.deepEqual(nextCell(rows, { row: 1, col: 0 }, "ArrowLeft"), { row: 1, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 0, col: 3 }, "ArrowRight"), { row: 0, col: 3 });
});

test("Home and End along the row; with Ctrl, the grid's first and last cells; other keys are not the grid's", () => {
  assert.deepEqual(nextCell(rows, { row: 1, col: 2 }, "Home"), { row: 1, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 1, col: 0 }, "End"), { row: 1, col: 2 });
  assert.deepEqual(nextCell(rows, { row: 3, col: 1 }, "Home", true), { row: 0, col: 0 });
  assert.deepEqual(nextCell(rows, { row: 0, col: 1 }, "End", true), { row: 3, col: 1 });
  assert.equal(nextCell(rows, { row: 0, col: 0 }, "a"), null);
  assert.equal(nextCell(rows, { row: 0, col: 0 }, "Enter"), null);
});

test("after a redraw the focus is on the fan's new top card, never on a card gone", () => {
  const mem = remember(rows, { row: 1, col: 2 }); // fan 1's top card
  assert.deepEqual(mem, { key: "fan:1", col: "top" });
  const after = [rows[0], { key: "fan:1", fan: true, size: 2 }, rows[2], rows[3]];
  assert.deepEqual(resolve(after, mem), { row: 1, col: 1 });
  const emptied = [rows[0], { key: "fan:1", fan: true, size: 1 }, rows[2], rows[3]]; // the empty place
  assert.deepEqual(resolve(emptied, mem), { row: 1, col: 0 });
  // a foundation keeps its column; a covered card its place while the fan is as long
  assert.deepEqual(resolve(rows, remember(rows, { row: 0, col: 3 })), { row: 0, col: 3 });
  assert.deepEqual(resolve(after, remember(rows, { row: 1, col: 0 })), { row: 1, col: 0 });
  // nothing remembered: the first fan's top card
  assert.deepEqual(resolve(rows, null), { row: 1, col: 2 });
  assert.deepEqual(resolve(rows, { key: "c", col: 0 }), { row: 1, col: 2 });
  assert.equal(resolve([], null), null);
});
