// Package mcpserver offers keel's agents as MCP tools, so that Claude
// Desktop, IDEs and other agents can ask them, files and all, and get
// keel's handling of files their model refuses.
//
// # Tools
//
// Each agent is a tool named ask_ID ([ToolName]). Its input is a message,
// optional files (name, mediaType, and data in base64 or as a data: URL),
// an optional threadId to continue a conversation, and an optional
// resourceId saying whose it is. Its result is the answer's text, and as
// structured content an [AskOutput]: the text, the thread to continue,
// the run, and the recoveries (what keel did with each file the model
// refused: converted it to text, put it in the agent's sandbox, or left a
// placeholder). Input that cannot be used (an empty message, a file that
// does not decode or is over [Options].MaxFileBytes, a hostile ID) and a
// run that fails are tool errors, which the calling model reads; nothing
// is stored for refused input.
//
// # Transports
//
// [Server.ServeStdio] serves a client that started keel (keel mcp):
// standard output carries the protocol alone, so logs go to standard
// error. [Server.Handler] serves streamable HTTP, for mounting on a
// server at a path such as /mcp. It serves each request on its own,
// without sessions (the protocol's stateless mode), so that each
// request's asks act for the caller that request carries. A request that
// reached a loopback address under a host name that is not loopback's is
// refused (403), against DNS rebinding, unless
// [HandlerOptions].AllowedHosts names it, as a reverse proxy on the same
// machine needs.
//
// # Whose conversations
//
// Over stdio the caller is trusted: it names any resource, and
// [DefaultResource] when it names none. Over HTTP,
// [HandlerOptions].Authorize tells who each request is from: a trusted
// [Caller] (a backend holding a shared token) names resources as over
// stdio; a user acts for its own resource only, and naming another is a
// tool error.
package mcpserver
