// The room page's frame: the title line, the message line, the countdown over the
// screen, the live region (live.js), and the stage that the screens fill (the waiting
// room, the race, the end). The room's state is on the frame (`data-state`), for the
// page's own styles and for whoever reads the page.
import { el } from "./board.js";
import { liveRegion } from "./live.js";
import { T } from "./strings.js";

export function roomFrame(main, code) {
  const live = liveRegion();
  const content = el("div", { class: "room" }, el("p", { class: "muted", text: T.loading(code) }));
  const header = el("section", { class: "room-head" });
  const msg = el("p", { class: "msg" });
  // drawn for the eyes; said once a second by the live region (announce.js)
  const countdown = el("div", { class: "countdown", hidden: true, "aria-hidden": "true" });
  const stage = el("section", { class: "stage" });
  main.replaceChildren(live.el, content);
  return {
    header, msg, stage,
    /** A screen instead of the room (the join form, an error). */
    show(...nodes) { content.replaceChildren(...nodes); },
    /** The room's screens. */
    room() { if (header.parentNode !== content) content.replaceChildren(header, countdown, msg, stage); },
    /** The message line, shown only. "" clears it. */
    line(text, kind = "") { msg.textContent = text; msg.className = `msg ${kind}`; },
    /** A line the racer reads and hears: a refusal, a note. "" clears it. */
    say(text, kind = "") { msg.textContent = text; msg.className = `msg ${kind}`; live.say(text); },
    /** Said to a screen reader only: a move, a pick, the rivals, the countdown. */
    announce(text) { live.say(text); },
    heading(room, watch) {
      header.replaceChildren(
        el("h1", {}, el("span", { class: "muted", text: watch ? T.watchTitle : T.roomTitle }), el("span", { class: "code", text: room.code })),
        el("p", { class: "meta", text: T.meta(room) }));
    },
    /** The countdown's number (or "Go!"), or null to hide it; written only when it changes. */
    countdown(text) {
      countdown.hidden = text === null;
      if (text !== null && countdown.textContent !== text) countdown.textContent = text;
    },
    state(state) { content.dataset.state = state; },
  };
}
