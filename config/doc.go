// Package config reads keel.yaml, the file that says which agents keel
// serves, and builds those agents.
//
// # The file
//
// Decoding is strict: an unknown field, a value of the wrong type or an
// invalid setting is an [*Error] naming the file, the line and what to
// write instead. Every field but an agent's id may be left out.
//
//	server:
//	  addr: 127.0.0.1:4111      # --addr wins
//	  maxBodyBytes: 52428800    # 50 MiB
//	  auth:
//	    tokenEnv: KEEL_API_TOKEN   # the variable holding the shared (trusted) token
//	    jwt:                       # per-user tokens; also on when KEEL_JWT_SECRET or KEEL_JWKS_URL is set
//	      secretEnv: KEEL_JWT_SECRET             # the variable holding the HS256 secret
//	      jwks: https://auth.example.com/.well-known/jwks.json  # or a file; default $KEEL_JWKS_URL
//	      issuer: https://auth.example.com
//	      audience: keel                         # or a list
//	      resourceClaim: sub                     # the claim naming the user's resource
//	      leeway: 30s
//	  cors:
//	    origins: [https://app.example.com]       # KEEL_CORS_ORIGINS (comma-separated) replaces them
//	  mcp:
//	    allowedHosts: [keel.example.com]         # /mcp through a reverse proxy on this machine (see ServerMCP)
//	files:
//	  convert: true             # a refused file's text for the model; false: the note alone
//	  maxChars: 100000          # the cap on one file's text
//	  blameReadable: true       # an unnamed error with only images, PDFs or text: one call without them
//	  providerFiles: true       # a file too large to go inline: by reference, through the provider's Files API
//	  describeWith: google/gemini-2.5-flash  # describes images for a model that sees none, once per image
//	  comments: false           # true: documents' and spreadsheets' comments in their text
//	  fetch:                    # download files sent as links; without it none is downloaded
//	    allowHosts: [files.example.com, "*.cdn.example"]  # a wildcard: public addresses only
//	    maxSize: 10MiB          # the default
//	    timeout: 30s            # the default
//	    keepCopy: false         # true: store the file in its message instead of the link
//	    resolve: {files.internal: 10.0.0.7}  # fixed addresses, instead of DNS
//	refusals:
//	  remember: true            # remember which types each model refuses, in the store
//	  expiry: 24h               # how long a refusal counts before the file is sent again
//	mcp:                        # MCP servers whose tools agents may name
//	  everything:               # a server keel runs (stdio); its tools are everything_TOOL
//	    command: npx
//	    args: [-y, "@modelcontextprotocol/server-everything"]
//	    env: {GITHUB_TOKEN: "${GITHUB_TOKEN}"}   # added to PATH, HOME and the like; keel's keys stay with keel
//	    timeout: 60s            # each call's; the default
//	  search:                   # a streamable-HTTP server
//	    url: https://mcp.example.com/mcp
//	    headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}  # an unset variable is an error at start
//	    optional: true          # start without it, with a warning, when it cannot start
//	agents:
//	  - id: analyst
//	    name: Analyst
//	    description: Reads the spreadsheets users send.
//	    instructions: You analyse data files with your tools.
//	    model: google/gemini-2.5-flash   # empty: KEEL_MODEL, else the first provider with a key
//	    # or a list, the next taking over when one fails:
//	    # model: [google/gemini-2.5-flash, {model: openai/gpt-4o-mini, maxRetries: 1}]
//	    fallbackOnCallerErrors: false    # true: a 401, 403 or bad request moves on too
//	    tools: [run_command, read_file, list_files, everything, search/query]
//	    sandbox:                         # or: sandbox: none
//	      resolution: per-resource       # per-thread, shared
//	      allowUnisolated: false         # run commands without bubblewrap if it cannot run
//	      uid: 2100000000                # who runs commands when keel runs as root
//	      gid: 2100000000
//	      ownFilesystem: false           # true: a loop-mounted file system per sandbox holds its disk quota
//	      limits: {processes: 256, memory: 1GiB, fileSize: 1GiB, disk: 2GiB, files: 100000, cpuTime: 10m}
//	    # or, in Docker containers that every keel server on the engine shares:
//	    # sandbox:
//	    #   engine: docker               # the engine DOCKER_HOST names
//	    #   image: keel/sandbox:busybox  # the default, built from the machine's static busybox
//	    #   runtime: runc                # runsc for gVisor
//	    #   idleTimeout: 15m             # an idle container stops; its files stay in its volume
//	    #   limits: {processes: 256, memory: 1GiB, fileSize: 1GiB, disk: 2GiB, files: 100000, cpuTime: 10m, cpus: 1}
//	    fileUpload:                      # put the user's files in the sandbox before the model sees them
//	      mediaTypes: [text/csv, image/*]
//	      extensions: [xlsx, docx]
//	      maxSize: 5MiB                  # at most 10MiB, the default
//	    errorProcessorDefaults: true     # false turns the default error processors off
//	    streamRetry: {maxRetries: 2, delay: 3s}
//	    maxSteps: 5
//	    maxProcessorRetries: 3
//	    files: {convert: false}          # this agent's own, over the file's files:
//	    lastMessages: 10                 # the history window; 0 or false: the whole thread
//	    generateTitle: false             # true: the model titles each new thread
//
// Without a file, keel runs [Default]: one agent, "assistant", with the
// three sandbox tools.
//
// Secrets never go in the file: it names the variables that hold them.
// [Server.ResolveAuth] reads them, with the file's settings, into what
// the server and its token verifier take.
//
// # MCP servers
//
// mcp: names the MCP servers agents may take tools from (package
// mcp/mcpclient runs them). An agent's tools: names a whole server
// ("everything": every tool it offers, now and after it changes its list)
// or one tool of it ("everything/echo", as the server names it); the
// model sees each as SERVER_TOOL. A name that is neither a sandbox tool
// nor a server of mcp: is an [*Error] at its line when the file is read;
// a tool the server does not offer is one when the agents are built,
// since only a started server says what it offers. [File.BuildContext]
// starts each server the agents name once, all at once; one that cannot
// start is an [*Error] at its line, or a warning with optional: true.
// [Built.Close] stops them.
//
// # Sandboxes
//
// An agent has a sandbox only when something reaches it: one of its
// sandbox tools or its fileUpload (an MCP server's tools do not work in
// the sandbox). Without a
// sandbox, a file the model refuses reaches it as a placeholder,
// "[Attachment unavailable: NAME]", rather than a note about a sandbox it
// could not open. "sandbox: none" says so outright, and then naming a
// tool or fileUpload is a mistake. Sandbox settings that nothing reaches
// are not a mistake but a warning ([File.Warnings]): such an agent gets
// no sandbox.
//
// # File uploads
//
// fileUpload turns the file-upload processor on for the agent: the files
// of the user's messages it chooses go to the sandbox before the model
// sees them, and the model reads a note giving each one's path instead. A
// file is chosen when its media type is one of mediaTypes ("image/*"
// takes every image, "*/*" every file) or its extension one of
// extensions; with neither list, "fileUpload: {}", every file is. Files
// given by link or provider file ID stay in the prompt. A chosen file over
// maxSize (default and most 10MiB) stops the turn with an error saying so,
// before anything is stored.
//
// # Building
//
// [File.Build] resolves each agent's model through the caller's resolver,
// gives it a workspace of sandboxes under one root directory (one per
// resource by default, isolated by bubblewrap) when it has a sandbox, and
// sets its processors. A model the resolver refuses outright, such as one
// of an unknown provider, is an [*Error] at the line that names it.
// An agent without a usable model gets an [UnavailableModel], which
// answers every call with an error saying which variable to set, so that a
// server still starts; [Built].Warnings says so, for the operator. Without
// bubblewrap keel starts too: the sandboxes keep their files, their
// commands are off, and one warning says how to install it. Otherwise
// [Built].Info has the line that says how commands are isolated and how
// each limit is enforced.
//
// An agent with "engine: docker" gets its sandboxes in Docker containers
// instead (package dockersandbox): Build connects to the engine
// DOCKER_HOST names, builds the default image when the engine lacks it,
// and makes, runs a command in and removes one container of the agent's
// settings, so that a missing engine, image or runtime stops keel at
// start with an error that says what to do, not at a run's first command.
// Containers and volumes are named from the sandbox key alone, so two
// servers built from the same file share them.
//
// A file a model refuses reaches it as text (files.convert, on unless
// turned off) through keel's converters, and the store remembers which
// types each model refuses (refusals.remember, on unless turned off, when
// the store keeps a ledger, as keel's stores do), so that later turns and
// threads handle such a file before the call. All agents share one
// [processor.RememberedRefusals], [Built].Refusals; a refusal is of one
// model, so the next model of a list still gets the file.
//
// A file too large to go inline (a 25 MB PDF to Gemini, whose requests
// take 20 MB) reaches the model through its provider's own file store
// (files.providerFiles, on unless turned off, when the store keeps
// references, as keel's stores do): uploaded once to Gemini's, OpenAI's
// or Anthropic's Files API, and named by reference on every later turn
// until the provider drops it, then uploaded again. A model without a
// file store (an OpenAI-compatible server) gets such a file as refused.
// See [processor.UnsupportedFileOptions].ProviderFiles.
//
// # Models
//
// A list of models (see [Models]) makes the agent go on to the next when
// a call fails in a way the error processors could not repair on the
// model it went to (an outage, a quota, a region down); a refused file is
// repaired on the same model first. A model of the list keel cannot use
// (its key not set) is left out with a warning.
//
// # Links
//
// A file sent as an http(s) link reaches the model as the link when its
// provider fetches such a link itself; otherwise keel downloads it before
// the call, from the hosts files.fetch.allowHosts names only, and the
// model gets its bytes. A link that is not allowed or fails becomes a
// "[File not downloaded]" note with the reason; see package fetch for
// every rule (non-public addresses, redirects, size, type).
package config
