// Package server is keel's HTTP API: the routes, payloads and stream format
// of Mastra's server, so that the official TypeScript client
// (@mastra/client-js) and the apps built on it work against keel unchanged.
//
//	srv, err := server.New(server.Config{Agents: agents, Memory: store, Token: os.Getenv("KEEL_API_TOKEN")})
//	...
//	err = srv.Serve(ctx, ln) // or mount srv.Handler()
//
// # Routes
//
//	GET    /api/agents                          agents keyed by id, in configured order
//	GET    /api/agents/{id}                     one agent; unknown: 404 {"error":"Agent with id X not found"}
//	POST   /api/agents/{id}/generate            {messages, memory?:{thread, resource}, maxSteps?, runId?}
//	POST   /api/agents/{id}/stream              same body; Server-Sent Events
//	POST   /api/memory/threads                  {resourceId, threadId?, title?, metadata?}
//	GET    /api/memory/threads?resourceId=R     {threads, total, page, perPage, hasMore}
//	GET    /api/memory/threads/{tid}            a thread; missing or another resource's: 404 {"error":"Thread not found"}
//	GET    /api/memory/threads/{tid}/messages   {messages, uiMessages:null, total, page, perPage, hasMore}, oldest first
//	PATCH  /api/memory/threads/{tid}            {title?, metadata?}: the thread, updated
//	DELETE /api/memory/threads/{tid}            {"result":"Thread deleted"}
//
// # Requests
//
// messages is a string (one user message) or an array of messages in the
// AI SDK's shape, content a string or an array of text, file and image
// parts. A file's data is a data: URL (stored exactly as sent), raw base64
// or an http(s) URL; its type is mediaType or the older mimeType. A single
// message object instead of an array, a file whose data does not decode,
// an unknown part type or role are 400 with "issues":[{field, message}],
// and nothing runs or is stored. Bodies over Config.MaxBodyBytes are 413,
// checked before anything runs. Ids (agents, threads, resources, runs)
// must be 1 to 128 of [A-Za-z0-9._:-]; others are 400.
//
// memory.thread (an id or an object {id}) needs memory.resource; a thread
// not yet known is created, owned by that resource. A thread owned by
// another resource is 404 "Thread not found", the answer a missing thread
// gets, so nothing about it leaks.
//
// # Whose threads
//
// The thread routes act for one resource, taken from, in order:
// Config.Resource (bind it to the caller's verified identity), the
// resourceId query parameter (or body field, when creating), the
// X-Resource-Id header ([ResourceHeader]; set it in MastraClient's headers
// option, since the client's thread.get(), .messages() and .delete() send
// no resourceId), and the mastra__resourceId key of a requestContext
// query parameter. A route that gets none is 400.
//
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
// and timeouts 504, any other provider failure (5xx, 401/403 from a wrong
// server key, no answer) 502, anything else 500.
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
// # Streams
//
// Each event is exactly "data: <one-line JSON>\n\n", an envelope
// {type, runId, from:"AGENT", payload}, in the order start, step-start,
// text-start, text-delta..., text-end, tool-call, tool-result,
// step-finish (per step), finish; the stream ends with "data: [DONE]\n\n".
// Quiet streams get ": ping\n\n" comments every Config.KeepAlive. A
// failure after the stream opened is an error event, then step-finish and
// finish with reason "error", with status 200; one before it is an
// ordinary JSON error.
//
// keel adds two events: [EventRecovery] ("data-keel-recovery", payload
// {processor, action, files:[{name, mediaType, path?}]}) when a processor
// kept the run going, for example a refused file uploaded to the sandbox,
// and [EventRetry] ("data-keel-retry", payload {discard:true, reason,
// error}) when a model call failed after output was streamed: the text
// and tool calls since the last step-start are void and the call is tried
// again.
//
// # Operation
//
// [Server.Serve] shuts down gracefully when its context ends: no new
// connections, and running requests and streams get Config.ShutdownGrace
// to finish. Every request is logged with log/slog (method, path, status,
// duration, bytes). With Config.Token set, every /api request needs
// "Authorization: Bearer <token>" (compared in constant time), else 401.
package server
