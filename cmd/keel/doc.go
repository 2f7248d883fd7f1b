// Command keel serves agents over HTTP, runs them once from the command
// line, and shows and deletes the threads they keep.
//
//	go install github.com/keel-go/keel/cmd/keel@latest
//
// # Serving
//
//	keel serve [--addr 127.0.0.1:4111] [--config keel.yaml] [--db PATH|postgres://URL] [--sandbox DIR]
//	           [--sandbox-unisolated] [--insecure-bind]
//
// keel serve answers the HTTP API that Mastra's TypeScript client
// (@mastra/client-js) speaks, under /api, until SIGINT or SIGTERM; then it
// stops accepting connections and lets running requests and streams
// finish, and a second signal exits at once (status 130 for SIGINT).
// Without KEEL_API_TOKEN (or the variable keel.yaml's server.tokenEnv
// names) it listens on loopback only and refuses another address unless
// --insecure-bind is given. It says at start, once each, which agents it
// serves, on which models, where it stores threads, how sandbox commands
// are isolated and limited, and, loudly, anything that needs an operator:
// an agent without a model (and the variable to set), sandbox commands
// that are off (and how to install bubblewrap) or unisolated. The last
// line it writes before serving is "keel serve: listening on
// http://ADDR/api".
//
// # As an MCP server
//
//	keel mcp [--agent ID] [--resource ID] [--config keel.yaml] [--db ...] [--sandbox DIR]
//
// keel mcp offers the agents as MCP tools, ask_AGENT, on standard input
// and output, for a client that starts it: Claude Desktop, an IDE, another
// agent. A tool takes a message, files (base64 or data: URLs), and the
// threadId of an earlier answer to continue it; it answers with the text,
// and the thread and what keel did with refused files as structured
// content (see package mcp/mcpserver). Standard output carries the
// protocol alone: keel's messages go to standard error. It serves until
// the client closes standard input. The MCP servers of keel.yaml's mcp:
// that the agents name are started as for keel serve.
//
// # Running once
//
//	keel run [--agent ID] [--model PROVIDER/MODEL] [--file PATH]... [--thread ID | --new-thread ID]
//	         [--resource ID] [--db ...] [--sandbox DIR] [--json] [--stream] PROMPT
//
// keel run sends one turn to an agent and prints the answer; with --json,
// {text, finishReason, usage, threadId, resourceId, runId, calls,
// recoveries}, calls counting the model calls, retries included.
// Flags may come before or after the prompt; a prompt of "-" is read from
// standard input. Each --file goes with the prompt, its media type taken
// from its extension (office, text, image and archive types are known),
// else from its first bytes. The turn is kept in a thread: --thread
// continues one, which must exist (a mistyped id is an error, not a new
// conversation); --new-thread starts one with the id given; without
// either, a new thread is made and its id printed on standard error, with
// what the processors did (such as a refused spreadsheet uploaded to the
// sandbox and given to the model as CSV, or why it was not). It says how sandbox commands run, as keel
// serve does.
//
// A failed run exits with status 1 (130 on SIGINT) and a message saying
// what to do next, and names the thread that keeps the user's message,
// which is stored before the model is called; with --json it also prints
// {error, status, threadId, resourceId} on standard output, the last two
// only when the message was kept. With --stream, each retry is told as its
// wait begins ("retrying in 3 s after 503 (...)"). A mistake in the
// command line exits with status 2.
//
// # Threads
//
//	keel threads list [--resource ID] [--db ...] [--json]
//	keel threads show ID [--resource ID] [--db ...] [--json]
//	keel threads delete ID [--resource ID] [--db ...] [--config keel.yaml] [--sandbox DIR]
//
// show prints a thread's messages and, for each file, its name, media
// type, size and SHA-256, never its bytes. delete removes the thread, its
// messages and the files uploaded for it from the sandboxes of the
// configuration's agents, as the server's DELETE does. They open an
// existing database only: a mistyped --db fails and makes nothing.
//
// # Version
//
//	keel version
//
// prints the module version, the VCS revision the binary was built from
// and the Go that built it, as recorded in the binary.
//
// # Remembered refusals
//
//	keel refusals list [--db ...] [--json]
//	keel refusals forget PROVIDER[/MODEL] [MEDIA-TYPE] | --all [--db ...]
//
// keel serve and keel run remember, in the store, which file types each
// model refused (keel.yaml's refusals:), so that a later turn or thread
// handles such a file before calling the model. list shows each entry:
// the model, the type, when it was learned, until when it counts, and the
// evidence (the status and the provider's message, or the SDK's refusal).
// forget removes one type of a model, every type of a model, every model
// of a provider, or with --all everything; a running keel serve stops
// using a forgotten entry within 30 seconds (its own route,
// DELETE /api/keel/refusals, at once).
//
// # Defaults
//
// Storage is ./keel.db (SQLite) unless --db or KEEL_DATABASE_URL names
// another file or a postgres:// URL. Sandboxes live under ./.keel/sandbox,
// one per resource unless keel.yaml says otherwise; the resource is
// "default". keel run and keel serve create them on first use. Without
// keel.yaml, one agent, "assistant", runs on KEEL_MODEL, else on the
// default model of the first provider whose key is set (OPENAI_API_KEY,
// ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY); see package
// [github.com/keel-go/keel/config] for the file, and keel help for every
// environment variable keel reads.
package main
