// The racers during the race, from room-state.js `racerRows`: the panel beside the board
// (bars, moves, status; rows glide to their new place and flash once when a result is
// final) and, on a phone, the compact strip above the board that stays in sight while
// the board scrolls (rank, cards, status).
import { botTag, el } from "./board.js";
import { T } from "./strings.js";

const still = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

export function racersPanel(list, total) {
  const seenFinal = new Set();
  return function draw(rows) {
    // the rows' places are read only when the order changes (a read forces a layout)
    const moved = [...list.children].map((li) => li.dataset.racer).join() !== rows.map((r) => r.id).join();
    const before = new Map([...list.children].map((li) => [li.dataset.racer, moved ? li.getBoundingClientRect().top : null]));
    list.replaceChildren(...rows.map((r) => {
      const justDone = r.final && !seenFinal.has(r.id);
      if (r.final) seenFinal.add(r.id);
      const fill = el("span", { class: "fill" });
      fill.style.width = `${(100 * r.cards) / total}%`;
      return el("li", { class: `racer${r.me ? " me" : ""}${r.final ? " final" : ""}${justDone && before.size ? " done" : ""}`, "data-racer": r.id },
        el("span", { class: "rank", text: String(r.rank) }),
        el("span", { class: "name" }, r.me ? T.you(r.name) : r.name, botTag(r)),
        el("span", { class: "bar", role: "img", "aria-label": T.barName(r.cards, total) }, fill),
        el("span", { class: "figures", text: T.figures({ foundation_cards: r.cards, moves: r.moves }, r.status) }));
    }));
    if (!moved || still()) return;
    for (const li of list.children) {
      const was = before.get(li.dataset.racer);
      const dy = was === undefined ? 0 : was - li.getBoundingClientRect().top;
      if (dy) li.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], { duration: 300, easing: "ease-out" });
    }
  };
}

export function rivalsStrip(list) {
  return function draw(rows) {
    list.replaceChildren(...rows.map((r) => el("li", { class: `rival${r.me ? " me" : ""}${r.final ? " final" : ""}`, "data-racer": r.id },
      el("span", { class: "rank", text: String(r.rank) }),
      el("span", { class: "name", text: r.me ? T.you(r.name) : r.name }),
      el("span", { class: "cards" }, String(r.cards), el("span", { class: "sr-only", text: T.cardsWord(r.cards) })),
      r.status === "playing" ? null : el("span", { class: "state", text: T.status(r.status) }))));
  };
}
