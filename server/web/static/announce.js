// What the room page says in its polite live region, and when: each of the racer's own
// moves and refusals, the start, the countdown (once a second at most) and the rivals'
// progress (at most every RIVALS_EVERY_MS). Pure: time comes in as an argument, words
// come from strings.js; the controller (race.js) writes what this returns.
import { T } from "./strings.js";

export const RIVALS_EVERY_MS = 5000;

const topOfFan = (pos, n) => pos.fans[Number(n) - 1]?.at(-1) ?? null;

/** The words for one move text ("3-7", "3f", "3c", "c1f", "c1-4", "m 5H 7", "r", "u")
 *  played on the position `pos` (the one before it). */
export function describeMove(pos, move) {
  let m;
  if (move === "r") return null; // said with the redeals left, once the game is known
  if (move === "u") return T.undoSay;
  if ((m = /^m (\S+) (\S+)$/.exec(move))) return T.merciSay(m[1].toUpperCase(), m[2]);
  if ((m = /^c(\d+)(?:-?(\d+|f))$/.exec(move))) return T.movedFromCell(pos.cells?.[Number(m[1]) - 1] ?? "?", m[2]);
  if ((m = /^(\d+)f$/.exec(move))) return T.movedHome(topOfFan(pos, m[1]));
  if ((m = /^(\d+)c$/.exec(move))) return T.movedToCell(topOfFan(pos, m[1]));
  if ((m = /^(\d+)-(\d+)$/.exec(move))) return T.movedToFan(topOfFan(pos, m[1]), m[1], m[2]);
  return null;
}

/** What an ack says: the move (or autoplay's cards, or the redeal), then the count. */
export function ackSay(before, after, applied, total) {
  let first;
  if (applied.length > 1) first = T.autoplaySay(applied.length);
  else if (applied[0] === "r") first = T.redealSay(after.redeals_left);
  else first = before ? describeMove(before.position, applied[0]) : null;
  const count = T.cardsSay(after.position.foundation_cards, total);
  return first ? `${first} ${count}` : count;
}

/** The targets of a picked card, in words: "fan 7", "its foundation", "a free cell". */
export function targetWords(targets) {
  const words = [];
  if (targets.has("f")) words.push(T.targetFoundation);
  if (targets.has("c")) words.push(T.targetCell);
  const fans = [...targets].filter((t) => /^\d+$/.test(t)).sort((a, b) => a - b);
  for (const n of fans) words.push(T.targetFan(n));
  return words;
}

/**
 * The rivals' progress, said at most every `every` ms: `update(rows, now)` takes the
 * racers' rows (room-state.js `racerRows`) and returns the words to say now, or null —
 * then `nextAt` (when set) is when `update` may say what is waiting. A rival is
 * mentioned when its cards or its status changed since it was last mentioned.
 */
export class RivalsAnnouncer {
  constructor({ every = RIVALS_EVERY_MS } = {}) {
    this.every = every; this.said = new Map(); this.saidAt = -Infinity; this.nextAt = null;
  }
  /** The rows as they are now, without saying anything (the start: nothing has moved). */
  baseline(rows) { for (const r of rows) this.said.set(r.id, `${r.cards}/${r.status}`); }
  update(rows, now) {
    const changed = rows.filter((r) => !r.me && this.said.get(r.id) !== `${r.cards}/${r.status}`);
    if (!changed.length) { this.nextAt = null; return null; }
    if (now - this.saidAt < this.every) { this.nextAt = this.saidAt + this.every; return null; }
    for (const r of changed) this.said.set(r.id, `${r.cards}/${r.status}`);
    this.saidAt = now; this.nextAt = null;
    return changed.map((r) => T.rivalSay(r.name, r.cards, r.rank, r.status)).join(" ");
  }
}

/** The countdown said once per whole second that changes (the page redraws it 5 times
 *  a second): `update(secondsLeft)` returns the words, or null when already said. */
export class CountdownAnnouncer {
  constructor() { this.last = null; }
  update(left) {
    if (left === this.last) return null;
    this.last = left;
    return left > 0 ? T.countdownSay(left) : T.go;
  }
}
