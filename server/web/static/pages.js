// The leaderboards page and the rules page (docs/rules.md, players' sections first).
import { call } from "./api.js";
import { el } from "./board.js";
import { VARIANTS } from "./variants.js";

function clock(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const LB_COLUMNS = ["#", "Name", "Deal", "Cards", "Time", "Moves", "Status"];

export function mountLeaderboards(main) {
  const variant = el("select", { id: "lb-variant" });
  for (const [id, n] of VARIANTS) variant.append(el("option", { value: id, text: n }));
  const kind = el("select", { id: "lb-kind" }, el("option", { value: "daily", text: "Today's daily deal" }), el("option", { value: "all-time", text: "All time" }));
  const table = el("table", { class: "standings", id: "leaderboard" });
  const note = el("p", { class: "muted" });
  const pick = (id, label, select) => el("div", { class: "field" }, el("label", { for: id, text: label }), select);
  main.replaceChildren(el("h1", { text: "Leaderboards" }),
    el("div", { class: "grid2 lb-pick" }, pick("lb-variant", "Variant", variant), pick("lb-kind", "Board", kind)), note, table);
  async function load() {
    try {
      const lb = await call("GET", `/leaderboards/${variant.value}/${kind.value}?limit=50`);
      note.textContent = lb.board === "daily" ? `Daily deal of ${lb.date} (UTC).` : "Best result per name and deal.";
      const rows = lb.rows.map((r) => el("tr", {}, el("td", { text: String(r.rank) }), el("td", { text: r.name }),
        el("td", { text: String(r.deal_number) }), el("td", { text: String(r.foundation_cards) }), el("td", { text: clock(r.reach_time_ms) }),
        el("td", { text: String(r.moves) }), el("td", { text: r.status.replace("_", " ") })));
      // no result: say so where the rows would be
      if (!rows.length) rows.push(el("tr", { class: "no-rows" }, el("td", { colspan: String(LB_COLUMNS.length), class: "muted", text: "No result yet." })));
      table.replaceChildren(el("thead", {}, el("tr", {}, ...LB_COLUMNS.map((h) => el("th", { scope: "col", text: h })))), el("tbody", {}, ...rows));
    } catch (e) { note.textContent = `${e.code}: ${e.message}`; }
  }
  variant.addEventListener("change", load); kind.addEventListener("change", load);
  load();
}

/** Sections of the rule book (`## ` headings) written for the code rather than for players. */
export const DEVELOPER_SECTIONS = [/^Vocabulary\b/];

/**
 * The rule book (docs/rules.md, shipped as it is) rearranged for players: its title, then
 * the player-facing sections in their order; the opening note on the sources and the
 * sections of `DEVELOPER_SECTIONS` go last, in a closed "For developers" block.
 * → `{ players, developers }`, two markdown texts.
 */
export function arrangeRules(markdown) {
  const sections = [{ head: "", lines: [] }];
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^(```|~~~)/.test(line)) fence = !fence;
    if (!fence && /^## /.test(line)) sections.push({ head: line.slice(3).trim(), lines: [] });
    sections.at(-1).lines.push(line);
  }
  const [opening, ...rest] = sections;
  const title = opening.lines.findIndex((l) => /^# /.test(l));
  const note = opening.lines.filter((_, i) => i !== title).join("\n").replace(/<!--[\s\S]*?-->/g, "").trim();
  const forDevelopers = (s) => DEVELOPER_SECTIONS.some((re) => re.test(s.head));
  const text = (list) => list.map((s) => s.lines.join("\n").trim()).join("\n\n");
  return {
    players: [title >= 0 ? opening.lines[title] : "", text(rest.filter((s) => !forDevelopers(s)))].join("\n\n").trim(),
    developers: [note, text(rest.filter(forDevelopers))].filter(Boolean).join("\n\n"),
  };
}

export async function mountRules(main) {
  main.replaceChildren(el("p", { class: "muted", text: "Loading the rules…" }));
  try {
    const [{ marked }, text] = await Promise.all([import("./vendor/marked.esm.js"),
      fetch("/static/rules.md").then((r) => { if (!r.ok) throw new Error(r.statusText); return r.text(); })]);
    const { players, developers } = arrangeRules(text);
    const article = el("article", { class: "rules" });
    // our own shipped file (docs/rules.md); CSP blocks scripts anyway
    article.innerHTML = marked.parse(players);
    if (developers) {
      const more = el("details", { class: "for-developers", id: "rules-developers" },
        el("summary", { text: "For developers: the rule book's vocabulary and sources" }));
      more.insertAdjacentHTML("beforeend", marked.parse(developers));
      article.append(more);
    }
    main.replaceChildren(article);
  } catch (e) { main.replaceChildren(el("p", { class: "msg error", text: `The rules could not be loaded: ${e.message}` })); }
}
