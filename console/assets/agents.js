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

// modelsOf returns the agent's models in the order it tries them.
function modelsOf(a) {
  const k = a.keel || {};
  return k.models && k.models.length ? k.models : [{ provider: a.provider, modelId: a.modelId }];
}

// modelName writes a model for people; a model keel could not make
// because none was configured is "none".
function modelName(m) {
  return m.provider === "none" && m.modelId === "unconfigured" ? "none" : `${m.provider}/${m.modelId}`;
}

// modelWarning warns, before anything is sent, of an agent whose
// models cannot answer (none configured, no API key): what is missing, in
// the server's words, which name what to set, and where to set it. It is
// null when every model can answer.
export function modelWarning(a) {
  const broken = modelsOf(a).filter((m) => m.unavailable);
  if (broken.length === 0) return null;
  const all = broken.length === modelsOf(a).length;
  return h("div", { class: "warning model-warning", role: "note" },
    h("p", {}, h("strong", {}, all ? "This agent cannot answer: every message gets an error." : "Some of this agent's models cannot answer.")),
    h("ul", {}, broken.map((m) => h("li", {},
      m.provider === "none" ? null : [h("code", {}, modelName(m)), ": "], m.unavailable))),
    h("p", { class: "small" }, "Set the API key or ", h("code", {}, "KEEL_MODEL"), " it names in the environment keel serve runs in, ",
      "or give the agent a model in keel.yaml (", h("code", {}, "model: google/gemini-2.5-flash"), ", say, with that provider's key set); then start keel serve again."));
}

function agentCard(id, a) {
  const k = a.keel || {};
  const models = modelsOf(a);
  const tools = k.tools || Object.keys(a.tools || {});
  const procs = k.processors || [];
  const enc = encodeURIComponent(id);
  const titleId = "agent-" + id.replace(/[^A-Za-z0-9_-]/g, "_");
  return h("article", { class: "card agent", "aria-labelledby": titleId, "data-agent": id },
    h("h2", { id: titleId }, a.name || id, " ", h("code", { class: "muted" }, id)),
    a.description ? h("p", {}, a.description) : null,
    modelWarning(a),
    h("dl", { class: "facts" },
      h("dt", {}, models.length > 1 ? "Models" : "Model"),
      h("dd", {}, models.map((m, i) => [i ? ", then " : "", h("code", {}, modelName(m)), m.unavailable ? h("span", { class: "warn-text" }, " (cannot answer)") : null])),
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
