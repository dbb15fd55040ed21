// speedscope.mjs - opens a speedscope file in speedscope (npm) in headless
// Chromium and reports what the viewer drew.
//
//   node tests/viewers/speedscope.mjs PROFILE.json SCREENSHOT.png NAME...
//
// Serves speedscope's release build and PROFILE on 127.0.0.1, loads it the
// way a user's link does (#profileURL=), switches to the Left Heavy view and
// records every string speedscope draws on its canvases (the flame graph's
// labels are fillText calls). The screenshot is saved, then decoded in the
// page to count the frames' fills in the flame graph's area (they are drawn
// with WebGL; a failed render leaves the area white).
//
// Prints one JSON object: {title, profiles: [{name, total}] (as speedscope
// shows them), drawn: [...], missing: [...], fills, errors: [...],
// warnings: [...] (the console's: speedscope's import warnings)}. Exit 0
// when every NAME was drawn and the screenshot shows the frames, 1 when not,
// 2 when the viewer could not be run at all (no Chromium, no speedscope).
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const [profilePath, shotPath, ...names] = process.argv.slice(2);
if (!profilePath || !shotPath) {
  console.error('usage: speedscope.mjs PROFILE.json SCREENSHOT.png NAME...');
  process.exit(2);
}

function fail(why) {
  console.log(JSON.stringify({ error: why }));
  process.exit(2);
}

const require = createRequire(join(here, 'package.json'));
let chromium, release;
try {
  ({ chromium } = require('playwright-core'));
  release = join(dirname(require.resolve('speedscope/package.json')), 'dist', 'release');
} catch (e) {
  fail(`npm packages missing (${e.code}); run: npm ci --prefix tests/viewers`);
}
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(browserPath)) fail(`no Chromium at ${browserPath}`);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.woff2': 'font/woff2', '.ico': 'image/x-icon', '.txt': 'text/plain' };
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  let file = url.pathname === '/profile.json' ? profilePath : join(release, url.pathname);
  if (url.pathname === '/') file = join(release, 'index.html');
  if (!file.startsWith(release) && file !== profilePath) file = '';
  try {
    const body = readFileSync(file);
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

// In the page: decodes a PNG screenshot and counts the frame fills below the
// toolbar and minimap: colours, not grey, that cover 400 pixels or more
// (labels' anti-aliasing makes many colours of few pixels each).
async function countFills(b64) {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width;
  c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const top = Math.floor(img.height * 0.15);
  const px = ctx.getImageData(0, top, img.width, img.height - top).data;
  const count = new Map();
  for (let i = 0; i < px.length; i += 4) {
    const r = px[i], g = px[i + 1], b = px[i + 2];
    if (Math.max(r, g, b) - Math.min(r, g, b) < 16) continue;
    const k = (r << 16) | (g << 8) | b;
    count.set(k, (count.get(k) || 0) + 1);
  }
  let n = 0;
  for (const v of count.values()) if (v >= 400) n++;
  return n;
}

const errors = [], warnings = [];
let browser;
try {
  browser = await chromium.launch({
    executablePath: browserPath,
    // Root in a container: no sandbox. WebGL through SwiftShader (no GPU).
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
} catch (e) {
  server.close();
  fail(`Chromium did not start: ${String(e.message).split('\n')[0]}`);
}

let result;
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  page.on('pageerror', (e) => errors.push(String(e.message)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
  await page.addInitScript(() => {
    window.__drawn = new Set();
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      window.__drawn.add(String(text));
      return fill.call(this, text, ...rest);
    };
  });
  await page.goto(`${base}/#profileURL=${base}/profile.json`);
  const view = page.locator('div', { hasText: /^⬅️Left Heavy$/ });
  await view.waitFor({ timeout: 20000 });
  // The profiles speedscope read, with the total weight it shows for each
  // (its profile switcher's table).
  const profiles = await page.$$eval('tr[title]', (rows) => rows.map((r) => ({
    name: r.title, total: r.lastElementChild.textContent })));
  await page.evaluate(() => window.__drawn.clear());
  await view.click();
  // Labels are drawn on animation frames: wait until every name is there
  // (or 10 s, then report what is missing).
  await page.waitForFunction((want) => want.every((n) => window.__drawn.has(n)), names,
    { timeout: 10000 }).catch(() => {});
  const drawn = await page.evaluate(() => [...window.__drawn]);
  // The frames' fills are WebGL, composited a frame or more after the labels:
  // take screenshots until one shows them (at most 10 s).
  let fills = 0;
  for (let t = 0; t < 20 && fills < 4; t++) {
    if (t) await page.waitForTimeout(500);
    const shot = await page.screenshot({ path: shotPath });
    fills = await page.evaluate(countFills, shot.toString('base64'));
  }
  const title = await page.title();
  const missing = names.filter((n) => !drawn.includes(n));
  result = { title, profiles, drawn, missing, fills, errors, warnings };
} catch (e) {
  result = { title: '', profiles: [], drawn: [], missing: names, fills: 0,
    errors: [...errors, String(e.message).split('\n')[0]], warnings };
}
await browser.close();
server.close();
console.log(JSON.stringify(result));
process.exit(result.missing.length === 0 && result.fills >= 4 ? 0 : 1);
