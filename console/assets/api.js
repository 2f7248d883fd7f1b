// The API client: the bearer token (kept for this tab in sessionStorage,
// sent as a header, never in a URL), JSON calls, downloads and the SSE
// stream of a run.

const TOKEN_KEY = "keel.token";
const RESOURCE_KEY = "keel.resource";
const RECENT_KEY = "keel.recentResources";

export function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
export function setToken(t) {
  forgetCaller(); // another token may be another user
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
}

// who is the caller, as GET /api/keel/caller says: {user, resourceId,
// canForgetRefusals}; null until whoAmI has asked. It is kept for the tab
// beside the token, so that a page load does not wait on the question.
const WHO_KEY = "keel.caller";
let who = (() => {
  try { return JSON.parse(sessionStorage.getItem(WHO_KEY) || "null"); } catch { return null; }
})();
export const caller = () => who;
function forgetCaller() {
  who = null;
  sessionStorage.removeItem(WHO_KEY);
}

// whoAmI asks the server who the token is (asking for the token first
// when the server needs one), once per token.
export async function whoAmI(signal) {
  if (!who) {
    who = await get("/api/keel/caller", { signal });
    sessionStorage.setItem(WHO_KEY, JSON.stringify(who));
  }
  return who;
}

// resource is the resource (owner) the console acts for: a user's own
// (per-user auth: the token names it, and no other may be chosen), else
// the one chosen at the top of the page; "" lets the server decide.
export function resource() {
  if (who && who.user) return who.resourceId;
  const v = localStorage.getItem(RESOURCE_KEY);
  // "studio", the page's name before it was the console, so that the
  // threads made then stay in view.
  return v === null ? "studio" : v;
}
export function setResource(r) {
  if (who && who.user) return;
  localStorage.setItem(RESOURCE_KEY, r);
  if (r) localStorage.setItem(RECENT_KEY, JSON.stringify([r, ...recentResources().filter((x) => x !== r)].slice(0, 10)));
}

// recentResources are the last resources chosen here, newest first, to
// choose from again.
export function recentResources() {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) || "[]");
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

// ApiError is a failed call: its status (and its text, "" over HTTP/2)
// and the server's message.
export class ApiError extends Error {
  constructor(status, message, body, statusText = "") {
    super(message);
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

// Whoever shows the token form; it resolves once a token was given.
let askToken = null;
export function onTokenNeeded(fn) { askToken = fn; }

// needToken shows the token form, saying why, and resolves once a token
// was given.
export function needToken(why) { return askToken ? askToken(why) : Promise.resolve(); }

// query builds "?a=1&b=2" from the values that are set.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, v);
  }
  const s = q.toString();
  return s ? "?" + s : "";
}

// request calls the API; a 401 asks for the token and tries again once
// it is given, unless opts.once is set: then the 401 is thrown as any
// other failure (a run is not sent twice behind its caller's back).
export async function request(method, path, body, opts = {}) {
  for (;;) {
    const headers = { ...(opts.headers || {}) };
    const t = token();
    if (t) headers["Authorization"] = "Bearer " + t;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const resp = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.signal, cache: "no-store", credentials: "same-origin",
    });
    if (resp.status === 401 && askToken && !opts.once) {
      await askToken(t ? "That token was refused." : "");
      continue;
    }
    if (opts.raw && resp.ok) return resp;
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if (!resp.ok) {
      // A 403 may be a caller that changed (the server's auth did): ask
      // again on the next view.
      if (resp.status === 403) forgetCaller();
      const msg = data && data.error ? data.error : `${method} ${path}: ${resp.status} ${resp.statusText}`;
      throw new ApiError(resp.status, msg, data, resp.statusText);
    }
    return data;
  }
}

export const get = (path, opts) => request("GET", path, undefined, opts);

// agents lists the server's agents, keyed by id.
export const agents = (signal) => get("/api/agents", { signal });

// download fetches an API file with the token and saves it under name.
export async function download(path, name) {
  const resp = await request("GET", path, undefined, { raw: true });
  const blob = await resp.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name || "file";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return blob.size;
}

// fetchText fetches an API file as text (for a view, never as markup).
export async function fetchText(path) {
  const resp = await request("GET", path, undefined, { raw: true });
  return resp.text();
}

// stream posts a run and calls onEvent with each event of its SSE answer
// ({type, payload, ...}); it resolves when the stream ends. The format is
// strict: "data: <json>\n\n" blocks, ": ping" comments, "data: [DONE]".
// A run the server refuses (any status but 200, a 401 too) throws an
// ApiError before onOpen is called; onOpen tells that the server took
// the run, so that a failure after it is one midway.
export async function stream(agentId, body, onEvent, signal, onOpen) {
  const resp = await request("POST", `/api/agents/${encodeURIComponent(agentId)}/stream`, body, { raw: true, once: true, signal });
  if (onOpen) onOpen();
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (!block.startsWith("data: ")) continue; // a keep-alive comment
      const data = block.slice(6);
      if (data === "[DONE]") return;
      let ev;
      try { ev = JSON.parse(data); } catch { continue; }
      onEvent(ev);
    }
    if (done) return;
  }
}
