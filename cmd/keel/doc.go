// Command keel serves agents over HTTP, runs them once from the command
// line, and shows the threads they keep.
//
// # Serving
//
//	keel serve [--addr 127.0.0.1:4111] [--config keel.yaml] [--db PATH|postgres://URL] [--sandbox DIR]
//	           [--sandbox-unisolated] [--insecure-bind]
//
// keel serve answers the HTTP API that Mastra's TypeScript client
// (@mastra/client-js) speaks, under /api, until SIGINT or SIGTERM; then it
// stops accepting connections and lets running requests and streams finish.
// Without KEEL_API_TOKEN (or the variable keel.yaml's server.tokenEnv
// names) it listens on loopback only and refuses another address unless
// --insecure-bind is given. It says at start which agents it serves, on
// which models, where it stores threads, and, loudly, anything that needs
// an operator: an agent without a model (and the variable to set), a
// sandbox running without bubblewrap. The last line it writes before
// serving is "keel serve: listening on http://ADDR/api".
//
// # Running once
//
//	keel run [--agent ID] [--model PROVIDER/MODEL] [--file PATH]... [--thread ID] [--resource ID]
//	         [--db ...] [--sandbox DIR] [--json] [--stream] PROMPT
//
// keel run sends one turn to an agent and prints the answer; with --json,
// {text, finishReason, usage, threadId, resourceId, runId, recoveries}.
// Flags may come before or after the prompt; a prompt of "-" is read from
// standard input. Each --file goes with the prompt, its media type taken
// from its extension (office, text, image and archive types are known),
// else from its first bytes. The turn is kept in a thread: the one given,
// or a new one whose id is printed on standard error, with what the
// processors did (such as a refused spreadsheet uploaded to the sandbox).
// A failure exits with status 1 and a message saying what to do next; a
// mistake in the command line with status 2.
//
// # Threads
//
//	keel threads list [--resource ID] [--db ...] [--json]
//	keel threads show ID [--resource ID] [--db ...] [--json]
//
// show prints a thread's messages and, for each file, its name, media
// type, size and SHA-256, never its bytes.
//
// # Defaults
//
// Storage is ./keel.db (SQLite) unless --db or KEEL_DATABASE_URL names
// another file or a postgres:// URL. Sandboxes live under ./.keel/sandbox,
// one per resource unless keel.yaml says otherwise; the resource is
// "default". Everything is created on first use. Without keel.yaml, one
// agent, "assistant", runs on KEEL_MODEL, else on the default model of the
// first provider whose key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY,
// GOOGLE_GENERATIVE_AI_API_KEY); see package
// [github.com/keel-go/keel/config] for the file.
package main
