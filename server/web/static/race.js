// The room page (/r/CODE) and the spectator page (/r/CODE/watch): waiting room,
// countdown, board, opponents panel, end of race. Everything comes from the public API:
// REST for the room, the game and the moves' fallbacks, the room socket for the rest.
import { call, newMoveId, RoomSocket, sentence, store } from "./api.js";
import { Board, botTag, el, plural } from "./board.js";
import { mountEnd } from "./end.js";
import { mountRematch } from "./rematch.js";
import { banner, hooks, navigate } from "./nav.js";

const FINAL = new Set(["won", "resigned", "left", "timed_out"]);

export function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–:–";
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}


/** Rank order of rules.md "Race ranking": cards, reach time (null = 0), moves, join order. */
export function ranked(racers) {
  return [...racers].sort((a, b) => (b.foundation_cards - a.foundation_cards)
    || ((a.reach_time_ms ?? 0) - (b.reach_time_ms ?? 0)) || (a.moves - b.moves)
    || (a.join_order - b.join_order));
}

function applyEvent(room, ev) {
  const find = (id) => room.racers.find((r) => r.id === id);
  switch (ev.type) {
    case "joined": {
      const i = room.racers.findIndex((r) => r.id === ev.racer.id);
      if (i >= 0) room.racers[i] = ev.racer; else room.racers.push(ev.racer);
      break;
    }
    case "left":
      if (room.state === "waiting" || room.state === "countdown") room.racers = room.racers.filter((r) => r.id !== ev.racer);
      else if (find(ev.racer)) Object.assign(find(ev.racer), { status: "left", final: true });
      break;
    case "ready": if (find(ev.racer)) find(ev.racer).ready = ev.ready; break;
    case "countdown": room.state = "countdown"; room.starts_in_ms = ev.starts_in_ms; break;
    case "started":
      room.state = "racing"; room.deal_number = ev.deal_number; room.starts_in_ms = null;
      for (const r of room.racers) if (r.status === "waiting") r.status = "playing";
      break;
    case "progress": {
      const r = find(ev.racer);
      if (r) Object.assign(r, { foundation_cards: ev.foundation_cards, moves: ev.moves, redeals_used: ev.redeals_used, merci_used: ev.merci_used, status: ev.status, reach_time_ms: ev.reach_time_ms });
      break;
    }
    case "finished": if (find(ev.racer)) Object.assign(find(ev.racer), { status: ev.status, final: true, finished_ms: ev.race_clock_ms }); break;
    case "race_over": case "par": room.state = room.state === "closed" ? "closed" : "over"; room.standings = ev.standings; room.par = ev.par; break;
    case "closed": room.state = "closed"; break;
    case "rematch": room.rematch = ev.rematch; break;
    default: break;
  }
  if (ev.race_clock_ms !== null && ev.race_clock_ms !== undefined) room.race_clock_ms = ev.race_clock_ms;
}

export function mountRoom(main, code, { watch = false } = {}) {
  code = code.toUpperCase();
  const s = {
    room: null, me: null, token: null, host: store.host(code), game: null, sock: null,
    inflight: null, movesSeen: 0, clockAt: 0, countdownAt: 0, mode: null, stopped: false,
    watchRacer: null, watchTimer: null, end: null, focusLost: false, focusSentAt: -Infinity,
  };
  const saved = watch ? null : store.racer(code);
  if (saved) { s.me = saved.racer; s.token = saved.token; }
  main.replaceChildren(el("p", { class: "muted", text: `Room ${code}…` }));

  const header = el("section", { class: "room-head" });
  const msg = el("p", { class: "msg", role: "alert", "aria-live": "assertive" });
  const countdown = el("div", { class: "countdown", hidden: true, "aria-live": "assertive" });
  const stage = el("section", { class: "stage" });
  let board = null; let panel = null; let clockEl = null; let toolbar = null;

  function say(text, kind = "") { msg.textContent = text; msg.className = `msg ${kind}`; }

  const clockNow = () => {
    const r = s.room;
    if (!r || r.race_clock_ms === null) return null;
    if (r.state !== "racing") return r.race_clock_ms;
    return r.race_clock_ms + (performance.now() - s.clockAt);
  };
  const tick = setInterval(() => {
    if (clockEl) clockEl.textContent = `${fmtClock(clockNow())} / ${fmtClock(s.room?.time_limit_ms)}`;
    if (s.room?.state === "countdown" && s.room.starts_in_ms !== null) {
      const left = Math.ceil((s.room.starts_in_ms - (performance.now() - s.countdownAt)) / 1000);
      countdown.hidden = false; countdown.textContent = left > 0 ? String(left) : "Go!";
      hooks.countdownShown = true;
    } else countdown.hidden = true;
  }, 200);

  function persistSeen() {
    const log = hooks.events.slice(-500);
    store.setSeen(code, { lastSeq: s.sock?.lastSeq ?? null, log });
  }

  /** A room view from the socket, keeping the deal number the host was told (the
   * socket's view is the racer's: the deal stays hidden from racers until the start). */
  function keepDeal(room) {
    if (room.deal_number == null && s.room?.id === room.id) room.deal_number = s.room.deal_number;
    return room;
  }

  async function load() {
    let room;
    try {
      // the host's token first: the server tells the host the deal before the start
      room = await call("GET", `/rooms/${code}`, { token: s.host ?? s.token });
    } catch (e) {
      if (e.code === "auth/invalid_token" && (s.token || s.host)) { // stale tokens of an expired room
        s.token = null; s.me = null; s.host = null; return load();
      }
      main.replaceChildren(el("h1", { text: `Room ${code}` }), el("p", { class: "msg error", text: `${e}` }),
        el("p", {}, el("a", { href: "/", "data-link": true, text: "Back home" })));
      return;
    }
    s.room = room;
    if (!watch && !s.token && room.state === "waiting") return joinForm();
    if (!watch && !s.token && (room.state === "countdown" || room.state === "racing")) {
      say("The race has started without you: you are watching.");
    }
    connect();
  }

  function joinForm() {
    const name = el("input", { id: "join-name", name: "name", required: true, maxlength: "24", autocomplete: "nickname", value: store.name() });
    const form = el("form", { class: "card-panel join", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const j = await call("POST", `/rooms/${code}/racers`, { body: { name: name.value } });
        store.setName(name.value.trim());
        store.setRacer(code, { racer: j.racer.id, token: j.token, name: j.racer.name });
        s.me = j.racer.id; s.token = j.token;
        main.replaceChildren(); load();
      } catch (err) { say(`${err}`, "error"); }
    } },
      el("h1", { text: `Join room ${code}` }),
      el("p", { text: `${s.room.rules.name} · ${s.room.racers.length}/${s.room.capacity} racers · ${fmtClock(s.room.time_limit_ms)} time limit` }),
      el("div", { class: "field" }, el("label", { for: "join-name", text: "Your name" }), name),
      el("button", { type: "submit", class: "primary", text: "Join the race" }),
      el("p", {}, el("a", { href: `/r/${code}/watch`, "data-link": true, text: "or just watch" })), msg);
    main.replaceChildren(form);
    name.focus();
  }

  function connect() {
    main.replaceChildren(header, countdown, msg, stage);
    const seen = store.seen(code);
    hooks.events = seen && Array.isArray(seen.log) ? seen.log.slice() : [];
    s.sock = new RoomSocket(code, s.token, {
      onStatus(kind, text) {
        if (kind === "open") banner("");
        else if (kind === "down") banner(text);
        else { banner(""); say(`Disconnected: ${text}`, "error"); }
      },
      onWelcome(d) {
        if (s.token && d.racer === null) return; // the spectator welcome before auth
        s.room = keepDeal(d.room); s.clockAt = performance.now();
        if (d.room.state === "countdown") s.countdownAt = performance.now();
        if (d.racer) s.me = d.racer;
        persistSeen();
        if ((d.room.state === "racing" || d.room.state === "over" || d.room.state === "closed") && s.me) fetchGame();
        render();
      },
      onEvent(ev) {
        hooks.events.push(ev.seq);
        persistSeen();
        if (ev.seq <= s.room.seq) return; // already in the welcome's room
        s.room.seq = ev.seq;
        const before = s.room.state;
        applyEvent(s.room, ev);
        if (ev.race_clock_ms !== null) s.clockAt = performance.now();
        if (ev.type === "countdown") s.countdownAt = performance.now();
        if (ev.type === "started" && s.me) fetchGame();
        if (ev.type === "finished" && ev.racer === s.me) fetchGame();
        // this racer's moves made in another tab or on another device: the board follows
        // (a move of this tab still in flight is caught up when its ack comes)
        if (ev.type === "progress" && ev.racer === s.me) {
          s.movesSeen = Math.max(s.movesSeen, ev.moves);
          if (!s.inflight && s.game && ev.moves > s.game.moves) fetchGame();
        }
        // the table again with to-par, redrawn in place: the end screen is not rebuilt
        // (its table was empty until fetched again), chart and replay viewer stay put
        if (ev.type === "par" && s.mode === "end") s.end?.standings(ev);
        if (ev.type === "rematch") s.rematchBar?.linked(ev.rematch, ev.series);
        if (before !== s.room.state || ev.type === "race_over" || ev.type === "par") render(); else update();
      },
      onSnapshot(d) { s.room = keepDeal(d.room); s.clockAt = performance.now(); if (s.me) fetchGame(); render(); },
      onAck(d) {
        const f = s.inflight;
        if (!f || f.id !== d.client_move_id) return;
        s.inflight = null;
        const tAck = performance.now();
        if (!s.game || d.game.version >= s.game.version) s.game = d.game;
        if (s.movesSeen > s.game.moves) fetchGame(); // moved elsewhere meanwhile
        if (d.race_clock_ms !== null) { s.room.race_clock_ms = d.race_clock_ms; s.clockAt = performance.now(); }
        say(d.applied.length > 1 ? `Played ${d.applied.join(" ")}` : "");
        drawGame();
        requestAnimationFrame(() => requestAnimationFrame(() => {
          const t = { move: f.text, ack_ms: tAck - f.t0, drawn_ms: performance.now() - f.t0 };
          hooks.timings.push(t); f.resolve?.({ ok: true, ...t });
        }));
      },
      onRefused(d) {
        const f = s.inflight;
        if (f && f.id === d.client_move_id) s.inflight = null;
        if (d.game) { s.game = d.game; drawGame(); }
        // the server's reason, in plain words for autoplay with nothing to play
        say(/^autoplay: no top card/.test(d.message) ? "Nothing can go to a foundation now."
          : d.code === "move/stale_version" ? "Your game had moved on (another window?): the board is up to date now."
            : sentence(d.message) || d.code, "error");
        f?.resolve?.({ ok: false, code: d.code, message: d.message });
      },
      onError(d) { say(sentence(d.message) || d.code, "error"); },
    }, seen?.lastSeq ?? null);
    s.sock.open();
  }

  async function fetchGame() {
    try {
      const g = await call("GET", `/rooms/${code}/racers/${s.me}/game`, { token: s.token });
      if (!s.game || g.version >= s.game.version || g.final) s.game = g;
      drawGame();
    } catch (e) { say(`${e}`, "error"); }
  }

  function sendMove(text) {
    text = text.trim();
    if (!text) return Promise.resolve({ ok: false, code: "empty" });
    if (!s.game || !s.sock) { say("The race has not started."); return Promise.resolve({ ok: false, code: "not_racing" }); }
    if (s.inflight) { say("One move at a time: waiting for the server…"); return Promise.resolve({ ok: false, code: "busy" }); }
    return new Promise((resolve) => {
      const id = newMoveId(s.me);
      s.inflight = { id, text, t0: performance.now(), resolve };
      s.sock.move(text, s.game.version, id);
    });
  }
  if (!watch) hooks.move = sendMove;
  hooks.dropSocket = () => s.sock?.drop();

  function render() {
    const r = s.room;
    if (!r || s.stopped) return;
    hooks.state = r.state;
    const mode = (r.state === "over" || r.state === "closed") ? "end"
      : (r.state === "racing" ? "race" : "wait");
    header.replaceChildren(
      el("h1", {}, el("span", { class: "muted", text: watch ? "Watching " : "Room " }), el("span", { class: "code", text: r.code })),
      el("p", { class: "meta", text: `${r.rules.name} · deal ${r.deal_number ?? "hidden until the start"} · ${r.racers.length}/${r.capacity} racers · ${r.visibility}${r.hints ? " · hints" : ""}` }),
    );
    if (mode !== s.mode) {
      s.mode = mode; stage.replaceChildren(); board = null; panel = null; toolbar = null;
      clearInterval(s.watchTimer);
      if (mode === "wait") buildWait();
      if (mode === "race") buildRace();
      if (mode === "end") buildEnd();
    }
    update();
  }

  function update() {
    if (s.mode === "wait") updateWait();
    if (panel) drawPanel();
  }

  let waitList = null; let readyBtn = null; let startBtn = null;
  function buildWait() {
    const url = `${location.origin}/r/${s.room.code}`;
    const share = el("input", { readonly: true, value: url, "aria-label": "Shareable link", class: "share" });
    waitList = el("ul", { class: "racers" });
    readyBtn = s.me ? el("button", { type: "button", id: "ready", class: "primary", onclick: () => {
      const me = s.room.racers.find((x) => x.id === s.me);
      s.sock.send({ t: "ready", d: { ready: !(me && me.ready) } });
    } }) : null;
    startBtn = s.host ? el("button", { type: "button", id: "start", text: "Start the race", onclick: async () => {
      try { await call("POST", `/rooms/${code}/start`, { token: s.host }); } catch (e) { say(`${e}`, "error"); }
    } }) : null;
    const actions = el("div", { class: "actions" }, readyBtn, startBtn);
    stage.append(el("div", { class: "card-panel wait" },
      el("h2", { text: "Waiting for racers" }),
      el("p", {}, el("label", { text: "Share this link: " }), share),
      waitList, actions,
      el("p", { class: "muted", text: s.room.quick ? "Quick race: it starts by itself (alone: with bots)." : s.host ? "You are the host: start when everyone is in (or when all are ready the countdown starts by itself)." : "The countdown starts when the host starts or when every racer is ready." })));
  }
  function updateWait() {
    waitList.replaceChildren(...s.room.racers.map((r) => el("li", { class: r.ready ? "ready" : "" },
      el("span", { class: "name" }, r.name + (r.id === s.me ? " (you)" : ""), botTag(r)),
      el("span", { class: "badge", text: r.ready ? "✓ ready" : "not ready" }))));
    if (!s.room.racers.length) waitList.append(el("li", { class: "muted", text: "No racer yet." }));
    if (readyBtn) {
      const me = s.room.racers.find((x) => x.id === s.me);
      readyBtn.textContent = me && me.ready ? "Not ready" : "I'm ready";
      readyBtn.setAttribute("aria-pressed", String(!!(me && me.ready)));
    }
    if (startBtn) startBtn.disabled = s.room.state !== "waiting";
  }

  function buildRace() {
    clockEl = el("span", { class: "clock", "aria-label": "race clock and time limit" });
    const boardBox = el("div", { class: "board-box" });
    panel = el("ol", { class: "opponents", "aria-label": "racers" });
    // a racer: the info line and the toolbar; a spectator: the pick of a board, its note
    const note = s.me ? null : el("p", { class: "muted" });
    const head = s.me ? el("span", { class: "info", id: "info" })
      : el("select", { id: "watch-racer", "aria-label": "Board to watch", onchange: () => { s.watchRacer = head.value || null; pollWatch(note); } },
        el("option", { value: "", text: "The leader's board" }), ...s.room.racers.map((r) => el("option", { value: r.id, text: r.name })));
    board = new Board(boardBox, s.me ? { onMove: sendMove } : { readOnly: true });
    if (s.me) toolbar = buildToolbar();
    else { s.watchTimer = setInterval(() => pollWatch(note), 3000); pollWatch(note); }
    stage.append(el("div", { class: "race" },
      el("div", { class: "play" }, el("div", { class: "status-row" }, clockEl, head), note, boardBox, toolbar),
      el("aside", { class: "side" }, el("h2", { text: "Racers" }), panel)));
    drawGame();
  }
  async function pollWatch(note) {
    // the picked racer's board, else the leader's (as the terminal's `lucie watch`)
    const racer = s.watchRacer ?? ranked(s.room.racers)[0]?.id;
    if (!racer || !board) return;
    try {
      const g = await call("GET", `/rooms/${code}/racers/${racer}/game`);
      board.set(g);
      note.textContent = g.delay_ms ? `This board is shown ${Math.round(g.delay_ms / 1000)} s behind the race (fair play).` : "";
    } catch (e) { note.textContent = `${e}`; }
  }

  function buildToolbar() {
    const input = el("input", { id: "move-input", "aria-label": "Type a move: 3f, 3 7, r, u, a", placeholder: "3f · 3 7 · r · u · a", autocomplete: "off", autocapitalize: "off", spellcheck: "false", enterkeyhint: "send" });
    const form = el("form", { class: "moveform", onsubmit: (e) => { e.preventDefault(); const t = input.value; input.value = ""; sendMove(t); } },
      input, el("button", { type: "submit", text: "Play" }));
    const btn = (id, text, onclick) => el("button", { type: "button", id, text, onclick });
    const bar = el("div", { class: "toolbar" },
      btn("redeal", "Redeal", () => sendMove("r")),
      btn("undo", "Undo", () => sendMove("u")),
      btn("autoplay", "Autoplay", () => sendMove("a")),
      btn("merci", "Merci", () => { board.toggleMerci(); say(board.merciMode ? "Merci: tap a covered card, then where it goes." : ""); }),
      s.room.hints ? btn("hint", "Hint", async () => {
        try { const h = await call("GET", `/rooms/${code}/racers/${s.me}/hint`, { token: s.token }); say(h.move ? `Hint: ${h.move}` : "No hint: no move helps."); } catch (e) { say(`${e}`, "error"); }
      }) : null,
      btn("resign", "Resign", () => confirmResign()),
      form);
    return bar;
  }
  function confirmResign() {
    const asked = document.querySelector(".confirm.resign");
    if (asked) { asked.querySelector("button:last-child").focus(); return; }  // one question at a time
    const box = el("div", { class: "confirm resign", role: "dialog", "aria-label": "Resign?" },
      el("span", { text: "Resign from the race? " }));
    const no = el("button", { type: "button", text: "Keep racing", onclick: () => box.remove() });
    box.append(el("button", { type: "button", id: "resign-yes", class: "danger", text: "Resign", onclick: () => { s.sock.send({ t: "resign" }); box.remove(); } }), no);
    toolbar.after(box); no.focus();
  }

  function drawGame() {
    if (!board || !s.game) return;
    board.set(s.game);
    const g = s.game;
    if (hooks.boardAt === undefined) requestAnimationFrame(() => { hooks.boardAt ??= performance.now(); });
    const info = document.getElementById("info");
    if (info) info.textContent = `${g.position.foundation_cards}/${52 * s.room.rules.decks} on foundations · ${plural(g.moves, "move")} · ${plural(g.redeals_left, "redeal")} left${g.merci_available ? " · merci available" : ""}`;
    if (toolbar) {
      const legal = new Set(g.legal_moves);
      toolbar.querySelector("#redeal").textContent = `Redeal (${g.redeals_left})`;
      toolbar.querySelector("#redeal").disabled = !legal.has("r");
      toolbar.querySelector("#undo").disabled = !g.can_undo || g.final;
      toolbar.querySelector("#autoplay").disabled = g.final || !g.legal_moves.length;
      toolbar.querySelector("#merci").hidden = !s.room.rules.merci;
      toolbar.querySelector("#merci").disabled = !g.merci_available;
      toolbar.querySelector("#resign").disabled = g.final;
    }
    if (g.status === "won") say("You won! Waiting for the others…", "good");
    else if (g.status === "stuck" && !g.final) say("No move left: undo, or resign.");
    else if (g.final) say(`Your race is over (${g.status}). Waiting for the others…`);
    hooks.version = g.version; hooks.legal = g.legal_moves; hooks.status = g.status;
  }

  // the racers panel: rank order; rows glide to their new place (FLIP) and a racer's
  // row flashes once when their result becomes final
  const seenFinal = new Set();
  const still = matchMedia("(prefers-reduced-motion: reduce)");
  function drawPanel() {
    const decks = s.room.rules.decks;
    const rows = ranked(s.room.racers);
    const before = new Map([...panel.children].map((li) => [li.dataset.racer, li.getBoundingClientRect().top]));
    panel.replaceChildren(...rows.map((r, i) => {
      const justDone = FINAL.has(r.status) && !seenFinal.has(r.id);
      if (FINAL.has(r.status)) seenFinal.add(r.id);
      const fill = el("span", { class: "fill" });
      fill.style.width = `${(100 * r.foundation_cards) / (52 * decks)}%`;
      return el("li", { class: `racer${r.id === s.me ? " me" : ""}${FINAL.has(r.status) ? " final" : ""}${justDone && before.size ? " done" : ""}`, "data-racer": r.id },
        el("span", { class: "rank", text: String(i + 1) }),
        el("span", { class: "name" }, r.name + (r.id === s.me ? " (you)" : ""), botTag(r)),
        el("span", { class: "bar", role: "img", "aria-label": `${r.foundation_cards} of ${52 * decks} cards` }, fill),
        el("span", { class: "figures", text: `${r.foundation_cards} · ${plural(r.moves, "move")} · ${r.status.replace("_", " ")}` }));
    }));
    if (still.matches) return;
    for (const li of panel.children) {
      const was = before.get(li.dataset.racer);
      const dy = was === undefined ? 0 : was - li.getBoundingClientRect().top;
      if (dy) li.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], { duration: 300, easing: "ease-out" });
    }
  }

  function buildEnd() {
    banner("");
    const box = el("div", { class: "end" });
    stage.append(box);
    s.end = mountEnd(box, { code, room: s.room, me: s.me, token: s.token, say, onGhost: (c) => navigate(`/r/${c}`) });
    s.rematchBar = mountRematch(box, { code, room: s.room, me: s.me, token: s.token, watch, say, go: navigate });
  }

  // keyboard: typing a move anywhere goes to the move line; Escape drops the selection
  function onKey(e) {
    if (e.target.closest?.("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Escape") { board?.clearSelection(); return; }
    const input = document.getElementById("move-input");
    if (input && /^[0-9a-zA-Z]$/.test(e.key)) input.focus();
  }
  document.addEventListener("keydown", onKey);

  // fair play (docs/fair-play.md, "Focus"): while this racer races, the page hidden or the
  // window blurred is reported once per loss (blurred then hidden is one) until it is back
  function onFocusLost() {
    const me = s.room?.racers.find((r) => r.id === s.me);
    if (watch || s.focusLost || s.room?.state !== "racing" || !me || me.final || s.game?.final) return;
    s.focusLost = true;
    if (performance.now() - s.focusSentAt < 1000) return;
    s.focusSentAt = performance.now();
    s.sock?.send({ t: "focus", d: { lost: true } });
  }
  function onFocusBack() { if (document.visibilityState === "visible") s.focusLost = false; }
  function onVisibility() { if (document.visibilityState === "hidden") onFocusLost(); else onFocusBack(); }
  window.addEventListener("blur", onFocusLost);
  window.addEventListener("focus", onFocusBack);
  document.addEventListener("visibilitychange", onVisibility);

  load();
  return () => {
    s.stopped = true; clearInterval(tick); clearInterval(s.watchTimer); s.sock?.close(); banner("");
    s.rematchBar?.stop();
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("blur", onFocusLost);
    window.removeEventListener("focus", onFocusBack);
    document.removeEventListener("visibilitychange", onVisibility);
    if (hooks.move === sendMove) hooks.move = null;
  };
}
