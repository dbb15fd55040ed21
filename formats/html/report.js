// report.js - the page of NAME.report.html (formats/html/README.md).
//
// Reads the run from <script id="cuprof-data" type="application/json">
// ({summary: summary.json's object, timeline: {...}: formats/report_html.c})
// and draws it, top to bottom: the headline numbers, the verdict and the
// findings, the timeline overview (GPU busy per device, CPU calls per thread,
// the steps as bands), the steps, device memory over time, the top kernels,
// the API table (sortable), the launch census and NCCL's collectives. Charts
// are uPlot's (inlined with this file); nothing is fetched from anywhere.
// Each headline number carries its raw value in data-v, for the tests.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('cuprof-data').textContent);
  const s = data.summary || {};
  const tl = data.timeline || null;
  const app = document.getElementById('app');

  // ---- formatting ----------------------------------------------------------
  function fmtTime(ns) {
    if (ns === null || ns === undefined) return '-';
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return ns + ' ns';
  }
  function fmtBytes(b) {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0, v = b;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i ? v.toFixed(2) : String(v)) + ' ' + u[i];
  }
  function pct(x) { return (100 * x).toFixed(1) + '%'; }
  function el(tag, attrs, kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of kids || []) if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    return e;
  }
  function section(id, title, kids) {
    return el('section', { id: id }, [el('h2', { text: title })].concat(kids));
  }
  function num(key, label, raw, shown) {
    return el('div', { class: 'num' }, [
      el('div', { class: 'label', text: label }),
      el('div', { class: 'value', 'data-k': key, 'data-v': String(raw), text: shown })]);
  }

  // ---- header: the program and the headline numbers ------------------------
  const gpu = s.gpu || {};
  const kernels = s.kernels || [];
  const mem = s.memory || {};
  app.appendChild(el('header', {}, [
    el('h1', { text: 'cuprof: ' + (s.program || '?') }),
    el('div', { class: 'sub', text: (s.argv || []).join(' ') + '  (pid ' + s.pid + ', ended by ' +
      (s.ended_by || '?') + (s.truncated ? ', TRUNCATED' : '') + ')' }),
    el('div', { class: 'nums' }, [
      num('wall', 'wall time', s.wall_ns, fmtTime(s.wall_ns)),
      num('gpu-busy', 'GPU busy', gpu.busy_ns || 0, fmtTime(gpu.busy_ns || 0) +
        (gpu.idle_share !== undefined ? '  (idle ' + pct(gpu.idle_share) + ')' : '')),
      num('top-kernel', 'top kernel', kernels.length ? kernels[0].name : '',
        kernels.length ? kernels[0].name : '(none)'),
      num('peak-memory', 'device memory peak', mem.peak_bytes || 0, fmtBytes(mem.peak_bytes || 0)),
      num('calls', 'calls recorded', s.events || 0, String(s.events || 0))])]));

  // ---- verdict and findings ------------------------------------------------
  const findings = s.findings || [];
  const fl = el('ul', { class: 'findings' });
  findings.forEach(function (f, i) {
    const where = { 'overhead-bound': 'timeline', 'compute-bound': 'timeline', 'hotspot': 'kernels',
      'sync-wait': 'api', 'many-calls': 'api', 'out-of-memory': 'memory', 'exposed-communication': 'collectives',
      'latency-bound-collectives': 'collectives', 'collective-spread': 'collectives' }[f.rule];
    fl.appendChild(el('li', { class: 'finding ' + f.severity, id: 'finding-' + i }, [
      el('span', { class: 'sev', text: f.severity }),
      el('b', { text: f.rule }), ': ' + f.message,
      where ? el('a', { href: '#' + where, text: ' (see)' }) : null,
      el('div', { class: 'advice', text: 'try: ' + f.advice })]));
  });
  app.appendChild(section('findings', 'Verdict and findings', [findings.length ? fl : el('p', { text: 'No finding.' })]));

  // ---- charts --------------------------------------------------------------
  const charts = [];
  function width() { return Math.max(480, Math.min(1200, app.clientWidth - 32)); }
  function chart(opts, rows, host) {
    if (typeof uPlot === 'undefined') {
      host.appendChild(el('p', { class: 'warn', text: 'The chart library was not built into this page.' }));
      return;
    }
    charts.push(new uPlot(Object.assign({ width: width(), height: 220 }, opts), rows, host));
  }

  // time axes: ms from the start for runs under 10 s, else seconds
  const span = tl ? tl.n * tl.bucket_ns : 0;
  const unit = span < 10e9 ? 1e6 : 1e9, unitName = unit === 1e6 ? 'ms' : 's';
  // the steps as bands behind a time chart
  const steps = s.step_list || [];
  function stepBands(u) {
    if (!tl || !steps.length) return;
    const ctx = u.ctx;
    ctx.save();
    steps.forEach(function (st, i) {
      const x0 = u.valToPos((st.start_ns - tl.t0_ns) / unit, 'x', true);
      const x1 = u.valToPos((st.start_ns + st.dur_ns - tl.t0_ns) / unit, 'x', true);
      ctx.fillStyle = i % 2 ? 'rgba(120,120,200,0.10)' : 'rgba(120,120,200,0.18)';
      ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
    });
    ctx.restore();
  }

  if (tl && tl.n > 0) {
    const xs = [];
    for (let i = 0; i < tl.n; i++) xs.push((i + 0.5) * tl.bucket_ns / unit);
    const rows = [xs], series = [{ label: 'time (' + unitName + ')' }];
    const colors = ['#2a7ab9', '#c4512d', '#3a9a50', '#8a4fb0', '#b08a1f', '#2aa5a5'];
    (tl.gpu || []).forEach(function (g, i) {
      rows.push(g.busy.map(function (v) { return 100 * v; }));
      series.push({ label: 'GPU ' + g.device + ' busy %', stroke: colors[i % colors.length], width: 1.5,
        fill: 'rgba(42,122,185,0.10)', scale: '%' });
    });
    (tl.cpu || []).forEach(function (c, i) {
      rows.push(c.calls);
      series.push({ label: 'calls: ' + (c.name || 'thread') + ' ' + c.tid, stroke: colors[(i + 3) % colors.length],
        width: 1, scale: 'calls' });
    });
    const host = el('div', { class: 'chart', id: 'timeline-chart' });
    app.appendChild(section('timeline', 'Timeline (' + tl.n + ' intervals of ' + fmtTime(tl.bucket_ns) +
      (steps.length ? '; steps shaded' : '') + ')', [host]));
    chart({ series: series, scales: { x: { time: false }, '%': { range: [0, 100] } },
      axes: [{ label: unitName + ' from the start' }, { scale: '%', label: 'GPU busy %' },
        { scale: 'calls', side: 1, label: 'calls per interval', grid: { show: false } }],
      hooks: { drawClear: [stepBands] } }, rows, host);
  }

  if (steps.length) {
    const host = el('div', { class: 'chart', id: 'steps-chart' });
    const xs = steps.map(function (st, i) { return i + 1; });
    app.appendChild(section('steps', 'Steps (' + steps.length + ': time and GPU busy share)', [host]));
    chart({ series: [{ label: 'step' },
      { label: 'step time (ms)', stroke: '#2a7ab9', width: 2, scale: 'ms', points: { show: true } },
      { label: 'GPU busy %', stroke: '#c4512d', width: 1.5, scale: '%', points: { show: true } }],
      scales: { x: { time: false }, '%': { range: [0, 100] } },
      axes: [{ label: 'step' }, { scale: 'ms', label: 'ms' }, { scale: '%', side: 1, label: 'busy %', grid: { show: false } }] },
      [xs, steps.map(function (st) { return st.dur_ns / 1e6; }),
        steps.map(function (st) { return st.dur_ns ? 100 * st.busy_ns / st.dur_ns : 0; })], host);
  }

  if (tl && tl.memory && tl.memory.length) {
    const host = el('div', { class: 'chart', id: 'memory-chart' });
    const owners = (mem.owners || []).map(function (o) { return o.api + ' ' + fmtBytes(o.bytes); }).join(', ');
    app.appendChild(section('memory', 'Device memory (peak ' + fmtBytes(mem.peak_bytes || 0) + ' at ' +
      fmtTime((mem.peak_at_ns || 0) - tl.t0_ns) + (owners ? '; held by ' + owners : '') + ')', [host]));
    chart({ series: [{ label: 'time (' + unitName + ')' }, { label: 'bytes held', stroke: '#3a9a50', width: 1.5,
      fill: 'rgba(58,154,80,0.12)', paths: uPlot.paths ? uPlot.paths.stepped({ align: 1 }) : undefined }],
      scales: { x: { time: false } }, axes: [{ label: unitName + ' from the start' }, { label: 'bytes',
        values: function (u, v) { return v.map(fmtBytes); }, size: 80 }] },
      [tl.memory.map(function (p) { return p[0] / unit; }), tl.memory.map(function (p) { return p[1]; })], host);
  }

  // ---- tables ----------------------------------------------------------------
  function table(id, cols, rowsData) {
    const t = el('table', { id: id + '-table' });
    const head = el('tr');
    cols.forEach(function (c, ci) {
      const th = el('th', { text: c.title, title: 'sort' });
      th.addEventListener('click', function () { sortBy(ci); });
      head.appendChild(th);
    });
    t.appendChild(el('thead', {}, [head]));
    const body = el('tbody');
    t.appendChild(body);
    let order = rowsData.slice(), lastCol = -1, desc = true;
    function render() {
      body.textContent = '';
      order.forEach(function (r) {
        body.appendChild(el('tr', {}, cols.map(function (c) {
          const v = c.get(r);
          return el('td', { class: c.num ? 'n' : '', text: c.fmt ? c.fmt(v) : String(v) });
        })));
      });
    }
    function sortBy(ci) {
      desc = ci === lastCol ? !desc : true;
      lastCol = ci;
      const g = cols[ci].get;
      order.sort(function (a, b) {
        const x = g(a), y = g(b);
        const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
        return desc ? -c : c;
      });
      render();
    }
    render();
    return t;
  }

  if (kernels.length) {
    const total = kernels.reduce(function (a, k) { return a + k.gpu_total_ns; }, 0) || 1;
    app.appendChild(section('kernels', 'Top kernels (GPU time)', [table('kernels', [
      { title: 'Kernel', get: function (k) { return k.name; } },
      { title: 'Launches', num: 1, get: function (k) { return k.launches; } },
      { title: 'GPU total', num: 1, get: function (k) { return k.gpu_total_ns; }, fmt: fmtTime },
      { title: 'Share', num: 1, get: function (k) { return k.gpu_total_ns / total; }, fmt: pct },
      { title: 'Median', num: 1, get: function (k) { return k.median_ns; }, fmt: fmtTime },
      { title: 'Max', num: 1, get: function (k) { return k.max_ns; }, fmt: fmtTime }], kernels.slice(0, 50))]));
  }

  const api = s.api || [];
  if (api.length) {
    app.appendChild(section('api', 'API calls (torch.profiler\'s columns; click a column to sort)', [table('api', [
      { title: 'Name', get: function (a) { return a.name; } },
      { title: 'Category', get: function (a) { return a.category; } },
      { title: 'Self CPU', num: 1, get: function (a) { return a.cpu_self_ns; }, fmt: fmtTime },
      { title: 'CPU total', num: 1, get: function (a) { return a.cpu_total_ns; }, fmt: fmtTime },
      { title: 'Self CUDA', num: 1, get: function (a) { return a.cuda_self_ns; }, fmt: fmtTime },
      { title: 'CUDA total', num: 1, get: function (a) { return a.cuda_total_ns; }, fmt: fmtTime },
      { title: '# of Calls', num: 1, get: function (a) { return a.calls; } },
      { title: 'Min', num: 1, get: function (a) { return a.min_ns; }, fmt: fmtTime },
      { title: 'Median', num: 1, get: function (a) { return a.median_ns; }, fmt: fmtTime },
      { title: 'Max', num: 1, get: function (a) { return a.max_ns; }, fmt: fmtTime }], api)]));
  }

  const census = s.launch_census;
  if (census && census.paths && census.paths.length) {
    app.appendChild(section('census', 'How the kernels were launched', [table('census', [
      { title: 'Path', get: function (p) { return p.path; } },
      { title: 'Kernels', num: 1, get: function (p) { return p.kernels; } },
      { title: 'GPU total', num: 1, get: function (p) { return p.gpu_total_ns; }, fmt: fmtTime }], census.paths)]));
  }

  const colls = s.collectives;
  if (colls && colls.rows && colls.rows.length) {
    app.appendChild(section('collectives', 'NCCL collectives (exposed communication ' +
      fmtTime(colls.exposed_ns) + ' of ' + fmtTime(colls.nccl_kernel_ns) + ')', [table('collectives', [
      { title: 'Operation', get: function (r) { return r.op; } },
      { title: 'Type', get: function (r) { return r.dtype; } },
      { title: 'Size', num: 1, get: function (r) { return r.size_bytes; }, fmt: fmtBytes },
      { title: 'Ranks', num: 1, get: function (r) { return r.nranks; } },
      { title: 'Calls', num: 1, get: function (r) { return r.calls; } },
      { title: 'GPU total', num: 1, get: function (r) { return r.gpu_total_ns; }, fmt: fmtTime },
      { title: 'Median', num: 1, get: function (r) { return r.gpu_median_ns; }, fmt: fmtTime },
      { title: 'busbw GB/s', num: 1, get: function (r) { return r.busbw_gbps; }, fmt: function (v) { return v.toFixed(1); } },
      { title: 'Algo', get: function (r) { return r.algo || '-'; } }], colls.rows)]));
  }

  app.appendChild(el('footer', { text: 'cuprof ' + (s.version || '') + ' · ' + (s.tool || '') +
    ' · this page fetches nothing: its data and chart library (uPlot) are inside it' }));
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.setSize({ width: width(), height: 220 }); });
  });
  document.body.setAttribute('data-ready', String(charts.length));
})();
