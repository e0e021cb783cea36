"use strict";
// Thrum Studio's page: plain DOM and SVG, no libraries. The server (thrum studio) answers the
// JSON API under /api and pushes onsets, link figures and file changes on the WebSocket /ws;
// every request carries the per-run token from the URL.
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const NS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const metrics = { loadToDrawnMs: null, renderedMs: null, lastDrawMs: null, onsetLatenciesMs: [], reloads: 0, playheadAtOnsets: [], playheadTrail: [],
    lastPaintedAt: 0, painted: [] };
  // The first draw of at least `n` events started after `t` and painted: when it was on screen.
  metrics.firstPaintedAfter = (t, n) => { const p = metrics.painted.find((p) => p[0] >= t && p[2] >= (n || 0)); return p ? p[1] : null; };
  window.thrumStudio = { metrics };

  const S = {
    file: null, data: null, events: [], base: [], changes: {}, deletions: new Set(), additions: [],
    undo: [], redo: [], selected: null, view: [0, 1], onsets: {}, playing: false, play: null, diagnostics: [],
    // The devices (from /api/status), those the current play went to, and each one's position.
    devices: [], playDevices: [], positions: {},
    // The play's timelines (the ports played together share one), and each device's skew against
    // the first device of its timeline, by event (the latest pass).
    timelines: [], timelineNote: null, skews: {},
  };

  // ---- API ----
  async function api(path, body) {
    const options = { headers: { "X-Thrum-Token": token } };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    const json = await response.json().catch(() => ({ error: "HTTP " + response.status }));
    if (!response.ok) { const e = new Error(json.error || "HTTP " + response.status); e.json = json; throw e; }
    return json;
  }

  function say(text) { $("state").textContent = text; }

  // ---- devices ----
  // Each device keeps its colour (dev-K, K its place in the list) in the picker, its onsets and its link line.
  function deviceClass(id) { return "dev-" + Math.max(0, S.devices.findIndex((d) => d.id === id)) % 4; }
  async function loadDevices() {
    const r = await api("/api/status");
    S.devices = r.devices || [];
    const box = $("devices");
    box.textContent = "";
    for (const d of S.devices) {
      const label = document.createElement("label");
      label.className = deviceClass(d.id);
      label.title = d.name;
      const input = document.createElement("input");
      input.type = "checkbox"; input.checked = !!d.default; input.dataset.device = d.id;
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + (d.virtual ? "virtual" : d.id.replace(/^\/dev\//, ""))));
      box.appendChild(label);
    }
    box.hidden = S.devices.length < 2;
  }
  function chosenDevices() { return [...document.querySelectorAll("#devices input:checked")].map((i) => i.dataset.device); }

  // ---- files ----
  async function loadFiles() {
    const r = await api("/api/files");
    const list = $("file-list");
    list.textContent = "";
    for (const name of r.files) {
      const li = document.createElement("li");
      li.textContent = name;
      li.dataset.file = name;
      li.onclick = () => openFile(name);
      list.appendChild(li);
    }
    const first = r.initial || r.files.find((f) => /heartbeat/.test(f)) || r.files[0];
    if (first) await openFile(first);
  }

  async function openFile(name, keepView) {
    const r = await api("/api/pattern?file=" + encodeURIComponent(name));
    const sameFile = S.file === name;
    S.file = name;
    accept(r, keepView && sameFile);
    for (const li of document.querySelectorAll("#file-list li")) li.classList.toggle("current", li.dataset.file === name);
    $("file-name").textContent = name;
    loadRender();
  }

  // The curves (drive, acceleration) come after the marks: they take a simulation.
  async function loadRender() {
    const file = S.file, data = S.data;
    try {
      const actuator = $("actuator").value;
      const render = await api("/api/render?file=" + encodeURIComponent(file) + (actuator ? "&actuator=" + encodeURIComponent(actuator) : ""));
      if (S.file !== file || S.data !== data) return;
      S.render = render;
      if (!S.viewTouched) S.view = defaultView();
      draw();
      if (metrics.renderedMs === null) metrics.renderedMs = performance.now();
      document.body.dataset.rendered = file;
      document.body.dataset.profile = render.profile;
    } catch (e) { say("no render: " + e.message); }
  }

  // Takes the server's view of the file as the new base (nothing pending).
  function accept(r, keepView) {
    S.data = r;
    const select = $("actuator");
    if (!select.options.length && r.actuators) {
      for (const a of r.actuators) {
        const o = document.createElement("option");
        o.value = a.id; o.textContent = a.name; o.selected = a.id === r.profile;
        select.appendChild(o);
      }
      select.disabled = r.virtual === false;
    }
    // The events come as columns (event k at index k of each).
    const c = r.events || {};
    S.base = (c.time || []).map((t, i) => ({ index: i, type: c.type[i], haptic: c.haptic[i], time: t, duration: c.duration[i],
      intensity: c.intensity[i], sharpness: c.sharpness[i] }));
    S.events = S.base.map((e) => Object.assign({}, e));
    S.changes = {}; S.deletions = new Set(); S.additions = [];
    S.curves = (r.curves || []).map((c) => JSON.parse(JSON.stringify(c))); S.pointChanges = {};
    S.undo = []; S.redo = [];
    S.diagnostics = r.diagnostics || [];
    if (!keepView) {
      // Another file: nothing of the last one's render, play or selection stays.
      S.render = null; S.viewTouched = false; S.onsets = {}; S.skews = {}; S.selected = null;
      $("onset-summary").textContent = "press play (space)";
    }
    if (!keepView || !S.view) S.view = defaultView();
    if (S.selected !== null && S.selected >= S.events.length) S.selected = null;
    draw();
    drawDiagnostics();
    inspector();
    updateButtons();
  }

  function defaultView() {
    let end = 0.1;
    for (const e of S.events) end = Math.max(end, e.time + (e.duration || 0.02));
    if (S.render) end = Math.max(end, S.render.end || 0);
    return [-0.02 * end, end * 1.04];
  }

  // ---- geometry ----
  const M = { left: 44, right: 12 };
  // Widths are read once per draw (reading clientWidth after each added element would lay the
  // page out again each time).
  const widths = {};
  function measure() { for (const id of ["timeline", "drive", "accel"]) widths[id] = $(id).clientWidth || 900; }
  function width(svg) { return widths[svg.id] || (widths[svg.id] = svg.clientWidth || 900); }
  function xOf(svg, t) { const [a, b] = S.view; return M.left + (t - a) / (b - a) * (width(svg) - M.left - M.right); }
  function tOf(svg, x) { const [a, b] = S.view; return a + (x - M.left) / (width(svg) - M.left - M.right) * (b - a); }
  function pxPerSecond(svg) { return (width(svg) - M.left - M.right) / (S.view[1] - S.view[0]); }
  const LANE = { iTop: 22, iBottom: 168, sTop: 186, sBottom: 250 };
  const yI = (v) => LANE.iBottom - v * (LANE.iBottom - LANE.iTop);
  const yS = (v) => LANE.sBottom - v * (LANE.sBottom - LANE.sTop);

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function axis(svg, height) {
    const g = el("g", { class: "axis" }, svg);
    const [a, b] = S.view;
    const span = b - a;
    const step = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60].find((s) => span / s <= 12) || 120;
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = xOf(svg, t);
      el("line", { x1: x, x2: x, y1: 0, y2: height }, g);
      const label = el("text", { x: x + 2, y: 10 }, g);
      label.textContent = step < 0.1 ? (t * 1000).toFixed(0) + " ms" : t.toFixed(step < 1 ? 1 : 0) + " s";
    }
  }

  function polyline(svg, series, yMap, cls, filled, height) {
    const r = S.render;
    if (!r || !series || !series.length) return;
    const pts = [];
    for (let i = 0; i < series.length; i++) {
      const t = r.start + i * r.step;
      if (t < S.view[0] - r.step || t > S.view[1] + r.step) continue;
      pts.push(xOf(svg, t).toFixed(1) + "," + yMap(series[i]).toFixed(1));
    }
    if (!pts.length) return;
    if (filled) { pts.unshift(pts[0].split(",")[0] + "," + height); pts.push(pts[pts.length - 1].split(",")[0] + "," + height); }
    el(filled ? "polygon" : "polyline", { points: pts.join(" "), class: cls }, svg);
  }

  // A filled band from each point's low to its high value, around `middle` (±`half` px for ±1).
  function waveform(svg, low, high, middle, half) {
    const r = S.render;
    const top = [], bottom = [];
    for (let i = 0; i < high.length; i++) {
      const t = r.start + i * r.step;
      if (t < S.view[0] - r.step || t > S.view[1] + r.step) continue;
      const x = xOf(svg, t).toFixed(1);
      top.push(x + "," + (middle - high[i] * half).toFixed(1));
      bottom.push(x + "," + (middle - low[i] * half).toFixed(1));
    }
    if (top.length) el("polygon", { class: "audio-wave", points: top.concat(bottom.reverse()).join(" ") }, svg);
  }

  // ---- drawing ----
  function draw() {
    const t0 = performance.now();
    measure();
    const svg = $("timeline");
    svg.textContent = "";
    axis(svg, 260);
    const r = S.render;
    if (r) {
      // Audio events' waveform (each stretch's lowest and highest sample, −1…1) along the top of the intensity lane.
      if (r.audio_high && r.audio_high.length) waveform(svg, r.audio_low, r.audio_high, LANE.iTop + 16, 14);
      polyline(svg, r.intensity, yI, "curve-intensity");
      polyline(svg, r.sharpness, yS, "curve-sharpness");
    }
    el("text", { x: 2, y: LANE.iTop + 8, class: "label" }, svg).textContent = "intensity";
    el("text", { x: 2, y: LANE.sTop + 8, class: "label" }, svg).textContent = "sharpness";
    el("line", { x1: M.left, x2: width(svg) - M.right, y1: LANE.iBottom, y2: LANE.iBottom, stroke: "#bbb" }, svg);
    el("line", { x1: M.left, x2: width(svg) - M.right, y1: LANE.sBottom, y2: LANE.sBottom, stroke: "#bbb" }, svg);
    const layer = el("g", { id: "event-layer" }, svg);
    const diag = new Set(S.diagnostics.filter((d) => d.event !== undefined && d.event !== null).map((d) => d.event));
    const parts = [];
    const [a, b] = S.view;
    let visible = 0;
    for (const e of S.events) if (e.time >= a && e.time <= b) visible++;
    const dense = visible > DENSE_MARKS;
    S.events.forEach((e, i) => { if (!S.deletions.has(i)) parts.push(dense ? denseMarkup(e, i) : eventMarkup(e, i, diag.has(i))); });
    layer.innerHTML = parts.join("");
    drawDense(dense ? diag : null);
    drawCurves(svg);
    el("g", { id: "onset-layer" }, svg);
    for (const k in S.onsets) drawOnset(S.onsets[k]);
    el("g", { id: "playhead-layer" }, svg);
    drawPlayheads();
    drawPlot($("drive"), r && r.drive, 1, "series-drive", "drive (0…1 of rated voltage)");
    drawPlot($("accel"), r && r.acceleration, r ? Math.max(r.peak_acceleration || 0, 1e-9) : 1, "series-accel",
      r ? "acceleration (" + r.acceleration_unit + ", " + r.acceleration_source + ")" : "acceleration");
    metrics.lastDrawMs = performance.now() - t0;
    // When this draw was on screen (two frames later: laid out and painted), for benchmarks.
    const drawn = t0, count = S.events.length;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const now = performance.now();
      metrics.lastPaintedAt = now;
      metrics.painted.push([drawn, now, count]);
      if (metrics.painted.length > 50) metrics.painted.shift();
    }));
    if (metrics.loadToDrawnMs === null && S.events.length) {
      requestAnimationFrame(() => requestAnimationFrame(() => {
        if (metrics.loadToDrawnMs === null) metrics.loadToDrawnMs = performance.now();
      }));
    }
  }

  // The marks are written as one SVG text and parsed once (a 10 000-event pattern is 40 000
  // elements: one by one through the DOM API it is several times slower).
  function tag(name, attrs, inner) {
    let out = "<" + name;
    for (const k in attrs) out += " " + k + '="' + String(attrs[k]).replace(/[&"<]/g, (c) => "&#" + c.charCodeAt(0) + ";") + '"';
    return out + (inner === undefined ? "/>" : ">" + inner + "</" + name + ">");
  }

  // A view with more marks than this draws them on a canvas over the timeline (one path per
  // kind: tens of thousands of SVG elements take seconds to parse, lay out and paint); each
  // event keeps an empty element with its data-event-index and values. Zoomed in below it, the
  // marks are SVG again, to drag.
  const DENSE_MARKS = 1500;
  function denseMarkup(e, i) {
    return tag("g", { class: "event dense" + (e.haptic ? "" : " audio"), "data-event-index": i, "data-time": e.time,
      "data-intensity": e.intensity, "data-sharpness": e.sharpness }, "");
  }
  function drawDense(diag) {
    const canvas = $("dense"), svg = $("timeline");
    canvas.hidden = !diag;
    if (!diag) return;
    const ratio = window.devicePixelRatio || 1, w = svg.clientWidth, h = svg.clientHeight;
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    const [a, b] = S.view;
    // Stems, then heads and sharpness dots by kind (plain, edited, flagged), each kind one path.
    const stems = new Path2D(), bars = new Path2D(), sharp = new Path2D();
    const heads = [new Path2D(), new Path2D(), new Path2D()];
    S.events.forEach((e, i) => {
      if (S.deletions.has(i) || e.time + (e.duration || 0) < a || e.time > b) return;
      const x = xOf(svg, e.time), y = yI(e.intensity);
      if (!e.haptic) { bars.rect(x, LANE.iTop, Math.max(1, xOf(svg, e.time + (e.duration || 0)) - x), 10); return; }
      if (e.type === "HapticContinuous") bars.rect(x, y, Math.max(1, xOf(svg, e.time + (e.duration || 0)) - x), LANE.iBottom - y);
      stems.moveTo(x, LANE.iBottom); stems.lineTo(x, y);
      heads[diag.has(i) ? 2 : S.changes[i] || i >= S.base.length ? 1 : 0].rect(x - 1.5, y - 1.5, 3, 3);
      sharp.rect(x - 1.5, yS(e.sharpness) - 1.5, 3, 3);
    });
    g.fillStyle = "rgba(31, 119, 180, 0.25)"; g.fill(bars);
    g.strokeStyle = "rgba(31, 119, 180, 0.5)"; g.lineWidth = 1; g.stroke(stems);
    ["#1f77b4", "#9c27b0", "#d32f2f"].forEach((c, k) => { g.fillStyle = c; g.fill(heads[k]); });
    g.fillStyle = "#ff7f0e"; g.fill(sharp);
  }

  function eventMarkup(e, i, hasDiagnostic) {
    const svg = $("timeline");
    const x = xOf(svg, e.time);
    if (!e.haptic) {
      return tag("g", { class: "event audio", "data-event-index": i, "data-time": e.time },
        tag("rect", { class: "bar", x: x, y: LANE.iTop, width: Math.max(2, xOf(svg, e.time + (e.duration || 0)) - x), height: 10 }));
    }
    const cls = ["event"];
    if (i === S.selected) cls.push("selected");
    if (S.changes[i] || i >= S.base.length) cls.push("edited");
    if (hasDiagnostic) cls.push("diag");
    let inner = "";
    if (e.type === "HapticContinuous") {
      const x2 = xOf(svg, e.time + (e.duration || 0));
      inner += tag("rect", { class: "bar", x: x, y: yI(e.intensity), width: Math.max(1, x2 - x), height: LANE.iBottom - yI(e.intensity) });
    }
    inner += tag("line", { class: "stem", x1: x, x2: x, y1: LANE.iBottom, y2: yI(e.intensity) });
    inner += tag("circle", { class: "head", cx: x, cy: yI(e.intensity), r: 6 });
    inner += tag("circle", { class: "sharp", cx: x, cy: yS(e.sharpness), r: 5, "data-role": "sharpness" });
    return tag("g", { class: cls.join(" "), "data-event-index": i, "data-time": e.time, "data-intensity": e.intensity,
      "data-sharpness": e.sharpness }, inner);
  }

  // Parameter curves (envelopes): intensity control in the intensity lane (0…1), sharpness
  // control in the sharpness lane (−1…1); each control point is dragged like an event.
  const CURVE_LANES = {
    HapticIntensityControl: (v) => yI(v), HapticSharpnessControl: (v) => yS((v + 1) / 2),
  };
  function drawCurves(svg) {
    const layer = el("g", { id: "curve-layer" }, svg);
    for (const c of S.curves || []) {
      const y = CURVE_LANES[c.parameter];
      if (!y) continue;
      const pts = c.points.map((p) => xOf(svg, c.time + p.time).toFixed(1) + "," + y(p.value).toFixed(1));
      el("polyline", { class: "curve-line", points: pts.join(" ") }, layer);
      c.points.forEach((p, j) => {
        const x = xOf(svg, c.time + p.time);
        el("rect", { class: "curve-point" + (S.pointChanges[c.index + ":" + j] ? " edited" : ""), x: x - 4, y: y(p.value) - 4, width: 8,
          height: 8, "data-curve-index": c.index, "data-point-index": j, "data-time": c.time + p.time, "data-value": p.value }, layer);
      });
    }
  }

  function editPoint(k, j, fields) {
    const c = S.curves.find((c) => c.index === k);
    const p = c.points[j];
    if (fields.time !== undefined) p.time = Math.max(0, Math.round(fields.time * 1e6) / 1e6);
    if (fields.value !== undefined) {
      const [lo, hi] = c.parameter === "HapticSharpnessControl" ? [-1, 1] : [0, 1];
      p.value = Math.round(Math.min(hi, Math.max(lo, fields.value)) * 1e6) / 1e6;
    }
    S.pointChanges[k + ":" + j] = { curve: k, point: j, time: p.time, value: p.value };
    draw(); updateButtons();
  }

  function drawPlot(svg, series, top, cls, label) {
    svg.textContent = "";
    const height = 90;
    axis(svg, height);
    const y = (v) => height - 4 - (v / top) * (height - 18);
    polyline(svg, series, y, cls, cls === "series-drive", height);
    el("text", { x: width(svg) - M.right - 4, y: 22, class: "label", "text-anchor": "end" }, svg).textContent = label;
  }

  // Each device of the play has its own lane: the intensity lane's height shared among them.
  function lane(device) {
    const n = Math.max(1, S.playDevices.length), k = Math.max(0, S.playDevices.indexOf(device));
    const h = (LANE.iBottom - 2) / n;
    return [2 + k * h, 2 + (k + 1) * h];
  }

  function drawOnset(o) {
    const svg = $("timeline");
    const layer = $("onset-layer");
    if (!layer) return;
    const device = o.device || "";
    const old = layer.querySelector('[data-event-index="' + o.index + '"][data-device="' + device + '"]');
    if (old) old.remove();
    const g = el("g", { class: "onset " + deviceClass(device) + (o.status === "on_time" ? "" : " late"), "data-event-index": o.index,
      "data-device": device, "data-onset": o.onset, "data-bound": o.bound, "data-status": o.status, "data-pass": o.pass || 0 }, layer);
    if (o.true_onset !== undefined && o.true_onset !== null) g.setAttribute("data-true-onset", o.true_onset);
    if (o.onset === null || o.onset === undefined) return;
    const [y1, y2] = lane(device);
    const x = xOf(svg, o.onset);
    const half = Math.max(1, (o.bound || 0) * pxPerSecond(svg));
    el("rect", { class: "band", x: x - half, y: y1, width: 2 * half, height: y2 - y1 }, g);
    el("line", { class: "reported", x1: x, x2: x, y1: y1, y2: y2 }, g);
    if (o.true_onset !== undefined && o.true_onset !== null) {
      const xt = xOf(svg, o.true_onset);
      el("line", { class: "true-onset", x1: xt, x2: xt, y1: y1, y2: y2 }, g);
    }
  }

  // ---- playhead ----
  // Each device's position in the pattern comes from the server (the engine's clock, every
  // 50 ms of the play); between two reports it is carried on at the play's rate for at most
  // 50 ms, so it never runs ahead of the device by more than that. A report behind what is shown
  // (by less than 100 ms: not a loop's next pass) holds it there until the device catches up.
  function playheadAt(p, now) { return p.position + Math.min(0.05, Math.max(0, (now - p.at) / 1000)) * p.rate; }
  function placePlayhead(device, position, rate) {
    const now = performance.now(), old = S.positions[device];
    const shown = old ? playheadAt(old, now) : -Infinity;
    S.positions[device] = position < shown && shown - position < 0.1 * rate ? { position: shown, rate: 0, at: now } : { position, rate, at: now };
  }
  function drawPlayheads() {
    const layer = $("playhead-layer");
    if (!layer) return;
    const svg = $("timeline");
    const now = performance.now();
    for (const device of S.playDevices) {
      const p = S.positions[device];
      let line = layer.querySelector('[data-device="' + device + '"]');
      if (!p) { if (line) line.remove(); continue; }
      const [y1, y2] = lane(device);
      const t = playheadAt(p, now), x = xOf(svg, t).toFixed(1);
      if (!line) line = el("line", { class: "playhead", "data-device": device }, layer);
      line.setAttribute("x1", x); line.setAttribute("x2", x); line.setAttribute("y1", y1); line.setAttribute("y2", y2);
      line.setAttribute("data-position", t.toFixed(4));
      // Where each playhead was drawn, for tests (the last 2 000 moves).
      const trail = metrics.playheadTrail, last = trail.length ? trail[trail.length - 1] : null;
      if (!last || last[0] !== device || last[1] !== Number(t.toFixed(4))) trail.push([device, Number(t.toFixed(4))]);
      if (trail.length > 2000) trail.splice(0, trail.length - 2000);
    }
  }
  let animating = false;
  function animate() {
    if (animating) return;
    animating = true;
    const frame = () => {
      if (!S.playing) { animating = false; drawPlayheads(); return; }
      drawPlayheads();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  function drawDiagnostics() {
    const list = $("diagnostic-list");
    list.textContent = "";
    for (const d of S.diagnostics) {
      const li = document.createElement("li");
      li.className = "diagnostic " + (d.severity || "warning");
      if (d.event !== undefined && d.event !== null) li.dataset.eventIndex = d.event;
      li.textContent = (d.line ? d.line + ":" + d.column + " " : "") + d.message;
      li.onclick = () => { if (d.event !== undefined && d.event !== null) select(d.event); };
      list.appendChild(li);
    }
    if (!S.diagnostics.length) list.innerHTML = "<li style='color:#2e7d32'>none</li>";
  }

  // ---- selection and inspector ----
  function select(i) {
    S.selected = i;
    for (const g of document.querySelectorAll("#event-layer .event")) g.classList.toggle("selected", Number(g.dataset.eventIndex) === i);
    inspector();
    updateButtons();
  }

  function inspector() {
    const body = $("inspector-body");
    const i = S.selected;
    if (i === null || !S.events[i] || S.deletions.has(i)) { body.textContent = "select an event"; return; }
    const e = S.events[i];
    body.innerHTML = "";
    const head = document.createElement("div");
    head.textContent = "#" + i + " " + e.type;
    body.appendChild(head);
    for (const [key, label, step] of [["time", "time (s)", 0.001], ["intensity", "intensity", 0.01], ["sharpness", "sharpness", 0.01], ["duration", "duration (s)", 0.001]]) {
      if (key === "duration" && e.type !== "HapticContinuous") continue;
      const l = document.createElement("label");
      l.textContent = label + " ";
      const input = document.createElement("input");
      input.type = "number"; input.step = step; input.value = e[key]; input.dataset.field = key;
      input.onchange = () => { const v = Number(input.value); if (isFinite(v)) edit(i, { [key]: v }); };
      l.appendChild(input);
      body.appendChild(l);
    }
  }

  // ---- editing (every edit is undoable) ----
  function snapshot() {
    return JSON.stringify({ events: S.events, changes: S.changes, deletions: [...S.deletions], additions: S.additions, selected: S.selected,
      curves: S.curves, pointChanges: S.pointChanges });
  }
  function restore(s) {
    const o = JSON.parse(s);
    S.events = o.events; S.changes = o.changes; S.deletions = new Set(o.deletions); S.additions = o.additions; S.selected = o.selected;
    S.curves = o.curves; S.pointChanges = o.pointChanges;
    draw(); inspector(); updateButtons();
  }
  function remember() { S.undo.push(snapshot()); S.redo = []; }

  function clampEdit(fields) {
    const out = {};
    for (const k in fields) {
      let v = fields[k];
      if (k === "intensity" || k === "sharpness") v = Math.min(1, Math.max(0, v));
      if (k === "time" || k === "duration") v = Math.max(0, v);
      out[k] = Math.round(v * 1e6) / 1e6;
    }
    return out;
  }

  function edit(i, fields, alreadyRemembered) {
    if (!alreadyRemembered) remember();
    fields = clampEdit(fields);
    Object.assign(S.events[i], fields);
    if (i < S.base.length) S.changes[i] = Object.assign(S.changes[i] || {}, fields);
    else S.additions[i - S.base.length] = Object.assign({}, S.events[i]);
    draw(); inspector(); updateButtons();
  }

  function addEvent(template) {
    remember();
    const e = Object.assign({ type: "HapticTransient", haptic: true, intensity: 0.8, sharpness: 0.5, duration: 0 }, template);
    e.index = S.events.length;
    S.events.push(e);
    S.additions.push(Object.assign({}, e));
    S.selected = e.index;
    draw(); inspector(); updateButtons();
  }

  function deleteSelected() {
    const i = S.selected;
    if (i === null) return;
    remember();
    if (i < S.base.length) S.deletions.add(i);
    else { S.additions.splice(i - S.base.length, 1); S.events.splice(i, 1); }
    S.selected = null;
    draw(); inspector(); updateButtons();
  }

  function dirty() {
    return Object.keys(S.changes).length > 0 || S.deletions.size > 0 || S.additions.length > 0 || Object.keys(S.pointChanges || {}).length > 0;
  }

  function updateButtons() {
    $("save").disabled = !dirty();
    $("undo").disabled = !S.undo.length;
    $("redo").disabled = !S.redo.length;
    $("duplicate").disabled = S.selected === null;
    $("delete").disabled = S.selected === null;
  }

  async function save() {
    if (!S.file || !dirty()) return true;
    const changes = Object.keys(S.changes).map((k) => Object.assign({ event: Number(k) }, S.changes[k]));
    try {
      const r = await api("/api/save", { file: S.file, changes, deletions: [...S.deletions], additions: S.additions,
        points: Object.values(S.pointChanges || {}), base: S.data && S.data.base });
      accept(r, true);
      loadRender();
      say("saved " + S.file);
      return true;
    } catch (e) {
      if (e.json && e.json.diagnostics) { S.diagnostics = e.json.diagnostics; drawDiagnostics(); draw(); }
      say("not saved: " + e.message);
      return false;
    }
  }

  // ---- playing ----
  async function play() {
    if (!S.file) return;
    if (dirty() && !(await save())) return;
    S.onsets = {};
    S.skews = {};
    S.positions = {};
    for (const id of ["onset-layer", "playhead-layer"]) { const layer = $(id); if (layer) layer.textContent = ""; }
    try {
      const devices = chosenDevices();
      const r = await api("/api/play", { file: S.file, rate: Number($("rate").value) || 1, loop: $("loop").checked,
        actuator: $("actuator").value || undefined, devices: devices.length ? devices : undefined });
      S.play = r.play;
      S.playDevices = r.devices || S.playDevices;
      S.timelines = r.timelines || []; S.timelineNote = r.timeline_note || null;
      S.playing = true;
      animate();
      say("playing on " + (r.device || "device"));
    } catch (e) { say("cannot play: " + e.message); }
  }
  async function stop() { try { await api("/api/stop", {}); } catch (e) { say(e.message); } }

  function onsetSummary(end) {
    const order = (o) => S.playDevices.indexOf(o.device);
    const rows = Object.values(S.onsets).sort((a, b) => a.index - b.index || order(a) - order(b));
    const several = S.playDevices.length > 1;
    // A timeline several devices shared: each onset's skew against its first device's.
    const shared = S.timelines.find((t) => t.length > 1) || [];
    const text = (v) => String(v).replace(/[&<]/g, (c) => "&#" + c.charCodeAt(0) + ";");
    let html = S.timelineNote ? '<div id="timeline-note">' + text(S.timelineNote) + "</div>" : "";
    html += "<table><tr><th>#</th>" + (several ? "<th>device</th>" : "") + "<th>requested</th><th>onset</th><th>±</th><th>true</th><th>status</th>" +
      (shared.length ? "<th>skew µs (±)</th>" : "") + "</tr>";
    for (const o of rows) {
      const ms = (v) => v === null || v === undefined ? "—" : (v * 1000).toFixed(3);
      let skew = "";
      if (shared.length) {
        const k = S.skews[o.device + ":" + o.index];
        if (o.device === shared[0]) skew = '<td class="skew" data-reference="true">ref</td>';
        else if (k && k.pass === (o.pass || 0)) skew = '<td class="skew" data-skew="' + k.skew + '" data-bound="' + k.bound + '">' +
          (k.skew >= 0 ? "+" : "−") + Math.abs(k.skew * 1e6).toFixed(0) + " ± " + (k.bound * 1e6).toFixed(0) + (k.on_frame_grid ? " (frames)" : "") + "</td>";
        else skew = '<td class="skew">' + (shared.includes(o.device) ? "…" : "own timeline") + "</td>";
      }
      html += '<tr data-device="' + text(o.device) + '" data-event-index="' + o.index + '"><td>' + o.index + "</td>" + (several ? "<td>" + text(o.device) + "</td>" : "") +
        "<td>" + ms(o.requested) + "</td><td>" + ms(o.onset) + "</td><td>" + ms(o.bound) + "</td><td>" + ms(o.true_onset) + "</td><td>" + o.status + "</td>" + skew + "</tr>";
    }
    html += "</table>";
    if (end) html += '<div id="play-end">' + text(end) + "</div>";
    $("onset-summary").innerHTML = html;
  }

  // ---- push channel ----
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws?token=" + encodeURIComponent(token));
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "onset") {
        if (msg.play !== S.play && S.play !== null) return;
        S.onsets[msg.device + ":" + msg.index] = msg;
        drawOnset(msg);
        if (msg.sent_at) metrics.onsetLatenciesMs.push(performance.timeOrigin + performance.now() - msg.sent_at);
        const p = S.positions[msg.device];
        if (p) metrics.playheadAtOnsets.push({ device: msg.device, onset: msg.onset, playhead: playheadAt(p, performance.now()) });
        onsetSummary();
      } else if (msg.type === "skew") {
        if (msg.play !== S.play && S.play !== null) return;
        S.skews[msg.device + ":" + msg.index] = msg;
        onsetSummary();
      } else if (msg.type === "position") {
        if (msg.play !== S.play && S.play !== null) return;
        placePlayhead(msg.device, msg.position, msg.rate || 1);
      } else if (msg.type === "play-started") {
        if (S.play !== msg.play) {
          S.onsets = {}; S.positions = {}; S.skews = {};
          for (const id of ["onset-layer", "playhead-layer"]) { const l = $(id); if (l) l.textContent = ""; }
        }
        S.play = msg.play; S.playing = true;
        if (msg.devices) S.playDevices = msg.devices;
        if (msg.timelines) { S.timelines = msg.timelines; S.timelineNote = msg.timeline_note || null; }
        animate();
      } else if (msg.type === "play-ended") {
        S.playing = false;
        // The playheads go when the play is over (the onsets stay).
        S.positions = {};
        onsetSummary(msg.summary || "");
        say(msg.error ? "play failed: " + msg.error : "played " + (msg.reported || 0) + "/" + (msg.haptic_events || 0) + " onsets reported");
        document.body.dataset.played = String(msg.play);
      } else if (msg.type === "link") {
        const strip = $("link-strip");
        let line = strip.querySelector('[data-device="' + (msg.device || "") + '"]');
        if (!line) {
          line = document.createElement("div");
          line.dataset.device = msg.device || "";
          line.className = deviceClass(msg.device);
          strip.appendChild(line);
        }
        line.textContent = msg.text;
      } else if (msg.type === "file-changed" && msg.file === S.file) {
        if (dirty()) { $("banner").hidden = false; $("banner").textContent = S.file + " changed on disk; reopen it (your edits cannot be saved onto the new version: they name events by their place)"; }
        else { metrics.reloads++; openFile(S.file, true).then(() => say("reloaded " + S.file + " (changed on disk)")); }
      }
    };
    ws.onopen = () => { document.body.dataset.socket = "open"; };
    ws.onclose = () => { document.body.dataset.socket = "closed"; setTimeout(connect, 1000); };
  }

  // ---- pointer: drag events, pan and zoom ----
  function attachPointer() {
    const svg = $("timeline");
    let drag = null;
    svg.addEventListener("pointerdown", (ev) => {
      const g = ev.target.closest(".event");
      const point = ev.target.closest(".curve-point");
      if (point) {
        const k = Number(point.dataset.curveIndex), j = Number(point.dataset.pointIndex);
        const c = S.curves.find((c) => c.index === k);
        drag = { curve: k, point: j, x: ev.clientX, y: ev.clientY, p: Object.assign({}, c.points[j]), sharp: c.parameter === "HapticSharpnessControl", moved: false };
      } else if (g && !g.classList.contains("audio")) {
        const i = Number(g.dataset.eventIndex);
        select(i);
        drag = { i, x: ev.clientX, y: ev.clientY, e: Object.assign({}, S.events[i]), sharp: ev.target.dataset.role === "sharpness", moved: false, lock: null };
      } else {
        drag = { pan: true, x: ev.clientX, view: S.view.slice() };
      }
      svg.setPointerCapture(ev.pointerId);
      ev.preventDefault();
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!drag) { hover(ev); return; }
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (drag.curve !== undefined) {
        const fields = {};
        if (Math.abs(dx) >= 4) fields.time = Math.round((drag.p.time + dx / pxPerSecond(svg)) * 1000) / 1000;
        if (Math.abs(dy) >= 4) fields.value = drag.p.value - dy / (drag.sharp ? (LANE.sBottom - LANE.sTop) / 2 : LANE.iBottom - LANE.iTop);
        if (!Object.keys(fields).length) return;
        if (!drag.moved) { remember(); drag.moved = true; }
        editPoint(drag.curve, drag.point, fields);
        return;
      }
      if (drag.pan) {
        const dt = dx / pxPerSecond(svg);
        S.view = [drag.view[0] - dt, drag.view[1] - dt];
        S.viewTouched = true;
        draw();
        return;
      }
      // Each axis moves once the pointer left a 4 px dead zone along it.
      const fields = {};
      // Times snap to 1 ms (0.1 ms when zoomed in past 5 px per ms).
      const grid = pxPerSecond(svg) > 5000 ? 1e4 : 1e3;
      if (!drag.sharp && Math.abs(dx) >= 4) fields.time = Math.round((drag.e.time + dx / pxPerSecond(svg)) * grid) / grid;
      if (Math.abs(dy) >= 4) {
        if (drag.sharp) fields.sharpness = drag.e.sharpness - dy / (LANE.sBottom - LANE.sTop);
        else fields.intensity = drag.e.intensity - dy / (LANE.iBottom - LANE.iTop);
      }
      if (!Object.keys(fields).length) return;
      if (!drag.moved) { remember(); drag.moved = true; }
      edit(drag.i, fields, true);
    });
    const end = () => { drag = null; };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [a, b] = S.view;
      if (ev.shiftKey) {
        const dt = (ev.deltaY / 500) * (b - a);
        S.view = [a + dt, b + dt];
      } else {
        const t = tOf(svg, ev.offsetX);
        const k = Math.exp(ev.deltaY / 500);
        S.view = [t - (t - a) * k, t + (b - t) * k];
      }
      S.viewTouched = true;
      draw();
    }, { passive: false });
    svg.addEventListener("pointerleave", () => { $("hover").hidden = true; });
  }

  function hover(ev) {
    const g = ev.target.closest && ev.target.closest(".event");
    const box = $("hover");
    if (!g) { box.hidden = true; return; }
    const e = S.events[Number(g.dataset.eventIndex)];
    if (!e) return;
    box.hidden = false;
    box.style.left = ev.clientX + 12 + "px";
    box.style.top = ev.clientY + 12 + "px";
    box.textContent = "#" + g.dataset.eventIndex + " " + e.type + " t=" + (e.time * 1000).toFixed(1) + " ms I=" +
      Number(e.intensity).toFixed(2) + " S=" + Number(e.sharpness).toFixed(2) + (e.duration ? " d=" + (e.duration * 1000).toFixed(1) + " ms" : "");
  }

  // ---- keys and buttons ----
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    const ctrl = ev.ctrlKey || ev.metaKey;
    if (ev.key === " ") { ev.preventDefault(); if (S.playing) stop(); else play(); }
    else if (ctrl && ev.key.toLowerCase() === "s") { ev.preventDefault(); save(); }
    else if (ctrl && ev.key.toLowerCase() === "z" && !ev.shiftKey) { ev.preventDefault(); doUndo(); }
    else if (ctrl && (ev.key.toLowerCase() === "y" || (ev.key.toLowerCase() === "z" && ev.shiftKey))) { ev.preventDefault(); doRedo(); }
    else if (ctrl && ev.key.toLowerCase() === "d") { ev.preventDefault(); duplicate(); }
    else if (ev.key === "Delete" || ev.key === "Backspace") { deleteSelected(); }
  });
  function doUndo() { if (S.undo.length) { S.redo.push(snapshot()); restore(S.undo.pop()); } }
  function doRedo() { if (S.redo.length) { S.undo.push(snapshot()); restore(S.redo.pop()); } }
  function duplicate() {
    const e = S.selected === null ? null : S.events[S.selected];
    if (!e) return;
    addEvent({ type: e.type, time: e.time + 0.05, intensity: e.intensity, sharpness: e.sharpness, duration: e.duration });
  }
  $("play").onclick = play;
  $("stop").onclick = stop;
  $("save").onclick = save;
  $("undo").onclick = doUndo;
  $("redo").onclick = doRedo;
  $("add").onclick = () => addEvent({ time: Math.max(0, Math.round((S.view[0] + S.view[1]) / 2 * 1000) / 1000) });
  $("duplicate").onclick = duplicate;
  $("actuator").onchange = () => loadRender();
  $("delete").onclick = deleteSelected;
  window.addEventListener("resize", () => draw());

  // For tests and benchmarks: show [a, b] s (as the wheel would), or the whole pattern again.
  window.thrumStudio.setView = (a, b) => { S.view = [a, b]; S.viewTouched = true; draw(); };
  window.thrumStudio.resetView = () => { S.viewTouched = false; S.view = defaultView(); draw(); };

  attachPointer();
  connect();
  loadDevices().catch((e) => say("no devices: " + e.message));
  loadFiles().catch((e) => say("cannot load: " + e.message));
})();
