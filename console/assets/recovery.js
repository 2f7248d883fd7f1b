// What keel did with a turn's files: the recoveries a run reports, live
// (data-keel-recovery events) or stored with the turn (the reply's
// metadata "keelRecoveries"). Values the console does not know are shown
// as they are.

import { h, bytes } from "./dom.js";

export const METADATA_KEY = "keelRecoveries";

// The words come from the server, which sends each recovery with those
// keel's command line and log print: "by" (the processor), "why" (the
// cause) and each file's "got" (what the model got in its place). A
// recovery without them (from a server that sends none) shows its
// fields as they are.

// gotText says what the model got in the file's place.
function gotText(f) {
  return f.got || String(f.outcome || "handled");
}

// whyText says why keel acted.
function whyText(rec) {
  return rec.why || (rec.cause && rec.cause.kind) || "not said";
}

// Each thing keel did with a file is shown once, in one place: on the
// card of the file it concerns when the turn's message holds it (live,
// matched by name and size; stored, by SHA-256), else in a "What keel
// did" list on the turn's message. A turn shows the same live as once
// stored, since the stored list is the one the stream sent.

// processorName names the processor that acted.
function processorName(rec) {
  return rec.by || rec.processor || "a processor";
}

// fileRecovery shows, on a file's card, one thing keel did with the file:
// what the model got in its place, why, and which processor acted.
export function fileRecovery(f, rec) {
  return h("div", { class: "acted recovery", "data-outcome": f.outcome || rec.action || "" },
    h("div", {}, "keel: ", gotText(f)),
    h("div", { class: "cause" }, "Why: ", whyText(rec)),
    h("div", { class: "muted small" }, "By " + processorName(rec)));
}

// unplaced returns recs less the files placed(f) is true of; a recovery
// left with no file is dropped, one that named none is kept.
export function unplaced(recs, placed) {
  const out = [];
  for (const rec of recs || []) {
    if (!rec.files || rec.files.length === 0) {
      out.push(rec);
      continue;
    }
    const files = rec.files.filter((f) => !placed(f));
    if (files.length) out.push({ ...rec, files });
  }
  return out;
}

// renderRecoveries shows recoveries as a labelled list, one item per
// file: those no file card of the turn shows.
export function renderRecoveries(recs, title) {
  const list = h("ul", { class: "recoveries" });
  for (const rec of recs || []) {
    const who = processorName(rec);
    const files = rec.files && rec.files.length ? rec.files : [{ name: "(no file)", outcome: rec.action, got: rec.action }];
    for (const f of files) {
      list.append(h("li", { class: "recovery", "data-outcome": f.outcome || rec.action || "" },
        h("strong", { class: "file-name" }, f.name || "unnamed file"),
        f.mediaType ? h("span", { class: "muted" }, " (" + f.mediaType + (f.size !== undefined ? ", " + bytes(f.size) : "") + ")") : null,
        ": ", gotText(f),
        h("div", { class: "cause" }, "Why: ", whyText(rec)),
        h("div", { class: "muted small" }, "By " + who + (f.sha256 ? " · SHA-256 " + f.sha256 : "")),
      ));
    }
  }
  return h("section", { class: "keel-acted", "aria-label": title }, h("h4", {}, title), list);
}

// storedRecoveries returns the recoveries a stored message carries.
export function storedRecoveries(msg) {
  const md = msg && msg.content && msg.content.metadata;
  const v = md ? md[METADATA_KEY] : null;
  return Array.isArray(v) ? v : [];
}
