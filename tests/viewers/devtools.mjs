// devtools.mjs - reads a Chrome JSON trace with the trace engine of Chrome
// DevTools' Performance panel (npm @paulirish/trace_engine, run in node: no
// browser needed) and reports the arrows it would draw.
//
//   node tests/viewers/devtools.mjs TRACE.json[.gz]
//
// Prints one JSON object: {events: how many the file holds, flows: [[{ph,
// cat, name, pid, tid, ts}, ...], ...] (each arrow as the events the engine
// bound its ends to, ts in the file's microseconds), threads: [{pid, tid,
// entries, slices}] (the events the panel draws on each thread's row, and
// how many of them are complete "X" events)}. Exit 0 when
// the engine parsed the trace, 1 when it threw, 2 when it could not be run
// (the npm package is not installed).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const [tracePath] = process.argv.slice(2);
if (!tracePath) {
  console.error('usage: devtools.mjs TRACE.json[.gz]');
  process.exit(2);
}

let Trace;
try {
  const require = createRequire(join(here, 'package.json'));
  Trace = await import(pathToFileURL(require.resolve('@paulirish/trace_engine')).href);
} catch (e) {
  console.log(JSON.stringify({ error: `npm package missing (${e.code}); run: npm ci --prefix tests/viewers` }));
  process.exit(2);
}

// The engine expects a browser's DOMRect (its README says so for node).
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, { x, y, width, height });
  }
};

let buf = readFileSync(tracePath);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = gunzipSync(buf);
const file = JSON.parse(buf.toString('utf8'));
const events = file.traceEvents ?? file;

const end = (e) => ({ ph: e.ph, cat: e.cat, name: e.name, pid: e.pid, tid: e.tid, ts: e.ts });
try {
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  // the engine rewrites events in place; it gets its own copy
  await model.parse(JSON.parse(JSON.stringify(events)));
  const parsed = model.parsedTrace();
  const data = parsed.data ?? parsed;
  const flows = data.Flows.flows.map((flow) => flow.map(end));
  const threads = [];
  for (const proc of data.Renderer.processes.values())
    for (const th of proc.threads.values())
      threads.push({ pid: th.entries[0]?.pid ?? null, tid: th.tid ?? th.entries[0]?.tid ?? null,
                     entries: th.entries.length,
                     slices: th.entries.filter((e) => e.ph === 'X').length });
  console.log(JSON.stringify({ events: events.length, flows, threads }));
} catch (e) {
  console.log(JSON.stringify({ error: `the trace engine threw: ${e.stack ?? e}` }));
  process.exit(1);
}
