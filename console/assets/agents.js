// The agents: what each is made of, and where to use it.

import * as api from "./api.js";
import { h, view, loaded } from "./dom.js";

const SANDBOX = {
  "per-resource": "one per resource (user)",
  "per-thread": "one per thread",
  "shared": "one shared by every run",
  "none": "none",
  "unknown": "yes (sharing not reported)",
};

export async function agentsView({ signal }) {
  const root = view("agents-title", "Agents");
  const agents = await loaded(root, api.agents(signal));
  if (!agents) return root;
  const ids = Object.keys(agents || {});
  if (ids.length === 0) root.append(h("p", {}, "This server has no agents."));
  const list = h("div", { class: "cards" });
  for (const id of ids) list.append(agentCard(id, agents[id]));
  root.append(list);
  return root;
}

function agentCard(id, a) {
  const k = a.keel || {};
  const models = k.models && k.models.length ? k.models : [{ provider: a.provider, modelId: a.modelId }];
  const tools = k.tools || Object.keys(a.tools || {});
  const procs = k.processors || [];
  const enc = encodeURIComponent(id);
  const titleId = "agent-" + id.replace(/[^A-Za-z0-9_-]/g, "_");
  return h("article", { class: "card agent", "aria-labelledby": titleId, "data-agent": id },
    h("h2", { id: titleId }, a.name || id, " ", h("code", { class: "muted" }, id)),
    a.description ? h("p", {}, a.description) : null,
    h("dl", { class: "facts" },
      h("dt", {}, models.length > 1 ? "Models" : "Model"),
      h("dd", {}, models.map((m, i) => [i ? ", then " : "", h("code", {}, `${m.provider}/${m.modelId}`)])),
      h("dt", {}, "Tools"),
      h("dd", {}, tools.length ? tools.map((t, i) => [i ? ", " : "", h("code", {}, t)]) : "none"),
      h("dt", {}, "Sandbox"),
      h("dd", {}, SANDBOX[k.sandbox] || k.sandbox || "not reported"),
      h("dt", {}, "Memory"),
      h("dd", {}, (k.memory ?? a.supportsMemory) ? "keeps threads" : "none"),
      h("dt", {}, "Processors, in order"),
      h("dd", {}, procs.length
        ? h("ol", { class: "procs" }, procs.map((p) => h("li", {}, h("code", {}, p.id), p.hooks && p.hooks.length ? h("span", { class: "muted" }, " (" + p.hooks.join(", ") + ")") : null)))
        : "not reported"),
    ),
    h("p", { class: "actions" },
      h("a", { class: "button", href: `/agents/${enc}/chat` }, "Chat with ", a.name || id),
      " ", h("a", { href: `/threads?agentId=${enc}` }, "Threads"),
      k.sandbox && k.sandbox !== "none" ? [" ", h("a", { href: `/sandbox?agentId=${enc}` }, "Sandbox files")] : null,
    ),
  );
}
