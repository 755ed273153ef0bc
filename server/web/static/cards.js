// Cards in the server's notation ("7C", "TH", "AS"): ranks, suits, glyphs, colours (their
// names, words, are strings.js's).
const RANKS = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
const RANK_SHORT = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

export function rankOf(card) {
  const r = card.slice(0, -1).toUpperCase();
  return RANKS[r] ?? Number(r);
}
export function suitOf(card) { return card.slice(-1).toUpperCase(); }
export function isRed(card) { const s = suitOf(card); return s === "D" || s === "H"; }
/** "7♣" */
export function cardGlyph(card) { return RANK_SHORT[rankOf(card)] + SUITS[suitOf(card)]; }
/** A foundation entry ["C", 3] as a card ("3C"), or null when empty. */
export function foundationTop([suit, rank]) {
  if (!rank) return null;
  return (Object.keys(RANKS).find((k) => RANKS[k] === rank) ?? String(rank)) + suit;
}
