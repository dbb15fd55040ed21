// report.js - the page of NAME.report.html (formats/html/README.md), after
// common.js in the same file.
//
// Reads the run ({summary: summary.json's object, timeline: {...}:
// formats/report_html.c}) and draws it, top to bottom: the headline
// numbers, the verdict and the findings, the timeline overview (GPU busy per
// stream, CPU calls per thread, the steps and capture windows as bands; drag to zoom, double-click
// to zoom out), the steps, device memory over time, the top kernels, the API
// table (sortable), with --stacks the GPU time by launch site as a flame
// graph, the launch census and NCCL's collectives. Each headline
// number carries its raw value in data-v, for the tests.
(function () {
  'use strict';
  const C = window.cuprof;
  const s = C.data.summary || {};
  const tl = C.data.timeline || null;
  const app = C.app, el = C.el, section = C.section, num = C.num, chart = C.chart, table = C.table;
  const fmtTime = C.fmtTime, fmtBytes = C.fmtBytes, pct = C.pct;

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
  const where = { 'overhead-bound': 'timeline', 'compute-bound': 'timeline', 'hotspot': 'kernels',
    'sync-wait': 'api', 'many-calls': 'api', 'out-of-memory': 'memory', 'exposed-communication': 'collectives',
    'latency-bound-collectives': 'collectives', 'collective-spread': 'collectives' };
  app.appendChild(section('findings', 'Verdict and findings', [C.findingList(s.findings || [], where)]));

  // ---- charts --------------------------------------------------------------
  // time axes: ms from the start for runs under 10 s, else seconds
  const span = tl ? tl.n * tl.bucket_ns : 0;
  const unit = span < 10e9 ? 1e6 : 1e9, unitName = unit === 1e6 ? 'ms' : 's';
  // the steps as bands behind a time chart
  const steps = s.step_list || [];
  // and the capture windows (--capture-range, --duration, ...) as green bands
  const windows = (s.capture && s.capture.spans) || [];
  function stepBands(u) {
    if (!tl || (!steps.length && !windows.length)) return;
    const ctx = u.ctx;
    ctx.save();
    function band(a, b, style) {
      const x0 = u.valToPos((a - tl.t0_ns) / unit, 'x', true), x1 = u.valToPos((b - tl.t0_ns) / unit, 'x', true);
      ctx.fillStyle = style;
      ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
    }
    windows.forEach(function (w) { band(w[0], w[1], 'rgba(60,170,90,0.12)'); });
    steps.forEach(function (st, i) {
      band(st.start_ns, st.start_ns + st.dur_ns, i % 2 ? 'rgba(120,120,200,0.10)' : 'rgba(120,120,200,0.18)');
    });
    ctx.restore();
  }

  if (tl && tl.n > 0) {
    const xs = [];
    for (let i = 0; i < tl.n; i++) xs.push((i + 0.5) * tl.bucket_ns / unit);
    const rows = [xs], series = [{ label: 'time (' + unitName + ')' }];
    const colors = C.colors;
    // a busy lane per stream (up to 8; past that, per device)
    const lanes = (tl.streams || []).length && tl.streams.length <= 8 ? tl.streams : (tl.gpu || []);
    lanes.forEach(function (g, i) {
      rows.push(g.busy.map(function (v) { return 100 * v; }));
      series.push({ label: 'GPU ' + g.device + (g.stream !== undefined ? ' stream ' + g.stream : '') + ' busy %',
        stroke: colors[i % colors.length], width: 1.5, fill: 'rgba(42,122,185,0.08)', scale: '%' });
    });
    (tl.cpu || []).forEach(function (c, i) {
      rows.push(c.calls);
      series.push({ label: 'calls: ' + (c.name || 'thread') + ' ' + c.tid, stroke: colors[(i + 3) % colors.length],
        width: 1, scale: 'calls' });
    });
    const host = el('div', { class: 'chart', id: 'timeline-chart' });
    app.appendChild(section('timeline', 'Timeline (' + tl.n + ' intervals of ' + fmtTime(tl.bucket_ns) +
      (steps.length ? '; steps shaded' : '') + (windows.length ? '; capture windows in green' : '') +
      '; drag to zoom, double-click to zoom out)', [host]));
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
      axes: [{ label: 'step', incrs: C.wholeIncrs }, { scale: 'ms', label: 'ms' }, { scale: '%', side: 1, label: 'busy %', grid: { show: false } }] },
      [xs, steps.map(function (st) { return st.dur_ns / 1e6; }),
        steps.map(function (st) { return st.dur_ns ? 100 * st.busy_ns / st.dur_ns : 0; })], host);
  }

  if (tl && tl.memory && tl.memory.length) {
    const host = el('div', { class: 'chart', id: 'memory-chart' });
    const owners = (mem.owners || []).map(function (o) { return o.api + ' ' + fmtBytes(o.bytes); }).join(', ');
    // the driver's address space (cuMemAddressReserve, cuMemMap), apart from the memory
    const res = mem.reserved || {}, map = mem.mapped || {};
    const space = res.calls || map.calls ? '; address space ' + fmtBytes(res.peak_bytes || 0) + ' reserved, ' +
      fmtBytes(map.peak_bytes || 0) + ' mapped at most' : '';
    app.appendChild(section('memory', 'Device memory (peak ' + fmtBytes(mem.peak_bytes || 0) + ' at ' +
      fmtTime((mem.peak_at_ns || 0) - tl.t0_ns) + (owners ? '; held by ' + owners : '') + space + ')', [host]));
    chart({ series: [{ label: 'time (' + unitName + ')' }, { label: 'bytes held', stroke: '#3a9a50', width: 1.5,
      fill: 'rgba(58,154,80,0.12)', paths: uPlot.paths ? uPlot.paths.stepped({ align: 1 }) : undefined }],
      scales: { x: { time: false } }, axes: [{ label: unitName + ' from the start' }, { label: 'bytes',
        values: function (u, v) { return v.map(fmtBytes); }, size: 80 }] },
      [tl.memory.map(function (p) { return p[0] / unit; }), tl.memory.map(function (p) { return p[1]; })], host);
  }

  // ---- tables ----------------------------------------------------------------
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

  // ---- GPU time by launch site (with --stacks): a flame graph ------------------
  // uPlot draws series, not trees, and the flame graph libraries on npm
  // need d3 (~250 KB): this one is a few dozen lines of positioned divs,
  // outermost frame at the top; click a frame to zoom in, the top to zoom out.
  if (C.data.flame && C.data.flame.length) {
    const root = { name: 'all GPU time', v: 0, kids: {} };
    C.data.flame.forEach(function (l) {
      let node = root;
      root.v += l[1];
      l[0].split(';').forEach(function (f) {
        node = node.kids[f] || (node.kids[f] = { name: f, v: 0, kids: {} });
        node.v += l[1];
      });
    });
    const host = el('div', { class: 'flame', id: 'flame-graph' });
    app.appendChild(section('flame', 'GPU time by launch site (outermost frame first; the API call, then ' +
      'the kernel or copy; click to zoom)', [host]));
    const ROW = 18;
    function draw(top) {
      host.textContent = '';
      let depth = 0;
      function put(node, x, w, d) {
        if (w < 0.002) return;
        depth = Math.max(depth, d + 1);
        const label = node.name + ' (' + fmtTime(node.v) + ', ' + pct(node.v / root.v) + ')';
        const div = el('div', { class: 'frame', title: label,
          style: 'left:' + (100 * x) + '%;width:' + (100 * w) + '%;top:' + (d * ROW) + 'px;background:hsl(' +
            (20 + (node.name.length * 37) % 40) + ',80%,' + (62 + (d % 3) * 6) + '%)' }, [w > 0.04 ? label : '']);
        div.addEventListener('click', function () { draw(node === top ? root : node); });
        host.appendChild(div);
        let at = x;
        Object.keys(node.kids).map(function (k) { return node.kids[k]; })
          .sort(function (a, b) { return b.v - a.v; })
          .forEach(function (k) { const kw = w * k.v / node.v; put(k, at, kw, d + 1); at += kw; });
      }
      put(top, 0, 1, 0);
      host.style.height = (depth * ROW + 2) + 'px';
    }
    draw(root);
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

  C.done('cuprof ' + (s.version || '') + ' · ' + (s.tool || ''));
})();
