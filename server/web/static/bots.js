// Computer racers run by this page (like `lucie bot`): each joins with a name, says it
// is ready and plays over REST — foundation moves first, then a random move onto a fan,
// then a redeal; it resigns when nothing is left; in a series it races every race it is
// in (docs/protocol.md "Series"). They stop when the page is closed.
import { call } from "./api.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function startBots(code, count, paceMs = 1500) {
  for (let k = 1; k <= count; k++) {
    let joined = null;
    for (let n = 0; !joined && n < 5; n++) {
      try { joined = await call("POST", `/rooms/${code}/racers`, { body: { name: `Bot ${k}${n ? `-${n}` : ""}` } }); } catch (e) { if (e.code !== "racer/name_taken") return; }
    }
    if (!joined) return;
    const { racer, token } = joined;
    await call("POST", `/rooms/${code}/racers/${racer.id}/ready`, { body: { ready: true }, token }).catch(() => {});
    follow(code, racer.id, token, paceMs);
  }
}

async function follow(code, id, token, paceMs) {
  for (let next = code; next; next = await nextRace(next, id)) await run(next, id, token, paceMs);
}

/** A series' next race (its code) once `code` is over, if the bot is in it. */
async function nextRace(code, id) {
  for (let n = 0; n < 120;) {
    await sleep(500);
    const room = await call("GET", `/rooms/${code}`).catch(() => null);
    if (!room) { n++; continue; } // the server may come back
    const s = room.series;
    if (!s || s.race >= s.races || room.state === "closed") return null;
    if (room.state !== "over" || (n++, !room.rematch)) continue;
    const next = await call("GET", `/rooms/${room.rematch.room}`).catch(() => null);
    return next?.racers.some((r) => r.id === id) ? next.code : null;
  }
  return null;
}
