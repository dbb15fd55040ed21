// common.js - what every cuprof page shares (formats/html/README.md): number
// formatting, building elements, sortable tables and uPlot charts. The
// pages (report.js, compare.js, merged.js) come after it in the same file
// and reach it as window.cuprof.
window.cuprof = (function () {
  'use strict';
  const app = document.getElementById('app');
  const charts = [];

  function fmtTime(ns) {
    if (ns === null || ns === undefined) return '-';
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return ns + ' ns';
  }
  function fmtBytes(b) {
    if (b === null || b === undefined) return '-';
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0, v = b;
    while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i ? v.toFixed(2) : String(v)) + ' ' + u[i];
  }
  function pct(x) { return x === null || x === undefined ? '-' : (100 * x).toFixed(1) + '%'; }
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
  // A headline number; its raw value in data-v (the tests read it).
  function num(key, label, raw, shown) {
    return el('div', { class: 'num' }, [
      el('div', { class: 'label', text: label }),
      el('div', { class: 'value', 'data-k': key, 'data-v': String(raw), text: shown })]);
  }
  function findingList(findings, where) {
    const fl = el('ul', { class: 'findings' });
    findings.forEach(function (f, i) {
      const to = where[f.rule];
      fl.appendChild(el('li', { class: 'finding ' + f.severity, id: 'finding-' + i }, [
        el('span', { class: 'sev', text: f.severity }),
        el('b', { text: f.rule }), ': ' + f.message,
        to ? el('a', { href: '#' + to, text: ' (see)' }) : null,
        f.advice ? el('div', { class: 'advice', text: 'try: ' + f.advice }) : null]));
    });
    return findings.length ? fl : el('p', { text: 'No finding.' });
  }

  function width() { return Math.max(480, Math.min(1200, app.clientWidth - 32)); }
  // A uPlot chart in host (opts: uPlot's, without the size), or a line
  // saying the library is missing from this page.
  function chart(opts, rows, host, height) {
    if (typeof uPlot === 'undefined') {
      host.appendChild(el('p', { class: 'warn', text: 'The chart library was not built into this page.' }));
      return null;
    }
    const h = height || 220;
    const c = new uPlot(Object.assign({ width: width(), height: h }, opts), rows, host);
    charts.push([c, h]);
    return c;
  }
  // Bars for a chart's series (uPlot's own bar paths).
  // size: the share of a column the bar takes; at most 200 px, so nested
  // bars (0.7, 0.45, 0.2) keep their proportions.
  function bars(size) {
    const f = size || 0.6;
    return typeof uPlot !== 'undefined' && uPlot.paths && uPlot.paths.bars ?
      uPlot.paths.bars({ size: [f, 200 * f] }) : undefined;
  }
  // Axis steps for counts (steps, calls): whole numbers only.
  const wholeIncrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];
  const colors = ['#2a7ab9', '#c4512d', '#3a9a50', '#8a4fb0', '#b08a1f', '#2aa5a5', '#b0306a', '#607080'];

  // A table whose columns sort on a click. cols: [{title, get, fmt, num}].
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
          return el('td', { class: c.num ? 'n' : '', text: c.fmt ? c.fmt(v) : (v === null ? '-' : String(v)) });
        })));
      });
    }
    function sortBy(ci) {
      desc = ci === lastCol ? !desc : true;
      lastCol = ci;
      const g = cols[ci].get;
      order.sort(function (a, b) {
        const x = g(a), y = g(b);
        if (x === null || y === null) return (x === null) - (y === null);
        const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
        return desc ? -c : c;
      });
      render();
    }
    render();
    return t;
  }

  // The end of every page: the footer, charts that follow the window's
  // width, and body[data-ready] (the number of charts) for the tests.
  function done(what) {
    app.appendChild(el('footer', { text: what +
      ' · this page fetches nothing: its data and chart library (uPlot) are inside it' }));
    window.addEventListener('resize', function () {
      charts.forEach(function (c) { c[0].setSize({ width: width(), height: c[1] }); });
    });
    document.body.setAttribute('data-ready', String(charts.length));
  }

  return {
    data: JSON.parse(document.getElementById('cuprof-data').textContent),
    app: app, fmtTime: fmtTime, fmtBytes: fmtBytes, pct: pct, el: el, section: section, num: num,
    findingList: findingList, chart: chart, bars: bars, colors: colors, wholeIncrs: wholeIncrs, table: table, done: done,
  };
})();
