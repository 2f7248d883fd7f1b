// The threads of a resource: title, last update, message count.

import * as api from "./api.js";
import { h, errorBox, when, field, view } from "./dom.js";

const PER_PAGE = 50;

export function threadLink(id, agentId, resourceId) {
  return `/threads/${encodeURIComponent(id)}` + api.query({ agentId, resourceId });
}

export async function threadsView({ agentId, signal, navigate }) {
  const resource = api.resource();
  const root = view("threads-title", "Threads");
  const user = api.caller() && api.caller().user;
  root.append(h("p", { class: "muted" }, user ? ["Your threads: those of resource ", h("code", {}, resource), ", the one your token acts for."]
    : resource ? ["Threads of resource ", h("code", {}, resource), " (change it at the top)."] : "Threads of the resource your token names."));
  const idInput = h("input", { name: "thread", required: true, autocomplete: "off", spellcheck: "false", pattern: "[A-Za-z0-9._:\\-]{1,128}" });
  root.append(h("form", { class: "inline", onsubmit: (e) => {
    e.preventDefault();
    navigate(threadLink(idInput.value.trim(), agentId, resource));
  } }, field("Open thread by id", idInput), h("button", { type: "submit" }, "Open")));

  const table = h("table", { class: "threads" },
    h("caption", { class: "sr-only" }, "Threads, most recently updated first"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Title"), h("th", { scope: "col" }, "Updated"), h("th", { scope: "col" }, "Messages"))));
  const body = h("tbody");
  table.append(body);
  const more = h("button", { type: "button", hidden: true }, "Show more");
  root.append(h("div", { class: "table" }, table), more);
  let page = 0;
  const load = async () => {
    more.disabled = true;
    let data;
    try {
      data = await api.get("/api/memory/threads" + api.query({
        resourceId: resource, agentId, page, perPage: PER_PAGE,
        "orderBy[field]": "updatedAt", "orderBy[direction]": "DESC",
      }), { signal });
    } catch (err) {
      if (!signal.aborted) root.append(errorBox(err));
      return;
    }
    if (page === 0 && data.threads.length === 0) {
      body.append(h("tr", {}, h("td", { colspan: 3 }, "No threads yet. Start one from an agent's chat.")));
    }
    for (const t of data.threads) {
      body.append(h("tr", {},
        h("td", {}, h("a", { href: threadLink(t.id, agentId, resource) }, t.title || "(untitled)"), " ", h("code", { class: "muted small" }, t.id)),
        h("td", {}, when(t.updatedAt)),
        h("td", { class: "num" }, String(t.messageCount ?? "?"))));
    }
    more.hidden = !data.hasMore;
    more.disabled = false;
    page++;
  };
  more.addEventListener("click", load);
  await load();
  return root;
}
