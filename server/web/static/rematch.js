// The end screen's rematch bar (docs/protocol.md "Rematch"): a racer's Rematch button —
// the first offer makes the next room (new deal, same options) and hosts it, later ones
// take a seat — and, once the next room exists, a link to it for everyone.
import { call, store } from "./api.js";
import { el } from "./board.js";

/** Mount the bar after the end screen's title; returns { linked(link) } for the
 * room's `rematch` event. opts: code, room, me (racer id or null), token, watch, say, go(code). */
export function mountRematch(box, { code, room, me, token, watch, say, go }) {
  const racer = Boolean(me && token && !watch);
  const button = el("button", { type: "button", id: "rematch-button", class: "primary", text: "Rematch" });
  const link = el("a", { id: "rematch-link", "data-link": true, hidden: true });
  const note = el("span", { class: "muted", id: "rematch-note" });
  const bar = el("p", { class: "rematch", id: "rematch" });
  if (racer) bar.append(button, " ");
  bar.append(link, " ", note);
  if (racer) note.textContent = "Same rules, a new deal: the first to ask hosts it.";
  const title = box.querySelector("h2");
  if (title) title.after(bar); else box.prepend(bar);

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const seat = await call("POST", `/rooms/${code}/rematch`, { token });
      const next = seat.room.code;
      store.setRacer(next, { racer: seat.racer.id, token: seat.token, name: seat.racer.name });
      if (seat.host_token) store.setHost(next, seat.host_token);
      go(`/r/${next}`);
    } catch (e) {
      button.disabled = false;
      say(`${e.code}: ${e.message}`, "error");
    }
  });

  function linked(next) {
    if (!next) return;
    link.href = racer ? `/r/${next.code}` : `/r/${next.code}/watch`;
    link.textContent = racer ? `Next room ${next.code}` : `Watch the next room, ${next.code}`;
    link.hidden = false;
    if (racer) {
      button.textContent = "Join the rematch";
      note.textContent = "A racer made the next room: join it.";
    } else note.textContent = "";
  }
  linked(room.rematch);
  return { linked };
}
