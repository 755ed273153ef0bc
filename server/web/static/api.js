// The public API (/api/v1, docs/protocol.md): REST calls, the room socket, token storage.
import { T } from "./strings.js";

export const API = "/api/v1";

/** JSON.parse keeping big integers exact: deal numbers go up to 10^20 − 1 (protocol.md). */
export function parseJSON(text) {
  return JSON.parse(text, (key, value, ctx) =>
    (typeof value === "number" && !Number.isSafeInteger(value) && ctx && /^\d+$/.test(ctx.source))
      ? ctx.source : value);
}

/** A refusal: `${error}` reads as its message, for people ("No room or race 'X'"); the
 * stable code (its name too) is for the program. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message); this.status = status; this.name = this.code = code; this.details = details;
  }
  toString() { return sentence(this.message) || this.code; }
}

/** A server message as a sentence: a capital first letter ("no room …" → "No room …"). */
export const sentence = (message) => (message ? message[0].toUpperCase() + message.slice(1) : "");

/** One REST call: method, path under /api/v1, optional JSON body (object or raw JSON text), token. */
export async function call(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(API + path, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)),
    });
  } catch (e) {
    throw new ApiError(0, "network/offline", T.offline);
  }
  if (res.status === 204) return null;
  const text = await res.text();
  let data = null;
  try { data = text ? parseJSON(text) : null; } catch (e) { data = null; }
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: `http/${res.status}`, message: res.statusText };
    throw new ApiError(res.status, err.code, err.message, err.details);
  }
  return data;
}

// Tokens: kept in this browser's localStorage for each room (never in a URL).
const KEY = "lucie.v1.";
function read(k) { try { return JSON.parse(localStorage.getItem(KEY + k) ?? "null"); } catch (e) { return null; } }
function write(k, v) { try { localStorage.setItem(KEY + k, JSON.stringify(v)); } catch (e) { /* private mode */ } }
export const store = {
  racer(code) { return read(`racer.${code.toUpperCase()}`); },
  setRacer(code, v) { write(`racer.${code.toUpperCase()}`, v); },
  host(code) { return read(`host.${code.toUpperCase()}`); },
  setHost(code, token) { write(`host.${code.toUpperCase()}`, token); },
  name() { return read("name") ?? ""; },
  setName(n) { write("name", n); },
  // the player this browser plays as (docs/players.md): {id, name, key}; the key never goes in a URL
  player() { return read("player"); },
  setPlayer(p) { write("player", p); },
  // the room code of this browser's attempt at a challenge
  attempt(id) { return read(`attempt.${id}`); },
  setAttempt(id, code) { write(`attempt.${id}`, code); },
  // and the challenge (its code) of such a room
  challengeOf(code) { return read(`challenge-of.${code.toUpperCase()}`); },
  setChallengeOf(code, challenge) { write(`challenge-of.${code.toUpperCase()}`, challenge); },
  // the resume point of this tab: the seq of the last event seen, per room
  seen(code) { try { return JSON.parse(sessionStorage.getItem(KEY + "seen." + code) ?? "null"); } catch (e) { return null; } },
  setSeen(code, v) { try { sessionStorage.setItem(KEY + "seen." + code, JSON.stringify(v)); } catch (e) { /* ignore */ } },
};

/** How often the room socket pings (ms): a connection that answers nothing — no pong, no
 * other message — for a whole period after a ping is taken as lost, so a path that drops
 * packets without closing is noticed within two periods. `window.LUCIE_PING_MS`, set
 * before the page loads, shortens it (the tests). */
export const PING_MS = Number(globalThis.LUCIE_PING_MS) > 0 ? Number(globalThis.LUCIE_PING_MS) : 15000;


/** A fresh client_move_id for racer `me`: the racer and 96 random bits, unique per racer
 * across tabs and devices (a repeated id is answered with the first one's answer). */
export function newMoveId(me) {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${me}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * The room socket with resume (protocol.md "Resuming"): on a drop it reconnects with
 * ?since=<last seq>, so no event is lost or repeated; a move with no answer is sent
 * again with the same client_move_id (the server answers a repeat with its first answer).
 * A socket that stays silent a ping period after a ping, or does not open within one, is
 * dropped and reconnected the same way (a path that loses packets never closes it).
 * handlers: onWelcome(d), onEvent(ev), onSnapshot(d), onAck(d), onRefused(d), onError(d),
 * onStatus("open"|"down"|"gone", text).
 */
export class RoomSocket {
  constructor(code, token, handlers, lastSeq = null) {
    this.code = code; this.token = token; this.h = handlers;
    this.lastSeq = lastSeq; this.pending = new Map(); this.ws = null;
    this.closed = false; this.attempt = 0; this.authed = !token;
    this.heard = 0; this.pingedAt = null; this.ping = null;
  }
  open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const since = this.lastSeq === null ? "" : `?since=${this.lastSeq}`;
    // a racer names its token on the upgrade, so the room's spectator cap never turns it
    // away (protocol.md "Who you are"): a page cannot set headers on a WebSocket, so the
    // token goes as the subprotocol lucie.bearer.<token>, beside lucie.v1 (the one the
    // server answers) — never in the URL
    const protocols = this.token ? ["lucie.v1", `lucie.bearer.${this.token}`] : [];
    const ws = new WebSocket(`${proto}//${location.host}${API}/rooms/${this.code}/ws${since}`, protocols);
    this.ws = ws; this.authed = !this.token; this.pingedAt = null;
    ws.onopen = () => { this.attempt = 0; this.heard = performance.now(); };
    ws.onmessage = (m) => { this.heard = performance.now(); this.dispatch(m.data); };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      // 1008 rate/limited (a watcher past the room's spectator cap): try again later
      if (e.code === 4004 || (e.code === 1008 && !e.reason.startsWith("rate/limited"))) {
        this.closed = true;
        this.h.onStatus?.("gone", e.reason || T.roomGone);
        return;
      }
      this.retry(e.code === 1008 ? T.roomBusy : T.connectionLost);
    };
    // a handshake that never ends (packets dropped on the way) is given up after a period
    setTimeout(() => { if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) this.abandon(ws); }, PING_MS);
    this.ping ??= setInterval(() => this.beat(), PING_MS);
  }
  /** One heartbeat: a ping, unless the last one has had no answer (nor anything else) —
   * then the connection is lost. */
  beat() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (this.pingedAt !== null && this.heard < this.pingedAt) { this.abandon(ws); return; }
    this.pingedAt = performance.now();
    ws.send(JSON.stringify({ t: "ping" }));
  }
  /** Give up on a socket that went silent: its close may never arrive, so it is closed
   * without waiting and a new one is opened (resume, pending moves re-sent). */
  abandon(ws) {
    if (this.ws !== ws) return;
    this.ws = null;
    try { ws.close(); } catch (e) { /* closing already */ }
    if (!this.closed) this.retry(T.connectionLost);
  }
  retry(text) {
    this.h.onStatus?.("down", text);
    const delay = Math.min(5000, 250 * 2 ** this.attempt++);
    setTimeout(() => { if (!this.closed && this.ws === null) this.open(); }, delay);
  }
  close() { this.closed = true; clearInterval(this.ping); this.ws?.close(1000); }
  /** Drop the connection as a network failure would (tests, the "reconnect" path). */
  drop() { this.ws?.close(3000, "drop"); }
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.authed) {
      this.ws.send(JSON.stringify(msg)); return true;
    }
    return false;
  }
  move(move, expectedVersion, clientMoveId) {
    const msg = { t: "move", d: { move, expected_version: expectedVersion, client_move_id: clientMoveId } };
    this.pending.set(clientMoveId, msg);
    this.send(msg);
  }
  dispatch(raw) {
    let msg;
    try { msg = parseJSON(raw); } catch (e) { return; }
    const d = msg.d ?? {};
    switch (msg.t) {
      case "welcome":
        if (d.racer || !this.token) {
          this.authed = true;
          this.h.onStatus?.("open", "");
          for (const m of this.pending.values()) this.send(m); // same client_move_id
        }
        if (this.lastSeq === null) this.lastSeq = d.room.seq;
        this.h.onWelcome?.(d);
        break;
      case "event":
        if (this.lastSeq !== null && d.seq <= this.lastSeq) return; // seen already
        this.lastSeq = d.seq;
        this.h.onEvent?.(d);
        break;
      case "snapshot":
        this.lastSeq = d.seq;
        this.h.onSnapshot?.(d);
        break;
      case "ack":
        this.pending.delete(d.client_move_id);
        this.h.onAck?.(d);
        break;
      case "refused":
        if (d.code === "store/unavailable") { // resend later, same client_move_id
          const m = this.pending.get(d.client_move_id);
          if (m) setTimeout(() => this.send(m), d.details?.retry_after_ms ?? 1000);
          return;
        }
        this.pending.delete(d.client_move_id);
        this.h.onRefused?.(d);
        break;
      case "error": this.h.onError?.(d); break;
      default: break; // pong and types this client does not know
    }
  }
}
