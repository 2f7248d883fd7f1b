// keel console: one page that shows what its path names. Links inside the
// page change the path with the History API, so that every view has a
// link of its own (/threads/{id} opens that thread).

import * as api from "./api.js";
import { clear, status, errorBox } from "./dom.js";
import { agentsView } from "./agents.js";
import { threadsView } from "./threads.js";
import { threadView } from "./thread.js";
import { sandboxView } from "./sandbox.js";
import { refusalsView } from "./refusals.js";

const main = document.getElementById("main");
let current = null; // the running view's AbortController

// navigate shows path, adding it to the history unless replace is set.
export function navigate(path, replace) {
  if (replace) history.replaceState(null, "", path); else history.pushState(null, "", path);
  render();
}

async function render() {
  if (current) current.abort();
  current = new AbortController();
  const signal = current.signal;
  const url = new URL(location.href);
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const q = url.searchParams;
  clear(main);
  markNav(url.pathname);
  status("");
  try {
    await api.whoAmI(signal);
  } catch (err) {
    if (signal.aborted) return;
    main.append(errorBox(err));
    return;
  }
  if (signal.aborted) return;
  showResource();
  let view;
  if (parts[0] === "threads" && parts[1]) {
    view = threadView({ threadId: parts[1], agentId: q.get("agentId"), resourceId: q.get("resourceId"), signal, navigate });
  } else if (parts[0] === "threads") {
    view = threadsView({ agentId: q.get("agentId"), signal, navigate });
  } else if (parts[0] === "agents" && parts[1] && parts[2] === "chat") {
    view = threadView({ agentId: parts[1], signal, navigate, fresh: true });
  } else if (parts[0] === "refusals") {
    view = refusalsView({ signal });
  } else if (parts[0] === "sandbox") {
    view = sandboxView({ agentId: q.get("agentId"), threadId: q.get("threadId"), signal });
  } else {
    view = agentsView({ signal, navigate });
  }
  const el = await view;
  if (signal.aborted) return; // another path was chosen meanwhile
  main.append(el);
  if (document.activeElement === document.body) main.focus({ preventScroll: true });
}

function markNav(path) {
  for (const a of document.querySelectorAll("header nav a")) {
    const href = a.getAttribute("href");
    const on = href === "/" ? path === "/" || path.startsWith("/agents") : path.startsWith(href);
    if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
}

// Same-origin links of the page are followed without a reload.
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[href]");
  if (!a || a.target || a.hasAttribute("download") || e.defaultPrevented || e.button !== 0 ||
      e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", render);
window.addEventListener("keel:path", () => markNav(location.pathname));

// The resource field: who the console acts for.
const resourceInput = document.getElementById("resource");
const recent = document.getElementById("recent-resources");
// A user's resource is the token's: shown, not chosen.
function showResource() {
  const c = api.caller();
  const user = Boolean(c && c.user);
  resourceInput.readOnly = user;
  resourceInput.title = user ? "Your token acts for this resource only" : "";
  if (user || document.activeElement !== resourceInput) resourceInput.value = api.resource();
}
resourceInput.value = api.resource();
const showRecent = () => recent.replaceChildren(...api.recentResources().map((r) => { const o = document.createElement("option"); o.value = r; return o; }));
showRecent();
const chooseResource = () => {
  api.setResource(resourceInput.value.trim());
  showRecent();
  render();
};
document.getElementById("resource-form").addEventListener("submit", (e) => { e.preventDefault(); chooseResource(); });
resourceInput.addEventListener("change", chooseResource);

// The token: asked once when the API says 401, kept for the tab.
const panel = document.getElementById("token-panel");
const tokenForm = document.getElementById("token-form");
const tokenInput = document.getElementById("token-input");
const tokenError = document.getElementById("token-error");
const tokenButton = document.getElementById("token-button");
let waiting = null;
api.onTokenNeeded((why) => {
  if (!waiting) {
    waiting = new Promise((resolve) => {
      tokenError.textContent = why;
      panel.hidden = false;
      tokenInput.value = "";
      tokenInput.focus();
      tokenForm.onsubmit = async (e) => {
        e.preventDefault();
        const before = api.caller(); // who the page was shown for, if it was
        api.setToken(tokenInput.value.trim());
        panel.hidden = true;
        tokenButton.hidden = false;
        waiting = null;
        resolve();
        if (before === null) return;
        // The new token may be another user's: show the page anew for
        // them. The same caller keeps the page as it is, a message being
        // written in it too.
        let now = null;
        try { now = await api.whoAmI(); } catch { /* shown by the render */ }
        if (!now || now.user !== before.user || now.resourceId !== before.resourceId || now.canForgetRefusals !== before.canForgetRefusals) render();
      };
    });
  }
  return waiting;
});
tokenButton.hidden = !api.token();
tokenButton.addEventListener("click", () => {
  api.setToken("");
  tokenButton.hidden = true;
  render();
  status("Token forgotten.");
});

render();
