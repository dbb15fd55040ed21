// compare.js - the compare page (prof.sh compare --html FILE A B ...;
// formats/html/README.md), after common.js in the same file.
//
// Reads {compare: the cuprof.compare/1 document (prof.sh compare --json),
// summaries: [each run's summary.json object, in run order]} and shows the
// runs side by side, the differences first: each run's headline numbers,
// what changed (kernels in only some runs, epilogues, findings, the largest
// moves), the overview as nested bars per run, the kernels (a chart and a
// table, changed rows first), the steps, the API calls and the findings.
(function () {
  'use strict';
  const C = window.cuprof;
  const cmp = C.data.compare || {};
  const sums = C.data.summaries || [];
  const runs = cmp.runs || [];
  const app = C.app, el = C.el, section = C.section, num = C.num, fmtTime = C.fmtTime, pct = C.pct;
  const L = runs.map(function (r) { return r.label; });

  function v(series, r) { return series && series.values ? series.values[r] : null; }
  // '~' before a median that run's summary took from a sketch (more samples than
  // its exact bound: within 1%), as prof.sh compare's text marks it
  let sketchedShown = false;
  function sk(series, r) {
    const on = !!(series && series.sketched && series.sketched[r]);
    if (on) sketchedShown = true;
    return on ? '~' : '';
  }
  function ratioText(series, r) {
    const x = series && series.ratio ? series.ratio[r] : null;
    return x === null || x === undefined ? '-' : x.toFixed(2) + 'x';
  }

  // ---- header: every run's headline numbers --------------------------------
  app.appendChild(el('header', {}, [
    el('h1', { text: 'cuprof compare: ' + runs.map(function (r) { return r.label + ' = ' + r.name; }).join(', ') }),
    el('div', { class: 'sub', text: 'run A is the base of every delta and ratio' })].concat(runs.map(function (r, i) {
    const s = sums[i] || {}, g = s.gpu || {}, k = s.kernels || [], m = s.memory || {};
    return el('div', { class: 'nums run' }, [
      el('div', { class: 'runlabel', text: r.label }),
      num('wall-' + r.label, 'wall time', s.wall_ns, fmtTime(s.wall_ns)),
      num('gpu-busy-' + r.label, 'GPU busy', g.busy_ns || 0, fmtTime(g.busy_ns || 0) +
        (g.idle_share !== undefined ? '  (idle ' + pct(g.idle_share) + ')' : '')),
      num('top-kernel-' + r.label, 'top kernel', k.length ? k[0].name : '', k.length ? k[0].name : '(none)'),
      num('peak-memory-' + r.label, 'device memory peak', m.peak_bytes || 0, C.fmtBytes(m.peak_bytes || 0))]);
  }))));

  // ---- what changed ----------------------------------------------------------
  const changes = [];
  (cmp.kernels_not_in_every_run || []).forEach(function (k) { changes.push(k.message); });
  (cmp.epilogue_changes || []).forEach(function (e) { changes.push(e.message || JSON.stringify(e)); });
  (cmp.findings || []).forEach(function (f) {
    const sev = f.severity || [];
    if (sev.some(function (x) { return x !== sev[0]; }))
      changes.push('finding ' + f.rule + ': ' + sev.map(function (x, i) { return L[i] + ' ' + (x || 'none'); }).join(', '));
  });
  const ov = cmp.overview || {};
  const names = { wall_ns: 'wall time', cpu_in_cuda_calls_ns: 'CPU time in CUDA calls', gpu_busy_ns: 'GPU busy',
    kernel_launches: 'kernel launches', kernel_gpu_total_ns: 'kernel GPU time',
    launch_latency_median_ns: 'launch latency (median)' };
  Object.keys(names).forEach(function (key) {
    const s = ov[key];
    for (let r = 1; s && r < L.length; r++) {
      const x = s.ratio ? s.ratio[r] : null;
      if (x !== null && x !== undefined && (x > 1.1 || x < 0.9))
        changes.push(names[key] + ': ' + L[r] + ' is ' + x.toFixed(2) + 'x of A (' +
          (key === 'kernel_launches' ? v(s, 0) + ' -> ' + v(s, r)
            : sk(s, 0) + fmtTime(v(s, 0)) + ' -> ' + sk(s, r) + fmtTime(v(s, r))) + ')');
    }
  });
  app.appendChild(section('changes', 'What changed', [changes.length ?
    el('ul', { class: 'changes' }, changes.map(function (c, i) {
      return el('li', { 'data-k': 'change-' + i, 'data-v': c, text: c });
    })) :
    el('p', { text: 'No kernel, epilogue or finding differs, and no headline number moved by 10% or more.' }),
    sketchedShown ? el('p', { class: 'sub', 'data-k': 'sketched-legend', 'data-v': '1',
      text: '~: a median from a sketch (more samples than its exact bound), within 1% of the exact one' }) : null]));

  // ---- overview: nested bars per run ---------------------------------------
  {
    const host = el('div', { class: 'chart', id: 'overview-chart' });
    app.appendChild(section('overview', 'Overview per run (ms): wall time, and inside it the GPU busy ' +
      'time and the CPU time in CUDA calls', [host]));
    const xs = L.map(function (_, i) { return i; });
    function ms(key) { return L.map(function (_, r) { const x = v(ov[key], r); return x === null ? null : x / 1e6; }); }
    C.chart({ series: [{ label: 'run', value: function (u, x) { return x === null ? '' : L[x] || ''; } },
      { label: 'wall time', stroke: '#2a7ab9', fill: 'rgba(42,122,185,0.25)', paths: C.bars(0.7) },
      { label: 'GPU busy', stroke: '#3a9a50', fill: 'rgba(58,154,80,0.55)', paths: C.bars(0.45) },
      { label: 'CPU in CUDA calls', stroke: '#c4512d', fill: 'rgba(196,81,45,0.6)', paths: C.bars(0.2) }],
    scales: { x: { time: false, range: [-0.6, L.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi * 1.05]; } } },
    axes: [{ splits: function () { return xs; }, values: function (u, vs) { return vs.map(function (x) { return L[x] || ''; }); } },
      { label: 'ms' }] },
    [xs, ms('wall_ns'), ms('gpu_busy_ns'), ms('cpu_in_cuda_calls_ns')], host);
  }

  // ---- kernels side by side, changed rows first ------------------------------
  const kern = (cmp.kernels || []).slice();
  function kDiff(k) {
    const g = k.gpu_total_ns || {};
    let missing = 0, d = 0;
    for (let r = 0; r < L.length; r++) {
      if (v(g, r) === null) missing = 1;
      if (g.delta && g.delta[r] !== null) d = Math.max(d, Math.abs(g.delta[r]));
    }
    return missing * 1e18 + d + Math.max.apply(null, L.map(function (_, r) { return v(g, r) || 0; })) * 1e-9;
  }
  kern.sort(function (a, b) { return kDiff(b) - kDiff(a); });
  if (kern.length) {
    const top = kern.slice(0, 12);
    const host = el('div', { class: 'chart', id: 'kernels-chart' });
    // grouped bars: kernel k's bar for run r at x = k + offset(r)
    const w = 0.8 / L.length, xs = [], rows = [];
    top.forEach(function (_, k) { L.forEach(function (_, r) { xs.push(k - 0.4 + w * (r + 0.5)); }); });
    const series = [{ label: 'kernel', value: function (u, x) { return x === null ? '' : 'K' + (Math.round(x) + 1); } }];
    L.forEach(function (label, r) {
      rows.push(xs.map(function (_, i) {
        if (i % L.length !== r) return null;
        const x = v(top[Math.floor(i / L.length)].gpu_total_ns, r);
        return x === null ? null : x / 1e3;
      }));
      series.push({ label: label + ' GPU total (us)', stroke: C.colors[r % C.colors.length],
        fill: C.colors[r % C.colors.length] + '99', paths: C.bars(0.9) });
    });
    const legend = el('ol', { class: 'klegend' }, top.map(function (k) { return el('li', { text: k.name }); }));
    app.appendChild(section('kernels', 'Kernels side by side (GPU time; changed first: in only some runs, then ' +
      'by the largest change)', [host, legend]));
    C.chart({ series: series, scales: { x: { time: false, range: [-0.6, top.length - 0.4] } },
      axes: [{ splits: function () { return top.map(function (_, k) { return k; }); },
        values: function (u, vs) { return vs.map(function (x) { return 'K' + (x + 1); }); } }, { label: 'us' }] },
    [xs].concat(rows), host);
    const cols = [{ title: 'Kernel', get: function (k) { return k.name; } }];
    L.forEach(function (label, r) {
      cols.push({ title: label + ' launches', num: 1, get: function (k) { return v(k.launches, r); } });
      cols.push({ title: label + ' GPU total', num: 1, get: function (k) { return v(k.gpu_total_ns, r); }, fmt: fmtTime });
      if (r) cols.push({ title: label + ' vs A', num: 1, get: function (k) { return k.gpu_total_ns.ratio ? k.gpu_total_ns.ratio[r] : null; },
        fmt: function (x) { return x === null || x === undefined ? '-' : x.toFixed(2) + 'x'; } });
    });
    app.lastChild.appendChild(C.table('kernels', cols, kern));
  }

  // ---- steps -------------------------------------------------------------------
  const withSteps = sums.filter(function (s) { return (s.step_list || []).length; });
  if (withSteps.length) {
    const host = el('div', { class: 'chart', id: 'steps-chart' });
    let most = 0;
    sums.forEach(function (s) { most = Math.max(most, (s.step_list || []).length); });
    const xs = [];
    for (let i = 1; i <= most; i++) xs.push(i);
    app.appendChild(section('steps', 'Step time per run (ms)', [host]));
    C.chart({ series: [{ label: 'step' }].concat(L.map(function (label, r) {
      return { label: label, stroke: C.colors[r % C.colors.length], width: 2, points: { show: true } };
    })), scales: { x: { time: false } }, axes: [{ label: 'step', incrs: C.wholeIncrs }, { label: 'ms' }] },
    [xs].concat(sums.map(function (s) {
      return xs.map(function (i) { const st = (s.step_list || [])[i - 1]; return st ? st.dur_ns / 1e6 : null; });
    })), host);
  }

  // ---- API calls and findings side by side -------------------------------------
  const api = cmp.api || [];
  if (api.length) {
    const cols = [{ title: 'Name', get: function (a) { return a.name; } }];
    L.forEach(function (label, r) {
      cols.push({ title: label + ' calls', num: 1, get: function (a) { return v(a.calls, r); } });
      cols.push({ title: label + ' CPU total', num: 1, get: function (a) { return v(a.cpu_total_ns, r); }, fmt: fmtTime });
      if (r) cols.push({ title: label + ' vs A', num: 1, get: function (a) { return a.cpu_total_ns.ratio ? a.cpu_total_ns.ratio[r] : null; },
        fmt: function (x) { return x === null || x === undefined ? '-' : x.toFixed(2) + 'x'; } });
    });
    app.appendChild(section('api', 'API calls side by side (click a column to sort)', [C.table('api', cols, api)]));
  }
  const fnd = cmp.findings || [];
  if (fnd.length) {
    const cols = [{ title: 'Finding', get: function (f) { return f.rule; } }];
    L.forEach(function (label, r) {
      cols.push({ title: label, get: function (f) { return (f.severity || [])[r] || 'none'; } });
    });
    app.appendChild(section('findings', 'Findings per run', [C.table('findings', cols, fnd)]));
  }
  C.done('cuprof compare of ' + L.length + ' runs · overview ratio of B to A: ' + ratioText(ov.wall_ns, 1) + ' wall time');
})();
