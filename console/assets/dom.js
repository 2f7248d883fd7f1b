// DOM helpers. Every text that comes from a user, a model or the server
// becomes a text node: nothing here parses HTML.

// h makes an element: h("a", {href: "/x", class: "c"}, "text", child).
// Attributes are set with setAttribute (on* attributes are refused);
// children are nodes or strings (text nodes). Null children are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) {
      if (typeof v !== "function") throw new Error("console: event handler must be a function: " + k);
      el.addEventListener(k.slice(2), v);
    } else if (v === true) {
      el.setAttribute(k, "");
    } else {
      el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

// append adds children (nodes, strings, arrays of them) to el.
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

// clear removes every child of el.
export function clear(el) {
  el.replaceChildren();
  return el;
}

const byteFormat = new Intl.NumberFormat("en");

// bytes writes an exact size: "48,213 bytes".
export function bytes(n) {
  if (n === null || n === undefined) return "size unknown";
  return byteFormat.format(n) + (n === 1 ? " byte" : " bytes");
}

// when writes a date for people, with the exact time in a title.
export function when(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return h("span", {}, String(iso || ""));
  return h("time", { datetime: d.toISOString(), title: d.toISOString() }, d.toLocaleString());
}

// status tells something in the page's status line (a polite live region).
export function status(text) {
  const el = document.getElementById("status");
  if (el) el.textContent = text;
}

// errorBox shows an error as text, with a role that screen readers
// announce.
export function errorBox(err) {
  return h("p", { class: "error", role: "alert" }, String(err && err.message ? err.message : err));
}

// view makes a view's section, labelled by its heading.
export function view(id, title) {
  return h("section", { "aria-labelledby": id }, h("h1", { id }, title));
}

// loaded waits for promise and returns its value, or shows its error in
// root and returns null.
export async function loaded(root, promise) {
  try {
    return await promise;
  } catch (err) {
    root.append(errorBox(err));
    return null;
  }
}

// field makes a labelled input.
export function field(label, input) {
  const id = input.id || "f-" + Math.random().toString(36).slice(2);
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}
