// The client's router: one HTML shell for every page, drawn here (docs/web.md).
import { el } from "./board.js";
import { mountChallenge, mountChallenges } from "./challenge.js";
import { mountHome } from "./home.js";
import { mountLeaderboards, mountRules } from "./pages.js";
import { mountRoom } from "./race.js";

const ROUTES = [
  [/^\/$/, mountHome],
  [/^\/r\/([A-Za-z0-9_-]{1,16})\/watch\/?$/, (m, p) => mountRoom(m, p[1], { watch: true })],
  [/^\/r\/([A-Za-z0-9_-]{1,16})\/?$/, (m, p) => mountRoom(m, p[1])],
  [/^\/leaderboards\/?$/, mountLeaderboards],
  [/^\/rules\/?$/, mountRules],
  [/^\/challenges\/?$/, mountChallenges],
  [/^\/c\/([A-Za-z0-9_-]{1,40})\/?$/, (m, p) => mountChallenge(m, p[1])],
];

let cleanup = null;
function route() {
  const main = document.getElementById("main");
  if (typeof cleanup === "function") cleanup();
  cleanup = null;
  const path = location.pathname;
  for (const [re, mount] of ROUTES) {
    const p = path.match(re);
    if (p) { cleanup = mount(main, p); return; }
  }
  // an address no page has (the server answered 404 with this shell)
  main.replaceChildren(el("h1", { text: "Page not found" }), el("p", { text: `There is no page at ${path}.` }),
    el("p", {}, el("a", { href: "/", "data-link": true, text: "Go to the home page" })));
}

document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[href]");
  if (!a || e.defaultPrevented || a.target || a.hasAttribute("download") || e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/static/") || url.pathname.startsWith("/api/")) return;
  if (url.pathname === location.pathname && url.hash) return; // a place on this page
  e.preventDefault();
  if (url.pathname !== location.pathname) history.pushState(null, "", url.pathname);
  route();
});
window.addEventListener("popstate", route);
window.addEventListener("lucie:navigate", route);
route();
