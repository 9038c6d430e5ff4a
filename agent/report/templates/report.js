// Two small comforts; the page reads fully without them.
// 1. Tooltips at once: an SVG <title> shows after a delay and unstyled, so it moves into #tip.
//    textContent only: log text is never parsed as markup.
(function () {
  var tip = document.getElementById("tip");
  document.querySelectorAll("svg.chart title").forEach(function (t) {
    var owner = t.parentNode;
    owner.setAttribute("data-tip", t.textContent);
    owner.setAttribute("tabindex", "0");
    t.remove();
  });
  function show(e) {
    var el = e.target.closest("[data-tip]");
    if (!el) { tip.hidden = true; return; }
    tip.textContent = el.getAttribute("data-tip");
    tip.hidden = false;
    var x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var y = e.clientY + 16;
    if (y + tip.offsetHeight > window.innerHeight) { y = e.clientY - tip.offsetHeight - 10; }
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  }
  document.addEventListener("mousemove", show);
  document.addEventListener("focusin", function (e) {
    var r = e.target.getBoundingClientRect ? e.target.getBoundingClientRect() : null;
    if (r) { show({ target: e.target, clientX: r.left, clientY: r.bottom }); }
  });
  document.addEventListener("mouseleave", function () { tip.hidden = true; });
  // 2. Print every context block: closed <details> would print as one line each.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
