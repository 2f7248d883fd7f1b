// Package console is keel's web console: a page, served by keel serve at
// "/", that shows what the API holds and what keel did with each file,
// and lets a person chat with an agent, files included.
//
// # What it shows
//
//   - Agents: id, name, models, tools, how sandboxes are shared, the
//     processors in the order their hooks run; an agent whose model
//     cannot answer (none configured, no API key) is marked with the
//     server's reason, which names what to set, here and in its chat,
//     before anyone sends it a message.
//   - Threads of a resource (typed at the top of the page): title, last
//     update, message count; /threads/{id} opens one.
//   - A thread: its messages in order, text as Markdown, tool calls and
//     results, each file with its name, type, exact size and SHA-256 and a
//     download, and on the turn where keel acted, what happened to each
//     file (uploaded to the sandbox at PATH, converted to text, with the
//     text the model read shown on demand, a placeholder) and why: the
//     recoveries stored with the turn. Each is shown once, on the card of
//     the file it concerns (found by SHA-256 among the turn's files); one
//     that concerns no file of the turn, such as a file of an earlier
//     turn handled again, is listed on the turn's message. The words are
//     the server's, sent with each recovery (the same keel's command line
//     and log print): the console words none itself.
//   - Chat: a message with files (picker, drag and drop, several at once),
//     the answer streamed from the agent's stream route, keel's recovery
//     events shown as they arrive, on the files' cards as once stored (the
//     stored list is the one the stream sent). A turn the server refuses
//     before running it (503 no model, 401 a refused token, 413 too large)
//     ends at once with the status and the server's message, and the
//     message and files go back to the composer to be sent again; a 401
//     also asks for the token, and a token for the same caller keeps the
//     page as it is.
//   - The sandbox of a resource (or thread): its files, to download or
//     delete.
//   - Remembered refusals: which model refused which file type, since
//     when, until when and on what evidence; each can be forgotten. The
//     evidence (links, ids) breaks anywhere, so that Forget stays in view;
//     on a narrow screen each refusal is a card.
//
// # How it is built
//
// Hand-written ES modules and one style sheet under assets/, embedded in
// the binary: no framework, no build step, nothing fetched from another
// origin (no CDN, no web font). A framework would bring more bytes than
// the whole console and a build step to keel; the page's needs (a few
// views, one stream, forms) are met by the DOM itself. The modules are:
// app.js (the views of each path), api.js (calls, the token, the stream
// reader), dom.js, markdown.js, recovery.js, and one per view.
//
// Model and user text never reaches the page as markup: the Markdown
// renderer builds DOM nodes and sets text with text nodes, links are kept
// only for http, https and mailto, and the page's Content-Security-Policy
// runs no script but its own, as a second wall.
//
// # Serving
//
// [New] reads the assets once, gzips each (a browser that does not take
// gzip gets them plain), and serves them under /assets/VERSION/, where
// VERSION changes with any asset: they are cached for a year (immutable),
// while the page, at every path it answers, is revalidated with its ETag.
//
// # Auth
//
// The page itself needs no token: it holds no data. When the API answers
// 401, the page asks for the token once, keeps it in sessionStorage (this
// tab only, gone when it closes), and sends it as the Authorization
// header, never in a URL. Files are fetched with the header and saved from
// a blob. The page asks GET /api/keel/caller who the token is (once per
// token, kept beside it): a trusted caller acts for the resource at the
// top of the page ("studio" until another is typed, the name the page had
// before, so that the threads made then stay in view; the last ten are
// offered again), sent as resourceId, and a deep link's ?resourceId= wins
// for that page; a user (per-user auth) acts for the token's resource
// only, shown there read-only, and sees no way to forget a refusal.
package console
