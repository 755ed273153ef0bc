// The room as the page knows it, from the public API's room view and its socket events
// (docs/protocol.md "Room events"), and what the page should show of it: the page's
// mode, the racers' order, the waiting room's buttons, the toolbar's state. Pure: no
// DOM, no socket, no clock of its own (tests/web/js/ run it in Node).

/** Statuses that end a racer's race (`stuck` is final only when undo is off: `final`). */
export const FINAL = new Set(["won", "resigned", "left", "timed_out"]);
export const isFinal = (r) => Boolean(r.final) || FINAL.has(r.status);

/** A computer racer: the view's `bot` when it has one, else the server's names (`bot-Ada`). */
export const isBot = (r) => (typeof r?.bot === "boolean" ? r.bot : /^bot-/.test(r?.name ?? ""));

/** "m:ss" of a race-clock time in ms; "–:–" when unknown. */
export function fmtClock(ms) {
  if (ms === null || ms === undefined) return "–:–";
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The room after one event: a new object, the one given is left as it was. */
export function applyEvent(room, ev) {
  const next = { ...room, racers: room.racers.map((r) => ({ ...r })) };
  const find = (id) => next.racers.find((r) => r.id === id);
  const set = (id, fields) => { const r = find(id); if (r) Object.assign(r, fields); };
  switch (ev.type) {
    case "joined": {
      const i = next.racers.findIndex((r) => r.id === ev.racer.id);
      if (i >= 0) next.racers[i] = { ...ev.racer }; else next.racers.push({ ...ev.racer });
      break;
    }
    case "left":
      if (room.state === "waiting" || room.state === "countdown") next.racers = next.racers.filter((r) => r.id !== ev.racer);
      else set(ev.racer, { status: "left", final: true });
      break;
    case "ready": set(ev.racer, { ready: ev.ready }); break;
    case "countdown": next.state = "countdown"; next.starts_in_ms = ev.starts_in_ms; break;
    case "started":
      next.state = "racing"; next.deal_number = ev.deal_number; next.starts_in_ms = null;
      for (const r of next.racers) if (r.status === "waiting") r.status = "playing";
      break;
    case "progress":
      set(ev.racer, { foundation_cards: ev.foundation_cards, moves: ev.moves, redeals_used: ev.redeals_used,
        merci_used: ev.merci_used, status: ev.status, reach_time_ms: ev.reach_time_ms });
      break;
    case "finished": set(ev.racer, { status: ev.status, final: true, finished_ms: ev.race_clock_ms }); break;
    case "race_over": case "par":
      next.state = room.state === "closed" ? "closed" : "over"; next.standings = ev.standings; next.par = ev.par;
      break;
    case "closed": next.state = "closed"; break;
    case "rematch": next.rematch = ev.rematch; break;
    default: break;
  }
  if (ev.seq !== undefined && ev.seq !== null) next.seq = ev.seq;
  if (ev.race_clock_ms !== null && ev.race_clock_ms !== undefined) next.race_clock_ms = ev.race_clock_ms;
  return next;
}

/** The page's screen for a room state: "wait" (and the countdown), "race" or "end". */
export function modeOf(room) {
  if (room.state === "over" || room.state === "closed") return "end";
  return room.state === "racing" ? "race" : "wait";
}

/**
 * The racers in the order of rules.md "Race ranking" as it stands during the race: more
 * foundation cards, then the earlier reach time (none yet ranks as 0). Racers equal on
 * both share a rank and keep their join order — fewer moves, the rule book's next step,
 * decides a final result (the end screen's standings are the server's) but not a race
 * still running: counted mid-race it would reorder the racers at every move while they
 * all have 0 cards. Returns rows `{ racer, rank }`.
 */
export function ranked(racers) {
  const key = (r) => [-r.foundation_cards, r.reach_time_ms ?? 0];
  const order = [...racers].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (x[0] - y[0]) || (x[1] - y[1]) || (a.join_order - b.join_order);
  });
  let rank = 0;
  return order.map((r, i) => {
    const prev = order[i - 1];
    if (!prev || key(prev)[0] !== key(r)[0] || key(prev)[1] !== key(r)[1]) rank = i + 1;
    return { racer: r, rank };
  });
}

/** The status the page shows: a computer racer only concedes when it has no move it can
 *  use (or its server stops), so its `resigned` reads `stuck` (docs/web.md). */
export function shownStatus(r) {
  return r.status === "resigned" && isBot(r) ? "stuck" : r.status;
}

/** The rows of the racers panel and the rivals strip: rank, cards, status, who is who. */
export function racerRows(room, me) {
  return ranked(room.racers).map(({ racer, rank }) => ({
    id: racer.id, name: racer.name, rank, cards: racer.foundation_cards, moves: racer.moves,
    status: shownStatus(racer), final: isFinal(racer), me: racer.id === me, bot: isBot(racer),
  }));
}

/** The waiting room's buttons: the host starts (a ready toggle beside Start would only
 *  say what pressing Start says); another racer says ready; a spectator has neither. */
export function waitActions(room, { me = null, host = false } = {}) {
  const seated = room.racers.find((r) => r.id === me);
  return {
    ready: Boolean(seated) && !host,
    readyPressed: Boolean(seated?.ready),
    start: host,
    startEnabled: host && room.state === "waiting",
  };
}

/** The toolbar of a racer's game (Game of docs/protocol.md) in a room of `rules`. */
export function controls(game, rules) {
  const legal = new Set(game.legal_moves);
  return {
    redealsLeft: game.redeals_left,
    redeal: legal.has("r"),
    undo: Boolean(game.can_undo) && !game.final,
    autoplay: !game.final && game.legal_moves.length > 0,
    merciShown: Boolean(rules.merci),
    merci: Boolean(game.merci_available),
    resign: !game.final,
  };
}

/** The racer's own standing line: "won", "stuck" (undo may still help), "over", or null. */
export function gameNote(game) {
  if (game.status === "won") return "won";
  if (game.status === "stuck" && !game.final) return "stuck";
  return game.final ? "over" : null;
}

/** Whole seconds left of a countdown that had `startsInMs` when `elapsedMs` ago; 0: go. */
export function countdownLeft(startsInMs, elapsedMs) {
  return Math.max(0, Math.ceil((startsInMs - elapsedMs) / 1000));
}
