// Computer racers run by this page (like `lucie bot`): each joins with a name, says it
// is ready and plays over REST — foundation moves first, then a random move onto a fan,
// then a redeal; it resigns when nothing is left. They stop when the page is closed.
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
    run(code, racer.id, token, paceMs);
  }
}

async function run(code, id, token, paceMs) {
  let n = 0;
  for (;;) { // boards are dealt at the start: wait for it (asking earlier is a 403)
    await sleep(500);
    let room;
    try { room = await call("GET", `/rooms/${code}`, { token }); } catch (e) { if (e.status === 0 || e.status >= 500) continue; return; }
    if (room.state === "racing") break;
    if (room.state === "over" || room.state === "closed") return;
  }
  for (;;) {
    await sleep(paceMs * (0.7 + Math.random() * 0.6));
    let g;
    try { g = await call("GET", `/rooms/${code}/racers/${id}/game`, { token }); } catch (e) {
      if (e.code === "race/hidden_until_start" || e.status === 0 || e.status >= 500) continue;
      return;
    }
    if (g.final) return;
    const legal = g.legal_moves;
    if (!legal.length) { if (g.status === "stuck") { await call("POST", `/rooms/${code}/racers/${id}/resign`, { token }).catch(() => {}); return; } continue; }
    const home = legal.filter((m) => /^c?\d+f$/.test(m));
    const plays = legal.filter((m) => /^c?\d+-\d+$/.test(m));
    const move = home[0] ?? (plays.length && n % 5 !== 4 ? plays[Math.floor(Math.random() * plays.length)] : null)
      ?? (legal.includes("r") ? "r" : legal[0]);
    n++;
    try {
      await call("POST", `/rooms/${code}/racers/${id}/moves`, { body: { move, expected_version: g.version, client_move_id: `${id}-${n}` }, token });
    } catch (e) {
      if (e.code === "room/over" || e.code === "racer/finished") return;
    }
    if (n > 400) { await call("POST", `/rooms/${code}/racers/${id}/resign`, { token }).catch(() => {}); return; }
  }
}
