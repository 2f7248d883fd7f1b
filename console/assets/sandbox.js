// A resource's sandbox: the files in it (uploads and what tools wrote),
// to download or delete.

import * as api from "./api.js";
import { h, clear, bytes, when, errorBox, status, field, view, loaded } from "./dom.js";

export async function sandboxView({ agentId, threadId, signal }) {
  const root = view("sandbox-title", "Sandbox files");
  const agents = await loaded(root, api.agents(signal));
  if (!agents) return root;
  const withSandbox = Object.entries(agents).filter(([, a]) => !a.keel || a.keel.sandbox !== "none");
  if (withSandbox.length === 0) {
    root.append(h("p", {}, "No agent of this server has a sandbox."));
    return root;
  }
  if (!agentId || !withSandbox.some(([id]) => id === agentId)) agentId = withSandbox[0][0];
  const select = h("select", { name: "agent" }, withSandbox.map(([id, a]) => h("option", { value: id, selected: id === agentId }, (a.name || id) + " (" + id + ")")));
  const thread = h("input", { name: "thread", value: threadId || "", autocomplete: "off", spellcheck: "false", placeholder: "only for a sandbox per thread" });
  const out = h("div", { class: "listing" });
  const form = h("form", { class: "inline" }, field("Agent", select), field("Thread", thread), h("button", { type: "submit" }, "List files"));
  root.append(form, out);
  const list = async () => {
    clear(out);
    const id = select.value;
    const q = api.query({ resourceId: api.resource(), threadId: thread.value.trim() });
    const base = `/api/agents/${encodeURIComponent(id)}/sandbox/files`;
    let data;
    try {
      data = await api.get(base + q, { signal });
    } catch (err) {
      if (!signal.aborted) out.append(errorBox(err));
      return;
    }
    out.append(h("p", { class: "muted" }, `Sandbox ${data.mode}`, data.workDir ? [", seen by commands as ", h("code", {}, data.workDir)] : null,
      `: ${data.files.length} file${data.files.length === 1 ? "" : "s"}`, data.truncated ? " (the listing was cut)" : "", "."));
    if (data.files.length === 0) return;
    const body = h("tbody");
    for (const f of data.files) {
      const path = base + "/" + f.path.split("/").map(encodeURIComponent).join("/") + q;
      const name = f.path.split("/").pop();
      const dl = h("button", { type: "button" }, "Download", h("span", { class: "sr-only" }, " " + f.path));
      dl.addEventListener("click", async () => {
        try {
          await api.download(path, name);
          status("Downloaded " + f.path + ".");
        } catch (err) { status("Download failed: " + err.message); }
      });
      const del = h("button", { type: "button", class: "danger" }, "Delete", h("span", { class: "sr-only" }, " " + f.path));
      del.addEventListener("click", async () => {
        if (!confirm("Delete " + f.path + " from the sandbox?")) return;
        try {
          await api.request("DELETE", path);
          status("Deleted " + f.path + ".");
          list();
        } catch (err) { status("Delete failed: " + err.message); }
      });
      body.append(h("tr", {}, h("td", {}, h("code", { class: "path" }, f.path)), h("td", { class: "num" }, bytes(f.size)),
        h("td", {}, when(f.modifiedAt)), h("td", { class: "actions" }, dl, " ", del)));
    }
    out.append(h("div", { class: "table" }, h("table", {},
      h("caption", { class: "sr-only" }, "Files of the sandbox"),
      h("thead", {}, h("tr", {}, ["Path", "Size", "Modified", "Actions"].map((c) => h("th", { scope: "col" }, c)))), body)));
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); list(); });
  await list();
  return root;
}
