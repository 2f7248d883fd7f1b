// Sets keel's text of each file of convert/testdata/corpus beside the
// text other converters give for it, in one run on the same machine:
// mammoth (docx), SheetJS (@e965/xlsx: xlsx, ods, xls) and LibreOffice's
// own text export (txt for documents, CSV of every sheet for workbooks;
// LibreOffice has no text export for presentations). For each pair it
// prints the share of the peer's words that keel's text holds, and the
// time of each.
//
// Words are runs of letters and digits, compared without case, counted
// with their repeats. keel leaves out what a file hides (hidden text,
// deleted tracked changes, comments unless asked for), which some peers
// print; the share is given whole and without the words of those
// passages, which are listed, and the 98% target applies to the latter.
//
// Times: keel's and the npm libraries' are the mean of conversions in one
// process (after one to warm up, repeated for at least half a second);
// LibreOffice's is the
// wall time of one soffice run, its start included, because that is what
// using it costs.
//
//   scripts/convert-peers.sh
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import mammoth from "mammoth";
import * as XLSX from "@e965/xlsx";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const corpus = join(root, "convert", "testdata", "corpus");
const files = ["report.docx", "report.odt", "report.rtf", "report.doc", "leads.xlsx", "leads.ods", "leads.xls", "deck.pptx", "deck.odp", "deck.ppt"];

// The passages the corpus hides, which keel leaves out by design.
const hiddenPassages = ["Internal note QZHIDDEN.", "Withdrawn figure QZDELETED", "Check this number QZCOMMENT.", "Bo Chen", "Met in March QZSHEETCOMMENT"];

function words(text) {
  const m = new Map();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

function count(m) {
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}

// share returns how many of the peer's words keel's text holds.
function share(peer, keel) {
  let held = 0;
  for (const [w, n] of peer) held += Math.min(n, keel.get(w) ?? 0);
  return held;
}

function without(m, passages) {
  const out = new Map(m);
  for (const p of passages)
    for (const [w, n] of words(p)) {
      if (!out.has(w)) continue;
      const left = out.get(w) - n;
      if (left > 0) out.set(w, left);
      else out.delete(w);
    }
  return out;
}

function timeIt(fn) {
  fn(); // once to warm up
  let n = 0;
  let out;
  const start = process.hrtime.bigint();
  while (n === 0 || process.hrtime.bigint() - start < 500_000_000n) {
    out = fn();
    n++;
  }
  return { out, ms: Number(process.hrtime.bigint() - start) / 1e6 / n };
}

async function timeAsync(fn) {
  await fn(); // once to warm up
  let n = 0;
  let out;
  const start = process.hrtime.bigint();
  while (n === 0 || process.hrtime.bigint() - start < 500_000_000n) {
    out = await fn();
    n++;
  }
  return { out, ms: Number(process.hrtime.bigint() - start) / 1e6 / n };
}

// keel: one process converting every file.
const keel = new Map();
const out = execFileSync("go", ["run", "./test/convert-peers/keeltext", ...files.map((f) => join(corpus, f))], { cwd: root, maxBuffer: 64 << 20 });
for (const line of out.toString().trim().split("\n")) {
  const r = JSON.parse(line);
  keel.set(basename(r.file), r);
}

function libreOffice(file) {
  const dir = mkdtempSync(join(tmpdir(), "keel-peers-"));
  try {
    const spreadsheet = /\.(xlsx|ods|xls)$/.test(file);
    const filter = spreadsheet ? "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1" : "txt:Text (encoded):UTF8";
    const start = process.hrtime.bigint();
    execFileSync("soffice", [`-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--convert-to", filter, "--outdir", join(dir, "out"), join(corpus, file)], { stdio: "ignore", timeout: 300_000 });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const text = readdirSync(join(dir, "out"))
      .sort()
      .map((f) => readFileSync(join(dir, "out", f), "utf8"))
      .join("\n");
    return { out: text, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = [];
for (const file of files) {
  const k = keel.get(file);
  const peers = [];
  const data = readFileSync(join(corpus, file));
  if (file.endsWith(".docx")) peers.push(["mammoth 1.13.0", await timeAsync(async () => (await mammoth.extractRawText({ buffer: data })).value)]);
  if (/\.(xlsx|ods|xls)$/.test(file))
    peers.push([
      "SheetJS (@e965/xlsx 0.20.3)",
      timeIt(() => {
        const wb = XLSX.read(data);
        return wb.SheetNames.map((n) => XLSX.utils.sheet_to_csv(wb.Sheets[n])).join("\n");
      }),
    ]);
  if (!/\.(pptx|odp|ppt)$/.test(file)) peers.push(["LibreOffice 7.4 text export", libreOffice(file)]);
  for (const [name, r] of peers) {
    const pw = words(r.out);
    const kw = words(k.text);
    const adj = without(pw, hiddenPassages);
    rows.push({
      file,
      peer: name,
      peerWords: count(pw),
      whole: share(pw, kw) / Math.max(count(pw), 1),
      shown: share(adj, kw) / Math.max(count(adj), 1),
      keelMs: k.ms,
      peerMs: r.ms,
      missing: [...adj].filter(([w, n]) => (kw.get(w) ?? 0) < n).map(([w]) => w),
    });
  }
  if (peers.length === 0) rows.push({ file, peer: "(none: LibreOffice exports no text from presentations)", keelMs: k.ms });
}

const pct = (x) => (x === undefined ? "–" : (100 * x).toFixed(1) + "%");
const ms = (x) => (x === undefined ? "–" : x < 10 ? x.toFixed(2) + " ms" : x.toFixed(0) + " ms");
console.log("| file | peer | peer's words | held by keel | held, hidden passages aside | keel | peer | peer ÷ keel |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows)
  console.log(`| ${r.file} | ${r.peer} | ${r.peerWords ?? "–"} | ${pct(r.whole)} | ${pct(r.shown)} | ${ms(r.keelMs)} | ${ms(r.peerMs)} | ${r.peerMs ? (r.peerMs / r.keelMs).toFixed(1) + "×" : "–"} |`);
let failed = false;
for (const r of rows)
  if (r.shown !== undefined && r.shown < 0.98) {
    failed = true;
    console.error(`${r.file} against ${r.peer}: keel holds ${pct(r.shown)} of its words; missing: ${r.missing.join(" ")}`);
  }
for (const r of rows) if (r.missing?.length) console.error(`${r.file} / ${r.peer}: words keel's text lacks: ${r.missing.join(" ")}`);
process.exit(failed ? 1 : 0);
