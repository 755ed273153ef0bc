// Every word the room page (/r/CODE, /r/CODE/watch) shows or says, in English: the
// waiting room, the board's names, the toolbar, the racers, the live announcements.
// One place, so that a catalogue per language can take its place (issue 34, item 3):
// each entry is a text or a function of the values it names; no DOM, no state.
import { cardGlyph, rankOf, suitOf } from "./cards.js";

const RANK_NAMES = ["", "ace", "two", "three", "four", "five", "six", "seven", "eight",
  "nine", "ten", "jack", "queen", "king"];
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const ORDINAL = ["th", "st", "nd", "rd"];

/** "1 move", "2 moves" */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd" */
export const ordinal = (n) => `${n}${ORDINAL[n % 10 > 3 || Math.floor(n / 10) % 10 === 1 ? 0 : n % 10]}`;

/** The words of a racer's status, as the page shows it (room-state.js `shownStatus`). */
const STATUS = { waiting: "waiting", playing: "playing", won: "won", stuck: "stuck",
  resigned: "resigned", timed_out: "timed out", left: "left" };

export const T = {
  // cards
  suitName: (suit) => SUIT_NAMES[suit],
  cardName: (card) => `${RANK_NAMES[rankOf(card)]} of ${SUIT_NAMES[suitOf(card)]}`,
  /** a card's accessible name starts with what it shows: "7♥, seven of hearts" */
  card: (card) => `${cardGlyph(card)}, ${T.cardName(card)}`,
  status: (status) => STATUS[status] ?? status.replace("_", " "),

  // the connection (api.js: the banner, a refusal without the server's words)
  connectionLost: "Connection lost — reconnecting…",
  roomBusy: "The room is full of watchers or busy — trying again…",
  roomGone: "the room is gone", offline: "the server does not answer",

  // the page's frame
  loading: (code) => `Room ${code}…`,
  roomTitle: "Room ", watchTitle: "Watching ",
  meta: (r) => `${r.rules.name} · deal ${r.deal_number ?? "hidden until the start"} · ${r.racers.length}/${r.capacity} racers · ${r.visibility}${r.hints ? " · hints" : ""}`,
  roomError: (code) => `Room ${code}`, backHome: "Back home",
  startedWithoutYou: "The race has started without you: you are watching.",
  disconnected: (text) => `Disconnected: ${text}`,
  go: "Go!",
  skipToBoard: "Skip to the board",
  liveName: "announcements",

  // the join form
  joinTitle: (code) => `Join room ${code}`,
  joinFacts: (r, limit) => `${r.rules.name} · ${r.racers.length}/${r.capacity} racers · ${limit} time limit`,
  yourName: "Your name", joinButton: "Join the race", justWatch: "or just watch",

  // the waiting room
  waitingTitle: "Waiting for racers", shareLabel: "Share this link: ", shareName: "Shareable link",
  you: (name) => `${name} (you)`, bot: "bot",
  ready: "✓ ready", notReady: "not ready", noRacer: "No racer yet.",
  imReady: "I'm ready", unready: "Not ready", start: "Start the race",
  quickNote: "Quick race: it starts by itself (alone: with bots).",
  hostNote: "You are the host: start the race when everyone is in.",
  racerNote: "The countdown starts when the host starts or when every racer is ready.",

  // the race
  clockName: "race clock and time limit",
  boardName: "Your board: foundations and fans. Arrow keys move, Enter picks and plays.",
  watchBoardName: "The board watched: foundations and fans. Arrow keys move.",
  replayBoardName: "The replay's board",
  foundationsRow: "foundations", cellsRow: "free cells", fanRow: (n) => `fan ${n}`,
  watchPick: "Board to watch", leaderBoard: "The leader's board",
  delayed: (s) => `This board is shown ${s} s behind the race (fair play).`,
  info: (g, total) => `${g.position.foundation_cards}/${total} on foundations · ${plural(g.moves, "move")} · ${plural(g.redeals_left, "redeal")} left${g.merci_available ? " · merci available" : ""}`,
  // a place's accessible name starts with what it shows
  fanCard: (card, n, top) => `${T.card(card)}, fan ${n}, ${top ? "top" : "covered"}`,
  fanEmpty: (n) => `fan ${n}, empty`,
  foundationCard: (card) => `${T.card(card)}, on the ${SUIT_NAMES[suitOf(card)]} foundation`,
  foundationEmpty: (suit) => `empty ${SUIT_NAMES[suit]} foundation`,
  cellCard: (card, i) => `${T.card(card)}, free cell ${i}`,
  cellEmpty: (i) => `free cell ${i}, empty`,
  target: ", a target",
  // the toolbar
  redeal: (left) => `Redeal (${left})`, undo: "Undo", autoplay: "Autoplay", merci: "Merci",
  hint: "Hint", resign: "Resign", play: "Play",
  moveLine: "Type a move: 3f, 3 7, r, u, a", movePlaceholder: "3f · 3 7 · r · u · a",
  merciOn: "Merci: pick a covered card, then where it goes.",
  hintIs: (move) => `Hint: ${move}`, noHint: "No hint: no move helps.",
  resignAsk: "Resign?", resignQuestion: "Resign from the race? ", keepRacing: "Keep racing",
  notStarted: "The race has not started.",
  oneAtATime: "One move at a time: waiting for the server…",
  nothingToAutoplay: "Nothing can go to a foundation now.",
  staleVersion: "Your game had moved on (another window?): the board is up to date now.",
  youWon: "You won! Waiting for the others…",
  stuckNote: "No move left: undo, or resign.",
  overNote: (status) => `Your race is over (${T.status(status)}). Waiting for the others…`,

  // the racers
  racersTitle: "Racers", racersName: "racers", stripName: "Standings",
  barName: (n, total) => `${n} of ${total} cards`,
  figures: (r, status) => `${r.foundation_cards} · ${plural(r.moves, "move")} · ${T.status(status)}`,
  cardsWord: (n) => (n === 1 ? " card" : " cards"),

  // the live region (polite): moves, refusals, the start, rivals, the countdown
  countdownSay: (s) => `${s}`,
  startWatchSay: "The race has started.",
  startSay: "The race has started. The board is one Tab stop: the arrow keys move between the fans and to the foundations, Enter picks a card and plays it.",
  pickedSay: (card, targets) => (targets.length
    ? `${cardGlyph(card)} picked: it goes to ${targets.join(", ")}.`
    : `${cardGlyph(card)} picked: it goes nowhere now.`),
  putDownSay: (card) => `${cardGlyph(card)} put down.`,
  targetFan: (n) => `fan ${n}`, targetFoundation: "its foundation", targetCell: "a free cell",
  movedToFan: (card, from, to) => `${cardGlyph(card)} from fan ${from} to fan ${to}.`,
  movedHome: (card) => `${cardGlyph(card)} to its foundation.`,
  movedToCell: (card) => `${cardGlyph(card)} to a free cell.`,
  movedFromCell: (card, to) => `${cardGlyph(card)} from the free cell to ${to === "f" ? "its foundation" : `fan ${to}`}.`,
  merciSay: (card, to) => `Merci: ${cardGlyph(card)} to ${to === "f" ? "its foundation" : `fan ${to}`}.`,
  redealSay: (left) => `Redealt: ${plural(left, "redeal")} left.`,
  undoSay: "Move undone.",
  autoplaySay: (n) => `Autoplay: ${plural(n, "card")} to the foundations.`,
  cardsSay: (n, total) => `${n} of ${total} on the foundations.`,
  refusedSay: (reason) => `Refused: ${reason}`,
  rivalSay: (name, cards, rank, status) => (status === "playing"
    ? `${name}: ${plural(cards, "card")}, ${ordinal(rank)}.`
    : `${name} ${T.status(status)} with ${plural(cards, "card")}, ${ordinal(rank)}.`),

  // the end of the race (end.js)
  overTitle: "Race over", closedTitle: "The room was closed",
  standingsHead: { rank: "#", racer: "Racer", cards: "Cards", points: "Points", toPar: "Cards to par", time: "Time", moves: "Moves", status: "Status" },
  toParHelp: "Cards to par: par − your foundation cards (0: par reached)",
  atPar: "0 (par)",
  parUnknown: "Par: the solver has not found it yet.",
  parIs: (par) => `Par: ${par} cards (the most this deal allows with these redeals). Cards to par = par − foundation cards.`,
  finished: (rank, of, points) => `You finished ${ordinal(rank)} of ${of} with ${points} points.`,
  headToHead: "Head to head", compareA: "Compare", compareB: "against", against: " against ",
  chartName: (a, b) => `Foundation cards over the race clock: ${a.name} ${a.foundation_cards}, ${b.name} ${b.foundation_cards}`,
  chartTitle: (a, b) => `${a} against ${b}`, chartClock: "race clock",
  divergeAt: (d) => `diverge at move ${d.move_index}${d.a_move ? ` (${d.a_move} / ${d.b_move ?? "–"})` : ""}`,
  legendDivergence: " ┆ divergence",
  verdict: (cmp, who, by) => {
    const side = (x) => `${x.name}: ${plural(x.foundation_cards, "card")}, ${plural(x.moves, "move")}`;
    return `${side(cmp.a)} · ${side(cmp.b)} · ${who ? `${who} ahead (${by.replace("_", " ")})` : "a tie"} · lead changed ${plural(cmp.lead.changes, "time")}.`;
  },
  replayTitle: "Replay", replayOf: "Replay of", replayMoves: "Moves of the replay",
  rpFirst: "|◀ First", rpFirstName: "First move", rpPrev: "◀ Step", rpPrevName: "Step back",
  rpPlay: "play", rpPause: "pause", rpNext: "Step ▶", rpNextName: "Step forward",
  rpLast: "Last ▶|", rpLastName: "Last move", rpSpeed: "speed",
  // a button's name is its visible text (WCAG 2.5.3)
  rpDownload: "Download replay", rpGhost: "Race this ghost",
  replayAt: (i, n, move, at) => `Move ${i} of ${n}: ${move} at ${at}`,
  replayStart: (player, n) => `${player}: ${plural(n, "move")} — press play`,

  // rematch and series (rematch.js)
  rematch: "Rematch", joinRematch: "Join the rematch",
  nextRoom: (code) => `Next room ${code}`, watchNext: (code) => `Watch the next room, ${code}`,
  goOn: (race, races) => `Go on to race ${race} of ${races}`, startsIn: (s) => `It starts in ${s} s.`,
  seriesHead: ["#", "Racer", "Cards", "Time"], seriesRace: (k) => `R${k}`,
  seriesCaption: (v) => `Series: ${v.played} of ${v.races} races${v.final ? " (final)" : ""}`,
  seriesLeft: (name) => `${name} (left)`, seconds: (s) => `${s} s`,
};

// Challenges and duels (challenge.js: /challenges and /c/ID), docs/protocol.md "Challenges and duels".
export const TC = {
  title: "Challenges", navName: "Challenges",
  intro: "Race anyone, whenever: everyone plays the same deal, alone and once; the results are compared when the rival has played.",
  playerHead: "Your player", playerName: "Your player name", createPlayer: "Create my player",
  playerHint: "Challenges need a player: its key stays in this browser.",
  youAre: (name) => `You play as ${name}.`,
  variant: "Variant",
  friendHead: "Challenge a friend", friendText: "A deal for you and anyone you send its link to; you play it first.",
  friendGo: "Create the challenge",
  duelHead: "Duel", duelText: "A rated duel with a player of your level: you get their deal, or a new one that waits for the next player.",
  duelGo: "Ask for a duel",
  mineHead: "My challenges", mineNone: "None yet.", newsHead: "News",
  loading: "Loading…",
  head: (code) => `Challenge ${code}`,
  what: (c, variant) => `${variant}, ${c.open_to === "rated" ? "a rated duel" : "open to anyone with its link"}, made by ${c.creator.name}.`,
  played: (n) => (n === 1 ? "1 player has played it." : `${n} players have played it.`),
  expires: (when) => `Open until ${when}.`,
  state: { open: "waiting", settled: "settled", void: "void, unrated", closed: "closed" },
  shareLabel: "Link to share", copy: "Copy the link", copied: "Copied.", copyFailed: "Select the link and copy it.",
  play: "Play it", playYours: "Play your attempt", notYours: "Your attempt was started in another browser.",
  fair: "Fair play: you see the others' results once you have finished your own attempt.",
  waiting: "Your result is in. Waiting for rivals to play…",
  resultsHead: "Results", cols: ["#", "Player", "Cards", "Time", "Status"],
  youWon: (n) => `You won by ${n === 1 ? "1 card" : `${n} cards`}.`,
  youLost: (n) => `You lost by ${n === 1 ? "1 card" : `${n} cards`}.`,
  wonOnTime: "You won: the same cards, reached sooner.", lostOnTime: "You lost: the same cards, reached later.",
  draw: "A draw.",
  compareHead: "Comparison", duelVoid: "Nobody played it in time: void, unrated.",
  hidden: "Fair play: others' games stay hidden until you have finished yours.",
  rowOpen: (n) => `waiting · ${n} played`,
  backTo: "Back to the challenge: the results",
};
