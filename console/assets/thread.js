// A thread: its messages in order, what keel did on each turn, and the
// chat that continues it (files by picker or drag and drop, the answer
// streamed, keel's recoveries shown as they happen).

import * as api from "./api.js";
import { h, clear, bytes, when, errorBox, status, field, loaded } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { renderRecoveries, storedRecoveries, fileRecovery, unplaced } from "./recovery.js";
import { modelWarning } from "./agents.js";

function newThreadId() {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return "console-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export async function threadView({ threadId, agentId, resourceId, signal, fresh, navigate }) {
  const resource = resourceId || api.resource();
  const tid = threadId || newThreadId();
  const root = h("section", { class: "thread", "aria-labelledby": "thread-title" });
  const title = h("h1", { id: "thread-title" }, fresh ? "New chat" : "Thread");
  const meta = h("p", { class: "muted small" }, "Thread ", h("code", {}, tid), resource ? [" of resource ", h("code", {}, resource)] : null);
  const transcript = h("ol", { class: "transcript", "aria-label": "Messages" });
  const activity = h("ol", { class: "activity", role: "log", "aria-live": "polite", "aria-label": "Retries and failures, live" });
  const activityBox = h("section", { class: "activity-box", hidden: true, "aria-labelledby": "activity-title" },
    h("h2", { id: "activity-title" }, "Live: retries and failures"), activity);
  root.append(title, meta, transcript);

  const ctx = { tid, resource, signal, transcript, title, agentId };
  // The agents (for the composer) and the thread are fetched at once.
  const loading = fresh ? null : load(ctx, root);
  const agents = (await loaded(root, api.agents(signal))) || {};
  if (!ctx.agentId || !agents[ctx.agentId]) ctx.agentId = Object.keys(agents)[0] || ctx.agentId;
  if (fresh) {
    title.textContent = "New chat with " + ((agents[ctx.agentId] && agents[ctx.agentId].name) || ctx.agentId || "an agent");
    transcript.append(h("li", { class: "empty muted" }, "No messages yet."));
  } else {
    await loading;
    const sb = agents[ctx.agentId] && agents[ctx.agentId].keel && agents[ctx.agentId].keel.sandbox;
    if (sb && sb !== "none") {
      meta.append(" · ", h("a", { href: "/sandbox" + api.query({ agentId: ctx.agentId, threadId: tid }) }, "Sandbox files"));
    }
    if (ctx.stored) meta.append(" · ", deleteButton(ctx, navigate));
  }
  root.append(activityBox, composer(ctx, agents, activity, activityBox, root));
  return root;
}

// load shows the stored thread.
async function load(ctx, root) {
  const path = `/api/memory/threads/${encodeURIComponent(ctx.tid)}`;
  try {
    const [th, page] = await Promise.all([
      api.get(path + api.query({ resourceId: ctx.resource }), { signal: ctx.signal }),
      api.get(path + "/messages" + api.query({ resourceId: ctx.resource, perPage: "false", fileData: "false" }), { signal: ctx.signal }),
    ]);
    ctx.stored = true;
    ctx.title.textContent = th.title || "Untitled thread";
    document.title = (th.title || ctx.tid) + " · keel console";
    // Marks for whoever measures the page (keel's browser test does).
    performance.mark("keel-thread-fetched");
    renderMessages(ctx, page.messages);
    void ctx.transcript.offsetHeight; // style and layout, so that the measure covers them
    performance.measure("keel-thread-render", "keel-thread-fetched");
  } catch (err) {
    if (ctx.signal.aborted) return;
    if (err.status === 404) {
      // The server answers another resource's thread as a missing one.
      ctx.title.textContent = "Thread not found";
      clear(ctx.transcript).append(h("li", { class: "empty muted" }, ctx.resource ? ["No thread of resource ", h("code", {}, ctx.resource), " has this id."] : "No thread has this id.",
        " What you send starts a thread with it."));
    } else {
      root.append(errorBox(err));
    }
  }
}

// renderMessages shows stored messages. What keel did with a file on a
// turn is shown on the file's card, found by its SHA-256 among the turn's
// files (the first card of those bytes); what concerns no file of the
// turn, on the message that stores it.
export function renderMessages(ctx, messages) {
  clear(ctx.transcript);
  if (messages.length === 0) ctx.transcript.append(h("li", { class: "empty muted" }, "No messages yet."));
  const frag = document.createDocumentFragment();
  let turn = [];
  const flush = () => {
    const digests = new Set();
    for (const m of turn) {
      for (const p of (m.content && m.content.parts) || []) if (p.type === "file" && p.sha256) digests.add(p.sha256);
    }
    const placed = (f) => Boolean(f.sha256) && digests.has(f.sha256);
    const byDigest = new Map();
    for (const m of turn) {
      for (const rec of storedRecoveries(m)) {
        for (const f of rec.files || []) {
          if (!placed(f)) continue;
          if (!byDigest.has(f.sha256)) byDigest.set(f.sha256, []);
          byDigest.get(f.sha256).push({ f, rec });
        }
      }
    }
    for (const m of turn) {
      const item = messageItem(ctx, m, byDigest, placed, shown);
      if (item) frag.append(item);
    }
    turn = [];
  };
  // A tool call is stored with its result, and the tool's message holds
  // the result again: each call is shown once.
  const shown = new Set();
  for (const m of messages) {
    if (m.role === "user" && turn.some((x) => x.role !== "user")) flush();
    turn.push(m);
  }
  flush();
  ctx.transcript.append(frag);
}

// deleteButton deletes the thread, once confirmed: its messages and the
// files uploaded for it to the sandbox.
function deleteButton(ctx, navigate) {
  const btn = h("button", { type: "button", class: "quiet delete-thread" }, "Delete thread");
  btn.addEventListener("click", async () => {
    if (!confirm("Delete this thread, its messages and the files uploaded for it?")) return;
    btn.disabled = true;
    try {
      await api.request("DELETE", `/api/memory/threads/${encodeURIComponent(ctx.tid)}` + api.query({ resourceId: ctx.resource }));
      status("Thread deleted.");
      navigate("/threads");
    } catch (err) {
      btn.disabled = false;
      status("Delete failed: " + err.message);
    }
  });
  return btn;
}

function roleLabel(role) {
  return role === "user" ? "You" : role === "assistant" ? "Agent" : role;
}

function messageItem(ctx, m, byDigest, placed, shown) {
  const body = h("div", { class: "body" });
  let fileIndex = 0;
  for (const p of (m.content && m.content.parts) || []) {
    if (p.type === "text") body.append(h("div", { class: "md" }, renderMarkdown(p.text)));
    else if (p.type === "file") {
      const acted = byDigest.get(p.sha256);
      byDigest.delete(p.sha256); // shown on this card, not again on another of the same bytes
      body.append(fileItem(ctx, m, p, fileIndex++, acted));
    } else if (p.type === "tool-invocation") {
      const inv = p.toolInvocation || {};
      if (inv.toolCallId && shown.has(inv.toolCallId)) continue;
      if (inv.toolCallId) shown.add(inv.toolCallId);
      body.append(toolItem(inv));
    }
  }
  const recs = storedRecoveries(m);
  const rest = unplaced(recs, placed);
  if (rest.length) body.append(renderRecoveries(rest, "What keel did on this turn"));
  // A run's recoveries are stored on its input only when it failed.
  if (recs.length && m.role === "user") body.append(h("p", { class: "run-failed muted small" }, "The run failed after keel handled this turn's files: no answer was stored."));
  if (!body.hasChildNodes()) return null;
  return h("li", { class: "msg " + m.role, "data-id": m.id || "" },
    h("div", { class: "who" }, h("span", { class: "role" }, roleLabel(m.role)), " ", m.createdAt ? when(m.createdAt) : null),
    body);
}

function toolItem(inv) {
  const pretty = (v) => { try { return JSON.stringify(v, null, 2); } catch { return String(v); } };
  return h("details", { class: "tool" },
    h("summary", {}, "Tool ", h("code", {}, inv.toolName || "?"), inv.state === "result" ? (inv.isError ? " failed" : " returned") : " called"),
    h("p", { class: "small" }, "Input"), h("pre", {}, pretty(inv.args ?? {})),
    inv.state === "result" ? [h("p", { class: "small" }, "Result"), h("pre", {}, pretty(inv.result))] : null);
}

// fileItem shows a stored file: name, type, exact size, SHA-256, a
// download, and what keel did with it on this turn (acted: [{f, rec}]).
function fileItem(ctx, m, p, n, acted) {
  const name = p.filename || "(unnamed)";
  const facts = h("dl", { class: "facts small" },
    h("dt", {}, "Type"), h("dd", {}, p.mimeType || "none given"),
    h("dt", {}, "Size"), h("dd", { class: "size" }, p.size !== undefined ? bytes(p.size) : "kept by URL"),
    p.sha256 ? [h("dt", {}, "SHA-256"), h("dd", {}, h("code", { class: "digest" }, p.sha256))] : null,
    !p.sha256 && p.data ? [h("dt", {}, "URL"), h("dd", {}, h("code", {}, p.data))] : null);
  const el = h("div", { class: "file", role: "group", "aria-label": "File " + name }, h("div", { class: "file-name" }, name), facts);
  if (p.size !== undefined && m.id) {
    const path = `/api/memory/threads/${encodeURIComponent(ctx.tid)}/messages/${encodeURIComponent(m.id)}/files/${n}` + api.query({ resourceId: ctx.resource });
    const btn = h("button", { type: "button", class: "download" }, "Download ", h("span", { class: "sr-only" }, name));
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      try {
        const size = await api.download(path, p.filename || "file");
        status(`Downloaded ${name} (${bytes(size)}).`);
      } catch (err) {
        status("Download failed: " + err.message);
      } finally {
        btn.disabled = false;
      }
    });
    el.append(btn);
  }
  for (const { f, rec } of acted || []) el.append(fileRecovery(f, rec));
  if ((acted || []).some(({ f }) => f.outcome === "converted") && m.id && ctx.agentId) el.append(textViewer(ctx, m, n, name));
  return el;
}

// textViewer shows, on demand, the text the agent's converters make of a
// stored file: what the model read in its place.
function textViewer(ctx, m, n, name) {
  const out = h("pre", { class: "converted", hidden: true, tabindex: "0", "aria-label": "Text of " + name });
  const btn = h("button", { type: "button", class: "quiet view-text", "aria-expanded": "false" }, "Show the text the model read");
  btn.addEventListener("click", async () => {
    if (!out.hidden) {
      out.hidden = true;
      btn.setAttribute("aria-expanded", "false");
      btn.textContent = "Show the text the model read";
      return;
    }
    btn.disabled = true;
    try {
      if (!out.textContent) {
        const path = `/api/memory/threads/${encodeURIComponent(ctx.tid)}/messages/${encodeURIComponent(m.id)}/files/${n}/text` +
          api.query({ agentId: ctx.agentId, resourceId: ctx.resource });
        const res = await api.get(path);
        out.textContent = res.text + (res.omittedChars ? `\n[${res.omittedAtLeast ? "at least " : ""}${res.omittedChars} more characters were left out]` : "");
      }
      out.hidden = false;
      btn.setAttribute("aria-expanded", "true");
      btn.textContent = "Hide the text";
    } catch (err) {
      status("Could not get the text: " + err.message);
    } finally {
      btn.disabled = false;
    }
  });
  return h("div", { class: "text-viewer" }, btn, out);
}

// The composer: a message and files, sent to the agent's stream.

const TYPES = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  pdf: "application/pdf", csv: "text/csv", txt: "text/plain", md: "text/markdown", json: "application/json",
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", zip: "application/zip",
};

function typeOf(file) {
  if (file.type) return file.type;
  const ext = (/\.([A-Za-z0-9]+)$/.exec(file.name) || [])[1];
  return TYPES[(ext || "").toLowerCase()] || "application/octet-stream";
}

function readDataURL(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

function composer(ctx, agents, activity, activityBox, root) {
  const files = [];
  const text = h("textarea", { name: "text", rows: 3, placeholder: "Write a message (Ctrl+Enter sends)" });
  const picker = h("input", { type: "file", multiple: true, name: "files" });
  const chosen = h("ul", { class: "chosen", "aria-label": "Files to send" });
  const agentSelect = h("select", { name: "agent" }, Object.entries(agents).map(([id, a]) =>
    h("option", { value: id, selected: id === ctx.agentId }, (a.name || id) + " (" + id + ")")));
  const send = h("button", { type: "submit" }, "Send");
  const errorLine = h("p", { class: "error", role: "alert" });
  // An agent that cannot answer says so before anything is sent.
  const warning = h("div", { class: "agent-warning" });
  const warn = () => warning.replaceChildren(...[agents[agentSelect.value] && modelWarning(agents[agentSelect.value])].filter(Boolean));
  agentSelect.addEventListener("change", warn);
  warn();

  const showChosen = () => {
    clear(chosen);
    files.forEach((f, i) => chosen.append(h("li", {}, h("span", {}, f.name), h("span", { class: "muted" }, " " + typeOf(f) + ", " + bytes(f.size)), " ",
      h("button", { type: "button", class: "quiet", onclick: () => { files.splice(i, 1); showChosen(); } }, "Remove ", h("span", { class: "sr-only" }, f.name)))));
  };
  const add = (list) => { for (const f of list) files.push(f); showChosen(); };
  picker.addEventListener("change", () => { add(picker.files); picker.value = ""; });

  const form = h("form", { class: "composer", "aria-label": "Send a message" },
    field("Agent", agentSelect), warning,
    field("Message", text),
    h("div", { class: "drop" }, field("Attach files (or drop them here)", picker), chosen),
    h("p", {}, send), errorLine);
  form.addEventListener("dragover", (e) => { e.preventDefault(); form.classList.add("dragging"); });
  form.addEventListener("dragleave", () => form.classList.remove("dragging"));
  form.addEventListener("drop", (e) => {
    e.preventDefault();
    form.classList.remove("dragging");
    if (e.dataTransfer && e.dataTransfer.files) add(e.dataTransfer.files);
  });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    errorLine.textContent = "";
    const message = text.value;
    if (!message.trim() && files.length === 0) { errorLine.textContent = "Write a message or attach a file."; return; }
    ctx.agentId = agentSelect.value;
    // A turn that was not sent is in the composer again: its marks in
    // the transcript go.
    for (const el of ctx.transcript.querySelectorAll(".msg.live.unsent")) el.remove();
    const sending = files.splice(0);
    showChosen();
    send.disabled = true;
    try {
      const stopped = await sendTurn(ctx, message, sending, activity, activityBox);
      text.value = "";
      history.replaceState(null, "", `/threads/${encodeURIComponent(ctx.tid)}` + api.query({ agentId: ctx.agentId, resourceId: ctx.resource === api.resource() ? "" : ctx.resource }));
      window.dispatchEvent(new Event("keel:path")); // the page's own path changed
      // An answer cut off keeps what it showed, and why it stopped.
      if (!stopped) await load(ctx, root);
    } catch (err) {
      if (ctx.signal.aborted) return;
      if (err instanceof NotSent) {
        // Nothing was sent: the message is still in its box, and the
        // files go back to theirs.
        files.unshift(...sending);
        showChosen();
      } else {
        errorLine.textContent = err.message;
      }
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

// NotSent is a turn the server refused before running it (no model,
// a refused token, a body too large) or that never reached it: nothing
// of it was stored, and it can be sent again as it is.
class NotSent extends Error {
  constructor(cause) {
    super(cause.message);
    this.cause = cause;
  }
}

// failure says what the server answered, or that it did not.
function failure(err) {
  if (err instanceof api.ApiError) return `the server answered ${err.status}${err.statusText ? " " + err.statusText : ""}: ${err.message}`;
  return `the connection to the server failed (${err.message})`;
}

// nextStep says what to do about a turn the server refused.
function nextStep(err) {
  const back = "Your message and files are back in the box below";
  switch (err instanceof api.ApiError ? err.status : 0) {
    case 401:
      return back + ": give a token the server accepts (the form at the top), then send again.";
    case 413:
      return back + ": send fewer or smaller files.";
    case 503:
      return back + ": send them again once the server can answer.";
    default:
      return back + ": send them again.";
  }
}

// sendTurn streams one turn, showing it live. It throws NotSent when the
// server refused the turn before running it, and returns true when the
// answer stopped midway (shown in its place), false when it ended.
async function sendTurn(ctx, message, files, activity, activityBox) {
  const content = [];
  if (message.trim()) content.push({ type: "text", text: message });
  for (const f of files) {
    content.push({ type: "file", data: await readDataURL(f), mediaType: typeOf(f), filename: f.name });
  }
  const empty = ctx.transcript.querySelector(".empty");
  if (empty) empty.remove();
  const cards = files.map((f) => ({ f, el: h("div", { class: "file", role: "group", "aria-label": "File " + f.name }, h("div", { class: "file-name" }, f.name),
    h("p", { class: "small muted" }, typeOf(f) + ", " + bytes(f.size))) }));
  const userBody = h("div", { class: "body" }, message ? h("div", { class: "md" }, renderMarkdown(message)) : null, cards.map((c) => c.el));
  const userWho = h("div", { class: "who" }, h("span", { class: "role" }, "You"));
  const userItem = h("li", { class: "msg user live" }, userWho, userBody);
  const answer = h("div", { class: "streaming", "aria-live": "polite" });
  const botBody = h("div", { class: "body" }, answer);
  const botState = h("span", { class: "muted" }, "answering…");
  const botItem = h("li", { class: "msg assistant live", "aria-busy": "true" }, h("div", { class: "who" }, h("span", { class: "role" }, "Agent"), " ", botState), botBody);
  ctx.transcript.append(userItem, botItem);
  // What keel did with a file goes on its card, as once stored; the rest
  // in one list on the answer.
  const rest = [];
  let restBox = null;
  const placeRecovery = (rec) => {
    const left = unplaced([rec], (f) => {
      const card = cards.find((c) => c.f.name === f.name && c.f.size === f.size);
      if (card) card.el.append(fileRecovery(f, rec));
      return Boolean(card);
    });
    if (left.length === 0) return;
    rest.push(...left);
    const box = renderRecoveries(rest, "What keel did on this turn");
    if (restBox) restBox.replaceWith(box); else botBody.append(box);
    restBox = box;
  };
  const body = { messages: [{ role: "user", content }], memory: { thread: ctx.tid } };
  if (ctx.resource) body.memory.resource = ctx.resource;
  let failed = null;
  let opened = false;
  const events = (ev) => {
    const p = ev.payload || {};
    switch (ev.type) {
      case "text-delta":
        answer.append(p.text || "");
        break;
      case "data-keel-retry":
        answer.textContent = "";
        note(activity, activityBox, "The model call failed after it began to answer; its output is void and the call is tried again.");
        break;
      case "data-keel-recovery":
        placeRecovery(p);
        break;
      case "tool-call":
        botBody.append(toolItem({ toolName: p.toolName, args: p.args, state: "call" }));
        break;
      case "tool-result":
        botBody.append(toolItem({ toolName: p.toolName, result: p.result, isError: p.isError, state: "result" }));
        break;
      case "error":
        failed = (p.error && p.error.message) || "the run failed";
        botBody.append(h("p", { class: "error", role: "alert" }, "The run failed: ", failed));
        break;
    }
  };
  try {
    await api.stream(ctx.agentId, body, events, ctx.signal, () => { opened = true; });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    botItem.removeAttribute("aria-busy");
    botItem.classList.add("failed");
    if (opened) {
      botState.textContent = "stopped";
      botBody.append(h("p", { class: "error", role: "alert" }, "The answer stopped: ", failure(err)));
      status("The answer stopped.");
      return true;
    }
    // Refused before it ran: nothing of it was stored.
    userItem.classList.add("unsent");
    botItem.classList.add("unsent");
    userWho.append(" ", h("span", { class: "muted" }, "not sent"));
    botState.textContent = "did not answer";
    botBody.replaceChildren(h("p", { class: "error send-error", role: "alert" }, "Not sent: ", failure(err)), h("p", { class: "small" }, nextStep(err)));
    status("Not sent.");
    if (err instanceof api.ApiError && err.status === 401) api.needToken("The server refused the token: give one it accepts, then send again.");
    throw new NotSent(err);
  }
  if (failed) note(activity, activityBox, "The run failed: " + failed);
  status(failed ? "The run failed." : "Answer received.");
  return false;
}

function note(activity, box, text) {
  box.hidden = false;
  activity.append(h("li", {}, text));
}
