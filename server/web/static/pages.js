// The leaderboards page and the rules page (how-to-play.md, then docs/rules.md, players' sections first).
import { call } from "./api.js";
import { el } from "./board.js";
import { fmtClock } from "./room-state.js";
import { VARIANTS } from "./variants.js";

const BOARDS = [["daily", "Today's daily deal"], ["all-time", "All time"], ["rating", "Player ratings"]];
const COLUMNS = { rating: ["#", "Player", "Rating", "Races", "Wins"], results: ["#", "Name", "Deal", "Cards", "Time", "Moves", "Status"] };
const td = (...kids) => el("td", {}, ...kids.map((k) => (typeof k === "number" ? String(k) : k)));

export function mountLeaderboards(main) {
  const select = (id, list) => el("select", { id, onchange: () => load() }, ...list.map(([v, text]) => el("option", { value: v, text })));
  const variant = select("lb-variant", VARIANTS), kind = select("lb-kind", BOARDS);
  const table = el("table", { class: "standings", id: "leaderboard" });
  const note = el("p", { class: "muted" });
  const pick = (id, label, select) => el("div", { class: "field" }, el("label", { for: id, text: label }), select);
  main.replaceChildren(el("h1", { text: "Leaderboards" }),
    el("div", { class: "grid2 lb-pick" }, pick("lb-variant", "Variant", variant), pick("lb-kind", "Board", kind)), note, table);
  let asked = 0;
  async function load() {
    const n = ++asked; const board = kind.value; let rows = []; let text;
    try {
      const lb = await call("GET", `/leaderboards/${variant.value}/${board}?limit=50`);
      if (board === "rating") {
        text = "Players' ratings: a cautious skill estimate (μ − 3σ) from rated races. Provisional: fewer than 10 rated races.";
        rows = lb.entries.map((e) => el("tr", {}, td(e.rank), td(e.player.name),
          td(e.rating.rating.toFixed(1).replace("-", "−"), e.rating.provisional ? el("span", { class: "tag", title: "fewer than 10 rated races", text: "provisional" }) : null),
          td(e.races), td(e.wins)));
      } else {
        text = lb.board === "daily" ? `Daily deal of ${lb.date} (UTC).` : "Best result per name and deal.";
        rows = lb.rows.map((r) => el("tr", {}, td(r.rank), td(r.name), td(r.deal_number), td(r.foundation_cards),
          td(fmtClock(r.reach_time_ms)), td(r.moves), td(r.status.replace("_", " "))));
      }
    } catch (e) { text = `${e}`; }
    if (n !== asked) return; // another board was picked meanwhile
    note.textContent = text;
    const cols = COLUMNS[board === "rating" ? "rating" : "results"];
    // no result: say so where the rows would be
    if (!rows.length) rows.push(el("tr", { class: "no-rows" }, el("td", { colspan: String(cols.length), class: "muted", text: "No result yet." })));
    table.replaceChildren(el("thead", {}, el("tr", {}, ...cols.map((h) => el("th", { scope: "col", text: h })))), el("tbody", {}, ...rows));
  }
  load();
}

/** Sections of the rule book (`## ` headings) written for the code rather than for players. */
export const DEVELOPER_SECTIONS = [/^Vocabulary\b/];

/**
 * The rule book (docs/rules.md, shipped as it is) rearranged for players: its title, then
 * the player-facing sections in their order (the page puts its short how-to-play between); the opening note on the sources and the
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
    const fetched = (path) => fetch(path).then((r) => { if (!r.ok) throw new Error(r.statusText); return r.text(); });
    const [{ marked }, text, short] = await Promise.all([import("./vendor/marked.esm.js"),
      fetched("/static/rules.md"), fetched("/static/how-to-play.md")]);
    const { players, developers } = arrangeRules(text);
    const article = el("article", { class: "rules" });
    // our own shipped files (docs/rules.md, a summary for players); CSP blocks scripts anyway
    const [title, ...book] = players.split("\n\n");
    article.innerHTML = marked.parse([title, short, ...book].join("\n\n"));
    if (developers) {
      const more = el("details", { class: "for-developers", id: "rules-developers" },
        el("summary", { text: "For developers: the rule book's vocabulary and sources" }));
      more.insertAdjacentHTML("beforeend", marked.parse(developers));
      article.append(more);
    }
    main.replaceChildren(article);
  } catch (e) { main.replaceChildren(el("p", { class: "msg error", text: `The rules could not be loaded: ${e.message}` })); }
}
