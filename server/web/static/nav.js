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
