// Just enough of the rules engine to replay a move log: PySolFC's deals (the MS FreeCell
// generator below 32000, Python's Mersenne Twister above), the three layouts, the keyed
// redeal of docs/redeal.md (HMAC-SHA256 via WebCrypto), plays, free cells, merci and
// undo. The log is the server's, already checked: nothing here decides legality.
const RANKS = "A23456789TJQK";
const SUITS = "CDHS";
const PYSOL_TO_OURS = [0, 3, 2, 1]; // PySolFC suits C S H D → C D H S

export const cardStr = (c) => RANKS[c % 13] + SUITS[Math.floor(c / 13)];
function parseCard(s) {
  let r = s.slice(0, -1).toUpperCase();
  if (r === "10") r = "T";
  return SUITS.indexOf(s.slice(-1).toUpperCase()) * 13 + RANKS.indexOf(r);
}

/** Python's random.Random(seed) for a non-negative integer seed: MT19937 + init_by_array. */
class PyRandom {
  constructor(seed) {
    const key = [];
    let n = BigInt(seed);
    do { key.push(Number(n & 0xffffffffn)); n >>= 32n; } while (n > 0n);
    const mt = new Uint32Array(624);
    mt[0] = 19650218;
    for (let i = 1; i < 624; i++) mt[i] = (Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i) >>> 0;
    let i = 1, j = 0;
    for (let k = Math.max(624, key.length); k; k--) {
      mt[i] = ((mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k; k--) {
      mt[i] = ((mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
    this.mt = mt; this.i = 624;
  }
  u32() {
    const mt = this.mt;
    if (this.i >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.i = 0;
    }
    let y = mt[this.i++];
    y ^= y >>> 11; y ^= (y << 7) & 0x9d2c5680; y ^= (y << 15) & 0xefc60000; y ^= y >>> 18;
    return y >>> 0;
  }
  random() { const a = this.u32() >>> 5, b = this.u32() >>> 6; return (a * 67108864 + b) / 9007199254740992; }
}

/** The shuffled deck in dealing order (server/rules/deal.py deal_order). */
export function dealOrder(dealNumber, decks = 1) {
  let cards = [];
  for (let d = 0; d < decks; d++) for (let s = 0; s < 4; s++) for (let r = 0; r < 13; r++) cards.push(PYSOL_TO_OURS[s] * 13 + r);
  const n = BigInt(dealNumber);
  if (n < 32000n) {
    if (cards.length === 52) { const c = cards; cards = []; for (let i = 0; i < 13; i++) for (const j of [0, 39, 26, 13]) cards.push(c[i + j]); }
    let state = n;
    for (let k = cards.length - 1; k > 0; k--) {
      state = (state * 214013n + 2531011n) & 0x1ffffffffn;
      const j = Number((state >> 16n) & 0x7fffn) % (k + 1);
      [cards[k], cards[j]] = [cards[j], cards[k]];
    }
  } else {
    const rng = new PyRandom(n);
    for (let k = cards.length - 1; k > 0; k--) {
      const j = Math.floor(rng.random() * (k + 1));
      [cards[k], cards[j]] = [cards[j], cards[k]];
    }
  }
  return cards.reverse();
}

/** The first position: {fans: [[int]], foundations: [int], cells: [int|-1], redeals, merci}. */
export function initialPosition(rules, dealNumber) {
  let order = dealOrder(dealNumber, rules.decks);
  let aces = 0; let rounds = [17, 17, 18];
  if (rules.layout === "trefoil") {
    const rest = order.filter((c) => c % 13 !== 0); aces = order.length - rest.length; order = rest; rounds = [16, 16, 16];
  } else if (rules.layout === "house") rounds = [34, 35, 35];
  const fans = Array.from({ length: Math.max(...rounds) }, () => []);
  let k = 0;
  for (const w of rounds) for (let i = 0; i < w; i++) fans[i].push(order[k++]);
  return { fans, foundations: Array(4 * rules.decks).fill(aces ? 1 : 0), cells: Array(rules.cells).fill(-1), redeals: 0, merci: false };
}

function pile(pos, card) {
  const suit = Math.floor(card / 13), rank = (card % 13) + 1;
  return pos.foundations.findIndex((top, i) => i % 4 === suit && top === rank - 1);
}

async function redealFans(keyHex, k, cards) {
  const key = await crypto.subtle.importKey("raw", new Uint8Array(keyHex.match(/../g).map((h) => parseInt(h, 16))),
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const n = cards.length;
  const msg = new Uint8Array([...new TextEncoder().encode("lucie-redeal-v1"), k, n >> 8, n & 255, ...cards, 0, 0, 0, 0]);
  const words = []; let block = 0;
  const more = async () => {
    const view = new DataView(msg.buffer); view.setUint32(msg.length - 4, block++);
    const out = new DataView(await crypto.subtle.sign("HMAC", key, msg));
    for (let i = 0; i < 8; i++) words.push(out.getUint32(4 * i));
  };
  const below = async (m) => {
    for (;;) {
      if (!words.length) await more();
      const w = words.shift();
      if (w < 2 ** 32 - (2 ** 32 % m)) return w % m;
    }
  };
  const out = cards.slice();
  for (let i = n - 1; i >= 1; i--) { const j = await below(i + 1); [out[i], out[j]] = [out[j], out[i]]; }
  const fans = [];
  for (let i = 0; i < n; i += 3) fans.push(out.slice(i, i + 3));
  return fans;
}

const clone = (p) => ({ ...p, fans: p.fans.map((f) => f.slice()), foundations: p.foundations.slice(), cells: p.cells.slice() });

/** The position after one log entry ("3f", "3-7", "3c", "c2f", "c2-7", "r", "m 5H f"). */
export async function applyMove(rules, pos, text, keyHex) {
  const p = clone(pos);
  const put = (card, to) => {
    if (to === "f") p.foundations[pile(p, card)] += 1;
    else if (to === "c") p.cells[p.cells.indexOf(-1)] = card;
    else p.fans[Number(to) - 1].push(card);
  };
  let m;
  if (text === "r") {
    const gathered = [...p.fans.flat(), ...p.cells.filter((c) => c >= 0)];
    p.redeals += 1;
    p.fans = await redealFans(keyHex, p.redeals, gathered);
    p.cells = p.cells.map(() => -1);
  } else if ((m = text.match(/^m\s*(\S{2,3}?)\s*[- >]?\s*(f|\d+)$/i))) {
    const card = parseCard(m[1]);
    const fi = p.fans.findIndex((f) => f.slice(0, -1).includes(card));
    const fan = p.fans[fi]; fan.splice(fan.indexOf(card), 1);
    p.merci = true; put(card, m[2].toLowerCase());
  } else if ((m = text.match(/^(c?)(\d+)\s*(?:(f|c)|[- >]\s*(\d+|f))$/i))) {
    const from = Number(m[2]) - 1;
    let card;
    if (m[1]) { card = p.cells[from]; p.cells[from] = -1; } else card = p.fans[from].pop();
    put(card, (m[3] ?? m[4]).toLowerCase());
  } else throw new Error(`cannot replay ${text}`);
  return p;
}

/** Every position of a replay (index 0 = the deal, i = after move i); undo pops back. */
export async function replayPositions(rep) {
  const out = [initialPosition(rep.rules, rep.deal_number)];
  const stack = [];
  let pos = out[0];
  for (const { move } of rep.moves) {
    if (move === "u") pos = stack.pop() ?? pos;
    else { stack.push(pos); pos = await applyMove(rep.rules, pos, move, rep.redeal_key); }
    out.push(pos);
  }
  return out;
}

/** A position in the shape of the API's Game, for the board. */
export function asGame(pos) {
  const foundations = pos.foundations.map((top, i) => [SUITS[i % 4], top]);
  return {
    position: { fans: pos.fans.map((f) => f.map(cardStr)), foundations, cells: pos.cells.map((c) => (c < 0 ? null : cardStr(c))),
      foundation_cards: pos.foundations.reduce((a, b) => a + b, 0) },
    legal_moves: [], final: true, version: 0,
  };
}
