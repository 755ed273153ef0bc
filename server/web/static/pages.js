// The leaderboards page and the rules page.
import { call } from "./api.js";
import { el } from "./board.js";
import { VARIANTS } from "./variants.js";

function clock(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function mountLeaderboards(main) {
  const variant = el("select", { id: "lb-variant", "aria-label": "Variant" });
  for (const [id, n] of VARIANTS) variant.append(el("option", { value: id, text: n }));
  const kind = el("select", { id: "lb-kind", "aria-label": "Board" }, el("option", { value: "daily", text: "Today's daily deal" }), el("option", { value: "all-time", text: "All time" }));
  const table = el("table", { class: "standings", id: "leaderboard" });
  const note = el("p", { class: "muted" });
  main.replaceChildren(el("h1", { text: "Leaderboards" }), el("p", {}, variant, " ", kind), note, table);
  async function load() {
    try {
      const lb = await call("GET", `/leaderboards/${variant.value}/${kind.value}?limit=50`);
      note.textContent = lb.board === "daily" ? `Daily deal of ${lb.date} (UTC).` : "Best result per name and deal.";
      table.replaceChildren(el("thead", {}, el("tr", {}, ...["#", "Name", "Deal", "Cards", "Time", "Moves", "Status"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, ...lb.rows.map((r) => el("tr", {}, el("td", { text: String(r.rank) }), el("td", { text: r.name }),
          el("td", { text: String(r.deal_number) }), el("td", { text: String(r.foundation_cards) }), el("td", { text: clock(r.reach_time_ms) }),
          el("td", { text: String(r.moves) }), el("td", { text: r.status.replace("_", " ") })))));
      if (!lb.rows.length) table.append(el("caption", { text: "No result yet." }));
    } catch (e) { note.textContent = `${e.code}: ${e.message}`; }
  }
  variant.addEventListener("change", load); kind.addEventListener("change", load);
  load();
}

export async function mountRules(main) {
  main.replaceChildren(el("p", { class: "muted", text: "Loading the rules…" }));
  try {
    const [{ marked }, text] = await Promise.all([import("./vendor/marked.esm.js"),
      fetch("/static/rules.md").then((r) => { if (!r.ok) throw new Error(r.statusText); return r.text(); })]);
    const article = el("article", { class: "rules" });
    article.innerHTML = marked.parse(text); // our own shipped file (docs/rules.md); CSP blocks scripts anyway
    main.replaceChildren(article);
  } catch (e) { main.replaceChildren(el("p", { class: "msg error", text: `The rules could not be loaded: ${e.message}` })); }
}
