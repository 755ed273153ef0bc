// After a race (protocol.md "Rematch", "Series"): the Rematch button, the next room's link,
// a series' table and its next race (the racer is in it: it goes on 2 s before the start).
import { call, store } from "./api.js";
import { el } from "./board.js";
import { T } from "./strings.js";

const td = (t) => el("td", { text: String(t) });
function seriesTable(v, me) {
  const head = [...T.seriesHead, ...v.table[0]?.races.map((_, k) => T.seriesRace(k + 1)) ?? []];
  return el("table", { class: "standings", id: "series-table" },
    el("caption", { text: T.seriesCaption(v) }),
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...v.table.map((r) => el("tr", { class: r.racer === me ? "me" : "" },
      td(r.rank), td(r.left ? T.seriesLeft(r.name) : r.name), td(r.foundation_cards), td(T.seconds(Math.round(r.time_ms / 1000))),
      ...r.races.map((x) => td(x && x.status !== "absent" ? x.foundation_cards : "–"))))));
}

/** Mount after the end screen's title; returns { linked(link, series), stop() }. */
export function mountRematch(box, { code, room, me, token, watch, say, go }) {
  const racer = Boolean(me && token && !watch);
  const s = room.series;
  const goesOn = s && s.race < s.races;
  const button = el("button", { type: "button", id: "rematch-button", class: "primary", text: T.rematch });
  const link = el("a", { id: "rematch-link", "data-link": true, hidden: true });
  const note = el("span", { class: "muted", id: "rematch-note" });
  const bar = el("p", { class: "rematch", id: "rematch" }, ...(racer && !goesOn ? [button, " "] : []), link, " ", note);
  const tableBox = el("div", { class: "table-box", id: "series" });
  box.querySelector("h2").after(bar, tableBox);
  const showSeries = () => s && call("GET", `/series/${s.id}`).then((v) => tableBox.replaceChildren(seriesTable(v, me))).catch(() => {});
  showSeries();
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const seat = await call("POST", `/rooms/${code}/rematch`, { token });
      const next = seat.room.code;
      store.setRacer(next, { racer: seat.racer.id, token: seat.token, name: seat.racer.name });
      if (seat.host_token) store.setHost(next, seat.host_token);
      go(`/r/${next}`);
    } catch (e) { button.disabled = false; say(`${e}`, "error"); }
  });
  let timer = null;
  async function linked(next, series) {
    if (!next) return;
    link.href = racer ? `/r/${next.code}` : `/r/${next.code}/watch`;
    link.textContent = racer ? T.nextRoom(next.code) : T.watchNext(next.code);
    link.hidden = false;
    note.textContent = "";
    if (!racer) return;
    if (!series) { button.textContent = T.joinRematch; return; }
    const nr = await call("GET", `/rooms/${next.code}`).catch(() => null);
    if (!nr || !nr.racers.some((r) => r.id === me)) return;
    store.setRacer(next.code, { ...store.racer(code), racer: me, token }); // same token
    if (store.host(code)) store.setHost(next.code, store.host(code));
    const ms = nr.starts_in_ms ?? 0;
    link.textContent = T.goOn(series.race, series.races);
    note.textContent = T.startsIn(Math.round(ms / 1000));
    clearTimeout(timer);
    timer = setTimeout(() => link.isConnected && go(`/r/${next.code}`), Math.max(0, ms - 2000));
    showSeries();
  }
  linked(room.rematch, goesOn ? { race: s.race + 1, races: s.races } : null);
  return { linked, stop: () => clearTimeout(timer) };
}
