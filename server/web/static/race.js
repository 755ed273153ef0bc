// The room page (/r/CODE) and the spectator page (/r/CODE/watch): the controller. It
// holds the room (room-state.js) and the racer's game, talks to the server — REST for
// the room, the game and the fallbacks, the room socket for the rest (api.js) — runs the
// page's timers, has the views draw (room-view.js, wait-view.js, race-view.js, end.js,
// rematch.js) and the live region speak (announce.js). Every listener it adds to the
// window or the document goes when the page is left (the function it returns).
import { ackSay, CountdownAnnouncer, RivalsAnnouncer, targetWords } from "./announce.js";
import { call, newMoveId, RoomSocket, sentence, store } from "./api.js";
import { el } from "./board.js";
import { mountEnd } from "./end.js";
import { reportFocusLoss } from "./focus-report.js";
import { banner, navigate } from "./nav.js";
import { raceScreen } from "./race-view.js";
import { mountRematch } from "./rematch.js";
import { applyEvent, controls, countdownLeft, fmtClock, gameNote, modeOf, racerRows } from "./room-state.js";
import { roomFrame } from "./room-view.js";
import { T } from "./strings.js";
import { joinForm, waitingRoom } from "./wait-view.js";

export function mountRoom(main, code, { watch = false } = {}) {
  code = code.toUpperCase();
  const s = {
    room: null, me: null, token: null, host: store.host(code), game: null, sock: null,
    inflight: null, movesSeen: 0, clockAt: 0, countdownAt: 0, mode: null, stopped: false,
    watchRacer: null, watchTimer: null, rivalsTimer: null, end: null, rematchBar: null,
    screen: null, wait: null, note: null,
  };
  const saved = watch ? null : store.racer(code);
  if (saved) { s.me = saved.racer; s.token = saved.token; }
  const frame = roomFrame(main, code);
  const say = frame.say;
  const rivalsSay = new RivalsAnnouncer();
  const countdownSay = new CountdownAnnouncer();
  const total = () => 52 * s.room.rules.decks;

  const clockNow = () => {
    const r = s.room;
    if (!r || r.race_clock_ms === null) return null;
    if (r.state !== "racing") return r.race_clock_ms;
    return r.race_clock_ms + (performance.now() - s.clockAt);
  };
  const tick = setInterval(() => {
    s.screen?.clock(`${fmtClock(clockNow())} / ${fmtClock(s.room?.time_limit_ms)}`);
    if (s.room?.state === "countdown" && s.room.starts_in_ms !== null) {
      const left = countdownLeft(s.room.starts_in_ms, performance.now() - s.countdownAt);
      frame.countdown(left > 0 ? String(left) : T.go);
      frame.announce(countdownSay.update(left));
    } else frame.countdown(null);
  }, 200);

  const persistSeen = () => store.setSeen(code, { lastSeq: s.sock?.lastSeq ?? null });

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
      frame.show(el("h1", { text: T.roomError(code) }), el("p", { class: "msg error", text: `${e}` }),
        el("p", {}, el("a", { href: "/", "data-link": true, text: T.backHome })));
      return;
    }
    if (s.stopped) return;
    s.room = room;
    if (!watch && !s.token && room.state === "waiting") return join();
    if (!watch && !s.token && (room.state === "countdown" || room.state === "racing")) say(T.startedWithoutYou);
    connect();
  }

  function join() {
    const form = joinForm(s.room, code, frame.msg, { name: store.name(), onJoin: async (name) => {
      try {
        const j = await call("POST", `/rooms/${code}/racers`, { body: { name } });
        store.setName(name.trim());
        store.setRacer(code, { racer: j.racer.id, token: j.token, name: j.racer.name });
        s.me = j.racer.id; s.token = j.token;
        say("");
        load();
      } catch (err) { say(`${err}`, "error"); }
    } });
    frame.show(form.form);
    form.focus();
  }

  function connect() {
    frame.room();
    const seen = store.seen(code);
    s.sock = new RoomSocket(code, s.token, {
      onStatus(kind, text) {
        if (kind === "open") banner("");
        else if (kind === "down") banner(text);
        else { banner(""); say(T.disconnected(text), "error"); }
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
        persistSeen();
        if (ev.seq <= s.room.seq) return; // already in the welcome's room
        const before = s.room.state;
        s.room = applyEvent(s.room, ev);
        if (ev.race_clock_ms !== null) s.clockAt = performance.now();
        if (ev.type === "countdown") s.countdownAt = performance.now();
        if (ev.type === "started") { frame.announce(s.me ? T.startSay : T.startWatchSay); if (s.me) fetchGame(); }
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
        const before = s.game;
        if (!s.game || d.game.version >= s.game.version) s.game = d.game;
        if (s.movesSeen > s.game.moves) fetchGame(); // moved elsewhere meanwhile
        if (d.race_clock_ms !== null) { s.room.race_clock_ms = d.race_clock_ms; s.clockAt = performance.now(); }
        frame.line("");
        frame.announce(ackSay(before, d.game, d.applied, total()));
        drawGame();
      },
      onRefused(d) {
        const f = s.inflight;
        if (f && f.id === d.client_move_id) s.inflight = null;
        if (d.game) { s.game = d.game; drawGame(); }
        // the server's reason, in plain words for autoplay with nothing to play
        say(/^autoplay: no top card/.test(d.message) ? T.nothingToAutoplay
          : d.code === "move/stale_version" ? T.staleVersion : T.refusedSay(sentence(d.message) || d.code), "error");
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
    if (!text) return;
    if (!s.game || !s.sock) { say(T.notStarted); return; }
    if (s.inflight) { say(T.oneAtATime); return; }
    const id = newMoveId(s.me);
    s.inflight = { id, text };
    s.sock.move(text, s.game.version, id);
  }

  function render() {
    const r = s.room;
    if (!r || s.stopped) return;
    frame.state(r.state);
    frame.heading(r, watch);
    const mode = modeOf(r);
    if (mode !== s.mode) {
      s.mode = mode; frame.stage.replaceChildren();
      s.screen?.destroy(); s.screen = null; s.wait = null;
      clearInterval(s.watchTimer);
      if (mode === "wait") s.wait = waitingRoom(frame.stage, r, { me: s.me, host: Boolean(s.host), onReady, onStart });
      if (mode === "race") buildRace();
      if (mode === "end") buildEnd();
    }
    update();
  }

  function update() {
    s.wait?.update(s.room);
    if (!s.screen) return;
    s.screen.rivals(racerRows(s.room, s.me));
    sayRivals();
  }

  /** The rivals' progress in the live region, at most every few seconds (announce.js). */
  function sayRivals() {
    clearTimeout(s.rivalsTimer); s.rivalsTimer = null;
    if (s.stopped || s.mode !== "race") return;
    const text = rivalsSay.update(racerRows(s.room, s.me), performance.now());
    if (text) frame.announce(text);
    else if (rivalsSay.nextAt !== null) s.rivalsTimer = setTimeout(sayRivals, rivalsSay.nextAt - performance.now());
  }

  function onReady() {
    const me = s.room.racers.find((x) => x.id === s.me);
    s.sock.send({ t: "ready", d: { ready: !(me && me.ready) } });
  }
  async function onStart() {
    try { await call("POST", `/rooms/${code}/start`, { token: s.host }); } catch (e) { say(`${e}`, "error"); }
  }

  function buildRace() {
    rivalsSay.baseline(racerRows(s.room, s.me));
    s.screen = raceScreen(frame.stage, s.room, {
      me: s.me, say, onMove: sendMove,
      onPick: (card, targets) => frame.announce(T.pickedSay(card, targetWords(targets))),
      onPutDown: (card) => card && frame.announce(T.putDownSay(card)),
      onHint: async () => {
        try { const h = await call("GET", `/rooms/${code}/racers/${s.me}/hint`, { token: s.token }); say(h.move ? T.hintIs(h.move) : T.noHint); } catch (e) { say(`${e}`, "error"); }
      },
      onResign: () => s.sock.send({ t: "resign" }),
      onWatch: (id) => { s.watchRacer = id; pollWatch(); },
    });
    if (!s.me) { s.watchTimer = setInterval(pollWatch, 3000); pollWatch(); }
    drawGame();
  }
  async function pollWatch() {
    // the picked racer's board, else the leader's (as the terminal's `lucie watch`)
    const racer = s.watchRacer ?? racerRows(s.room, null)[0]?.id;
    const screen = s.screen;
    if (!racer || !screen) return;
    try {
      const g = await call("GET", `/rooms/${code}/racers/${racer}/game`);
      if (screen !== s.screen) return;
      screen.board.set(g);
      screen.note(g.delay_ms ? T.delayed(Math.round(g.delay_ms / 1000)) : "");
    } catch (e) { screen.note(`${e}`); }
  }

  function drawGame() {
    const screen = s.screen;
    if (!screen || !s.game || !s.me) return;
    const g = s.game;
    const lost = screen.focusLost();
    screen.board.set(g);
    screen.info(g);
    screen.controls(controls(g, s.room.rules));
    // the game's own line: shown after every redraw, said when it changes
    const note = gameNote(g);
    const [text, kind] = note === "won" ? [T.youWon, "good"] : note === "stuck" ? [T.stuckNote, ""]
      : note === "over" ? [T.overNote(g.status), ""] : [null, ""];
    if (text && note !== s.note) say(text, kind); else if (text) frame.line(text, kind);
    s.note = note;
    // the focus never falls to <body>: a sensible card takes it (board.js keeps its place)
    if (lost || screen.focusLost()) screen.board.focus();
  }

  function buildEnd() {
    banner("");
    const box = el("div", { class: "end" });
    frame.stage.append(box);
    s.end = mountEnd(box, { code, room: s.room, me: s.me, token: s.token, say, onGhost: (c) => navigate(`/r/${c}`) });
    s.rematchBar = mountRematch(box, { code, room: s.room, me: s.me, token: s.token, watch, say, go: navigate });
  }

  // keyboard: typing a move anywhere goes to the move line; Escape puts a picked card down
  function onKey(e) {
    if (e.target.closest?.("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Escape") { s.screen?.board.clearSelection(); return; }
    const input = document.getElementById("move-input");
    if (input && /^[0-9a-zA-Z]$/.test(e.key)) input.focus();
  }
  document.addEventListener("keydown", onKey);

  // fair play: a racer's page hidden or window blurred during the race is reported
  const stopFocusReport = watch ? () => {} : reportFocusLoss({
    racing: () => {
      const me = s.room?.racers.find((r) => r.id === s.me);
      return s.room?.state === "racing" && Boolean(me) && !me.final && !s.game?.final;
    },
    send: (msg) => s.sock?.send(msg),
  });

  load();
  return () => {
    s.stopped = true; clearInterval(tick); clearInterval(s.watchTimer); clearTimeout(s.rivalsTimer);
    s.sock?.close(); banner("");
    s.rematchBar?.stop(); s.end?.destroy(); s.screen?.destroy();
    document.removeEventListener("keydown", onKey);
    stopFocusReport();
  };
}
