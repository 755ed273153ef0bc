// The board: fans, free cells, foundations; tap / double-tap / drag / keyboard controls.
// Nothing moves until the server's ack carries the new game (race.js sends the moves).
import { cardGlyph, cardName, foundationTop, isRed, SUITS } from "./cards.js";

const DOUBLE_TAP_MS = 400;
const DRAG_PX = 8;

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of kids) if (c) e.append(c);
  return e;
}
export { el };
/** "1 move", "2 moves" */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
/** A computer racer: the view's `bot` when it has one, else the server's names (`bot-Ada`). */
const isBot = (r) => (typeof r?.bot === "boolean" ? r.bot : /^bot-/.test(r?.name ?? ""));
/** A computer racer's tag, its level and rating beside it ("bot · club ≈ 17.8"). */
export const botTag = (r) => (isBot(r) ? el("span", { class: "bot-label" }, el("span", { class: "tag", text: "bot" }),
  r.bot_level ? el("span", { class: "level", text: ` · ${r.bot_level}${typeof r.bot_rating === "number" ? ` ≈ ${r.bot_rating.toFixed(1)}` : ""}` }) : null) : null);

/** The move text for a source ("3", "c2", or {merci: "5H"}) to a target ("f", "c", "7"). */
export function moveText(src, target) {
  if (typeof src === "object") return `m ${src.merci} ${target}`;
  if (target === "f" || target === "c") return `${src}${target}`;
  return `${src}-${target}`;
}

/** The targets the legal moves allow from a source: a Set of "f", "c", fan numbers as text. */
export function targetsFrom(legal, src) {
  const out = new Set();
  const prefix = typeof src === "object" ? `m ${src.merci} ` : String(src);
  for (const m of legal) {
    if (!m.startsWith(prefix)) continue;
    const rest = m.slice(prefix.length);
    if (typeof src === "object") out.add(rest);
    else if (rest === "f" || rest === "c") out.add(rest);
    else if (rest.startsWith("-")) out.add(rest.slice(1));
  }
  return out;
}

function cardButton(card, { label, playable, selected, key }) {
  const b = el("button", {
    type: "button", class: `card ${isRed(card) ? "red" : "black"}${selected ? " selected" : ""}`,
    "aria-label": label ?? cardName(card), "data-card": card, "data-key": key,
    tabindex: playable ? "0" : "-1", "aria-disabled": playable ? null : "true",
    "aria-pressed": playable ? String(!!selected) : null,
  });
  const rank = cardGlyph(card).slice(0, -1);
  b.append(el("span", { class: rank === "10" ? "rank ten" : "rank", text: rank }),
    el("span", { class: "suit", "aria-hidden": "true", text: cardGlyph(card).slice(-1) }));
  return b;
}

export class Board {
  /** root: element; opts.onMove(text) sends a move; opts.readOnly for spectators. */
  constructor(root, opts = {}) {
    this.root = root; this.opts = opts; this.game = null;
    this.sel = null; this.merciMode = false; this.lastTap = null;
    this.suppressClick = false;
    root.classList.add("board");
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    window.addEventListener("resize", () => this.layoutFans());
  }
  set(game) { this.game = game; this.render(); }
  get legal() { return this.game?.legal_moves ?? []; }
  clearSelection() { if (this.sel !== null) { this.sel = null; this.render(); } }
  toggleMerci() { this.merciMode = !this.merciMode; this.sel = null; this.render(); }

  render() {
    const focusKey = document.activeElement?.closest?.("[data-key]")?.dataset.key;
    const g = this.game;
    this.root.replaceChildren();
    if (!g) return;
    const pos = g.position;
    const targets = this.sel === null ? new Set() : targetsFrom(this.legal, this.sel);
    const live = !this.opts.readOnly && !g.final && this.legal.length > 0;
    const top = el("div", { class: "top-row" });
    // foundations
    const fnd = el("div", { class: "foundations", role: "group", "aria-label": "foundations" });
    pos.foundations.forEach(([suit, rank], i) => {
      const card = foundationTop([suit, rank]);
      const slot = el("div", {
        class: `slot foundation${targets.has("f") ? " target" : ""}`, "data-place": "f",
        "data-key": `f${i}`,
      });
      const [name, glyph] = SUITS[suit];
      slot.append(card ? cardButton(card, { label: `${name} foundation, ${cardName(card)} on top`, playable: live, key: `fc${i}` })
        : el("button", { type: "button", class: "empty", "aria-label": `empty ${name} foundation`, tabindex: live ? "0" : "-1", text: glyph }));
      fnd.append(slot);
    });
    top.append(fnd);
    // free cells
    if (pos.cells && pos.cells.length) {
      const cells = el("div", { class: "cells", role: "group", "aria-label": "free cells" });
      pos.cells.forEach((card, i) => {
        const src = `c${i + 1}`;
        const slot = el("div", { class: `slot cell${!card && targets.has("c") ? " target" : ""}`, "data-place": card ? `cell:${i + 1}` : "c", "data-key": `cell${i}` });
        if (card) {
          const b = cardButton(card, { label: `${cardName(card)}, free cell ${i + 1}`, playable: live, selected: this.sel === src, key: `cc${i}` });
          b.dataset.src = src; slot.append(b);
        } else {
          slot.append(el("button", { type: "button", class: "empty", "aria-label": `free cell ${i + 1}, empty`, tabindex: live ? "0" : "-1", text: "" }));
        }
        cells.append(slot);
      });
      top.append(cells);
    }
    this.root.append(top);
    // fans
    const fans = el("div", { class: "fans", role: "group", "aria-label": "fans" });
    pos.fans.forEach((fan, i) => {
      const n = String(i + 1);
      const f = el("div", { class: `fan${targets.has(n) ? " target" : ""}${fan.length ? "" : " gone"}`, "data-place": `fan:${n}`, "data-key": `fan${n}` });
      f.append(el("span", { class: "fan-no", "aria-hidden": "true", text: n }));
      const row = el("div", { class: "fan-cards" });
      fan.forEach((card, j) => {
        const isTop = j === fan.length - 1;
        const merciSrc = this.merciMode && g.merci_available && !isTop;
        const selected = isTop ? this.sel === n : (typeof this.sel === "object" && this.sel?.merci === card);
        const b = cardButton(card, {
          label: `${cardName(card)}, fan ${n}${isTop ? "" : ", covered"}`,
          playable: live && (isTop || merciSrc), selected, key: `card${card}${j}`,
        });
        if (isTop) b.dataset.src = n;
        else if (merciSrc) b.dataset.merci = card;
        row.append(b);
      });
      if (!fan.length) row.append(el("button", { type: "button", class: "empty", "aria-label": `fan ${n}, empty`, tabindex: live ? "0" : "-1" }));
      f.append(row);
      fans.append(f);
    });
    this.root.append(fans);
    this.layoutFans();
    if (focusKey) this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus({ preventScroll: true });
  }

  /** Overlap each fan's cards so the fan fits its box (the top card shows whole) and,
   *  where the box allows, every covered card's rank ("10" too) shows whole. */
  layoutFans() {
    const rows = [...this.root.querySelectorAll(".fan-cards")].map((row) => {
      const cards = [...row.children];
      if (cards.length < 2) return null;
      const w = cards[0].offsetWidth || 40;
      const need = Math.max(...cards.map((c) => {
        const r = c.querySelector(".rank")?.getBoundingClientRect();
        return r ? r.right - c.getBoundingClientRect().left + 1 : 0;
      }));
      return [row, w, Math.max(8, Math.min(Math.max(w * 0.58, need), (row.clientWidth - w) / (cards.length - 1)))];
    });
    for (const [row, w, step] of rows.filter(Boolean)) row.style.setProperty("--step", `${Math.floor(step - w)}px`);
  }

  srcOf(target) {
    const b = target.closest("button.card");
    if (!b || !this.root.contains(b)) return null;
    if (b.dataset.src) return b.dataset.src;
    if (b.dataset.merci) return { merci: b.dataset.merci };
    return null;
  }
  placeOf(target) {
    const p = target.closest?.("[data-place]");
    if (!p || !this.root.contains(p)) return null;
    const v = p.dataset.place;
    if (v === "f" || v === "c") return v;
    if (v.startsWith("fan:")) return v.slice(4);
    return null; // a full free cell is no target
  }
  same(a, b) {
    return a !== null && b !== null && (typeof a === "object" ? typeof b === "object" && a.merci === b.merci : a === b);
  }

  onClick(e) {
    if (this.opts.readOnly || !this.game || this.game.final) return;
    if (this.suppressClick) { this.suppressClick = false; return; }
    const src = this.srcOf(e.target);
    const place = this.placeOf(e.target);
    const now = performance.now();
    // double tap on a top card: to its foundation
    if (src !== null && typeof src !== "object" && this.lastTap && this.lastTap.src === src && now - this.lastTap.t < DOUBLE_TAP_MS) {
      this.lastTap = null; this.sel = null; this.render();
      this.opts.onMove?.(moveText(src, "f"));
      return;
    }
    this.lastTap = src !== null ? { src, t: now } : null;
    if (this.sel !== null) {
      if (src !== null && this.same(src, this.sel)) { this.clearSelection(); return; }
      const targets = targetsFrom(this.legal, this.sel);
      if (place !== null && (targets.has(place) || src === null)) {
        const from = this.sel; this.sel = null; this.render();
        this.opts.onMove?.(moveText(from, place)); // the server says why when it is illegal
        return;
      }
    }
    if (src !== null) { this.sel = src; this.render(); }
  }

  onPointerDown(e) {
    if (this.opts.readOnly || !this.game || this.game.final || e.button > 0) return;
    const src = this.srcOf(e.target);
    if (src === null) return;
    const card = e.target.closest("button.card");
    const start = { x: e.clientX, y: e.clientY };
    let ghost = null;
    const move = (ev) => {
      if (!ghost && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < DRAG_PX) return;
      if (!ghost) {
        this.sel = src; this.render();
        ghost = card.cloneNode(true); ghost.classList.add("ghost"); ghost.removeAttribute("data-key");
        ghost.setAttribute("aria-hidden", "true");
        document.body.append(ghost);
      }
      ghost.style.transform = `translate(${ev.clientX - 20}px, ${ev.clientY - 28}px)`;
      ev.preventDefault();
    };
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (!ghost) return;
      ghost.remove();
      this.suppressClick = true;
      setTimeout(() => { this.suppressClick = false; }, 0);
      const under = document.elementFromPoint(ev.clientX, ev.clientY);
      const place = under ? this.placeOf(under) : null;
      this.sel = null; this.render();
      if (place !== null && place !== src) this.opts.onMove?.(moveText(src, place));
    };
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }
}
