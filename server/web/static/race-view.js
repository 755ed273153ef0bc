// The race screen: the clock and the racer's figures (or a spectator's choice of board),
// the rivals strip, the board, the toolbar with its move line, the racers panel, and
// the skip link to the board. Draws what the controller (race.js) gives it.
import { Board, el } from "./board.js";
import { racersPanel, rivalsStrip } from "./rivals-view.js";
import { T } from "./strings.js";

/** The race screen in `stage`. A racer (`me`) gets the info line and the toolbar, a
 *  spectator the board picker (`onWatch(racerId | null)`) and its note. */
export function raceScreen(stage, room, { me, onMove, onPick, onPutDown, onHint, onResign, onWatch, say }) {
  const total = 52 * room.rules.decks;
  const clock = el("span", { class: "clock", "aria-label": T.clockName });
  const boardBox = el("div", { class: "board-box", id: "board", tabindex: "-1" });
  const panel = el("ol", { class: "opponents", "aria-label": T.racersName });
  const strip = el("ol", { class: "strip", "aria-label": T.stripName });
  const note = me ? null : el("p", { class: "muted" });
  const head = me ? el("span", { class: "info", id: "info" })
    : el("select", { id: "watch-racer", "aria-label": T.watchPick, onchange: () => onWatch(head.value || null) },
      el("option", { value: "", text: T.leaderBoard }), ...room.racers.map((r) => el("option", { value: r.id, text: r.name })));
  const board = new Board(boardBox, me ? { onMove, onPick, onPutDown } : { readOnly: true, label: T.watchBoardName });
  const toolbar = me ? buildToolbar() : null;
  stage.append(el("div", { class: "race" },
    el("div", { class: "play" }, el("div", { class: "status-row" }, clock, head), strip, note, boardBox, toolbar?.bar),
    el("aside", { class: "side" }, el("h2", { text: T.racersTitle }), panel)));
  const skip = el("a", { class: "skip", href: "#board", text: T.skipToBoard, onclick: (e) => { e.preventDefault(); board.focus(); } });
  document.body.prepend(skip);

  function buildToolbar() {
    const input = el("input", { id: "move-input", "aria-label": T.moveLine, placeholder: T.movePlaceholder, autocomplete: "off", autocapitalize: "off", spellcheck: "false", enterkeyhint: "send" });
    const form = el("form", { class: "moveform", onsubmit: (e) => { e.preventDefault(); const t = input.value; input.value = ""; onMove(t); } },
      input, el("button", { type: "submit", text: T.play }));
    const btn = (id, text, onclick) => el("button", { type: "button", id, text, onclick });
    const b = {
      redeal: btn("redeal", T.redeal(0), () => onMove("r")),
      undo: btn("undo", T.undo, () => onMove("u")),
      autoplay: btn("autoplay", T.autoplay, () => onMove("a")),
      merci: btn("merci", T.merci, () => { board.toggleMerci(); say(board.merciMode ? T.merciOn : ""); }),
      hint: room.hints ? btn("hint", T.hint, onHint) : null,
      resign: btn("resign", T.resign, () => confirmResign()),
    };
    const bar = el("div", { class: "toolbar" }, b.redeal, b.undo, b.autoplay, b.merci, b.hint, b.resign, form);
    return {
      bar,
      update(c) {
        b.redeal.textContent = T.redeal(c.redealsLeft);
        b.redeal.disabled = !c.redeal; b.undo.disabled = !c.undo; b.autoplay.disabled = !c.autoplay;
        b.merci.hidden = !c.merciShown; b.merci.disabled = !c.merci; b.resign.disabled = !c.resign;
      },
    };
  }
  function confirmResign() {
    const asked = stage.querySelector(".confirm.resign");
    if (asked) { asked.querySelector("button:last-child").focus(); return; } // one question at a time
    const box = el("div", { class: "confirm resign", role: "dialog", "aria-label": T.resignAsk },
      el("span", { text: T.resignQuestion }));
    const no = el("button", { type: "button", text: T.keepRacing, onclick: () => { box.remove(); toolbar.bar.querySelector("#resign").focus(); } });
    box.append(el("button", { type: "button", id: "resign-yes", class: "danger", text: T.resign, onclick: () => { onResign(); box.remove(); board.focus(); } }), no);
    toolbar.bar.after(box); no.focus();
  }

  const drawPanel = racersPanel(panel, total);
  const drawStrip = rivalsStrip(strip);
  return {
    board,
    clock(text) { if (clock.textContent !== text) clock.textContent = text; },
    info(game) { if (head.id === "info") head.textContent = T.info(game, total); },
    note(text) { if (note) note.textContent = text; },
    controls(c) { toolbar?.update(c); },
    rivals(rows) { drawStrip(rows); drawPanel(rows); }, // the panel reads the layout last (FLIP)
    /** Whether the focus was on this screen and fell (to <body>, or a button just disabled). */
    focusLost() {
      const a = document.activeElement;
      return !a || a === document.body || (stage.contains(a) && a.disabled);
    },
    destroy() { board.destroy(); skip.remove(); },
  };
}
