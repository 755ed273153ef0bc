// The room page's polite live region: what a screen reader says without moving the
// focus — the racer's moves and refusals, the picked card's targets, the start, the
// countdown, the rivals' progress (announce.js decides what and when). Each message is
// a new line in the region (a line replaced before it is read may go unsaid); the
// region keeps the last few.
import { el } from "./board.js";
import { T } from "./strings.js";

const KEEP = 4;

export function liveRegion() {
  const box = el("div", { class: "sr-only", id: "live", role: "log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": T.liveName });
  return {
    el: box,
    say(text) {
      if (!text) return;
      box.append(el("p", { text }));
      while (box.childElementCount > KEEP) box.firstElementChild.remove();
    },
  };
}
