/* popmeter view: draws one run from the data of <script id="pm-data"> (written by view/vw_json.c).
 *
 * The data (times in ns from the trace's start, durations of tasks in ns, of statistics in s):
 *   app, command, start_time, runtime, nprocesses, summary (the POP table), trace, no_trace, span
 *   lanes[]      {name, process, role, wtype, useful, mpi, io, runtime, idle, device, other}
 *   codelets[], kinds[]   class names: a task's class is its codelet, a state's ncodelets + kind
 *   tasks        {n[lane], cl, s (start - the lane's previous start), d, tag, fl, f (1 path, 2 IQR, 4 regression)}
 *   states       {n[lane], k, s, d}
 *   bins         {beta, n[lane], cls, di, count, busy}: tasks and states shorter than beta, merged per
 *                (lane, class, interval [i beta, (i + 1) beta)); di: i - the lane's previous bin's i;
 *                busy: thousandths of beta
 *   agg, msgs {from, to, s, dr (received - sent), b}, path {tasks, length, before, by, source}, series[] {name,
 *   process, bytes, start, bin, v: [min, max, last] | null}, groups[], pgroups[], tree
 * Every drawing is SVG made here; nothing is fetched. Errors are recorded by the page's first
 * script (window.pmErrors); when drawn, the root element gets data-ready. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('pm-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f',
    '#86bcb6', '#d4a6c8', '#8cd17d', '#b6992d', '#499894', '#fabfd2', '#79706e'];
  var KIND = {MPI: '#d62728', runtime: '#6b6b6b', waiting: '#c7c7c7', 'I/O': '#8c564b', popmeter: '#9467bd',
    user: '#17becf'};
  var LABEL_W = 170, LANE_H = 13, PROC_GAP = 8;

  /* ------------------------------------------------------------------------------ helpers */
  function el(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function sv(tag, attrs, parent, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmtT(ns) { /* a duration or an instant */
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 0 : 3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : 2) + ' us';
    return Math.round(ns) + ' ns';
  }
  function fmtS(s) { return s === null || s === undefined ? 'n/a' : fmtT(s * 1e9); }
  function fmtN(x) {
    if (x === null || x === undefined) return 'n/a';
    var a = Math.abs(x);
    if (a >= 1e12) return (x / 1e12).toFixed(2) + ' T';
    if (a >= 1e9) return (x / 1e9).toFixed(2) + ' G';
    if (a >= 1e6) return (x / 1e6).toFixed(2) + ' M';
    if (a >= 1e4) return (x / 1e3).toFixed(1) + ' k';
    return String(Math.round(x * 100) / 100);
  }
  function fmtPow(e) { /* 10^e seconds, as an axis label: 1 ms, 10 ms, 100 ms, 1 s ... */
    var u = e >= 0 ? ['s', 0] : e >= -3 ? ['ms', -3] : e >= -6 ? ['us', -6] : ['ns', -9];
    return Math.pow(10, e - u[1]).toFixed(0) + ' ' + u[0];
  }
  function fmtB(x) { return fmtN(x).replace(/ ?$/, '') + 'B'; }
  function color(cls) {
    var nc = D.codelets.length;
    if (cls >= nc) return KIND[D.kinds[cls - nc]] || '#999';
    if (cls < PALETTE.length) return PALETTE[cls];
    return 'hsl(' + Math.round(cls * 137.508 % 360) + ',55%,55%)';
  }
  function clsName(cls) {
    var nc = D.codelets.length;
    return cls >= nc ? D.kinds[cls - nc] : D.codelets[cls];
  }
  function lower(a, x) { /* first index with a[i] >= x (a sorted) */
    var lo = 0, hi = a.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (a[m] < x) lo = m + 1; else hi = m; }
    return lo;
  }
  function section(title, parent) {
    var s = el('div', {'class': 'panel'}, parent);
    el('h2', {}, s, title);
    return s;
  }

  /* ------------------------------------------------------------------------------ the data */
  var NL = D.lanes.length, TRACE = D.trace;
  var T = {start: [], end: [], cl: [], tag: [], fl: [], f: [], lane: []}; /* kept tasks, absolute times */
  var laneTasks = [], laneStates = [], laneBins = [];
  function decode() {
    var i, j, k = 0, L;
    if (!TRACE) return;
    for (L = 0; L < NL; L++) {
      var first = k, prev = 0;
      for (j = 0; j < D.tasks.n[L]; j++, k++) {
        prev += D.tasks.s[k];
        T.start.push(prev);
        T.end.push(prev + D.tasks.d[k]);
        T.lane.push(L);
      }
      laneTasks.push({from: first, to: k, start: T.start.slice(first, k), end: T.end.slice(first, k)});
    }
    T.cl = D.tasks.cl; T.tag = D.tasks.tag; T.fl = D.tasks.fl; T.f = D.tasks.f;
    k = 0;
    for (L = 0; L < NL; L++) {
      var st = {start: [], end: [], k: []};
      prev = 0;
      for (j = 0; j < D.states.n[L]; j++, k++) {
        prev += D.states.s[k];
        st.start.push(prev); st.end.push(prev + D.states.d[k]); st.k.push(D.states.k[k]);
      }
      laneStates.push(st);
      laneBins.push({start: [], i: []});
    }
    var b = D.bins, beta = b.beta;
    D.msgs.r = D.msgs.s.map(function (s, n) { return s + D.msgs.dr[n]; });
    b.busy = b.busy.map(function (x) { return x * beta / 1000; }); /* thousandths of beta: ns */
    for (k = 0, L = 0; L < NL; L++) {
      var x = laneBins[L], idx = 0;
      for (j = 0; j < b.n[L]; j++, k++) {
        idx += b.di[k];
        x.start.push(idx * beta);
        x.i.push(k);
      }
      /* by start (tasks' bins, then states'): binary search over the lane's bins */
      var ord = x.start.map(function (_, n) { return n; }).sort(function (p, q) { return x.start[p] - x.start[q]; });
      x.start = ord.map(function (n) { return x.start[n]; });
      x.i = ord.map(function (n) { return x.i[n]; });
    }
  }

  /* lanes: processes in order; in a process the application threads, the workers, then the rest */
  var ROLE_ORDER = {main: 0, thread: 1, worker: 2, accel_worker: 3, progress: 4, device: 5, other: 6};
  var order = [], laneY = [], plotH = 0;
  function rank(role) { return role in ROLE_ORDER ? ROLE_ORDER[role] : 6; }
  function layoutLanes() {
    order = D.lanes.map(function (_, i) { return i; });
    order.sort(function (a, b) {
      var x = D.lanes[a], y = D.lanes[b];
      return x.process - y.process || rank(x.role) - rank(y.role) || x.name.localeCompare(y.name, 'en', {numeric: true});
    });
    var y = 0, lastP = null;
    order.forEach(function (L) {
      if (lastP !== null && D.lanes[L].process !== lastP) y += PROC_GAP;
      lastP = D.lanes[L].process;
      laneY[L] = y;
      y += LANE_H + 2;
    });
    plotH = y;
  }

  /* ------------------------------------------------------------------------------ the window */
  var view = {t0: 0, t1: Math.max(1, D.span)}, PW = 800, highlight = null, listeners = [];
  function setWindow(t0, t1) {
    var minW = Math.max(200, D.span / 1e7);
    if (t1 - t0 < minW) { var c = (t0 + t1) / 2; t0 = c - minW / 2; t1 = c + minW / 2; }
    var w = t1 - t0;
    if (w > D.span) { t0 = 0; t1 = D.span; }
    if (t0 < 0) { t1 -= t0; t0 = 0; }
    if (t1 > D.span) { t0 -= t1 - D.span; t1 = D.span; }
    view.t0 = Math.max(0, t0); view.t1 = Math.max(view.t0 + 1, t1);
    schedule();
  }
  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; redraw(); });
  }
  function redraw() { listeners.forEach(function (f) { f(); }); }
  function X(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * PW; }
  function zoomable(svg) { /* wheel: zoom around the pointer; drag: pan; double click: the whole run */
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = svg.getBoundingClientRect(), x = e.clientX - r.left - LABEL_W;
      if (x < 0) return;
      var t = view.t0 + x / PW * (view.t1 - view.t0), f = e.deltaY > 0 ? 1.25 : 0.8;
      setWindow(t - (t - view.t0) * f, t + (view.t1 - t) * f);
    }, {passive: false});
    var drag = null;
    svg.addEventListener('mousedown', function (e) { drag = {x: e.clientX, t0: view.t0, t1: view.t1}; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var dt = (e.clientX - drag.x) / PW * (drag.t1 - drag.t0);
      setWindow(drag.t0 - dt, drag.t1 - dt);
    });
    svg.addEventListener('dblclick', function () { setWindow(0, D.span); });
  }
  function axis(g, y, h) { /* ticks of the window on a time axis at y, grid lines of height h above */
    var w = view.t1 - view.t0, step = Math.pow(10, Math.floor(Math.log10(w / 6)));
    if (w / step > 12) step *= 5; else if (w / step > 6) step *= 2;
    sv('line', {x1: LABEL_W, x2: LABEL_W + PW, y1: y, y2: y, 'class': 'axis', stroke: '#999'}, g);
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var x = X(t);
      sv('line', {x1: x, x2: x, y1: y - h, y2: y, 'class': 'grid'}, g);
      sv('text', {x: x, y: y + 12, 'text-anchor': 'middle'}, g, fmtT(t));
    }
  }

  /* ------------------------------------------------------------------------------ tooltip */
  var tip = el('div', {id: 'tip'}, document.body);
  function showTip(e, text) {
    tip.textContent = text;
    tip.style.display = 'block';
    tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8) + 'px';
    tip.style.top = (e.clientY + 14) + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }
  function taskText(i) {
    var L = T.lane[i], tag = T.tag[i];
    return D.codelets[T.cl[i]] + (T.f[i] & 1 ? '  (critical path)' : '') +
      '\ntag ' + (tag === -1 ? 'none' : tag) + '\nworker ' + D.lanes[L].name + ' (rank ' + D.lanes[L].process + ')' +
      '\nstart ' + fmtT(T.start[i]) + '\nduration ' + fmtT(T.end[i] - T.start[i]) +
      '\nflops ' + (T.fl[i] ? fmtN(T.fl[i]) : 'n/a') +
      (T.f[i] & 6 ? '\noutlier (' + ((T.f[i] & 2 ? 'IQR ' : '') + (T.f[i] & 4 ? 'regression' : '')).trim() + ')' : '');
  }

  /* ------------------------------------------------------------------------ 5. on top: POP */
  function drawTop(root) {
    el('h1', {}, root, D.app + ': one run');
    el('p', {'class': 'sub'}, root, D.command + ' \u2014 ' + D.start_time + ', ' + D.nprocesses + ' process' +
      (D.nprocesses === 1 ? '' : 'es') + ', runtime ' + fmtS(D.runtime));
    var s = section('Efficiency (POP), the main losses', root);
    el('pre', {'class': 'pop'}, s, D.summary);
    var p = D.path, by = (p.by || []).slice().sort(function (a, b) { return b.time - a.time; });
    var c = section('Critical path of the task graph' + (p.length ? ': ' + fmtS(p.length) + ' of useful time, ' +
      Math.round(100 * p.length / D.runtime) + ' % of the runtime' : ''), root);
    if (!by.length) { el('p', {}, c, 'No critical path was measured (no task graph, or POPMETER_CRITICAL_PATH=0).'); return; }
    el('p', {}, c, (p.source === 'trace' ? 'Rebuilt from the trace: ' + p.tasks.length + ' tasks (drawn in red below), ' +
      'predecessor by predecessor.' : 'From popmeter.json (its largest parts).') + ' Broken down by what lies on it:');
    var W = Math.min(900, document.body.clientWidth - 40), svg = sv('svg', {width: W, height: 26}, c), x = 0;
    var total = by.reduce(function (a, b) { return a + b.time; }, 0) || 1, legend = el('div', {'class': 'legend'}, c);
    by.forEach(function (b, n) {
      var c = D.codelets.indexOf(b.name), w = b.time / total * W;
      var col = b.name.charAt(0) === '(' ? '#bbb' : c >= 0 ? color(c) : PALETTE[n % PALETTE.length];
      var r = sv('rect', {x: x, y: 2, width: Math.max(w, 0.5), height: 20, fill: col}, svg);
      var label = b.name + (b.rank >= 0 ? ' on rank ' + b.rank : '') + ': ' + fmtS(b.time) + ' (' +
        Math.round(100 * b.time / total) + ' %)';
      r.addEventListener('mousemove', function (e) { showTip(e, label); });
      r.addEventListener('mouseleave', hideTip);
      var sp = el('span', {}, legend);
      el('i', {style: 'background:' + col}, sp);
      sp.appendChild(document.createTextNode(label));
      x += w;
    });
  }

  function drawNotes(root) {
    var n = el('div', {'class': 'notes'}, root), a = D.agg;
    if (!TRACE) {
      el('p', {}, n, 'Without a trace: ' + D.no_trace + '. Not drawn: the space-time view, tasks submitted / ready / ' +
        'running over time, the per-task durations against flops, the critical path\u2019s tasks and the fronts on it. ' +
        'Drawn from popmeter.json: the table, the critical path\u2019s parts, the codelets\u2019 statistics and ' +
        'outliers, the quantities the program published, its tag tree.');
      return;
    }
    if (a.merged_tasks || a.merged_states)
      el('p', {}, n, 'Aggregated: ' + a.merged_tasks + ' of ' + a.tasks + ' tasks and ' + a.merged_states + ' of ' +
        a.states + ' states shorter than ' + fmtT(D.bins.beta) + ' are drawn as density bins of ' + fmtT(D.bins.beta) +
        ' per lane and codelet (stacked, each as high as the share of the interval it kept busy); critical-path tasks ' +
        'and the listed outliers are always drawn. Every count, time, curve and statistic on this page includes all ' +
        a.tasks + ' tasks.');
    else el('p', {}, n, 'Every one of the ' + a.tasks + ' tasks and ' + a.states + ' states is drawn on its own.');
    el('p', {}, n, 'Messages: an arrow each when at most 500 are in the window, else a tick where each leaves ' +
      '(top of the lane) and arrives (bottom).');
    if (D.msgs.total > D.msgs.s.length)
      el('p', {}, n, D.msgs.s.length + ' of ' + D.msgs.total + ' messages are drawn (those of at least ' +
        fmtB(D.msgs.min_bytes) + ').');
    if (D.msgs.unmatched) el('p', {}, n, D.msgs.unmatched + ' message events had no matching send or receive.');
  }

  /* ---------------------------------------------------------------------- 1. space-time view */
  /* What is drawn as SVG elements (each with its tooltip, counted by tests) and what on a canvas
   * under them: a lane's tasks and states are elements while the lane shows at most four per pixel
   * and the page at most ELEMENTS of them; beyond, and for the merged bins, the canvas draws them,
   * and the tooltip finds the task under the pointer by its lane and time. */
  var ELEMENTS = 30000;
  var stSvg, stPlot, stCanvas;
  function drawSpaceTime(root) {
    var s = section('Space-time view: a lane per thread and worker, tasks by codelet', root);
    var ctl = el('div', {'class': 'controls'}, s);
    [['\u2212 zoom out', 1.6], ['+ zoom in', 0.625]].forEach(function (b) {
      el('button', {}, ctl, b[0]).addEventListener('click', function () {
        var c = (view.t0 + view.t1) / 2, w = (view.t1 - view.t0) * b[1];
        setWindow(c - w / 2, c + w / 2);
      });
    });
    el('button', {}, ctl, 'whole run').addEventListener('click', function () { setWindow(0, D.span); });
    var win = el('span', {'class': 'win'}, ctl);
    el('span', {'class': 'win'}, ctl, 'wheel: zoom, drag: pan, double click: whole run');
    var legend = el('div', {'class': 'legend'}, s);
    D.codelets.forEach(function (name, c) {
      var sp = el('span', {}, legend); el('i', {style: 'background:' + color(c)}, sp);
      sp.appendChild(document.createTextNode(name));
    });
    D.kinds.forEach(function (name, k) {
      var sp = el('span', {}, legend); el('i', {style: 'background:' + color(D.codelets.length + k)}, sp);
      sp.appendChild(document.createTextNode(name));
    });
    var sp = el('span', {}, legend); el('i', {style: 'background:none;border-top:2px solid #c00;height:0'}, sp);
    sp.appendChild(document.createTextNode('critical path (dashed: across processes)'));
    var box = el('div', {style: 'position:relative'}, s);
    stCanvas = el('canvas', {width: PW, height: plotH, style: 'position:absolute;left:' + LABEL_W + 'px;top:0'}, box);
    stSvg = sv('svg', {width: LABEL_W + PW + 10, height: plotH + 30, style: 'position:relative'}, box);
    order.forEach(function (L) {
      var l = D.lanes[L], t = sv('text', {x: 4, y: laneY[L] + LANE_H - 2, 'class': 'lane-label'}, stSvg,
        (l.role === 'main' || l.role === 'thread' ? 'r' + l.process + ' ' : '') + l.name);
      if (l.useful !== undefined)
        t.__tip = l.name + ' (rank ' + l.process + ', ' + l.role + ')\nuseful ' + fmtS(l.useful) + ', runtime ' +
          fmtS(l.runtime) + ', idle ' + fmtS(l.idle) + ', MPI ' + fmtS(l.mpi);
    });
    stPlot = sv('g', {}, stSvg);
    zoomable(stSvg);
    stSvg.addEventListener('mousemove', function (e) {
      var d = e.target.getAttribute && e.target.getAttribute('data-i');
      if (d !== null && d !== undefined) return showTip(e, taskText(+d));
      if (e.target.__tip) return showTip(e, e.target.__tip);
      var r = stSvg.getBoundingClientRect(), text = pointed(e.clientX - r.left, e.clientY - r.top);
      if (text) showTip(e, text); else hideTip();
    });
    stSvg.addEventListener('mouseleave', hideTip);
    listeners.push(function () {
      win.textContent = 'window ' + fmtT(view.t0) + ' \u2013 ' + fmtT(view.t1) + ' (' + fmtT(view.t1 - view.t0) + ')';
      renderSpaceTime();
    });
  }

  /* The task, bin or state under a point of the plot (canvas-drawn ones included), as text. */
  function pointed(x, y) {
    if (x < LABEL_W) return null;
    var L = -1;
    for (var n = 0; n < order.length; n++) if (y >= laneY[order[n]] && y < laneY[order[n]] + LANE_H) L = order[n];
    if (L < 0) return null;
    var t = view.t0 + (x - LABEL_W) / PW * (view.t1 - view.t0), slack = (view.t1 - view.t0) / PW;
    var lt = laneTasks[L], i = lower(lt.end, t - slack);
    if (i < lt.start.length && lt.start[i] <= t + slack) return taskText(lt.from + i);
    var b = laneBins[L], beta = D.bins.beta;
    i = lower(b.start, t - beta);
    for (; i < b.start.length && b.start[i] <= t; i++) {
      var j = b.i[i], cls = D.bins.cls[j];
      return D.bins.count[j] + ' ' + clsName(cls) + (cls < D.codelets.length ? ' tasks' : ' states') + ' (merged)\n' +
        fmtT(b.start[i]) + ' + ' + fmtT(beta) + ', busy ' + fmtT(D.bins.busy[j]);
    }
    var st = laneStates[L];
    i = lower(st.end, t);
    if (i < st.start.length && st.start[i] <= t)
      return D.kinds[st.k[i]] + ' on ' + D.lanes[L].name + '\nstart ' + fmtT(st.start[i]) + '\nduration ' +
        fmtT(st.end[i] - st.start[i]);
    return null;
  }

  function renderSpaceTime() {
    var g = sv('g', {'class': highlight === null ? '' : 'dim'}), ns = (view.t1 - view.t0) / PW;
    var ctx = stCanvas.getContext('2d'), elements = ELEMENTS;
    ctx.clearRect(0, 0, PW, plotH);
    function cx(t) { return (t - view.t0) / ns; }
    function box(t0, t1, y, h, fill, alpha) { /* on the canvas, at least a pixel wide */
      var a = cx(Math.max(t0, view.t0)), w = Math.max(1, cx(Math.min(t1, view.t1)) - a);
      ctx.globalAlpha = alpha;
      ctx.fillStyle = fill;
      ctx.fillRect(a, y, w, h);
    }
    axis(g, plotH + 4, plotH + 4);
    order.forEach(function (L) {
      var y = laneY[L], st = laneStates[L], b = laneBins[L], lt = laneTasks[L], i;
      /* states, under the tasks; user regions as a thin band on top */
      var s0 = lower(st.end, view.t0), s1 = lower(st.start, view.t1 + 1), svgStates = s1 - s0 <= 4 * PW && s1 - s0 <= elements;
      if (svgStates) elements -= s1 - s0;
      for (i = s0; i < s1; i++) {
        var kind = D.kinds[st.k[i]], user = kind === 'user';
        if (svgStates)
          sv('rect', {x: X(Math.max(st.start[i], view.t0)), y: user ? y : y + 1, width: Math.max(0.6,
            (Math.min(st.end[i], view.t1) - Math.max(st.start[i], view.t0)) / ns), height: user ? 3 : LANE_H - 2,
            fill: KIND[kind], 'class': user ? 'st st-user' : 'st'}, g);
        else box(st.start[i], st.end[i], user ? y : y + 1, user ? 3 : LANE_H - 2, KIND[kind], user ? 0.55 : 1);
      }
      /* merged tasks and states: the bins of one interval stacked from the lane's bottom, each as
       * high as the share of the interval its class kept busy (an idle interval stays empty) */
      var beta = D.bins.beta, at = -1, filled = 0;
      for (i = lower(b.start, view.t0 - beta); i < b.start.length && b.start[i] <= view.t1; i++) {
        var j = b.i[i], h = Math.min(LANE_H - filled, LANE_H * D.bins.busy[j] / beta);
        if (b.start[i] !== at) at = b.start[i], filled = 0, h = Math.min(LANE_H, LANE_H * D.bins.busy[j] / beta);
        box(b.start[i], b.start[i] + beta, y + LANE_H - filled - h, h, color(D.bins.cls[j]), highlight === null ? 1 : 0.25);
        filled += h;
      }
      /* tasks */
      var from = lower(lt.end, view.t0), to = lower(lt.start, view.t1 + 1), svgTasks = to - from <= 4 * PW && to - from <= elements;
      if (svgTasks) elements -= to - from;
      for (i = from; i < to; i++) {
        var k = lt.from + i, f = T.f[k], hl = highlight !== null && T.tag[k] === highlight;
        if (svgTasks) {
          sv('rect', {x: X(Math.max(T.start[k], view.t0)), y: y, width: Math.max(0.6, (Math.min(T.end[k], view.t1) -
            Math.max(T.start[k], view.t0)) / ns), height: LANE_H, fill: color(T.cl[k]),
            'class': 'task' + (f & 1 ? ' cp' : '') + (hl ? ' hl' : ''), 'data-i': k}, g);
        } else {
          box(T.start[k], T.end[k], y, LANE_H, color(T.cl[k]), highlight === null || hl ? 1 : 0.25);
          if (hl || f & 1) {
            ctx.globalAlpha = 1;
            ctx.strokeStyle = hl ? '#000' : '#c00';
            ctx.strokeRect(cx(T.start[k]), y, Math.max(1, (T.end[k] - T.start[k]) / ns), LANE_H);
          }
        }
      }
    });
    ctx.globalAlpha = 1;
    drawPath(g);
    drawMessages(g);
    stSvg.replaceChild(g, stPlot);
    stPlot = g;
  }

  function mid(L) { return laneY[L] + LANE_H / 2; }
  /* the path's steps as two paths (within a process, across processes): two elements however long */
  function drawPath(g) {
    var p = D.path.tasks, d = ['', ''];
    for (var n = 1; n < p.length; n++) {
      var a = p[n - 1], b = p[n];
      if (T.end[a] < view.t0 && T.start[b] < view.t0 || T.end[a] > view.t1 && T.start[b] > view.t1) continue;
      var remote = D.lanes[T.lane[a]].process !== D.lanes[T.lane[b]].process ? 1 : 0;
      d[remote] += 'M' + X(T.end[a]).toFixed(1) + ',' + mid(T.lane[a]) + 'L' + X(T.start[b]).toFixed(1) + ',' + mid(T.lane[b]);
    }
    if (d[0]) sv('path', {d: d[0], 'class': 'cpl'}, g);
    if (d[1]) sv('path', {d: d[1], 'class': 'cpl remote'}, g);
  }
  /* messages in the window: each its own arrow with a tooltip while they are few; else a tick on the
   * sending lane (above) and one on the receiving lane (below), on the canvas */
  function drawMessages(g) {
    var m = D.msgs, vis = [];
    for (var i = 0; i < m.s.length; i++) if (m.r[i] >= view.t0 && m.s[i] <= view.t1) vis.push(i);
    if (vis.length > 500) {
      var ctx = stCanvas.getContext('2d'), ns = (view.t1 - view.t0) / PW;
      ctx.fillStyle = '#000';
      vis.forEach(function (i) {
        ctx.fillRect((m.s[i] - view.t0) / ns, laneY[m.from[i]], 1, 4);
        ctx.fillRect((m.r[i] - view.t0) / ns, laneY[m.to[i]] + LANE_H - 4, 1, 4);
      });
      return;
    }
    vis.forEach(function (i) {
      var p = sv('path', {d: 'M' + X(m.s[i]) + ',' + mid(m.from[i]) + 'L' + X(m.r[i]) + ',' + mid(m.to[i]),
        'class': 'msg', 'marker-end': 'url(#arrow)'}, g);
      p.__tip = 'message of ' + fmtB(m.b[i]) + '\n' + D.lanes[m.from[i]].name + ' (rank ' + D.lanes[m.from[i]].process +
        ') \u2192 ' + D.lanes[m.to[i]].name + ' (rank ' + D.lanes[m.to[i]].process + ')\nsent ' + fmtT(m.s[i]) +
        ', received ' + fmtT(m.r[i]);
    });
  }

  /* ------------------------------------------------------------------------ 2. over time */
  var otSvg, otPlot, CH = 110;
  function drawOverTime(root) {
    var s = section('Over time: tasks submitted, ready and running, and what the program published', root);
    if (!D.series.length) { el('p', {}, s, 'Nothing to draw: no trace, and the program published no quantity.'); return; }
    /* one chart for the tasks, one per quantity the program published (its processes together) */
    var charts = [D.series.filter(function (x) { return x.process < 0; })], names = [];
    D.series.forEach(function (x) { if (x.process >= 0 && names.indexOf(x.name) < 0) names.push(x.name); });
    names.forEach(function (n) { charts.push(D.series.filter(function (x) { return x.process >= 0 && x.name === n; })); });
    charts = charts.filter(function (c) { return c.length; });
    otSvg = sv('svg', {width: LABEL_W + PW + 10, height: charts.length * (CH + 30) + 10}, s);
    otPlot = sv('g', {}, otSvg);
    zoomable(otSvg);
    otSvg.addEventListener('mousemove', function (e) { if (e.target.__tip) showTip(e, e.target.__tip); else hideTip(); });
    otSvg.addEventListener('mouseleave', hideTip);
    var legend = el('div', {'class': 'legend'}, s);
    D.series.forEach(function (x, n) {
      var sp = el('span', {}, legend); el('i', {style: 'background:' + PALETTE[n % PALETTE.length]}, sp);
      sp.appendChild(document.createTextNode(x.name + (x.process >= 0 ? ' (rank ' + x.process + ')' : '')));
    });
    if (!TRACE) el('p', {}, s, 'Tasks over time need the trace.');
    listeners.push(function () {
      var g = sv('g', {}), y0 = 10;
      charts.forEach(function (c) { drawChart(g, c, y0); y0 += CH + 30; });
      otSvg.replaceChild(g, otPlot);
      otPlot = g;
    });
  }
  function drawChart(g, list, y0) {
    var ns = (view.t1 - view.t0) / PW, max = 0, cols = [];
    list.forEach(function (x) { /* per pixel column: the envelope of the bins it covers */
      var c = [], b0 = Math.max(0, Math.floor((view.t0 - x.start) / x.bin)), b1 = Math.min(x.v.length - 1,
        Math.floor((view.t1 - x.start) / x.bin));
      for (var b = b0; b <= b1; b++) {
        var v = x.v[b];
        if (!v) continue;
        var px = Math.max(0, Math.floor((x.start + b * x.bin - view.t0) / ns));
        var e = c[c.length - 1];
        if (e && e.px === px) { e.lo = Math.min(e.lo, v[0]); e.hi = Math.max(e.hi, v[1]); e.last = v[2]; e.t1 = x.start + (b + 1) * x.bin; }
        else c.push({px: px, lo: v[0], hi: v[1], last: v[2], t0: x.start + b * x.bin, t1: x.start + (b + 1) * x.bin});
        max = Math.max(max, v[1]);
      }
      cols.push(c);
    });
    if (max <= 0) max = 1;
    var bytes = list[0].bytes, Y = function (v) { return y0 + CH - v / max * CH; };
    sv('text', {x: 4, y: y0 + 10}, g, list[0].process < 0 ? 'tasks' : list[0].name.slice(0, 24));
    sv('text', {x: LABEL_W - 6, y: y0 + 10, 'text-anchor': 'end'}, g, bytes ? fmtB(max) : fmtN(max));
    sv('text', {x: LABEL_W - 6, y: y0 + CH, 'text-anchor': 'end'}, g, '0');
    axis(g, y0 + CH + 2, CH);
    list.forEach(function (x, n) {
      var idx = D.series.indexOf(x), col = PALETTE[idx % PALETTE.length], d = '', area = '', c = cols[n];
      c.forEach(function (e, k) {
        var xa = X(Math.max(e.t0, view.t0)), xb = X(Math.min(e.t1, view.t1));
        d += (k ? 'L' : 'M') + xa + ',' + Y(e.last) + 'L' + xb + ',' + Y(e.last);
        if (e.hi > e.lo) area += 'M' + xa + ',' + Y(e.hi) + 'L' + xb + ',' + Y(e.hi) + 'L' + xb + ',' + Y(e.lo) + 'L' + xa + ',' + Y(e.lo) + 'Z';
      });
      if (area) sv('path', {d: area, fill: col, 'fill-opacity': 0.25, stroke: 'none'}, g);
      var p = sv('path', {d: d || 'M0,0', stroke: col, fill: 'none', 'stroke-width': 1.3}, g);
      p.__tip = x.name + (x.process >= 0 ? ' (rank ' + x.process + ')' : '');
    });
  }

  /* ---------------------------------------------------------------------- 3. per codelet */
  function drawCodelets(root) {
    var s = section('Per codelet: duration against flops (log-log), the fit and its 95 % prediction band, outliers', root);
    if (!TRACE) { drawProfileCodelets(s); return; }
    el('p', {}, s, 'One dot per task drawn (orange: slower than Q3 + 1.5 IQR of its codelet; red: above the band); ' +
      'grey cells: tasks merged into density bins. Statistics over every task of the trace.');
    var wrap = el('div', {}, s), rows = [];
    D.groups.forEach(function (gr) { drawScatter(wrap, gr); gr.worst.forEach(function (w) { rows.push([gr, w]); }); });
    rows.sort(function (a, b) {
      var ra = (T.end[a[1].task] - T.start[a[1].task]) / 1e9 / a[1].thr, rb = (T.end[b[1].task] - T.start[b[1].task]) / 1e9 / b[1].thr;
      return rb - ra;
    });
    el('h3', {}, s, 'Outliers, worst first (click: show it in the space-time view)');
    var tb = el('table', {'class': 'list'}, s), h = el('tr', {}, tb);
    ['codelet', 'worker', 'tag', 'start', 'duration', 'threshold', 'x', 'rule'].forEach(function (c, n) {
      el('th', {'class': n < 2 ? 'l' : ''}, h, c);
    });
    function row(r) {
      var k = r[1].task, d = T.end[k] - T.start[k], tr = el('tr', {'class': 'go'}, tb);
      [D.codelets[T.cl[k]], D.lanes[T.lane[k]].name + ' (r' + D.lanes[T.lane[k]].process + ')', T.tag[k] === -1 ? '' : T.tag[k],
        fmtT(T.start[k]), fmtT(d), fmtS(r[1].thr), (d / 1e9 / r[1].thr).toFixed(1), r[1].kind].forEach(function (v, n) {
        el('td', {'class': n < 2 ? 'l' : ''}, tr, v);
      });
      tr.addEventListener('click', function () {
        highlight = T.tag[k] === -1 ? null : T.tag[k];
        setWindow(T.start[k] - 20 * d, T.end[k] + 20 * d);
        stSvg.scrollIntoView({behavior: 'smooth', block: 'center'});
      });
    }
    rows.slice(0, 40).forEach(row);
    if (rows.length > 40) {
      var more = el('button', {}, s, 'show the other ' + (rows.length - 40));
      more.addEventListener('click', function () { rows.slice(40).forEach(row); more.remove(); });
    }
  }

  /* One group's plot: axes, band and fit in SVG; the tasks drawn one by one as dots on a canvas under
   * it (there may be tens of thousands), the merged ones as grey cells; outliers as SVG dots on top,
   * each with its tooltip (up to 500 per group; more are red dots on the canvas). */
  function drawScatter(wrap, gr) {
    var box = el('div', {'class': 'scatter'}, wrap), name = D.codelets[gr.codelet] + (gr.wtype ? ' (accelerator)' : ' (CPU)');
    el('div', {'class': 'title'}, box, name + ': ' + gr.count + ' tasks, median ' + fmtS(gr.median) + ', total ' +
      fmtS(gr.total) + '; outliers: ' + gr.iqr + ' IQR, ' + gr.reg + ' regression');
    var W = 320, H = 210, m = {l: 46, r: 8, t: 6, b: 30}, pane = el('div', {style: 'position:relative'}, box);
    var canvas = el('canvas', {width: W, height: H, style: 'position:absolute;left:0;top:0'}, pane);
    var svg = sv('svg', {width: W, height: H, style: 'position:relative'}, pane);
    var pts = [], i;
    for (i = 0; i < T.cl.length; i++)
      if (T.cl[i] === gr.codelet && D.lanes[T.lane[i]].wtype === gr.wtype && T.fl[i] > 0) pts.push(i);
    if (!gr.fit && !pts.length && !gr.grid) {
      sv('text', {x: 10, y: 40}, svg, 'no flops declared: durations ' + fmtS(gr.min) + ' \u2013 ' + fmtS(gr.max));
      sv('text', {x: 10, y: 58}, svg, 'Q1 ' + fmtS(gr.q1) + ', median ' + fmtS(gr.median) + ', Q3 ' + fmtS(gr.q3));
      return;
    }
    var x0 = Infinity, x1 = -Infinity, y0 = Math.log10(Math.max(gr.min, 1e-9)), y1 = Math.log10(Math.max(gr.max, 1e-9));
    pts.forEach(function (k) { var x = Math.log10(T.fl[k]); x0 = Math.min(x0, x); x1 = Math.max(x1, x); });
    if (gr.grid) { x0 = Math.min(x0, gr.grid.x0); x1 = Math.max(x1, gr.grid.x1); }
    if (gr.fit) gr.fit.band.forEach(function (b) { y0 = Math.min(y0, b[1]); y1 = Math.max(y1, b[2]); });
    if (!(x1 > x0)) { x0 -= 0.5; x1 += 0.5; }
    if (!(y1 > y0)) { y0 -= 0.5; y1 += 0.5; }
    var px = function (x) { return m.l + (x - x0) / (x1 - x0) * (W - m.l - m.r); };
    var py = function (y) { return H - m.b - (y - y0) / (y1 - y0) * (H - m.t - m.b); };
    for (var e = Math.ceil(x0); e <= x1; e++) sv('text', {x: px(e), y: H - m.b + 12, 'text-anchor': 'middle'}, svg, '1e' + e);
    for (e = Math.ceil(y0); e <= y1; e++) sv('text', {x: m.l - 3, y: py(e) + 4, 'text-anchor': 'end'}, svg, fmtPow(e));
    sv('text', {x: (W + m.l) / 2, y: H - 3, 'text-anchor': 'middle'}, svg, 'flops');
    sv('rect', {x: m.l, y: m.t, width: W - m.l - m.r, height: H - m.t - m.b, fill: 'none', stroke: '#ccc'}, svg);
    var ctx = canvas.getContext('2d');
    if (gr.grid) {
      var G = gr.grid, gx = (G.x1 - G.x0) / G.size, gy = (G.y1 - G.y0) / G.size, top = 1;
      G.c.forEach(function (n) { top = Math.max(top, n); });
      ctx.fillStyle = '#555';
      G.c.forEach(function (n, c) {
        if (!n) return;
        var a = G.x0 + (c % G.size) * gx, b = G.y0 + Math.floor(c / G.size) * gy;
        ctx.globalAlpha = 0.15 + 0.6 * n / top;
        ctx.fillRect(px(a), py(b + gy), Math.max(1, px(a + gx) - px(a)), Math.max(1, py(b) - py(b + gy)));
      });
      ctx.globalAlpha = 1;
    }
    if (gr.fit) {
      var band = gr.fit.band, d = '';
      band.forEach(function (b, n) { d += (n ? 'L' : 'M') + px(b[0]) + ',' + py(b[2]); });
      for (i = band.length - 1; i >= 0; i--) d += 'L' + px(band[i][0]) + ',' + py(band[i][1]);
      sv('path', {d: d + 'Z', 'class': 'band'}, svg);
      sv('path', {d: 'M' + px(band[0][0]) + ',' + py(gr.fit.a + gr.fit.b * band[0][0]) + 'L' + px(band[band.length - 1][0]) +
        ',' + py(gr.fit.a + gr.fit.b * band[band.length - 1][0]), 'class': 'fitl'}, svg);
    }
    var dots = sv('g', {}, svg), shown = 0;
    pts.forEach(function (k) {
      var f = T.f[k], x = px(Math.log10(T.fl[k])), y = py(Math.log10((T.end[k] - T.start[k]) / 1e9));
      if (f & 6 && shown < 500) {
        shown++;
        sv('circle', {cx: x, cy: y, r: 2.6, fill: color(gr.codelet), 'class': 'pt' + (f & 4 ? ' reg' : ' iqr'), 'data-i': k}, dots);
        return;
      }
      ctx.fillStyle = f & 6 ? '#c00' : color(gr.codelet);
      ctx.fillRect(x - 1, y - 1, 2, 2);
    });
    dots.addEventListener('mousemove', function (ev) {
      var k = ev.target.getAttribute('data-i');
      if (k !== null) showTip(ev, taskText(+k));
    });
    dots.addEventListener('mouseleave', hideTip);
  }

  function drawProfileCodelets(s) {
    el('p', {}, s, 'Without the trace there is one line per codelet (popmeter.json, quartiles estimated during the run) ' +
      'and its worst outliers; the duration-against-flops plots need the trace.');
    var tb = el('table', {'class': 'list'}, s), h = el('tr', {}, tb);
    ['codelet', 'rank', 'tasks', 'total', 'min', 'Q1', 'Q3', 'max', 'IQR outl.', 'regr. outl.'].forEach(function (c, n) {
      el('th', {'class': n ? '' : 'l'}, h, c);
    });
    var rows = [];
    (D.pgroups || []).forEach(function (g) {
      var tr = el('tr', {}, tb);
      [g.name + (g.wtype ? ' (accel.)' : ''), g.rank, g.count, fmtS(g.total), fmtS(g.min), fmtS(g.q1), fmtS(g.q3), fmtS(g.max),
        g.iqr, g.reg].forEach(function (v, n) { el('td', {'class': n ? '' : 'l'}, tr, v); });
      g.worst.forEach(function (w) { rows.push([g, w]); });
    });
    if (!rows.length) return;
    el('h3', {}, s, 'Worst outliers');
    tb = el('table', {'class': 'list'}, s);
    h = el('tr', {}, tb);
    ['codelet', 'worker', 'tag', 'start', 'duration', 'threshold', 'rule'].forEach(function (c, n) { el('th', {'class': n < 2 ? 'l' : ''}, h, c); });
    rows.forEach(function (r) {
      var tr = el('tr', {}, tb), w = r[1];
      [r[0].name, w.worker + ' (r' + r[0].rank + ')', w.tag === -1 ? '' : w.tag, fmtS(w.start), fmtS(w.duration), fmtS(w.thr),
        w.kind].forEach(function (v, n) { el('td', {'class': n < 2 ? 'l' : ''}, tr, v); });
    });
  }

  /* ---------------------------------------------------------------------------- 4. the tree */
  function drawTree(root) {
    var s = section('Tag tree (the program\u2019s, e.g. mfsolve\u2019s elimination tree): a node per tag, as wide as its subtree\u2019s work', root);
    var tr = D.tree;
    if (!tr) { el('p', {}, s, 'The program published no tag tree (pm_tag_publish, popmeter.h).'); return; }
    var ctl = el('div', {'class': 'controls'}, s), size = 0, mode = 'time';
    ctl.appendChild(document.createTextNode('size by '));
    var sel = el('select', {}, ctl);
    el('option', {value: '0'}, sel, 'flops');
    el('option', {value: '1'}, sel, 'measured time');
    ctl.appendChild(document.createTextNode(' colour by '));
    var col = el('select', {}, ctl);
    [['time', 'measured time'], ['eff', TRACE ? 'efficiency (time its flops predict / measured)' : 'flop rate (relative)'],
      ['rank', 'owning rank']].forEach(function (o) { el('option', {value: o[0]}, col, o[1]); });
    var legend = el('span', {'class': 'win'}, ctl);
    var info = el('div', {'class': 'info'}, s,
      tr.n + ' nodes drawn' + (tr.hidden ? ', ' + tr.hidden + ' narrow ones folded into their ancestors' : '') +
      (tr.dropped ? ', ' + tr.dropped + ' not kept by popmeter (bound)' : '') +
      '; red outline: a task of the node is on the critical path. Click a node: its tasks in the space-time view.');
    var W = LABEL_W + PW, RH = Math.max(4, Math.min(18, Math.floor(520 / (tr.maxdepth + 1))));
    var svg = sv('svg', {width: W + 10, height: (tr.maxdepth + 1) * RH + 4}, s);
    var maxT = 0, maxR = 0, i;
    for (i = 0; i < tr.n; i++) { maxT = Math.max(maxT, tr.time[i] || 0); maxR = Math.max(maxR, tr.rate[i] || 0); }
    function fill(i) {
      if (mode === 'rank') return tr.rank[i] < 0 ? '#ccc' : PALETTE[tr.rank[i] % PALETTE.length];
      if (mode === 'time') {
        if (!tr.time[i]) return '#e8e8e8';
        var a = Math.sqrt(tr.time[i] / maxT);
        return 'hsl(' + Math.round(50 - 50 * a) + ',85%,' + Math.round(88 - 48 * a) + '%)';
      }
      var e = TRACE ? tr.eff[i] : (tr.rate[i] ? tr.rate[i] / maxR : null);
      if (e === null || e === undefined) return '#e8e8e8';
      return 'hsl(' + Math.round(Math.max(0, Math.min(1.5, e)) / 1.5 * 220) + ',70%,55%)';
    }
    function tipText(i) {
      return 'tag ' + tr.tag[i] + (tr.parent[i] >= 0 ? ', parent ' + tr.tag[tr.parent[i]] : ' (root)') + '\nrank ' + tr.rank[i] +
        ', depth ' + tr.depth[i] + '\nflops ' + fmtN(tr.flops[i]) + '\nmeasured time ' + fmtS(tr.time[i]) +
        (tr.eff[i] !== null ? '\nefficiency ' + tr.eff[i].toFixed(2) + ' (predicted / measured)' : '') +
        (tr.time[i] ? '' : '\nno task carries this tag') + (tr.cp[i] ? '\non the critical path' : '') +
        (tr.folded[i] ? '\n' + tr.folded[i] + ' nodes folded into it' : '');
    }
    var nodes = [];
    for (i = 0; i < tr.n; i++) {
      var r = sv('rect', {'class': 'front' + (tr.cp[i] ? ' cp' : ''), 'data-n': i, y: tr.depth[i] * RH, height: RH - 1}, svg);
      nodes.push(r);
    }
    function paint() {
      var xs = size ? tr.xt : tr.x, ws = size ? tr.wt : tr.w;
      for (var i = 0; i < tr.n; i++) {
        nodes[i].setAttribute('x', xs[i] * W);
        nodes[i].setAttribute('width', Math.max(0, ws[i] * W));
        nodes[i].setAttribute('fill', fill(i));
      }
      legend.textContent = mode === 'time' ? 'light: little time, dark red: the most (' + fmtS(maxT) + ')' :
        mode === 'eff' ? (TRACE ? 'red: slower than its flops predict, green: as predicted, blue: faster' : 'red: lowest rate, blue: highest') :
        'one colour per rank';
    }
    sel.addEventListener('change', function () { size = +sel.value; paint(); });
    col.addEventListener('change', function () { mode = col.value; paint(); });
    svg.addEventListener('mousemove', function (e) {
      var n = e.target.getAttribute && e.target.getAttribute('data-n');
      if (n !== null && n !== undefined) showTip(e, tipText(+n)); else hideTip();
    });
    svg.addEventListener('mouseleave', hideTip);
    var selected = null;
    svg.addEventListener('click', function (e) {
      var n = e.target.getAttribute && e.target.getAttribute('data-n');
      if (n === null || n === undefined) return;
      if (selected !== null) nodes[selected].setAttribute('class', 'front' + (tr.cp[selected] ? ' cp' : ''));
      selected = selected === +n ? null : +n;
      highlight = selected === null ? null : tr.tag[selected];
      if (selected !== null) nodes[selected].setAttribute('class', 'front sel');
      var count = 0, first = Infinity, last = -Infinity;
      for (var k = 0; highlight !== null && k < T.tag.length; k++)
        if (T.tag[k] === highlight) { count++; first = Math.min(first, T.start[k]); last = Math.max(last, T.end[k]); }
      info.textContent = selected === null ? '' : 'tag ' + highlight + ': ' + count + ' tasks drawn in the space-time view' +
        (count ? ', from ' + fmtT(first) + ' to ' + fmtT(last) : '') + ' (click again to clear)';
      schedule();
    });
    paint();
  }

  /* ------------------------------------------------------------------------------ the page */
  function main() {
    var root = document.getElementById('app');
    root.textContent = '';
    PW = Math.max(600, Math.min(1600, document.documentElement.clientWidth - LABEL_W - 60));
    decode();
    layoutLanes();
    drawTop(root);
    drawNotes(root);
    if (TRACE) {
      drawSpaceTime(root);
      var defs = sv('defs', {}, stSvg), mk = sv('marker', {id: 'arrow', viewBox: '0 0 6 6', refX: 6, refY: 3,
        markerWidth: 5, markerHeight: 5, orient: 'auto'}, defs);
      sv('path', {d: 'M0,0L6,3L0,6Z', fill: '#333'}, mk);
    }
    drawOverTime(root);
    drawTree(root);
    drawCodelets(root);
    /* the window opens on the tasks' part of the run (the whole run is a click away) */
    if (TRACE && T.start.length) {
      var lo = Math.min.apply(null, laneTasks.map(function (l) { return l.start.length ? l.start[0] : Infinity; }));
      var hi = Math.max.apply(null, laneTasks.map(function (l) { return l.end.length ? l.end[l.end.length - 1] : -Infinity; }));
      laneBins.forEach(function (x) {
        if (!x.start.length) return;
        lo = Math.min(lo, x.start[0]);
        hi = Math.max(hi, x.start[x.start.length - 1] + D.bins.beta);
      });
      var mg = (hi - lo) * 0.03;
      view.t0 = Math.max(0, lo - mg);
      view.t1 = Math.min(D.span, hi + mg);
    }
    redraw();
    var root = document.documentElement;
    root.setAttribute('data-drawn-ms', Math.round(performance.now()));
    if (location.hash === '#selftest') selftest(root);
    root.setAttribute('data-ready', '1');
  }

  /* With #selftest in its address the page plays a person's gestures on itself and writes what
   * happened into attributes of its root element, for a test reading the page from a headless
   * browser: the tooltip of the first task, the tasks highlighted by a click on the tag-tree node
   * that took the most time, the window after a wheel step over the space-time view. */
  function selftest(root) {
    var rect = TRACE && stSvg.querySelector('rect.task');
    if (rect) {
      var b = rect.getBoundingClientRect();
      rect.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.left + 1, clientY: b.top + 1}));
      root.setAttribute('data-selftest-tip', tip.textContent.replace(/\n/g, ' | '));
      var w0 = view.t1 - view.t0, sb = stSvg.getBoundingClientRect();
      stSvg.dispatchEvent(new WheelEvent('wheel', {bubbles: true, cancelable: true, deltaY: -100,
        clientX: sb.left + LABEL_W + PW / 2, clientY: sb.top + 5}));
      root.setAttribute('data-selftest-zoom', ((view.t1 - view.t0) / w0).toFixed(3));
      setWindow(0, D.span);
    }
    var tr = D.tree, best = -1;
    for (var i = 0; tr && i < tr.n; i++) if (tr.time[i] && (best < 0 || tr.time[i] > tr.time[best])) best = i;
    var front = best >= 0 && document.querySelector('rect.front[data-n="' + best + '"]');
    if (front) {
      front.dispatchEvent(new MouseEvent('click', {bubbles: true}));
      redraw();
      root.setAttribute('data-selftest-tag', tr.tag[best]);
      root.setAttribute('data-selftest-hl', TRACE ? stSvg.querySelectorAll('rect.task.hl').length : 0);
      front.dispatchEvent(new MouseEvent('click', {bubbles: true}));
      redraw();
    }
  }
  main();
})();
