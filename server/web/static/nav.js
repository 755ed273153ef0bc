// Page navigation (history API) and the connection banner, shared by the pages.
export function navigate(path) {
  history.pushState(null, "", path);
  window.dispatchEvent(new Event("lucie:navigate"));
}
export function banner(text) {
  const b = document.getElementById("banner");
  if (!b) return;
  b.textContent = text || "";
  b.hidden = !text;
}
/** The page-side hooks the tests and `python -m bench web` read (no secrets in them). */
export const hooks = (window.__lucie ??= { events: [], timings: [], errors: [], state: null });
