// Package mcpclient gives keel's agents the tools of MCP servers: programs
// keel runs and speaks to over their standard input and output (stdio),
// and servers reached over streamable HTTP. It is built on the MCP
// project's Go SDK, which speaks every revision of the protocol.
//
// keel's MCP code is two packages because it plays two parts that share
// nothing but the SDK: this one is a client, which config and the keel
// command need to give agents tools; [github.com/keel-go/keel/mcp/mcpserver]
// is a server, which offers keel's agents to other programs.
//
// # Tools
//
// [Start] starts a server (or connects to it), lists its tools, and
// returns a [Client], which is a [tool.Set]: give it to an agent's
// Config.ToolSets, whole, or a few of its tools with [Client.Only]. Each
// tool is named "SERVER_TOOL" for the model ([ToolName]: characters a
// model's tool name may not hold become '_', and a name over 64
// characters is shortened with a hash); its description and JSON Schema
// are the server's. The list is read again whenever the server says it
// changed (notifications/tools/list_changed); an agent reads it at the
// start of each run.
//
// # Calls and results
//
// A call has [Config].Timeout (default 60 s); a call that runs out, or
// whose run is cancelled, is cancelled on the server too
// (notifications/cancelled). What the server answers becomes what the
// model reads:
//
//   - text is the output (joined by newlines), or the structured content
//     when there is no text;
//   - images, audio and embedded resources with bytes are files, a
//     [tool.Result]'s Files: the agent puts them in the tool message after
//     the call's result, so they are stored like a user's files and a
//     model that refuses one gets it through the unsupported-file
//     handler; a file without a name is named after the tool
//     ("everything_get-tiny-image-1.png");
//   - resource links and embedded text are text;
//   - isError is a [*ToolError]: the model reads the server's message as a
//     failed tool result, and can try again.
//
// # Servers that stop
//
// A stdio server is started once, in a process group of its own, with
// only [InheritedEnv] of keel's environment and what [Config].Env adds
// (${NAME} in a value is keel's variable NAME): keel's API keys do not
// reach a server unless given. When it stops, calls in flight fail with a
// tool error saying how it ended (its exit status and last lines of
// standard error), and it is started again: at once the first time, then
// after 250 ms, doubling up to 30 s while it keeps failing. A call made
// meanwhile waits for it, if the next start comes within the call's
// timeout. [Client.Close] closes its input, as the protocol asks, then
// terminates and kills its whole process group: nothing it started
// outlives keel. On Linux a server also dies with keel if keel is
// killed; what that server started then sees its input close.
//
// An HTTP server is connected to again, the same way, when its session
// ends; [Config].Headers are sent with every request (a value may name
// variables, such as "Bearer ${SEARCH_TOKEN}"; an unset one is an error at
// start).
//
// [Client.Status] reports a server's state, restarts, last error and
// tools.
package mcpclient
