// Challenges and duels (docs/protocol.md "Challenges and duels"): the challenges page
// (/challenges: your player, "Challenge a friend", "Duel", news, my challenges) and a
// challenge's link page (/c/ID: what it is, play it, wait for rivals, the results and the
// comparison). An attempt is an ordinary room of one racer: the race page /r/CODE plays it.
import { ApiError, call, store } from "./api.js";
import { el } from "./board.js";
import { chart } from "./end.js";
import { navigate } from "./nav.js";
import { TC } from "./strings.js";
import { VARIANTS, variantName } from "./variants.js";

const POLL_MS = 3000;
const clock = (ms) => (ms == null ? "—" : `${Math.floor(ms / 60000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, "0")}`);
const when = (ms) => new Date(ms).toLocaleString();
const shareUrl = (c) => new URL(`/c/${c.code}`, location.href).href;

/** A refusal as the page says it: the fair-play seal in plain words, else the server's sentence. */
const words = (e) => (e instanceof ApiError && e.code === "challenge/hidden" ? TC.hidden : `${e}`);

/** The attempt handed out (ChallengeJoined): its racer kept like any room's, then the race page. */
function playAttempt(j) {
  const code = j.room.code;
  store.setRacer(code, { racer: j.racer.id, token: j.token, name: j.racer.name });
  store.setAttempt(j.challenge.id, code);
  store.setChallengeOf(code, j.challenge.code);
  return code;
}

/** The player this browser plays as, or a form that creates one (its key kept in localStorage). */
function playerBox(onPlayer) {
  const box = el("section", { class: "card-panel challenge-player", "aria-labelledby": "player-head" });
  const draw = () => {
    const p = store.player();
    if (p) {
      box.replaceChildren(el("h2", { id: "player-head", text: TC.playerHead }), el("p", { id: "player-name", text: TC.youAre(p.name) }));
      onPlayer(p);
      return;
    }
    const name = el("input", { id: "player-name-input", required: true, maxlength: "24", autocomplete: "nickname", value: store.name() });
    const msg = el("p", { class: "msg", role: "alert" });
    const form = el("form", { id: "player-form" },
      el("div", { class: "field" }, el("label", { for: "player-name-input", text: TC.playerName }), name,
        el("small", { class: "muted", text: TC.playerHint })),
      el("button", { type: "submit", class: "primary", id: "create-player", text: TC.createPlayer }), msg);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const j = await call("POST", "/players", { body: { name: name.value.trim() } });
        store.setPlayer({ id: j.player.id, name: j.player.name, key: j.key });
        store.setName(j.player.name);
        draw();
      } catch (err) { msg.textContent = `${err}`; msg.className = "msg error"; }
    });
    box.replaceChildren(el("h2", { id: "player-head", text: TC.playerHead }), form);
  };
  draw();
  return box;
}

/** How a challenge ended (or stands) for player `me`: "You won by 3 cards", "waiting · 1 played". */
export function outcome(c, me) {
  if (c.state === "open") return TC.rowOpen(c.played);
  if (c.state === "void") return TC.state.void;
  const r = c.result;
  if (c.state === "settled" && r) {
    if (r.winner === null) return TC.draw;
    const won = r.winner === me;
    if (r.decided_by === "reach_time") return won ? TC.wonOnTime : TC.lostOnTime;
    return won ? TC.youWon(r.margin_cards) : TC.youLost(r.margin_cards);
  }
  return `${TC.state[c.state] ?? c.state} · ${TC.played(c.played)}`;
}

/** /challenges: the player, "Challenge a friend", "Duel", the news and my challenges. */
export function mountChallenges(main) {
  const msg = el("p", { class: "msg", role: "alert" });
  const fail = (e) => { msg.textContent = words(e); msg.className = "msg error"; };
  const variant = el("select", { id: "challenge-variant" }, ...VARIANTS.map(([value, text]) => el("option", { value, text })));
  const acts = el("div", { class: "challenge-actions", hidden: true });
  const news = el("ul", { id: "news", class: "news" });
  const mine = el("ul", { id: "my-challenges", class: "my-challenges" });
  const key = () => store.player()?.key;

  const friend = el("button", { type: "button", class: "primary", id: "challenge-friend", text: TC.friendGo, onclick: async () => {
    try {
      const j = await call("POST", "/challenges", { body: { variant: variant.value, open_to: "link" }, token: key() });
      playAttempt(j);
      navigate(`/c/${j.challenge.code}`);
    } catch (e) { fail(e); }
  } });
  const duel = el("button", { type: "button", class: "primary", id: "duel", text: TC.duelGo, onclick: async () => {
    try {
      const j = await call("POST", "/duels", { body: { variant: variant.value }, token: key() });
      navigate(`/r/${playAttempt(j)}`);
    } catch (e) { fail(e); }
  } });
  acts.append(
    el("div", { class: "field" }, el("label", { for: "challenge-variant", text: TC.variant }), variant),
    el("section", { class: "card-panel", "aria-labelledby": "friend-head" }, el("h2", { id: "friend-head", text: TC.friendHead }),
      el("p", { text: TC.friendText }), friend),
    el("section", { class: "card-panel", "aria-labelledby": "duel-head" }, el("h2", { id: "duel-head", text: TC.duelHead }),
      el("p", { text: TC.duelText }), duel),
    el("section", { class: "card-panel", "aria-labelledby": "news-head" }, el("h2", { id: "news-head", text: TC.newsHead }), news),
    el("section", { class: "card-panel", "aria-labelledby": "mine-head" }, el("h2", { id: "mine-head", text: TC.mineHead }), mine));

  async function load(p) {
    try {
      const [n, list] = await Promise.all([
        call("GET", `/players/${p.id}/notifications`, { token: p.key }),
        call("GET", `/players/${p.id}/challenges`, { token: p.key })]);
      // listing marks them read: the unread ones are this visit's news
      const fresh = n.notifications.filter((x) => !x.read);
      news.replaceChildren(...(fresh.length ? fresh : n.notifications.slice(0, 5)).map((x) =>
        el("li", { class: x.read ? "read" : "unread" }, el("a", { href: `/c/${x.challenge}`, "data-link": true, text: x.message }))));
      if (!n.notifications.length) news.append(el("li", { class: "muted", text: TC.mineNone }));
      mine.replaceChildren(...list.challenges.map((c) => el("li", { "data-state": c.state },
        el("a", { href: `/c/${c.code}`, "data-link": true, class: "code", text: c.code }),
        el("span", { text: ` ${variantName(c.variant)} · ${c.open_to === "rated" ? TC.duelHead : TC.friendHead} · ` }),
        el("span", { class: "outcome", text: outcome(c, p.id) }))));
      if (!list.challenges.length) mine.append(el("li", { class: "muted", text: TC.mineNone }));
    } catch (e) { fail(e); }
  }

  main.replaceChildren(el("h1", { text: TC.title }), el("p", { text: TC.intro }), msg,
    playerBox((p) => { acts.hidden = false; load(p); }), acts);
}

/** /c/ID: a challenge's link page. */
export function mountChallenge(main, id) {
  const msg = el("p", { class: "msg", role: "alert" });
  const say = (t, k = "error") => { msg.textContent = t; msg.className = `msg ${k}`; };
  const body = el("div", { class: "challenge", "aria-live": "polite" }, el("p", { class: "muted", text: TC.loading }));
  const head = el("h1", { text: TC.head(id.toUpperCase()) });
  let timer = null, cmpDrawn = false, playing = false;
  const cmpBox = el("div", { class: "challenge-compare" });

  function share(c) {
    const link = el("input", { id: "share-link", readonly: true, value: shareUrl(c), onfocus: (e) => e.target.select() });
    const copied = el("span", { class: "muted", role: "status" });
    const copy = el("button", { type: "button", id: "copy-link", text: TC.copy, onclick: async () => {
      try { await navigator.clipboard.writeText(link.value); copied.textContent = TC.copied; } catch (e) { link.select(); copied.textContent = TC.copyFailed; }
    } });
    return el("div", { class: "field share" }, el("label", { for: "share-link", text: TC.shareLabel }), el("div", { class: "row" }, link, copy), copied);
  }

  async function play() {
    if (playing) return;
    playing = true;
    const p = store.player();
    try {
      const j = await call("POST", `/challenges/${id}/attempts`, { token: p.key });
      navigate(`/r/${playAttempt(j)}`);
    } catch (e) { say(words(e)); playing = false; }
  }

  function results(c, me) {
    const rows = (c.attempts ?? []).map((a) => el("tr", { class: a.player.id === me ? "me" : "" },
      el("td", { text: String(a.rank) }), el("td", { text: a.player.name }), el("td", { text: String(a.foundation_cards) }),
      el("td", { text: clock(a.reach_time_ms) }), el("td", { text: a.status })));
    return el("section", { "aria-labelledby": "results-head" }, el("h2", { id: "results-head", text: TC.resultsHead }),
      el("div", { class: "table-scroll" }, el("table", { id: "challenge-results" },
        el("thead", {}, el("tr", {}, ...TC.cols.map((t) => el("th", { scope: "col", text: t })))), el("tbody", {}, ...rows))));
  }

  async function compare(c, key) {
    if (cmpDrawn || !c.result) return;
    cmpDrawn = true;
    try {
      const cmp = await call("GET", c.result.comparison.replace(/^\/api\/v1/, ""), { token: key });
      cmpBox.replaceChildren(el("h2", { text: TC.compareHead }), chart(cmp, 52),
        el("p", { class: "legend" }, el("span", { class: "a", text: `■ ${cmp.a.name}` }), " ", el("span", { class: "b", text: `■ ${cmp.b.name}` })));
    } catch (e) { cmpDrawn = false; cmpBox.replaceChildren(el("p", { text: words(e) })); }
  }

  async function load() {
    const p = store.player();
    let c;
    try { c = await call("GET", `/challenges/${id}`, { token: p?.key }); } catch (e) {
      clearInterval(timer); timer = null;
      body.replaceChildren(); say(words(e)); return;
    }
    head.textContent = TC.head(c.code);
    const parts = [
      el("p", { id: "challenge-what", text: TC.what(c, variantName(c.variant)) }),
      el("p", { id: "challenge-played", text: TC.played(c.played) }),
      el("p", { id: "challenge-state", "data-state": c.state, text: c.state === "open" ? TC.expires(when(c.expires_at_ms)) : (TC.state[c.state] ?? c.state) }),
    ];
    if (c.state === "open" && c.open_to === "link") parts.push(share(c));
    const you = c.you;
    if (c.state === "open" && !you && c.open_to === "link") {
      parts.push(p ? el("button", { type: "button", class: "primary", id: "play-challenge", text: TC.play, onclick: play })
        : playerBox(() => load()));
    }
    if (you && !you.finished) {
      const code = store.attempt(c.id);
      parts.push(code && store.racer(code)
        ? el("button", { type: "button", class: "primary", id: "play-attempt", text: TC.playYours, onclick: () => navigate(`/r/${code}`) })
        : el("p", { text: TC.notYours }));
    }
    if (c.attempts === null) parts.push(el("p", { id: "fair-play", class: "muted", text: TC.fair }));
    else {
      if (c.state === "open") parts.push(el("p", { id: "challenge-waiting", text: TC.waiting }));
      else if (p && you) parts.push(el("p", { id: "challenge-outcome", class: "outcome", text: c.state === "void" ? TC.duelVoid : outcome(c, p.id) }));
      parts.push(results(c, p?.id), cmpBox);
      compare(c, p?.key);
    }
    body.replaceChildren(...parts);
    if (c.state !== "open") { clearInterval(timer); timer = null; }
  }

  main.replaceChildren(head, msg, body);
  load();
  timer = setInterval(load, POLL_MS);
  return () => clearInterval(timer);
}
