// The board: fans, free cells, foundations, as one composite widget (the WAI-ARIA grid
// pattern, grid-nav.js: one Tab stop, arrow keys, Home/End, Enter or Space to pick and
// play) and with the pointer: tap, double-tap, drag. Nothing moves until the server's
// ack carries the new game (race.js sends the moves).
import { cardGlyph, foundationTop, isRed, rankOf, suitOf } from "./cards.js";
import { nextCell, remember, resolve } from "./grid-nav.js";
import { isBot } from "./room-state.js";
import { plural, T } from "./strings.js";

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
export { el, plural };
/** A computer racer's tag, its level and rating beside it ("bot · club ≈ 17.8"). */
export const botTag = (r) => (isBot(r) ? el("span", { class: "bot-label" }, el("span", { class: "tag", text: T.bot }),
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

/** One cell of the grid: a card (its corner index shown, its name said) or an empty place. */
function cell(card, label, { selected = false, text = "" } = {}) {
  if (!card) return el("div", { role: "gridcell", class: "empty", "aria-label": label }, el("span", { "aria-hidden": "true", text }));
  const rank = cardGlyph(card).slice(0, -1);
  return el("div", { role: "gridcell", class: `card ${isRed(card) ? "red" : "black"}${selected ? " selected" : ""}`,
    "aria-label": label, "aria-selected": selected ? "true" : null, "data-card": card },
  el("span", { class: rank === "10" ? "rank ten" : "rank", text: rank }),
  el("span", { class: "suit", "aria-hidden": "true", text: cardGlyph(card).slice(-1) }));
}

export class Board {
  /** root: element; opts.onMove(text) sends a move, opts.onPick(card, targets) and
   *  opts.onPutDown(card) are told of the picked card; opts.readOnly for spectators and
   *  replays; opts.label names the grid. destroy() lets go of what it watches. */
  constructor(root, opts = {}) {
    this.root = root; this.opts = opts; this.game = null;
    this.sel = null; this.merciMode = false; this.lastTap = null; this.suppressClick = false;
    this.rows = []; this.mem = null;
    root.classList.add("board");
    root.setAttribute("role", "grid");
    root.setAttribute("aria-label", opts.label ?? T.boardName);
    if (opts.readOnly) root.setAttribute("aria-readonly", "true");
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    root.addEventListener("keydown", (e) => this.onKey(e));
    root.addEventListener("focusin", (e) => this.onFocus(e));
    // the fans' overlap follows the board's width: watched on the board, not the window
    this.resize = new ResizeObserver(() => this.layoutFans());
    this.resize.observe(root);
  }
  destroy() { this.resize.disconnect(); this.dragEnd?.(); }
  /** Draw a game; its version and status are on the board (`data-version`, `data-status`). */
  set(game) {
    this.game = game;
    this.root.dataset.version = game.version ?? "";
    this.root.dataset.status = game.status ?? "";
    this.render();
  }
  get legal() { return this.game?.legal_moves ?? []; }
  clearSelection() {
    if (this.sel === null) return;
    const card = this.selectedCard(); this.sel = null; this.render(); this.opts.onPutDown?.(card);
  }
  toggleMerci() { this.merciMode = !this.merciMode; this.sel = null; this.render(); }
  selectedCard() { return this.root.querySelector(".card.selected")?.dataset.card ?? null; }
  /** Focus the grid's cell (its one Tab stop). */
  focus() { this.activeCell()?.focus({ preventScroll: true }); }
  activeCell() { return this.root.querySelector('[role="gridcell"][tabindex="0"]'); }

  render() {
    const hadFocus = this.root.contains(document.activeElement);
    const g = this.game;
    this.root.replaceChildren();
    this.rows = [];
    if (!g) return;
    const pos = g.position;
    const targets = this.sel === null ? new Set() : targetsFrom(this.legal, this.sel);
    const live = !this.opts.readOnly && !g.final && this.legal.length > 0;
    const aim = (label, yes) => (yes ? label + T.target : label);
    // a row of the grid: its children (slots or cells) and the cells the keys move between
    const row = (key, fan, attrs, kids, cells = kids) => {
      this.rows.push({ key, fan, size: cells.length, cells });
      return el("div", { role: "row", ...attrs }, ...kids);
    };
    const slot = (cls, place, key, c) => el("div", { class: `slot ${cls}`, "data-place": place, "data-key": key }, c);
    const top = el("div", { class: "top-row" });
    // foundations
    const found = pos.foundations.map(([suit, rank]) => {
      const card = foundationTop([suit, rank]);
      return cell(card, aim(card ? T.foundationCard(card) : T.foundationEmpty(suit), targets.has("f")),
        { text: cardGlyph(`A${suit}`).slice(-1) });
    });
    top.append(row("f", false, { class: "foundations", "aria-label": T.foundationsRow },
      found.map((c, i) => slot(`foundation${targets.has("f") ? " target" : ""}`, "f", `f${i}`, c)), found));
    // free cells
    if (pos.cells && pos.cells.length) {
      const cells = pos.cells.map((card, i) => {
        const c = card ? cell(card, T.cellCard(card, i + 1), { selected: this.sel === `c${i + 1}` })
          : cell(null, aim(T.cellEmpty(i + 1), targets.has("c")));
        if (card && live) c.dataset.src = `c${i + 1}`;
        return c;
      });
      top.append(row("c", false, { class: "cells", "aria-label": T.cellsRow }, cells.map((c, i) =>
        slot(`cell${!pos.cells[i] && targets.has("c") ? " target" : ""}`, pos.cells[i] ? `cell:${i + 1}` : "c", `cell${i}`, c)), cells));
    }
    // fans: each a row, its cards from the bottom to the top card
    const fans = el("div", { class: "fans" });
    pos.fans.forEach((fan, i) => {
      const n = String(i + 1);
      const cards = fan.map((card, j) => {
        const isTop = j === fan.length - 1;
        const merciSrc = live && this.merciMode && g.merci_available && !isTop;
        const selected = isTop ? this.sel === n : (typeof this.sel === "object" && this.sel?.merci === card);
        const c = cell(card, aim(T.fanCard(card, n, isTop), isTop && targets.has(n)), { selected });
        if (isTop && live) c.dataset.src = n;
        else if (merciSrc) c.dataset.merci = card;
        return c;
      });
      if (!fan.length) cards.push(cell(null, aim(T.fanEmpty(n), targets.has(n))));
      fans.append(el("div", { class: `fan${targets.has(n) ? " target" : ""}${fan.length ? "" : " gone"}`, "data-place": `fan:${n}`, "data-key": `fan${n}` },
        el("span", { class: "fan-no", "aria-hidden": "true", text: n }),
        row(`fan:${n}`, true, { class: "fan-cards", "aria-label": T.fanRow(n) }, cards)));
    });
    // the grid's one Tab stop (roving), set before the board goes in the page
    const at = resolve(this.rows, this.mem);
    this.rows.forEach((r, ri) => r.cells.forEach((c, ci) => {
      c.dataset.row = ri; c.dataset.col = ci; c.tabIndex = at && ri === at.row && ci === at.col ? 0 : -1;
    }));
    this.root.append(top, fans);
    this.layoutFans();
    if (hadFocus) this.focus();
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

  /** After a card is played to the foundations, the focus goes to the one it lands on. */
  focusFoundationOf(card) {
    if (!card) return;
    const i = this.game.position.foundations.findIndex(([suit, rank]) => suit === suitOf(card) && rank === rankOf(card) - 1);
    if (i >= 0 && this.mem?.key === "f") this.mem = { key: "f", col: i };
  }

  onFocus(e) {
    if (e.target === this.root) { this.focus(); return; } // the skip link's target
    const c = e.target.closest?.('[role="gridcell"]');
    if (!c || !this.root.contains(c)) return;
    const at = { row: Number(c.dataset.row), col: Number(c.dataset.col) };
    this.mem = remember(this.rows, at);
    for (const other of this.root.querySelectorAll('[role="gridcell"][tabindex="0"]')) if (other !== c) other.tabIndex = -1;
    if (c.tabIndex !== 0) c.tabIndex = 0;
  }

  onKey(e) {
    const c = e.target.closest?.('[role="gridcell"]');
    if (!c || e.altKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.activate(c, false); return; }
    if (e.key === "Escape") { if (this.sel !== null) { e.preventDefault(); this.clearSelection(); } return; }
    const to = nextCell(this.rows, { row: Number(c.dataset.row), col: Number(c.dataset.col) }, e.key, e.ctrlKey);
    if (!to) return;
    e.preventDefault();
    this.rows[to.row].cells[to.col].focus();
  }

  srcOf(target) {
    const b = target.closest?.(".card");
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
    if (this.suppressClick) { this.suppressClick = false; return; }
    this.activate(e.target, true);
  }

  /** A tap, a click, or Enter or Space on a cell: pick a card, put it down, play it. */
  activate(target, pointer) {
    if (this.opts.readOnly || !this.game || this.game.final) return;
    const src = this.srcOf(target);
    const place = this.placeOf(target);
    const now = performance.now();
    // double tap on a top card: to its foundation
    if (pointer && src !== null && typeof src !== "object" && this.lastTap && this.lastTap.src === src && now - this.lastTap.t < DOUBLE_TAP_MS) {
      this.lastTap = null; this.sel = null; this.render();
      this.opts.onMove?.(moveText(src, "f"));
      return;
    }
    this.lastTap = pointer && src !== null ? { src, t: now } : null;
    if (this.sel !== null) {
      if (src !== null && this.same(src, this.sel)) { this.clearSelection(); return; }
      const targets = targetsFrom(this.legal, this.sel);
      if (place !== null && (targets.has(place) || src === null)) {
        const from = this.sel;
        if (place === "f") this.focusFoundationOf(this.selectedCard());
        this.sel = null; this.render();
        this.opts.onMove?.(moveText(from, place)); // the server says why when it is illegal
        return;
      }
    }
    if (src !== null) {
      this.sel = src; this.render();
      this.opts.onPick?.(this.selectedCard(), targetsFrom(this.legal, src));
    }
  }

  onPointerDown(e) {
    if (this.opts.readOnly || !this.game || this.game.final || e.button > 0) return;
    const src = this.srcOf(e.target);
    if (src === null) return;
    const card = e.target.closest(".card");
    const start = { x: e.clientX, y: e.clientY };
    let ghost = null;
    const move = (ev) => {
      if (!ghost && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < DRAG_PX) return;
      if (!ghost) {
        this.sel = src; this.render();
        ghost = card.cloneNode(true); ghost.classList.add("ghost");
        ghost.removeAttribute("role"); ghost.removeAttribute("aria-label");
        ghost.setAttribute("aria-hidden", "true");
        document.body.append(ghost);
      }
      ghost.style.transform = `translate(${ev.clientX - 20}px, ${ev.clientY - 28}px)`;
      ev.preventDefault();
    };
    const end = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      ghost?.remove();
      this.dragEnd = null;
    };
    const up = (ev) => {
      const dragged = ghost !== null;
      end();
      if (!dragged) return;
      this.suppressClick = true;
      setTimeout(() => { this.suppressClick = false; }, 0);
      const under = document.elementFromPoint(ev.clientX, ev.clientY);
      const place = under ? this.placeOf(under) : null;
      this.sel = null; this.render();
      if (place !== null && place !== src) this.opts.onMove?.(moveText(src, place));
    };
    this.dragEnd?.();
    this.dragEnd = end;
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }
}
