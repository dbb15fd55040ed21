// merged.js - the merged page (prof.sh merge --html: NAME.merged.report.html;
// formats/html/README.md), after common.js in the same file.
//
// Reads {merged: NAME.merged.summary.json's object (cuprof.merged/1),
// ranks: [{rank, steps: [[start ns from the job's first step, duration,
// GPU busy], ...], waits: [ns waited in each group of meetings_per_point
// collectives]}], meetings_per_point} (formats/merge/merge_html.c) and
// shows the job: the headline numbers and findings (the straggler first),
// each rank's step times, each rank's waits in the collectives, the ranks
// side by side (wall, GPU busy, waited in collectives) and the spread of every
// kernel and call across ranks. Past 16 ranks (heat: {ranks_per_row,
// steps_per_col, steps, rows, step_ns, wait_ns}, ranks: []) a rank x step
// heatmap of step time and of the waits in the collectives takes the place
// of a line per rank, and the header names the slowest ranks, not each one.
(function () {
  'use strict';
  const C = window.cuprof;
  const mg = C.data.merged || {};
  const rk = C.data.ranks || [];
  const per = C.data.meetings_per_point || 1;
  const ranks = mg.ranks || [];
  const app = C.app, el = C.el, section = C.section, num = C.num, fmtTime = C.fmtTime;
  const findings = mg.findings || [];
  const strag = findings.filter(function (f) { return f.rule === 'straggler'; })[0];

  app.appendChild(el('header', {}, [
    el('h1', { text: 'cuprof merge: ' + (mg.name || '?') + ', ' + ranks.length + ' rank' +
      (ranks.length === 1 ? '' : 's') + (mg.world_size > 0 ? ' of ' + mg.world_size : '') }),
    el('div', { class: 'sub', text: 'clocks: ' + ((mg.alignment || {}).method || '?') }),
    el('div', { class: 'nums' }, [
      num('ranks', 'ranks', ranks.length, String(ranks.length)),
      num('straggler', 'straggler', strag ? strag.numbers.rank : '', strag ? 'rank ' + strag.numbers.rank : 'none'),
      num('meetings', 'collectives matched', mg.meetings || 0, String(mg.meetings || 0)),
      num('clock-error', 'clock error', (mg.alignment || {}).error_ns || 0, fmtTime((mg.alignment || {}).error_ns || 0))]),
    ranks.length <= 16 ? el('div', { class: 'nums' }, ranks.map(function (r) {
      return num('wall-rank' + r.rank, 'rank ' + r.rank + ' wall', r.wall_ns, fmtTime(r.wall_ns));
    })) : el('div', { class: 'nums' }, (mg.slowest_ranks || []).slice(0, 5).map(function (r, i) {
      return num('slow' + i, (i ? '' : 'slowest: ') + 'rank ' + r.rank + ' late by', r.late_ns, fmtTime(r.late_ns));
    }))]));
  app.appendChild(section('findings', 'Findings', [C.findingList(findings,
    { straggler: 'waits', load_imbalance: 'ranks', unmatched_collectives: 'waits', missing_ranks: 'ranks' })]));

  // A heatmap on a canvas: a cell per (rank group, step group), darker =
  // more; the title of the canvas says what a row and a column hold.
  function heatmap(id, title, cells, fromMedian, legend) {
    const h = C.data.heat;
    const flat = [].concat.apply([], cells);
    let lo = 0, hi = flat.reduce(function (a, v) { return Math.max(a, v); }, 0);
    if (fromMedian) {
      const sorted = flat.slice().sort(function (a, b) { return a - b; });
      lo = sorted[(sorted.length - 1) >> 1] || 0;
      hi = Math.max(hi, lo * 1.1);
    }
    const rows = cells.length, cols = rows ? cells[0].length : 0;
    const cw = Math.max(2, Math.min(8, Math.floor(900 / Math.max(cols, 1)))), ch = Math.max(2, Math.min(8, Math.floor(512 / Math.max(rows, 1))));
    const cv = el('canvas', { id: id + '-canvas', width: String(cols * cw), height: String(rows * ch),
      title: 'a row: ' + h.ranks_per_row + ' rank(s), a column: ' + h.steps_per_col + ' step(s)' });
    const g = cv.getContext && cv.getContext('2d');
    for (let r = 0; g && r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const v = cells[r][c], x = hi > lo && v > lo ? (v - lo) / (hi - lo) : 0;
        g.fillStyle = 'rgb(' + Math.round(255 - 60 * x) + ',' + Math.round(250 - 190 * x) + ',' + Math.round(240 - 200 * x) + ')';
        g.fillRect(c * cw, r * ch, cw, ch);
      }
    cv.addEventListener('mousemove', function (e) {
      const c = Math.floor(e.offsetX / cw), r = Math.floor(e.offsetY / ch);
      if (r >= 0 && r < rows && c >= 0 && c < cols)
        cv.title = 'ranks from ' + h.rows[r] + ', steps from ' + (c * h.steps_per_col + 1) + ': ' + fmtTime(cells[r][c]);
    });
    app.appendChild(section(id, title, [el('div', { class: 'sub', text: legend + ' (scale ' + fmtTime(lo) + ' .. ' +
      fmtTime(hi) + '; rows: ranks ' + h.rows[0] + '..' + (ranks.length ? ranks[ranks.length - 1].rank : '?') +
      ', ' + h.ranks_per_row + ' a row; columns: steps 1..' + h.steps + ', ' + h.steps_per_col + ' a column)' }), cv]));
  }
  if (C.data.heat) {
    heatmap('heat-steps', 'Step time, rank x step', C.data.heat.step_ns, true,
      'a cell: the slowest of its ranks\' mean step time; white: the median or less');
    if (mg.meetings)
      heatmap('heat-waits', 'Waited in the collectives, rank x step', C.data.heat.wait_ns, false,
        'a cell: the least one of its ranks waited a step (the straggler waits least: its row is the pale one)');
    app.appendChild(section('slowest', 'Slowest ranks (latest at the collectives)', [C.table('slowest', [
      { title: 'Rank', num: 1, get: function (r) { return r.rank; } },
      { title: 'Late (sum over the collectives)', num: 1, get: function (r) { return r.late_ns; }, fmt: fmtTime },
      { title: 'Last at', num: 1, get: function (r) { return r.last_arrivals; } }], mg.slowest_ranks || [])]));
  }
  function rankSeries() {
    return rk.map(function (r, i) {
      return { label: 'rank ' + r.rank, stroke: C.colors[i % C.colors.length], width: 1.5, points: { show: true } };
    });
  }
  const most = rk.reduce(function (a, r) { return Math.max(a, r.steps.length); }, 0);
  if (most) {
    const host = el('div', { class: 'chart', id: 'steps-chart' });
    const xs = [];
    for (let i = 1; i <= most; i++) xs.push(i);
    app.appendChild(section('steps', 'Step time per rank (ms)', [host]));
    C.chart({ series: [{ label: 'step' }].concat(rankSeries()), scales: { x: { time: false } },
      axes: [{ label: 'step', incrs: C.wholeIncrs }, { label: 'ms' }] },
    [xs].concat(rk.map(function (r) {
      return xs.map(function (i) { const st = r.steps[i - 1]; return st ? st[1] / 1e6 : null; });
    })), host);
  }
  const nw = rk.reduce(function (a, r) { return Math.max(a, r.waits.length); }, 0);
  if (nw) {
    const host = el('div', { class: 'chart', id: 'waits-chart' });
    const xs = [];
    for (let i = 0; i < nw; i++) xs.push(i * per + 1);
    app.appendChild(section('waits', 'Waits in the collectives per rank (ms: the last arrival minus the ' +
      'rank\'s own' + (per > 1 ? ', summed ' + per + ' collectives at a time' : '') + ')', [host]));
    C.chart({ series: [{ label: 'collective' }].concat(rankSeries()), scales: { x: { time: false } },
      axes: [{ label: 'collective (in call order)', incrs: C.wholeIncrs }, { label: 'ms' }] },
    [xs].concat(rk.map(function (r) { return xs.map(function (_, i) { return i < r.waits.length ? r.waits[i] / 1e6 : null; }); })),
    host);
  }
  if (ranks.length && rk.length) {
    const host = el('div', { class: 'chart', id: 'ranks-chart' });
    const xs = ranks.map(function (_, i) { return i; });
    app.appendChild(section('ranks', 'Ranks side by side (ms): wall time, and inside it GPU busy and the time ' +
      'the rank waited in collectives for the last one', [host]));
    function ms(k) { return ranks.map(function (r) { return r[k] / 1e6; }); }
    const waited = ranks.map(function (r, i) {
      return (rk[i] ? rk[i].waits : []).reduce(function (a, w) { return a + w; }, 0);
    });
    C.chart({ series: [{ label: 'rank', value: function (u, x) { return x === null ? '' : 'rank ' + ranks[x].rank; } },
      { label: 'wall', stroke: '#2a7ab9', fill: 'rgba(42,122,185,0.25)', paths: C.bars(0.7) },
      { label: 'GPU busy', stroke: '#3a9a50', fill: 'rgba(58,154,80,0.55)', paths: C.bars(0.45) },
      { label: 'waited in collectives', stroke: '#c4512d', fill: 'rgba(196,81,45,0.6)', paths: C.bars(0.2) }],
    scales: { x: { time: false, range: [-0.6, ranks.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi * 1.05]; } } },
    axes: [{ splits: function () { return xs; }, values: function (u, vs) { return vs.map(function (x) { return 'rank ' + ranks[x].rank; }); } },
      { label: 'ms' }] }, [xs, ms('wall_ns'), ms('gpu_busy_ns'), waited.map(function (w) { return w / 1e6; })], host);
    app.lastChild.appendChild(C.table('ranks', [
      { title: 'Rank', num: 1, get: function (r) { return r.rank; } },
      { title: 'Host', get: function (r) { return r.host || '?'; } },
      { title: 'Pid', num: 1, get: function (r) { return r.pid; } },
      { title: 'Wall', num: 1, get: function (r) { return r.wall_ns; }, fmt: fmtTime },
      { title: 'Self CPU', num: 1, get: function (r) { return r.self_cpu_total_ns; }, fmt: fmtTime },
      { title: 'In MPI', num: 1, get: function (r) { return r.mpi_ns; }, fmt: fmtTime },
      { title: 'Waited in collectives', num: 1, get: function (r) { return waited[ranks.indexOf(r)]; }, fmt: fmtTime },
      { title: 'GPU busy', num: 1, get: function (r) { return r.gpu_busy_ns; }, fmt: fmtTime },
      { title: 'Last at', num: 1, get: function (r) { return r.last_arrivals; } },
      { title: 'Late total', num: 1, get: function (r) { return r.late_ns; }, fmt: fmtTime }], ranks));
  }
  function spread(id, title, rows) {
    if (!rows || !rows.length) return;
    app.appendChild(section(id, title, [C.table(id, [
      { title: 'Name', get: function (x) { return x.name; } },
      { title: 'Min', num: 1, get: function (x) { return x.min_ns; }, fmt: fmtTime },
      { title: 'Median', num: 1, get: function (x) { return x.median_ns; }, fmt: fmtTime },
      { title: 'Max', num: 1, get: function (x) { return x.max_ns; }, fmt: fmtTime },
      { title: 'Min rank', num: 1, get: function (x) { return x.min_rank; } },
      { title: 'Max rank', num: 1, get: function (x) { return x.max_rank; } }], rows.slice(0, 100))]));
  }
  spread('kernels', 'Kernels across ranks (GPU total per rank)', mg.kernels);
  spread('api', 'Calls across ranks (CPU total per rank)', mg.api);
  C.done('cuprof merge of ' + ranks.length + ' ranks');
})();
