// graphir's drawing viewer: pan (drag), zoom (wheel, buttons), search by name, attributes on click.
// Written for graphir; no third-party code. The page needs no network.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("graphir-data").textContent);
  const view = document.getElementById("view");
  const svg = view.querySelector("svg");
  const panel = document.getElementById("panel");
  const search = document.getElementById("search");
  const hits = document.getElementById("hits");
  const full = svg.viewBox.baseVal;
  const graph = { x: full.x, y: full.y, w: full.width, h: full.height };
  let box = { x: graph.x, y: graph.y, w: graph.w, h: graph.h };
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMin meet");

  function apply() {
    svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
  }
  function aspect() {
    return view.clientHeight / Math.max(1, view.clientWidth);
  }
  function fit() {
    const a = aspect();
    if (graph.h / graph.w > a) box = { x: graph.x + graph.w / 2 - graph.h / a / 2, y: graph.y, w: graph.h / a, h: graph.h };
    else box = { x: graph.x, y: graph.y + graph.h / 2 - graph.w * a / 2, w: graph.w, h: graph.w * a };
    apply();
  }
  // the opening scale, in screen pixels per graph unit (a point): a graph that fits is shown whole
  // and as large as READABLE_MAX allows; a larger one opens at READABLE_MIN (10-point text at least
  // 10 pixels high), its first node (an input) at the top
  const READABLE_MIN = 1.0, READABLE_MAX = 2.0;
  function start() {
    const fits = Math.min(view.clientWidth / graph.w, view.clientHeight / graph.h);
    const scale = Math.min(Math.max(fits, READABLE_MIN), READABLE_MAX);
    const w = view.clientWidth / scale, h = w * aspect();
    const first = svg.querySelector("g.node");
    const cx = first && graph.w > w ? center(first).x : graph.x + graph.w / 2;
    const y = graph.h < h ? graph.y + graph.h / 2 - h / 2 : graph.y;
    box = { x: cx - w / 2, y: y, w: w, h: h };
    apply();
  }
  function zoom(factor, cx, cy) {
    const px = cx === undefined ? box.x + box.w / 2 : cx;
    const py = cy === undefined ? box.y + box.h / 2 : cy;
    box = { x: px - (px - box.x) * factor, y: py - (py - box.y) * factor, w: box.w * factor, h: box.h * factor };
    apply();
  }
  function toGraph(event) {
    const r = view.getBoundingClientRect();
    const s = Math.max(box.w / r.width, box.h / r.height);
    return { x: box.x + (event.clientX - r.left) * s, y: box.y + (event.clientY - r.top) * s, s: s };
  }
  view.addEventListener("wheel", (event) => {
    event.preventDefault();
    const p = toGraph(event);
    zoom(Math.exp(event.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });
  let drag = null;
  view.addEventListener("pointerdown", (event) => {
    drag = { x: event.clientX, y: event.clientY, box: Object.assign({}, box), moved: false };
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const r = view.getBoundingClientRect();
    const s = Math.max(box.w / r.width, box.h / r.height);
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    box = { x: drag.box.x - dx * s, y: drag.box.y - dy * s, w: box.w, h: box.h };
    apply();
  });
  window.addEventListener("pointerup", () => { setTimeout(() => { drag = null; }, 0); });

  function center(element) {
    // getBBox is in the element's user space; graphviz translates the whole graph group
    const b = element.getBBox();
    const m = svg.getCTM().inverse().multiply(element.getCTM());
    return { x: m.a * (b.x + b.width / 2) + m.e, y: m.d * (b.y + b.height / 2) + m.f, width: b.width };
  }
  function centerOn(element) {
    const c = center(element);
    const w = Math.min(box.w, Math.max(view.clientWidth, 8 * c.width));
    box = { x: c.x - w / 2, y: c.y - w * aspect() / 2, w: w, h: w * aspect() };
    apply();
  }

  function row(table, key, value) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    const td = document.createElement("td");
    th.textContent = key;
    td.textContent = value;
    tr.append(th, td);
    table.append(tr);
  }
  function show(key) {
    const node = data.nodes[key];
    if (!node) return;
    svg.querySelectorAll("g.node.selected").forEach((g) => g.classList.remove("selected"));
    const g = document.getElementById(key);
    if (g) g.classList.add("selected");
    panel.replaceChildren();
    const title = document.createElement("h2");
    title.textContent = node.name;
    const type = document.createElement("div");
    type.className = "type";
    type.textContent = node.type;
    panel.append(title, type);
    if (node.note) {
      const note = document.createElement("div");
      note.className = "note";
      note.textContent = node.note;
      panel.append(note);
    }
    const table = document.createElement("table");
    table.id = "attributes";
    Object.entries(node.attributes).forEach(([k, v]) => row(table, k, v));
    node.inputs.forEach((t, i) => row(table, `input ${i}`, t));
    node.outputs.forEach((t, i) => row(table, `output ${i}`, t));
    node.badges.forEach((t, i) => row(table, `constant ${i}`, t));
    panel.append(table);
    panel.hidden = false;
  }
  svg.querySelectorAll("g.node").forEach((g) => {
    g.addEventListener("click", () => { if (!drag || !drag.moved) show(g.id); });
  });

  let found = [], current = -1;
  function find() {
    const q = search.value.trim().toLowerCase();
    svg.querySelectorAll("g.node.hit").forEach((g) => g.classList.remove("hit"));
    found = [];
    current = -1;
    if (q) {
      for (const [key, node] of Object.entries(data.nodes)) {
        if (node.name.toLowerCase().includes(q) || node.type.toLowerCase().includes(q)) {
          const g = document.getElementById(key);
          if (g) { g.classList.add("hit"); found.push(g); }
        }
      }
    }
    hits.textContent = q ? `${found.length} match${found.length === 1 ? "" : "es"}` : "";
    next();
  }
  function next() {
    if (!found.length) return;
    current = (current + 1) % found.length;
    centerOn(found[current]);
    show(found[current].id);
    if (found.length > 1) hits.textContent = `${current + 1} of ${found.length} matches`;
  }
  search.addEventListener("input", find);
  search.addEventListener("keydown", (event) => { if (event.key === "Enter") next(); });
  document.getElementById("zoom-in").addEventListener("click", () => zoom(1 / 1.4));
  document.getElementById("zoom-out").addEventListener("click", () => zoom(1.4));
  document.getElementById("fit").addEventListener("click", fit);
  window.addEventListener("resize", () => { box.h = box.w * aspect(); apply(); });
  start();
  document.body.dataset.ready = "1";
})();
