// Before the race: the join form of a room you have no seat in, and the waiting room
// (the racers, the link to share, the ready toggle or the host's Start).
import { botTag, el } from "./board.js";
import { fmtClock, waitActions } from "./room-state.js";
import { T } from "./strings.js";

/** The join form; `onJoin(name)` takes the seat (and says why not). */
export function joinForm(room, code, msg, { name, onJoin }) {
  const input = el("input", { id: "join-name", name: "name", required: true, maxlength: "24", autocomplete: "nickname", value: name });
  const form = el("form", { class: "card-panel join", onsubmit: (e) => { e.preventDefault(); onJoin(input.value); } },
    el("h1", { text: T.joinTitle(code) }),
    el("p", { text: T.joinFacts(room, fmtClock(room.time_limit_ms)) }),
    el("div", { class: "field" }, el("label", { for: "join-name", text: T.yourName }), input),
    el("button", { type: "submit", class: "primary", text: T.joinButton }),
    el("p", {}, el("a", { href: `/r/${code}/watch`, "data-link": true, text: T.justWatch })), msg);
  return { form, focus: () => input.focus() };
}

/** The waiting room in `stage`; `update(room)` redraws the racers and the buttons. */
export function waitingRoom(stage, room, { me, host, onReady, onStart }) {
  const share = el("input", { readonly: true, value: `${location.origin}/r/${room.code}`, "aria-label": T.shareName, class: "share" });
  const list = el("ul", { class: "racers" });
  const readyBtn = el("button", { type: "button", id: "ready", class: "primary", onclick: () => onReady() });
  const startBtn = el("button", { type: "button", id: "start", class: "primary", text: T.start, onclick: () => onStart() });
  const actions = el("div", { class: "actions" }, readyBtn, startBtn);
  stage.append(el("div", { class: "card-panel wait" },
    el("h2", { text: T.waitingTitle }),
    el("p", {}, el("label", { text: T.shareLabel }), share),
    list, actions,
    el("p", { class: "muted", text: room.quick ? T.quickNote : host ? T.hostNote : T.racerNote })));
  return {
    update(r) {
      list.replaceChildren(...r.racers.map((x) => el("li", { class: x.ready ? "ready" : "" },
        el("span", { class: "name" }, x.id === me ? T.you(x.name) : x.name, botTag(x)),
        el("span", { class: "badge", text: x.ready ? T.ready : T.notReady }))));
      if (!r.racers.length) list.append(el("li", { class: "muted", text: T.noRacer }));
      const now = waitActions(r, { me, host });
      readyBtn.hidden = !now.ready;
      startBtn.hidden = !now.start;
      readyBtn.textContent = now.readyPressed ? T.unready : T.imReady;
      readyBtn.setAttribute("aria-pressed", String(now.readyPressed));
      startBtn.disabled = !now.startEnabled;
    },
  };
}
