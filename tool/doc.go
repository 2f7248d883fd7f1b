// Package tool defines what an agent's model can call: a [Tool] with a
// JSON Schema input and an Execute function, and the sandbox tools every
// agent with a workspace can be given.
//
// # Results with files
//
// Execute may return a [Result], whose Files follow the call's result in
// the tool message: an image a tool drew, a file it fetched. They are
// stored, sent and handled as a user's files are.
//
// # Tool sets
//
// A [Set] is tools that may change while a program runs, such as an MCP
// server's (package mcp/mcpclient); an agent reads each of its sets at the
// start of every run. [Tools] is a set that does not change.
//
// # Sandbox tools
//
// [RunCommand] ("run_command"), [ReadFile] ("read_file") and [ListFiles]
// ("list_files") work inside the run's sandbox, the one [Call].Sandbox
// returns, which is also where uploaded files go: a model told that a file
// was uploaded to /home/user/uploads/... can run a command on that path or
// read it. Paths are relative to the sandbox's working directory, or
// absolute under it. [SandboxTools] returns all three.
//
// # Errors
//
// A tool returns an error when it cannot do what was asked (no sandbox, a
// path outside it, a command that timed out). The agent does not stop: the
// model sees the error as a failed tool result and can try something else.
// A command that runs and exits non-zero is not an error; its exit code is
// part of the result.
package tool
