// What keel did with a turn's files: the recoveries a run reports, live
// (data-keel-recovery events) or stored with the turn (the reply's
// metadata "keelRecoveries"). Values the console does not know are shown
// as they are.

import { h, bytes } from "./dom.js";

export const METADATA_KEY = "keelRecoveries";

const count = new Intl.NumberFormat("en");

const PROCESSORS = {
  "unsupported-file-handler": "Unsupported File Handler",
  "file-upload": "File Upload",
};

// outcomeText says what the model got in the file's place.
export function outcomeText(f) {
  const conv = f.conversion;
  switch (f.outcome) {
    case "uploaded":
      return ["uploaded to the sandbox at ", h("code", { class: "path" }, f.path || "?")];
    case "not-uploaded":
      return ["not uploaded: ", f.reason || "no reason given"];
    case "placeholder":
      return ["replaced by a placeholder: ", h("code", {}, `[Attachment unavailable: ${f.name}]`)];
    case "provider-file":
      return ["sent by reference, from the provider's file store: ", h("code", {}, f.ref || "?")];
    case "converted": {
      const out = ["converted to text"];
      if (conv) {
        out.push(` (${conv.as || "text"}${conv.description ? ", " + conv.description : ""}, ${count.format(conv.chars)} characters`);
        if (conv.omittedChars) out.push(`, ${conv.omittedAtLeast ? "at least " : ""}${count.format(conv.omittedChars)} left out`);
        out.push(")");
      }
      if (f.path) out.push(" and uploaded to the sandbox at ", h("code", { class: "path" }, f.path));
      else if (f.reason) out.push("; not uploaded: ", f.reason);
      return out;
    }
    default:
      return [String(f.outcome || "handled")];
  }
}

// causeText says why keel acted.
export function causeText(c) {
  if (!c) return "chosen by the agent's rule, not after an error";
  switch (c.kind) {
    case "api-error": {
      const who = c.provider || "the provider";
      const what = c.status ? `answered ${c.status}` : "failed without an answer";
      return `${who} ${what}${c.code ? " " + c.code : ""}${c.message ? ": " + c.message : ""}`;
    }
    case "unsupported-functionality":
      return `the provider's SDK refused it before sending${c.message ? ": " + c.message : ""}`;
    case "remembered-refusal": {
      const model = [c.provider, c.model].filter(Boolean).join("/") || "the model";
      let s = `${model} refused ${c.mediaType || "this type"} before, so keel did not send it again`;
      if (c.learnedAt) s += ` (learned ${new Date(c.learnedAt).toLocaleString()}`;
      if (c.expiresAt) s += `${c.learnedAt ? ", " : " ("}remembered until ${new Date(c.expiresAt).toLocaleString()}`;
      if (c.learnedAt || c.expiresAt) s += ")";
      if (c.status || c.message) s += `; evidence: ${c.status || ""} ${c.message || ""}`.trimEnd();
      return s;
    }
    case "inline-limit": {
      const model = [c.provider, c.model].filter(Boolean).join("/") || "the model";
      return `too large to go inline to ${model}${c.message ? ": " + c.message : ""}`;
    }
    default:
      return [c.kind, c.status, c.message].filter(Boolean).join(" ") || "unknown cause";
  }
}

// Each thing keel did with a file is shown once, in one place: on the
// card of the file it concerns when the turn's message holds it (live,
// matched by name and size; stored, by SHA-256), else in a "What keel
// did" list on the turn's message. A turn shows the same live as once
// stored, since the stored list is the one the stream sent.

// processorName names the processor that acted.
function processorName(rec) {
  return PROCESSORS[rec.processor] || rec.processor || "a processor";
}

// fileRecovery shows, on a file's card, one thing keel did with the file:
// what the model got in its place, why, and which processor acted.
export function fileRecovery(f, rec) {
  return h("div", { class: "acted recovery", "data-outcome": f.outcome || rec.action || "" },
    h("div", {}, "keel: ", outcomeText(f)),
    h("div", { class: "cause" }, "Why: ", causeText(rec.cause)),
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
    const files = rec.files && rec.files.length ? rec.files : [{ name: "(no file)", outcome: rec.action }];
    for (const f of files) {
      list.append(h("li", { class: "recovery", "data-outcome": f.outcome || rec.action || "" },
        h("strong", { class: "file-name" }, f.name || "unnamed file"),
        f.mediaType ? h("span", { class: "muted" }, " (" + f.mediaType + (f.size !== undefined ? ", " + bytes(f.size) : "") + ")") : null,
        ": ", outcomeText(f),
        h("div", { class: "cause" }, "Why: ", causeText(rec.cause)),
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
