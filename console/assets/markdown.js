// A small Markdown renderer that builds DOM nodes: every piece of the
// source becomes a text node or an element made here, so HTML in a
// message is shown as the characters it is, never as markup. It knows
// what models write: headings, paragraphs, emphasis, inline code, fenced
// code, lists, quotes, rules, links (http, https and mailto only) and
// pipe tables.

import { h } from "./dom.js";

export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  const lines = String(src).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) { i++; continue; }
    let m;
    if ((m = /^(\s*)(```+|~~~+)\s*([^`\s]*)/.exec(line))) {
      const fence = m[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
      i++;
      const code = h("code", m[3] ? { "data-lang": m[3] } : {}, body.join("\n"));
      frag.append(h("pre", {}, code));
      continue;
    }
    if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      // Headings of a message sit below the page's own.
      frag.append(inline(h("h" + Math.min(6, m[1].length + 2), { class: "md-h" }), m[2]));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { frag.append(h("hr")); i++; continue; }
    if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
      frag.append(h("blockquote", {}, renderMarkdown(body.join("\n"))));
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) { i = list(lines, i, frag); continue; }
    if (line.includes("|") && i + 1 < lines.length && /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      i = table(lines, i, frag);
      continue;
    }
    const para = [];
    while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^(#{1,6}\s|\s*```|\s*~~~|\s*>|\s*([-*+]|\d+[.)])\s+)/.test(lines[i])) {
      para.push(lines[i++]);
    }
    if (para.length === 0) para.push(lines[i++]);
    const p = h("p");
    para.forEach((l, k) => {
      if (k > 0) p.append(h("br"));
      inline(p, l);
    });
    frag.append(p);
  }
  return frag;
}

function list(lines, i, frag) {
  const ordered = /^\s*\d+[.)]\s+/.test(lines[i]);
  const el = h(ordered ? "ol" : "ul");
  const indent = /^\s*/.exec(lines[i])[0].length;
  let item = null;
  while (i < lines.length) {
    const line = lines[i];
    const m = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (m && m[1].length <= indent) {
      if (/^\d/.test(m[2]) !== ordered) break;
      item = [m[3]];
      el.append(h("li"));
      el.lastChild._src = item;
      i++;
    } else if (item && (/^\s+\S/.test(line) || (m && m[1].length > indent))) {
      item.push(line.slice(Math.min(indent + 2, /^\s*/.exec(line)[0].length)));
      i++;
    } else if (item && /^\s*$/.test(line) && i + 1 < lines.length && /^\s+\S/.test(lines[i + 1])) {
      item.push("");
      i++;
    } else {
      break;
    }
  }
  for (const li of el.children) {
    const src = li._src;
    delete li._src;
    if (src.length === 1) inline(li, src[0]);
    else li.append(renderMarkdown(src.join("\n")));
  }
  frag.append(el);
  return i;
}

function cells(line) {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function table(lines, i, frag) {
  const head = cells(lines[i]);
  i += 2;
  const tr = h("tr", {}, head.map((c) => inline(h("th", { scope: "col" }), c)));
  const body = h("tbody");
  while (i < lines.length && lines[i].includes("|") && !/^\s*$/.test(lines[i])) {
    body.append(h("tr", {}, cells(lines[i]).map((c) => inline(h("td"), c))));
    i++;
  }
  frag.append(h("div", { class: "table" }, h("table", {}, h("thead", {}, tr), body)));
  return i;
}

// safeHref returns the URL when it is http(s) or mailto, else null: a
// javascript: or data: link is shown as text.
function safeHref(url) {
  try {
    const u = new URL(url, location.href);
    if (u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:") return u.href;
  } catch { /* not a URL */ }
  return null;
}

const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)(.+?)\*\*|__(?=\S)(.+?)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

// inline appends the inline Markdown of text to el and returns el.
export function inline(el, text) {
  let last = 0;
  // matchAll works on its own copy of the expression: the calls for nested
  // emphasis do not move this loop's place.
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) el.append(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1]) el.append(h("code", {}, m[2].replace(/^ (.*) $/, "$1")));
    else if (m[3] !== undefined || m[4] !== undefined) el.append(inline(h("strong"), m[3] ?? m[4]));
    else if (m[5] !== undefined || m[6] !== undefined) el.append(inline(h("em"), m[5] ?? m[6]));
    else if (m[7] !== undefined) {
      const href = safeHref(m[8]);
      el.append(href ? inline(h("a", { href, rel: "noopener noreferrer nofollow", target: "_blank" }), m[7]) : m[0]);
    } else if (m[9]) {
      const href = safeHref(m[9]);
      el.append(href ? h("a", { href, rel: "noopener noreferrer nofollow", target: "_blank" }, m[9]) : m[9]);
    }
  }
  if (last < text.length) el.append(text.slice(last));
  return el;
}
