// Remembered refusals: which model refused which file type, since when and
// until when, and why; each can be forgotten, so that the next file of
// that type is sent to the model again.

import * as api from "./api.js";
import { h, clear, when, status, view, loaded } from "./dom.js";

const COLUMNS = ["Model", "Type", "Learned", "Until", "Evidence"];

export async function refusalsView({ signal }) {
  const root = view("refusals-title", "Remembered refusals");
  root.append(h("p", { class: "muted" }, "When a model refuses a file type, keel remembers it for a while and handles such files before calling it again. Forget one to send the next file of that type to the model."));
  // Refusals are the server's, not a user's: only its own token forgets them.
  const canForget = !api.caller() || api.caller().canForgetRefusals;
  if (!canForget) root.append(h("p", { class: "muted" }, "Your token may read them; only the server's own token can forget one."));
  const out = h("div", { class: "listing" });
  root.append(out);
  const list = async () => {
    clear(out);
    const data = await loaded(out, api.get("/api/keel/refusals", { signal }));
    if (!data) return;
    if (data.refusals.length === 0) {
      out.append(h("p", {}, "No refusal is remembered."));
      return;
    }
    const body = h("tbody");
    for (const r of data.refusals) {
      const forget = h("button", { type: "button", class: "danger" }, "Forget", h("span", { class: "sr-only" }, ` ${r.mediaType} for ${r.provider}/${r.model}`));
      forget.addEventListener("click", async () => {
        forget.disabled = true;
        try {
          const res = await api.request("DELETE", "/api/keel/refusals" + api.query({ provider: r.provider, model: r.model, mediaType: r.mediaType }));
          status(`Forgot ${res.forgotten} refusal${res.forgotten === 1 ? "" : "s"}.`);
          list();
        } catch (err) {
          forget.disabled = false;
          status("Forget failed: " + err.message);
        }
      });
      // Each cell is labelled for the narrow layout, where a refusal is
      // a card and the table's head is not shown.
      body.append(h("tr", { class: r.expired ? "expired" : "" },
        h("td", { "data-label": COLUMNS[0], class: "model" }, h("code", {}, `${r.provider}/${r.model}`)),
        h("td", { "data-label": COLUMNS[1], class: "type" }, h("code", {}, r.mediaType)),
        h("td", { "data-label": COLUMNS[2], class: "date" }, when(r.learnedAt)),
        h("td", { "data-label": COLUMNS[3], class: "date" }, when(r.expiresAt), r.expired ? " (expired)" : ""),
        h("td", { "data-label": COLUMNS[4], class: "evidence" }, r.status ? String(r.status) + " " : "", r.reason || ""),
        canForget ? h("td", { class: "action" }, forget) : null));
    }
    out.append(h("div", { class: "table" }, h("table", { class: "refusals" },
      h("caption", { class: "sr-only" }, "Remembered refusals"),
      h("thead", {}, h("tr", {}, [...COLUMNS, ...(canForget ? ["Action"] : [])].map((c) => h("th", { scope: "col" }, c)))), body)));
  };
  await list();
  return root;
}
