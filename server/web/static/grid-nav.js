// The board as one composite widget (the WAI-ARIA grid pattern): its rows are the
// foundations, the free cells (when the variant has them) and every fan; its cells are
// the cards (a fan's covered cards too, from the bottom to the top card) or the empty
// places. Pure: which cell a key leads to, and where the focus goes after a redraw.
// Rows are `{ key, fan }` with `size` cells (a fan's top card is its last cell).

/** The cell a key leads to from `at` ({ row, col }), or null when the key is not one of
 *  the grid's: ↑ ↓ between rows (landing on a fan's top card), ← → along a row, Home and
 *  End to its ends, Ctrl+Home and Ctrl+End to the grid's first and last cells. */
export function nextCell(rows, at, key, ctrl = false) {
  const last = rows.length - 1;
  const land = (row, col) => ({ row, col: rows[row].fan ? rows[row].size - 1 : Math.min(col, rows[row].size - 1) });
  switch (key) {
    case "ArrowDown": return land(Math.min(last, at.row + 1), at.col);
    case "ArrowUp": return land(Math.max(0, at.row - 1), at.col);
    case "ArrowRight": return { row: at.row, col: Math.min(rows[at.row].size - 1, at.col + 1) };
    case "ArrowLeft": return { row: at.row, col: Math.max(0, at.col - 1) };
    case "Home": return ctrl ? { row: 0, col: 0 } : { row: at.row, col: 0 };
    case "End": return ctrl ? { row: last, col: rows[last].size - 1 } : { row: at.row, col: rows[at.row].size - 1 };
    default: return null;
  }
}

/** The focus to keep across a redraw: the row's key and the column, or "top" for a
 *  fan's top card (after a move it is the fan's new top card, never a card gone). */
export function remember(rows, at) {
  const row = rows[at.row];
  return { key: row.key, col: row.fan && at.col === row.size - 1 ? "top" : at.col };
}

/** Where a remembered focus is on the rows of the new board: the first fan's top card
 *  when nothing is remembered or its row is gone. */
export function resolve(rows, mem) {
  if (!rows.length) return null;
  let row = rows.findIndex((r) => r.key === mem?.key);
  if (row < 0) { row = Math.max(0, rows.findIndex((r) => r.fan)); mem = null; }
  const size = rows[row].size;
  const col = mem?.col === "top" || mem?.col === undefined ? size - 1 : Math.min(mem.col, size - 1);
  return { row, col: Math.max(0, col) };
}
