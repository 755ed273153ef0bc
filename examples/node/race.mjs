#!/usr/bin/env node
// A third-party client of the La Belle Lucie race server (docs/protocol.md).
//
//   node race.mjs [SERVER_URL]        (else $LUCIE_SERVER, else http://127.0.0.1:8000)
//
// It creates a private room, joins two racers, opens one room WebSocket per
// racer, starts the race as the host and lets both racers play a legal race to
// the end over their sockets. Halfway, one racer's socket is dropped; that
// racer plays one move over REST while offline, reconnects with ?since=<last
// seq seen>, checks that the missed events come back with no gap and no
// repeat, and re-sends the offline move with the same client_move_id to show
// that a retry is answered with the first answer and applies nothing. At the
// race_over event it reads the standings and a replay and prints a summary.
//
// Exit status: 0 on success; 1 with a message on stderr on any protocol
// surprise (an unexpected HTTP status, a gap or a repeat in seq, an
// unexpected refusal, a socket closed by the server, a timeout).
//
// Node 20 (global fetch), ES modules, one dependency: `ws` (for the
// Authorization header on the WebSocket upgrade, which browsers cannot set).

import WebSocket from "ws";

const SERVER = (process.argv[2] || process.env.LUCIE_SERVER || "http://127.0.0.1:8000")
  .replace(/\/+$/, "");
const API = `${SERVER}/api/v1`;
const WS_API = API.replace(/^http/, "ws"); // http → ws, https → wss

const ROOM_SETTINGS = { deal: 123, countdown_s: 0, time_limit_s: 120, visibility: "private", undo: false };
const RACER_NAMES = ["Ada", "Sam"];
const MOVE_BUDGET = 300; // per racer: resign after this many moves
const DROP_AFTER = 10; // the first racer's socket is dropped after this many moves
const ANSWER_TIMEOUT_MS = 10_000; // an ack/refused/event that does not come is a failure
const OVERALL_TIMEOUT_MS = 55_000;
const SEND_RATE_PER_S = 100; // well under the server's 200 messages/s per socket ("Limits")

// ---------------------------------------------------------------- failures

class ProtocolError extends Error {}

function fail(message) {
  throw new ProtocolError(message);
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(2)} s`;
const log = (...args) => console.log(`[${elapsed().padStart(7)}]`, ...args);

// ---------------------------------------------------------------- REST

/**
 * One REST call; any status but `expect` is a protocol surprise, except a
 * 429 `rate/limited` or a 503 with `Retry-After` ("Limits"): the request did
 * nothing, so it is sent again after the wait the server asks for (a few times).
 */
async function http(method, path, { token, body, expect = 200 } = {}, attempt = 1) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`; // never in the URL
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(API + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (err) {
    fail(`${method} ${path}: no answer from ${SERVER} (${err.cause?.code ?? err.message})`);
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      fail(`${method} ${path}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
  }
  const retryMs = data?.error?.details?.retry_after_ms ?? Number(res.headers.get("retry-after")) * 1000;
  if ((res.status === 429 || res.status === 503) && retryMs > 0 && attempt <= 3) {
    log(`${method} ${path}: ${data?.error?.code ?? res.status}, retrying in ${retryMs} ms as the server asks`);
    await new Promise((r) => setTimeout(r, retryMs));
    return http(method, path, { token, body, expect }, attempt + 1);
  }
  if (res.status !== expect) {
    const e = data?.error;
    const why = e ? `${e.code}: ${e.message}` : text.slice(0, 200);
    fail(`${method} ${path}: expected HTTP ${expect}, got ${res.status} (${why})`);
  }
  return data;
}

// ---------------------------------------------------------------- strategy

const isFoundationMove = (m) => /f$/.test(m); // "3f", "c2f", "m 5H f"
const isUndoOrRedeal = (m) => m === "u" || m === "r" || m === "a";

/**
 * Foundation moves first, else the first legal move not yet tried from this
 * position (no undo, redeal or autoplay), else a redeal, else null (resign).
 * `tried` remembers (position, move) pairs, so shuffling a card between two
 * fans cannot loop forever.
 */
function pickMove(game, tried) {
  const key = JSON.stringify([game.position.fans, game.position.foundations, game.position.redeals_used]);
  const fresh = (m) => !tried.has(`${key}|${m}`);
  const moves = game.legal_moves;
  const choice =
    moves.find((m) => isFoundationMove(m) && fresh(m)) ??
    moves.find((m) => !isUndoOrRedeal(m) && fresh(m)) ??
    moves.find((m) => m === "r") ??
    null;
  if (choice !== null) tried.add(`${key}|${choice}`);
  return choice;
}

// ---------------------------------------------------------------- a racer

class Racer {
  constructor(room, name, joined) {
    this.room = room; // room code
    this.name = name;
    this.id = joined.racer.id;
    this.token = joined.token; // secret: sent in headers only, never logged
    this.ws = null;
    this.lastSeq = null; // the seq of the last room event this racer's sockets saw
    this.eventsSeen = 0;
    this.firstSeq = null;
    this.pending = new Map(); // client_move_id → {resolve, reject, timer}
    this.waiters = []; // {test(msg), resolve, reject, timer}
    this.moveNo = 0; // client_move_id counter
    this.played = 0; // accepted moves
    this.game = null;
    this.tried = new Set();
    this.resume = null; // what the reconnection showed
    this.sendTimes = [];
    this.droppedOnPurpose = false;
    this.failure = null;
  }

  /** Open the room socket (with ?since= when resuming); resolves at `welcome`. */
  connect(since = null) {
    const url = `${WS_API}/rooms/${this.room}/ws${since === null ? "" : `?since=${since}`}`;
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${this.token}` } });
    this.ws = ws;
    this.droppedOnPurpose = false;
    const welcome = this.waitFor((m) => m.t === "welcome", "welcome");
    ws.on("message", (data, isBinary) => {
      if (ws !== this.ws) return; // a dropped socket's last words
      try {
        if (isBinary) fail(`${this.name}: a binary frame (the protocol sends text only)`);
        this.onMessage(JSON.parse(data.toString("utf8")));
      } catch (err) {
        this.abort(err);
      }
    });
    ws.on("unexpected-response", (_req, res) => {
      this.abort(new ProtocolError(`${this.name}: WebSocket upgrade refused with HTTP ${res.statusCode}`));
    });
    ws.on("error", (err) => {
      if (ws === this.ws) this.abort(new ProtocolError(`${this.name}: socket error: ${err.message}`));
    });
    ws.on("close", (code, reason) => {
      if (ws !== this.ws || this.droppedOnPurpose) return;
      this.abort(new ProtocolError(`${this.name}: the server closed the socket: ${code} ${reason}`));
    });
    return welcome;
  }

  /** Drop the socket abruptly, as a lost connection would. */
  drop() {
    this.droppedOnPurpose = true;
    this.ws.terminate();
  }

  close() {
    this.droppedOnPurpose = true;
    if (this.ws) this.ws.close(1000, "bye");
  }

  abort(err) {
    if (!this.failure) this.failure = err;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  /** A promise of the next server message that passes `test`. */
  waitFor(test, what, timeoutMs = ANSWER_TIMEOUT_MS) {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const w = { test, resolve, reject };
      w.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new ProtocolError(`${this.name}: no ${what} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  onMessage(msg) {
    const d = msg.d ?? {};
    switch (msg.t) {
      case "welcome":
        if (d.racer !== this.id) fail(`${this.name}: welcome for racer ${d.racer}, expected ${this.id}`);
        if (this.lastSeq === null) {
          this.lastSeq = d.room.seq; // live events follow from room.seq + 1
        } else if (d.room.seq < this.lastSeq) {
          fail(`${this.name}: welcome at seq ${d.room.seq}, before the ${this.lastSeq} already seen`);
        }
        if (this.resume) this.resume.welcomeSeq = d.room.seq;
        break;
      case "snapshot":
        // The missed events are no longer kept: the room as of `seq` instead.
        log(`${this.name}: snapshot at seq ${d.seq} (events after ${this.lastSeq} were not kept)`);
        if (this.resume) this.resume.snapshot = d.seq;
        this.lastSeq = d.seq;
        break;
      case "event":
        this.onEvent(d);
        break;
      case "ack":
      case "refused": {
        const p = this.pending.get(d.client_move_id);
        if (!p) fail(`${this.name}: ${msg.t} for a move never sent (${d.client_move_id})`);
        this.pending.delete(d.client_move_id);
        clearTimeout(p.timer);
        p.resolve(msg);
        break;
      }
      case "error":
        break; // handed to a waiter below, or a surprise
      case "pong":
        break;
      default:
        fail(`${this.name}: unknown message type ${JSON.stringify(msg.t)}`);
    }
    let handled = false;
    for (const w of [...this.waiters]) {
      if (w.test(msg)) {
        this.waiters = this.waiters.filter((x) => x !== w);
        clearTimeout(w.timer);
        w.resolve(msg);
        handled = true;
      }
    }
    if (msg.t === "error" && !handled) fail(`${this.name}: error from the server: ${d.code}: ${d.message}`);
  }

  onEvent(ev) {
    if (typeof ev.seq !== "number") fail(`${this.name}: an event without seq: ${JSON.stringify(ev)}`);
    if (ev.seq <= this.lastSeq) fail(`${this.name}: event seq ${ev.seq} repeated (already saw ${this.lastSeq})`);
    if (ev.seq !== this.lastSeq + 1) {
      fail(`${this.name}: gap in seq: expected ${this.lastSeq + 1}, got ${ev.seq} (${ev.type})`);
    }
    this.lastSeq = ev.seq;
    this.firstSeq ??= ev.seq;
    this.eventsSeen += 1;
    if (this.resume && this.resume.welcomeSeq !== undefined && ev.seq <= this.resume.welcomeSeq) {
      this.resume.replayed.push(ev.seq); // missed while offline, sent again after welcome
    }
  }

  /** Keep this socket's send rate under SEND_RATE_PER_S (the server allows 200/s). */
  async pace() {
    const now = Date.now();
    this.sendTimes = this.sendTimes.filter((t) => now - t < 1000);
    if (this.sendTimes.length >= SEND_RATE_PER_S) {
      await new Promise((r) => setTimeout(r, 1000 - (now - this.sendTimes[0])));
    }
    this.sendTimes.push(Date.now());
  }

  async send(msg) {
    await this.pace();
    if (this.failure) throw this.failure;
    this.ws.send(JSON.stringify(msg));
  }

  /** Send one move on the socket; resolves with its `ack` or `refused`. */
  async sendMove(move, expectedVersion, clientMoveId) {
    const answer = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(clientMoveId);
        reject(new ProtocolError(`${this.name}: no ack/refused for ${clientMoveId} within ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(clientMoveId, { resolve, reject, timer });
    });
    await this.send({ t: "move", d: { move, expected_version: expectedVersion, client_move_id: clientMoveId } });
    return answer;
  }

  nextMoveId() {
    this.moveNo += 1;
    return `${this.name.toLowerCase()}-${this.moveNo}`; // unique per racer
  }

  async readGame() {
    this.game = await http("GET", `/rooms/${this.room}/racers/${this.id}/game`, { token: this.token });
    return this.game;
  }

  /** Play until the game is final; `onMove(n)` may interrupt between moves. */
  async play(onMove = async () => {}) {
    await this.readGame();
    while (!this.game.final) {
      if (this.failure) throw this.failure;
      if (this.played >= MOVE_BUDGET) return this.resign(`move budget of ${MOVE_BUDGET} spent`);
      // "stuck" is final only without undo; with undo this strategy resigns too.
      const move = this.game.status === "playing" ? pickMove(this.game, this.tried) : null;
      if (move === null) return this.resign(`${this.game.status}, no useful legal move left`);
      const id = this.nextMoveId();
      const msg = await this.sendMove(move, this.game.version, id);
      if (msg.t === "ack") {
        this.game = msg.d.game;
        this.played += 1;
        await onMove(this.played);
        continue;
      }
      const { code, message } = msg.d;
      if (code === "move/stale_version") {
        this.game = msg.d.game; // continue from the current game
      } else if (code === "store/unavailable" || code === "store/busy") {
        await new Promise((r) => setTimeout(r, 200)); // retry: the next pick re-sends from the same game
        this.tried.clear();
      } else if (code === "room/over" || code === "racer/finished") {
        log(`${this.name}: ${code} — the race ended first`);
        return;
      } else {
        fail(`${this.name}: move ${JSON.stringify(move)} (from legal_moves at version ${this.game.version}) refused: ${code}: ${message}`);
      }
    }
    log(`${this.name}: game over — ${this.game.status}, ${this.game.position.foundation_cards} cards home`);
  }

  async resign(why) {
    log(`${this.name}: resigns (${why}) at ${this.game.position.foundation_cards} cards`);
    const finished = this.waitFor(
      (m) => (m.t === "event" && m.d.type === "finished" && m.d.racer === this.id) || m.t === "error",
      "finished event after resign",
    );
    await this.send({ t: "resign" });
    const msg = await finished;
    if (msg.t === "error") fail(`${this.name}: resign refused: ${msg.d.code}: ${msg.d.message}`);
    if (msg.d.status !== "resigned") fail(`${this.name}: resigned, but finished says ${msg.d.status}`);
  }
}

// ---------------------------------------------------------------- the drop-and-resume scene

/**
 * Drop the racer's socket between two moves, play one move over REST while
 * offline, reconnect with ?since=<last seq seen> and check what comes back;
 * then re-send the offline move on the new socket with the same client_move_id.
 */
async function dropAndResume(racer) {
  const since = racer.lastSeq;
  racer.drop();
  log(`${racer.name}: socket dropped after seq ${since}`);

  // Offline: one move over REST (its progress event is one the socket misses).
  const move = pickMove(racer.game, racer.tried);
  let offline = null;
  if (move !== null) {
    const id = racer.nextMoveId();
    const body = { move, expected_version: racer.game.version, client_move_id: id };
    const ack = await http("POST", `/rooms/${racer.room}/racers/${racer.id}/moves`, { token: racer.token, body });
    racer.game = ack.game;
    racer.played += 1;
    offline = { id, move, body, ack };
    log(`${racer.name}: played ${move} over REST while offline (version ${ack.version})`);
  }

  racer.resume = { since, replayed: [], snapshot: null };
  await racer.connect(since);
  // Everything the room published while offline comes back right after welcome.
  const upTo = racer.resume.welcomeSeq;
  if (racer.resume.snapshot === null && racer.lastSeq < upTo) {
    await racer.waitFor(() => racer.lastSeq >= upTo, `the events ${since + 1}…${upTo} missed while offline`);
  }
  const r = racer.resume;
  if (r.snapshot === null) {
    const expected = Array.from({ length: upTo - since }, (_, i) => since + 1 + i);
    if (JSON.stringify(r.replayed) !== JSON.stringify(expected)) {
      fail(`${racer.name}: resumed with since=${since}: got events ${r.replayed} instead of ${expected}`);
    }
    if (offline && r.replayed.length === 0) fail(`${racer.name}: the offline move's event was not replayed`);
  }
  log(`${racer.name}: reconnected with ?since=${since}: ` +
    (r.snapshot === null ? `events ${since + 1}…${upTo} replayed, no gap, no repeat` : `snapshot at ${r.snapshot}`));

  // A retry is safe: the same client_move_id gets the first answer, nothing is applied.
  if (offline) {
    const again = await racer.sendMove(offline.body.move, offline.body.expected_version, offline.id);
    if (again.t !== "ack" || again.d.version !== offline.ack.version ||
        JSON.stringify(again.d.applied) !== JSON.stringify(offline.ack.applied)) {
      fail(`${racer.name}: re-sending ${offline.id} did not return the first answer: ${JSON.stringify(again)}`);
    }
    const game = await racer.readGame();
    if (game.version !== offline.ack.version) {
      fail(`${racer.name}: re-sending ${offline.id} changed the game (version ${game.version})`);
    }
    r.retry = `${offline.id} re-sent on the socket: first answer again (version ${again.d.version}), nothing applied`;
    log(`${racer.name}: ${r.retry}`);
  }
}

// ---------------------------------------------------------------- main

const secs = (ms) => (ms === null || ms === undefined ? "—" : `${(ms / 1000).toFixed(2)} s`);

async function main() {
  log(`server ${SERVER}`);
  const health = await fetch(`${SERVER}/healthz`, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) })
    .catch((err) => fail(`no server at ${SERVER} (${err.cause?.code ?? err.message}); start one with \`make server\``));
  if (health.status !== 200) fail(`GET /healthz: expected HTTP 200, got ${health.status}`);

  // 1. A room and two racers.
  const created = await http("POST", "/rooms", { body: ROOM_SETTINGS, expect: 201 });
  const room = created.room;
  const hostToken = created.host_token;
  log(`room ${room.code} created (deal ${room.deal_number}, ${room.rules.name}, undo ${room.rules.undo})`);
  const racers = [];
  for (const name of RACER_NAMES) {
    const joined = await http("POST", `/rooms/${room.code}/racers`, { body: { name }, expect: 201 });
    racers.push(new Racer(room.code, name, joined));
    log(`${name} joined as racer ${joined.racer.id}`);
  }

  // 2. One socket per racer, then the host starts the race.
  await Promise.all(racers.map((r) => r.connect()));
  log(`sockets open (welcome at seq ${racers.map((r) => r.lastSeq).join(", ")})`);
  const startedEvents = racers.map((r) =>
    r.waitFor((m) => m.t === "event" && m.d.type === "started", "started event"));
  const start = await http("POST", `/rooms/${room.code}/start`, { token: hostToken, body: {} });
  if (start.state !== "racing" && start.state !== "countdown") fail(`start: room in state ${start.state}`);
  const [startedEv] = await Promise.all(startedEvents);
  log(`race started on deal ${startedEv.d.deal_number}`);
  const raceOverEvents = racers.map((r) =>
    r.waitFor((m) => m.t === "event" && m.d.type === "race_over", "race_over event", OVERALL_TIMEOUT_MS));
  raceOverEvents.forEach((p) => p.catch(() => {})); // reported where awaited

  // 3. Both race; the first one's socket drops and resumes after DROP_AFTER moves.
  const [ada, sam] = racers;
  await Promise.all([
    ada.play(async (n) => { if (n === DROP_AFTER) await dropAndResume(ada); }),
    sam.play(),
  ]);
  if (!ada.resume) fail(`${ada.name} finished before the socket drop (fewer than ${DROP_AFTER} moves)`);

  // 4. The end: race_over on both sockets, the standings, a replay.
  const [over] = (await Promise.all(raceOverEvents)).map((m) => m.d);
  const standings = await http("GET", `/rooms/${room.code}/standings`);
  if (!standings.final) fail("standings are not final after race_over");
  const summary = (s) => `${s.rank}:${s.racer}:${s.foundation_cards}:${s.moves}:${s.status}`;
  if (standings.standings.map(summary).join() !== over.standings.map(summary).join()) {
    fail("GET /standings differs from the race_over event's table");
  }
  const replay = await http("GET", `/rooms/${room.code}/racers/${ada.id}/replay`); // public now: no token
  const adaRow = standings.standings.find((s) => s.racer === ada.id);
  if (replay.moves.length !== adaRow.moves) {
    fail(`replay of ${ada.name} has ${replay.moves.length} moves, the standings say ${adaRow.moves}`);
  }
  if (!replay.redeal_key) fail("the replay has no redeal key after the race");
  for (const r of racers) r.close();

  console.log("");
  console.log(`Race summary — room ${room.code}, deal ${replay.deal_number}, ${replay.rules.name}`);
  console.log(`race over at ${secs(over.race_clock_ms)} on the race clock (par ${standings.par ?? "not known yet"})`);
  for (const s of standings.standings) {
    console.log(`  ${s.rank}. ${s.name.padEnd(4)} ${s.status.padEnd(9)} ${String(s.foundation_cards).padStart(2)} cards  ` +
      `${String(s.moves).padStart(3)} moves  reach ${secs(s.reach_time_ms).padStart(7)}  ${s.points} points`);
  }
  const r = ada.resume;
  console.log(`resume: ${ada.name}'s socket dropped after seq ${r.since}; ?since=${r.since} ` +
    (r.snapshot === null
      ? `replayed ${r.replayed.length} missed event(s) ${r.since + 1}…${r.welcomeSeq} — no gap, no repeat`
      : `answered with a snapshot at seq ${r.snapshot}`));
  if (r.retry) console.log(`retry: ${r.retry}`);
  for (const x of racers) {
    console.log(`events: ${x.name} saw seq ${x.firstSeq}…${x.lastSeq} in order (${x.eventsSeen} events)`);
  }
  const last = replay.moves.at(-1);
  console.log(`replay of ${replay.player}: ${replay.moves.length} moves` +
    (last ? `, last ${last.move} at ${secs(last.race_clock_ms)}` : "") +
    `, redeal key ${replay.redeal_key.slice(0, 12)}…`);
  console.log(`OK: a legal race over the WebSocket in ${elapsed()}`);
}

const watchdog = setTimeout(() => {
  console.error(`race.mjs: FAILED: no result within ${OVERALL_TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS + 2_000);

main().then(
  () => {
    clearTimeout(watchdog);
    process.exit(0);
  },
  (err) => {
    const what = err instanceof ProtocolError ? err.message : err.stack;
    console.error(`race.mjs: FAILED: ${what}`);
    process.exit(1);
  },
);
