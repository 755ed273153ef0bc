// The home page: create a room, join by code, public rooms (live), the daily deal.
import { call, store } from "./api.js";
import { el, plural } from "./board.js";
import { navigate } from "./nav.js";
import { VARIANTS, variantName } from "./variants.js";

/** The room option `bots` for `count` computer racers of `level` ("mix": the count alone). */
export const botsOption = (count, level) => (level === "mix" || !count ? count : { level, count });

function field(label, input, hint) {
  return el("div", { class: "field" }, el("label", { for: input.id, text: label }), input, hint ? el("small", { class: "muted", text: hint }) : null);
}

/** Create a room (`opts`: POST /rooms), join it as `name`, go there. */
export async function createAndJoin(opts, name) {
  // deal numbers may exceed 2^53: they go into the JSON as written
  const { deal, ...rest } = opts;
  const dealJSON = /^\d+$/.test(String(deal)) ? String(deal) : JSON.stringify(deal);
  const body = JSON.stringify(rest).replace(/}$/, `${Object.keys(rest).length ? "," : ""}"deal":${dealJSON}}`);
  const created = await call("POST", "/rooms", { body });
  const code = created.room.code;
  store.setHost(code, created.host_token);
  seat(code, await call("POST", `/rooms/${code}/racers`, { body: { name } }), name);
}
function seat(code, j, name) {
  store.setRacer(code, { racer: j.racer.id, token: j.token, name: j.racer.name });
  store.setName(name);
  navigate(`/r/${code}`);
}

export function mountHome(main) {
  const msg = el("p", { class: "msg", role: "alert" });
  const say = (t, k = "error") => { msg.textContent = t; msg.className = `msg ${k}`; };
  const fail = (err) => say(`${err}`);
  const name = el("input", { id: "name", required: true, maxlength: "24", autocomplete: "nickname", value: store.name() });
  const select = (id, list, attrs, chosen) => el("select", { id, ...attrs }, ...list.map(([value, text]) => el("option", { value, text, selected: value === chosen })));
  const variant = select("variant", VARIANTS);
  const dealNo = el("input", { id: "deal-number", inputmode: "numeric", pattern: "[0-9]{1,20}", placeholder: "e.g. 123", hidden: true, "aria-label": "Deal number" });
  const dealKind = select("deal-kind", [["random", "Random"], ["number", "Deal number…"], ["daily", "Today's daily deal"]],
    { onchange: () => { dealNo.hidden = dealKind.value !== "number"; dealNo.required = !dealNo.hidden; } });
  const limit = select("time-limit", [3, 5, 10, 15, 30, 60].map((m) => [m * 60, `${m} min`]), {}, 900);
  const capacity = el("input", { id: "capacity", type: "number", min: "1", max: "64", value: "8" });
  const bots = el("input", { id: "bots", type: "number", min: "0", max: "7", value: "0" });
  // their level (docs/protocol.md, "Computer racers"): a mix is the server's choice for a count
  const botLevel = select("bot-level", [["mix", "A mix"], ["novice", "Novice"], ["club", "Club"], ["expert", "Expert"]]);
  const vis = select("visibility", [["public", "Public (listed)"], ["private", "Private (link only)"]]);
  const races = select("series", [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [n, n === 1 ? "One race" : `A series of ${n}`]));
  const hints = el("input", { id: "hints", type: "checkbox" });
  const winnable = el("input", { id: "winnable", type: "checkbox" });
  const create = el("form", { class: "card-panel create", id: "create-form" },
    el("h2", { text: "New race" }),
    field("Your name", name),
    el("div", { class: "grid2" },
      field("Variant", variant), el("div", { class: "field" }, el("label", { for: "deal-kind", text: "Deal" }), dealKind, dealNo),
      field("Time limit", limit), field("Seats", capacity),
      field("Computer racers", bots, "run by the server: they race on if you leave"),
      field("Their level", botLevel, "a mix: 3 is one of each; novice < club < expert"), field("Room", vis),
      field("Races", races, "a series: the next race starts by itself")),
    el("div", { class: "checks" },
      el("label", {}, hints, " hints"), el("label", {}, winnable, " winnable deals only")),
    el("button", { type: "submit", class: "primary", id: "create", text: "Create the room" }));
  create.addEventListener("submit", async (e) => {
    e.preventDefault();
    const deal = dealKind.value === "number" ? dealNo.value.trim() : dealKind.value;
    try {
      await createAndJoin({ variant: variant.value, capacity: Number(capacity.value), time_limit_s: Number(limit.value),
        visibility: vis.value, hints: hints.checked, winnable_only: winnable.checked, bots: botsOption(Number(bots.value), botLevel.value), deal,
        ...(races.value > 1 ? { series: { races: Number(races.value) } } : {}) }, name.value);
    } catch (err) { fail(err); }
  });

  const code = el("input", { id: "join-code", required: true, maxlength: "16", autocapitalize: "characters", placeholder: "ABCD23", "aria-label": "Room code" });
  const join = el("form", { class: "card-panel joinby" }, el("h2", { text: "Join by code" }),
    el("div", { class: "row" }, code, el("button", { type: "submit", text: "Join" })));
  join.addEventListener("submit", (e) => { e.preventDefault(); navigate(`/r/${code.value.trim().toUpperCase()}`); });

  const named = () => name.value.trim() || (name.focus(), say("Your name first."));
  const quick = el("button", { id: "quick", class: "primary", text: "Quick race", onclick: () => named()
    && call("POST", "/quick", { body: { variant: variant.value, name: name.value } }).then((j) => seat(j.room.code, j, name.value), fail) });
  const rooms = el("ul", { class: "rooms", id: "public-rooms", "aria-live": "polite" });
  const daily = el("div", { class: "card-panel daily" }, el("h2", { text: "Today's deal" }), el("p", { class: "muted", text: "…" }));

  main.replaceChildren(
    el("section", { class: "hero" }, el("h1", { text: "Race La Belle Lucie" }),
      el("p", { text: "Everyone gets the same deal; the server checks every move. Nothing to install, no account." }),
      el("p", {}, quick, " ", el("a", { href: "/rules", "data-link": true, text: "How to play (the rules)" }))),
    msg,
    el("div", { class: "home-grid" }, create,
      el("div", { class: "col" }, join, el("section", { class: "card-panel" }, el("h2", { text: "Public rooms waiting" }), rooms), daily)));

  async function refreshRooms() {
    try {
      const list = await call("GET", "/rooms");
      rooms.replaceChildren(...list.rooms.slice(0, 12).map((r) => el("li", {},
        el("a", { href: `/r/${r.code}`, "data-link": true, class: "code", text: r.code }),
        el("span", { text: ` ${variantName(r.rules.variant)} · ${r.racers.length}/${r.capacity} · ${Math.round(r.time_limit_ms / 60000)} min ` }),
        el("a", { href: `/r/${r.code}/watch`, "data-link": true, text: "watch" }))));
      if (!list.rooms.length) rooms.append(el("li", { class: "muted", text: "None right now: create one." }));
    } catch (e) { rooms.replaceChildren(el("li", { class: "muted", text: `${e}` })); }
  }
  async function loadDaily() {
    try {
      const [d, lb] = await Promise.all([call("GET", "/daily/belle-lucie"), call("GET", "/leaderboards/belle-lucie/daily?limit=5")]);
      const go = el("button", { type: "button", id: "race-daily", class: "primary", text: "Race today's deal" });
      go.addEventListener("click", () => named() && createAndJoin({ variant: "belle-lucie", deal: "daily" }, name.value)
        .catch(fail));
      daily.replaceChildren(el("h2", { text: "Today's deal" }),
        el("p", { text: `${d.date} · La Belle Lucie deal ${d.deal_number}` }), go,
        el("ol", { class: "lb" }, ...lb.rows.map((r) => el("li", { text: `${r.name} — ${plural(r.foundation_cards, "card")}, ${plural(r.moves, "move")}` }))),
        lb.rows.length ? null : el("p", { class: "muted", text: "Nobody has finished it yet today." }),
        el("p", {}, el("a", { href: "/leaderboards", "data-link": true, text: "All leaderboards" })));
    } catch (e) { daily.replaceChildren(el("p", { class: "muted", text: `${e}` })); }
  }
  refreshRooms(); loadDaily();
  const t = setInterval(refreshRooms, 3000);
  return () => clearInterval(t);
}
