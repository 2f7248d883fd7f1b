// Package server is keel's HTTP API: the routes, payloads and stream format
// of Mastra's server, so that the official TypeScript client
// (@mastra/client-js) and the apps built on it work against keel unchanged.
//
//	srv, err := server.New(server.Config{Agents: agents, Memory: store, Token: os.Getenv("KEEL_API_TOKEN"),
//		Users: verifier}) // a jwtauth.Verifier, for per-user tokens
//	...
//	err = srv.Serve(ctx, ln) // or mount srv.Handler()
//
// # Routes
//
// One table (routes.go) holds every route, in three blocks; each handler's
// file is named beside it.
//
// Mastra's client API, what @mastra/client-js calls:
//
//	GET    /api/agents                          agents keyed by id, in configured order
//	GET    /api/agents/{id}                     one agent; unknown: 404 {"error":"Agent with id X not found"}
//	POST   /api/agents/{id}/generate            {messages, memory?:{thread, resource, options?:{lastMessages}}, maxSteps?, runId?}
//	POST   /api/agents/{id}/stream              same body; Server-Sent Events
//	POST   /api/memory/threads                  {resourceId, threadId?, title?, metadata?}
//	GET    /api/memory/threads?resourceId=R     {threads, total, page, perPage, hasMore}: R's threads
//	GET    /api/memory/threads/{tid}            a thread; missing or another resource's: 404 {"error":"Thread not found"}
//	PATCH  /api/memory/threads/{tid}            {title?, metadata?}: the thread, updated
//	DELETE /api/memory/threads/{tid}            {"result":"Thread deleted"}
//	GET    /api/memory/threads/{tid}/messages   {messages, uiMessages:null, total, page, perPage, hasMore}, oldest first
//
// Mastra Studio, what its pages call besides (see "Mastra Studio"):
//
//	POST   /api/agents/{id}/threads/subscribe   {resourceId, threadId}: Server-Sent Events of every turn of the thread
//	POST   /api/agents/{id}/send-message        {message:{contents, metadata?}, resourceId, threadId, ifIdle?}: {accepted, runId, signal}
//	POST   /api/agents/{id}/queue-message       the same
//	POST   /api/agents/{id}/threads/abort       {resourceId, threadId, expectedRunId?}: {aborted}
//	GET    /api/auth/capabilities               {enabled:false, login:null, keel:{auth}}; no token needed
//	GET    /api/agents/providers                keel's providers, their key variables and whether the environment holds one
//	GET    /api/memory/status, /api/memory/config, /api/memory/threads/{tid}/working-memory
//	GET    /api/tools/{tool}, /api/agents/{id}/tools/{tool}   a tool (built-in or an MCP server's) and its schema
//	POST   /api/tools/{tool}/execute, /api/agents/{id}/tools/{tool}/execute
//	                                            {data, requestContext?}: the tool's output; 500 when it fails;
//	                                            with files: {output, files:[{type:"file", data:"data:...", mimeType, filename}]}
//	GET    /api/mcp/v0/servers                  the MCP servers keel.yaml starts, in Mastra's registry shape
//	GET    /api/mcp/v0/servers/{id}             one of them; unknown: 404
//	GET    /api/mcp/{server}/tools              {tools:[{id, name, description, inputSchema, toolType}]}: the server's tools an agent has
//	GET    /api/mcp/{server}/tools/{tool}       one, by the server's name for it ("echo", not "everything_echo")
//	POST   /api/mcp/{server}/tools/{tool}/execute   {data}: {result}, result as the execute routes above answer
//	POST   /mcp                                 keel's agents as MCP tools (ask_AGENT), streamable HTTP, the same auth
//	GET    /api/tools, /api/processors, /api/system/packages
//	GET    /api/workflows, /api/scores/scorers, /api/workspaces, /api/channels/platforms,
//	       /api/experiments/review-summary, /api/observability/feedback, /api/editor/builder/settings,
//	       /api/editor/builder/models/available, /api/agents/{id}/voice/speakers: empty, in Mastra's shapes
//
// keel's own, for its console and any client that shows what keel did
// (see "keel's additions"):
//
//	GET    /health                              {"status":"ok"}: the process serves; no token needed
//	GET    /ready                               {"status":"ok"}, or 503 when the memory store does not answer; no token needed
//	GET    /metrics                             Config.Metrics (Prometheus's text), when set; the shared token, as /api
//	GET    /api/keel/refusals                   {"refusals":[{provider, model, mediaType, learnedAt, expiresAt, expired, status, reason}]}
//	DELETE /api/keel/refusals?provider=P&model=M&mediaType=T   {"forgotten": n}; model and mediaType optional; all=true for everything
//	GET    /api/keel/caller                                    {user, resourceId?, canForgetRefusals}: who the token is
//	GET    /api/memory/threads/{tid}/messages/{mid}/files/{n}  the n-th file (from 0) of a stored message, its bytes as an attachment
//	GET    /api/memory/threads/{tid}/messages/{mid}/files/{n}/text?agentId=A  {kind, as, description, text, omitted...}: the file as A's converters give it to a model
//	GET    /api/agents/{id}/sandbox/files                      {mode, workDir, files:[{path, size, modifiedAt}], truncated}
//	GET    /api/agents/{id}/sandbox/files/{path...}            a sandbox file's bytes, as an attachment
//	DELETE /api/agents/{id}/sandbox/files/{path...}            {"result":"File deleted", path}
//	GET    / (and the console's own paths)                     keel's web console, when Config.Console is set
//
// The refusals routes list and forget the file types the agents remember
// their models refused ([agent.Agent.Refusals]; each agent's value once,
// so that what is forgotten stops counting for every agent at once); 501
// when no agent remembers any.
//
// # Requests
//
// messages is a string (one user message) or an array of messages in the
// AI SDK's shape, content a string or an array of text, file and image
// parts. A file's data is a data: URL (stored exactly as sent), raw base64
// or an http(s) URL; its type is mediaType or the older mimeType. A single
// message object instead of an array, a file whose data does not decode,
// an unknown part type or role are 400 with "issues":[{field, message}],
// and nothing runs or is stored. A file's media type (and a data: URL's
// own) must pass keel.CheckMediaType: type/subtype in RFC 6838's syntax,
// parameters as mime.ParseMediaType reads them, at most 255 bytes of
// printable ASCII, so no CR, LF or other control character; else 400
// naming the field. A data: URL without the comma before its data is 400
// (it holds no file, not an empty one). A file name over 255 bytes is cut
// to 255 at a character's edge, its extension kept. One request holds at
// most Config.MaxFiles files (100
// by default), else 400. Bodies over Config.MaxBodyBytes are 413, checked
// before anything runs. Ids (agents, threads, resources, runs) must be 1
// to 128 of [A-Za-z0-9._:-]; others are 400.
//
// memory.thread (an id or an object {id}) is the run's thread; a thread
// not yet known is created, owned by the run's resource (see "Whose
// threads"), and titled by its first user text. A thread owned by another
// resource is 404 "Thread not found", the answer a missing thread gets,
// so nothing about it leaks. memory.options.lastMessages is the run's
// history window: the thread's last N messages are sent to the model (0
// or false: all of them); without it, the agent's own (10 by default).
//
// # Whose threads
//
// Who the caller is decides the resource (the owner of threads and
// sandboxes) a request acts for.
//
// A trusted caller — no auth, or the shared Config.Token, such as a
// backend acting for its users — acts for the resource the request names:
// the resourceId query parameter (or body field, when creating a thread;
// memory.resource, then resourceId, in a generate or stream body), the
// X-Resource-Id header ([ResourceHeader]), or the mastra__resourceId of a
// requestContext (a base64 JSON query parameter, or an object in a
// body). The thread routes find a thread by its id alone when the request
// names no resource, as Mastra's server does (the client's
// thread.get(), .listMessages() and .delete() send none); a resource it
// names must be the thread's owner, else 404. Listing and creating threads, and a run
// in a thread, need a resource (400 without).
//
// A user — a token Config.Users accepts, such as a jwtauth.Verifier's —
// acts for the token's resource only, on every route: the request may
// leave the resource out, naming another is 403, and another resource's
// thread is 404 with nothing changed. A run without a thread acts for the
// token's resource too (its sandbox is the user's). The remembered
// refusals (/api/keel/refusals) serve every user: a user may list them,
// and only a trusted caller may forget them (403 otherwise).
// # Responses
//
// Every error is a JSON object {"error": "..."}; no 2xx has an empty body.
// The client retries every status that is not 4xx three times, so a
// failure the same request would meet again is 4xx. A failed generate
// maps as follows: caller mistakes 400 (413 for a file over the upload
// processor's limit), another resource's thread 404, a model that refused
// the request itself (an UnsupportedFunctionalityError, or a provider's
// 400, 404, 413, 415 or 422 the processors could not work around) 422, a
// provider's 429 stays 429 (with its Retry-After), a provider's 408 or 504
// and timeouts 504 (a run past Config.GenerateTimeout, 30 s by default,
// is cancelled and answered 504 with code "RUN_TIMEOUT" and what stalled:
// no byte of the answer from the provider's host in so long, an answer
// that stopped after so many bytes, or no model call running, so that a
// stalling provider gets a clear answer before a proxy gives up), any
// other provider failure (5xx, 401/403 from a wrong server key, no
// answer) 502, anything else 500. An agent whose model
// cannot answer at all (no model configured, no API key) is 503 with the
// message saying what to set, before anything is stored: its error has a
// method ModelUnavailable() bool (config.UnavailableModel's errors do).
//
// The generate answer holds the reply only (text, usage, steps, tool calls
// and results, the reply's stored messages, and keel's recoveries): the
// user's files are never echoed back, so the answer stays small whatever
// was uploaded.
//
// Stored messages are Mastra's format 2: {id, role, createdAt, threadId,
// resourceId, type:"text", content:{format:2, parts, content}}; a file
// part is {type:"file", data:"data:<type>;base64,...", mimeType,
// filename}, the file as the user sent it; tool calls are
// "tool-invocation" parts, and a tool message is shown as an assistant
// message of results.
//
// # keel's additions
//
// Fields are only ever added to Mastra's shapes, so its client passes
// them through. An agent object has "keel": {models:[{provider, modelId,
// unavailable}] in the order the agent tries them (unavailable, set only
// for a model that cannot answer, such as none configured or no API key,
// is the error every call answers with: it says what to set), tools,
// sandbox (how its sandboxes are shared, as its workspace says:
// [workspace.Workspace.Sharing]), memory, processors:[{id, hooks}] in the
// order their hooks run}. A stored file part has "size" and
// "sha256" of its bytes; with fileData=false the messages route leaves the
// bytes out (data "") and the download route gives them, with the file's
// type, Content-Disposition: attachment, X-Content-Type-Options: nosniff
// and a sandbox Content-Security-Policy. What keel did on a turn is stored
// with it: the content.metadata of the turn's first reply message (or,
// when the run failed, of its last input message) holds
// "keelRecoveries" ([agent.MetadataRecoveries]), the run's recoveries as
// the stream sent them. Wherever the server sends a recovery (these, the
// stream's events, the generate answer), it adds the words keel's command
// line and log use ([processor.Recovery.Describe]): "by" names the
// processor, "why" says the cause, and each file's "got" what the model
// got in its place; a client shows them rather than wording its own. The messages route is gzipped for a client that
// takes gzip, when between 1 KiB and 4 MiB.
//
// The sandbox routes act for the caller's resource and, with ?threadId=, a
// thread of it (required for a sandbox per thread); a sandbox shared by
// every run, or whose sharing its workspace does not tell, is not
// listed when Config.Resource makes each caller a user. Paths that leave
// the sandbox are 400, missing files 404.
//
// # Streams
//
// Each event is exactly "data: <one-line JSON>\n\n", an envelope
// {type, runId, from:"AGENT", payload}, in the order start, step-start,
// text-start, text-delta..., text-end, tool-call, tool-result,
// step-finish (per step), finish; the stream ends with "data: [DONE]\n\n".
// Each step-finish carries its own model call's metadata (response id and
// model), the finish the last call's; the model is the agent's model name
// when the provider gave none.
// Quiet streams get ": ping\n\n" comments every Config.KeepAlive. A
// failure after the stream opened is an error event, then step-finish and
// finish with reason "error", with status 200; one before it is an
// ordinary JSON error.
//
// keel adds three events: [EventRecovery] ("data-keel-recovery", payload
// {processor, action, cause?, by, why, files:[{name, mediaType, outcome,
// path?, got}]}) when a processor kept the run going, for example a
// refused file uploaded to the sandbox,
// and [EventRetry] ("data-keel-retry", payload {discard:true, reason,
// error}) when a model call failed after output was streamed: the text
// and tool calls since the last step-start are void and the call is tried
// again; and [EventFallback] ("data-keel-fallback", payload {model,
// discard, error}) when the agent's next model takes over. A result names
// the model that answered in response.model (generate) and in the finish
// event's metadata.model (stream).
//
// # Mastra Studio
//
// Studio's chat runs on Mastra's agent signals. A subscription
// (threads/subscribe) is a stream that begins with the comment
// ": connected" and carries, for as long as the client stays, the chunks
// of every turn run in that resource's thread: those sent with
// send-message, and every /stream and /generate run in it, from any
// client (a /generate turn once it has ended, as the chunks a stream of
// it would have carried), in the format of /stream (without
// "data: [DONE]", since the stream outlives each turn), with keel's
// recovery events and, after the start of a send-message turn, a
// transient "data-user-message" {type, data:{id, contents, ...},
// transient:true, runId} (the contents as sent, or the message's text
// when they were over 64 KiB, files inlined). send-message checks the
// message, the resource and the thread (another resource's is 404, as
// elsewhere) and that the model can answer, queues the turn in the store
// and answers; the turn runs through the agent as a /stream run does,
// stored whether or not anyone listens (see "Turns"). A message sent
// during a turn waits for it (Mastra adds it to the running turn; keel
// cannot). abort stops the thread's turn running on this server, which
// ends with an error and a finish. [Server.Serve]'s shutdown ends every
// subscription at once
// (they never go idle; a server of your own that mounts [Server.Handler]
// keeps them until their clients leave). A subscriber that falls 256
// chunks behind is dropped, and
// Studio reconnects; one that goes away leaves nothing behind. Studio
// first fetches the server's root and needs a 2xx there: Config.Console
// (keel's web console, which keel serve mounts) answers it. Its next
// call, /api/auth/capabilities, needs no token, so that Studio loads and
// can be given one in its request headers; it tells only the auth mode
// ("none", "token" or "users").
//
// Studio's Tools page runs a tool with POST /api/tools/{tool}/execute, an
// agent's tool page with the agent's route, and its MCP pages list the
// servers of Config.MCPServers (servers keel takes tools from: the
// addresses Studio shows for connecting to them are Mastra's, which keel
// does not serve) and run their tools by the servers' names for them. A
// tool run this way acts for a resource as a run would (a user's token:
// its own), and a tool that needs the sandbox gets the one a run would
// get. A result with files (an MCP tool's image, audio or embedded file)
// answers {output, files}: output is what a model reads, and each file is
// a file part as stored messages hold one, its bytes in a data: URL.
//
// # Turns
//
// The turns of one thread run one at a time, whatever route sent them
// and whichever server runs them, so that its history reads user,
// assistant, user, assistant, and each model call sees the answers
// before it. Every turn in a thread (/generate, /stream, send-message)
// holds the thread's lock while it runs: the store's when it is a
// [memory.ThreadLocker] (PostgreSQL's advisory lock, held on a session of
// its own and dropped with it if the server dies, so several servers on
// one database take turns), else a lock in this process (enough for
// SQLite and the in-memory store, which one server uses). A turn for
// another resource's thread is refused before it waits (404), so that no
// wait tells a caller such a thread is busy; a /generate that waits
// counts the wait in Config.GenerateTimeout.
//
// send-message stores its turn before it answers "accepted": in the
// store's queue when it is a [memory.TurnQueue] (the three stores of
// package memory are), the user's message, files inline, and the turn's
// options. A worker per thread runs the queued turns oldest first, each
// under the thread's lock; a turn leaves the queue once the agent has
// stored its message in the thread, as /generate stores a turn's input
// before it calls the model. A server that stops or dies so leaves each
// accepted message in the thread or in the queue, never in neither, and
// [Server.Serve] runs the queued turns it finds at start (a turn whose
// message is in its thread already, stored by a server that died just
// after, is not run twice). The queue is bounded, in the store, not in
// memory: Config.TurnQueue turns waiting per thread (8 by default) and
// per resource (32); past either, send-message is 409 and nothing is
// kept. A store that keeps no queue has one in this process, lost with
// it.
//
// Shutdown: requests, streams and the turns running for Studio share
// Config.ShutdownGrace; no queued turn starts after it begins; past the
// grace, the turns still running are cancelled (their messages are
// stored; the answer is lost, as when a client goes away) and waited
// for, and the turns still queued wait in the store for the next start.
// A server of your own that mounts [Server.Handler] runs the turns sent
// to it but neither recovers a queue nor stops its workers.
//
// Live events across servers: when the store is a [memory.EventBus]
// (PostgreSQL's LISTEN/NOTIFY), [Server.Serve] publishes the chunks of
// every turn it runs, in order, one batch per round trip, and delivers
// the chunks other servers publish to its own subscribers: a Studio open
// on server B sees a turn that server A runs. A chunk over 7000 bytes
// goes through a table, not the notification. A bus that falls 4096
// chunks behind drops chunks (logged): their subscribers see the turn in
// the thread once it is stored.
//
// # Operation
//
// [Server.Serve] shuts down gracefully when its context ends: no new
// connections, and running requests and streams get Config.ShutdownGrace
// to finish. With Config.Token or Config.Users set,
// every /api request needs "Authorization: Bearer <token>": the shared
// token (compared in constant time) or a user's. Others get 401 {error}
// with WWW-Authenticate, answered before any of the body is read; a
// user's token that cannot be checked now (its issuer's keys cannot be
// fetched) is 503. /health and /ready need no token, since orchestrators'
// probes carry none; they say nothing beyond "ok" or "unavailable" (the
// store's error goes to the log).
//
// CORS, for apps in a browser, is off unless Config.CORSOrigins lists
// origins: a preflight (OPTIONS with Access-Control-Request-Method) from
// one of them is answered 204 before any token is asked for, allowing
// GET, POST, PUT, PATCH, DELETE and the headers authorization,
// content-type, x-mastra-client-type, x-mastra-dev-playground and
// x-resource-id (and any other it asks for); every answer to it names the
// exact origin, never "*", with Access-Control-Allow-Credentials: true.
// Another origin's preflight is 403, its other requests get no CORS
// headers.
//
// Timeouts: headers must arrive within Config.HeaderTimeout; a body must
// keep Config.MinBodyRate bytes a second on average once Config.BodyGrace
// has passed, else 408 and the connection is closed (a body at a byte a
// second is dropped within seconds, a large upload gets the time its size
// needs); each write of a response must finish within
// Config.WriteTimeout, which bounds each event of a stream, never the
// stream as a whole. The body and write rules are deadlines set through
// http.ResponseController, so they hold in any http.Server that mounts
// [Server.Handler]. An answer written before the body was read (401, 413)
// is sent at once; the body is then drained, up to 64 MiB and 30 s, so
// that a client that sends its whole body before reading still reads it,
// and the connection closes.
//
// Logs (log/slog): one line per request (method, path, status, duration,
// bytes, and a user's resource), where a client that went away before its
// answer is logged as status 499 "client closed request" ([StatusClientClosed]), with the
// status already sent if any; probes are logged at debug level. One line
// "server: recovery" per file of each recovery a run reports (agent, run,
// thread, resource, processor, action, file, mediaType, size, sha256,
// outcome, the cause's kind ("none" when the processor acted on its own
// rule), and, in the words every reader of a recovery uses, "got" (what
// the model got instead, its sandbox path or the reason included) and
// "why" (the cause: provider, status, code and message)).
//
// Metrics and traces: Config.Observer is told of every request (its
// method, route and the status the client saw, 499 included), and the
// request's context carries it, so that the agents report their runs to
// it (see package observe; observe/telemetry is the Prometheus and
// OpenTelemetry observer). Config.Metrics is served at GET /metrics to
// trusted callers: with Token or Users set it needs the shared token, and
// a user's token is 403, since the metrics tell about every user's
// traffic.
package server
