// report.mjs - opens a NAME.report.html in headless Chromium, as a person
// would (a file:// URL, no server), and reports what the page did.
//
//   node tests/viewers/report.mjs REPORT.html SCREENSHOT.png [HEIGHT]
//
// (HEIGHT: the screenshot is the page's top HEIGHT pixels, not all of it:
// how the README's picture was taken.)
// Every request the page makes after its own file is counted (it must make
// none) and refused; console errors and uncaught exceptions are kept. Once
// the page says it is ready (body[data-ready]), each chart's canvas is read
// back: a chart is drawn when its canvas has painted pixels. The headline
// numbers are taken from their data-v attributes. A full-page screenshot is
// saved for a person to look at.
//
// Prints one JSON object: {title, requests: [...], errors: [...], charts,
// drawn, values: {key: value}, sections: [ids], load_ms: from asking for
// the page to its body[data-ready] (bench/report_html.sh reads it)}. Exit 0 when it could look,
// 2 when it could not (no Chromium, no playwright-core).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const [reportPath, shotPath, clipHeight] = process.argv.slice(2);
if (!reportPath || !shotPath) {
  console.error('usage: report.mjs REPORT.html SCREENSHOT.png');
  process.exit(2);
}
function fail(why) {
  console.log(JSON.stringify({ error: why }));
  process.exit(2);
}
const require = createRequire(join(here, 'package.json'));
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  fail(`npm packages missing (${e.code}); run: npm ci --prefix tests/viewers`);
}
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(browserPath)) fail(`no Chromium at ${browserPath}`);

let browser;
try {
  browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
} catch (e) {
  fail(`Chromium did not start: ${String(e.message).split('\n')[0]}`);
}
const url = pathToFileURL(resolve(reportPath)).href;
const requests = [], errors = [];
let result;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => errors.push(String(e.message)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url) return route.continue();
    requests.push(u);
    return route.abort();
  });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: 15000 });
  const loadMs = Date.now() - t0;
  const charts = await page.$$eval('.chart canvas', (cs) => cs.map((c) => {
    const ctx = c.getContext('2d');
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i]) painted++;
    return painted;
  }));
  const values = await page.$$eval('[data-k]', (es) =>
    Object.fromEntries(es.map((e) => [e.getAttribute('data-k'), e.getAttribute('data-v')])));
  const sections = await page.$$eval('section', (ss) => ss.map((x) => x.id));
  await page.screenshot(clipHeight ? { path: shotPath, fullPage: true, clip: { x: 0, y: 0, width: 1400, height: Number(clipHeight) } }
    : { path: shotPath, fullPage: true });
  result = { title: await page.title(), requests, errors, charts: charts.length,
    drawn: charts.filter((p) => p > 100).length, values, sections, load_ms: loadMs };
} catch (e) {
  result = { title: '', requests, errors: errors.concat([String(e.message).split('\n')[0]]), charts: 0,
    drawn: 0, values: {}, sections: [] };
}
await browser.close();
console.log(JSON.stringify(result));
process.exit(0);
