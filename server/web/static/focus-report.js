// Fair play (docs/fair-play.md, "Focus"): while the racer races, the page hidden or the
// window blurred is reported on the room socket once per loss (blurred then hidden is
// one) until the page is back, and at most once a second. `racing()` says whether the
// racer races now; `send(msg)` sends on the room socket. Returns the function that
// removes its listeners.
export function reportFocusLoss({ racing, send }) {
  let lost = false; let sentAt = -Infinity;
  function onLost() {
    if (lost || !racing()) return;
    lost = true;
    if (performance.now() - sentAt < 1000) return;
    sentAt = performance.now();
    send({ t: "focus", d: { lost: true } });
  }
  function onBack() { if (document.visibilityState === "visible") lost = false; }
  function onVisibility() { if (document.visibilityState === "hidden") onLost(); else onBack(); }
  window.addEventListener("blur", onLost);
  window.addEventListener("focus", onBack);
  document.addEventListener("visibilitychange", onVisibility);
  return () => {
    window.removeEventListener("blur", onLost);
    window.removeEventListener("focus", onBack);
    document.removeEventListener("visibilitychange", onVisibility);
  };
}
