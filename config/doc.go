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
//	  tokenEnv: KEEL_API_TOKEN  # the variable holding the bearer token
//	  maxBodyBytes: 52428800    # 50 MiB
//	agents:
//	  - id: analyst
//	    name: Analyst
//	    description: Reads the spreadsheets users send.
//	    instructions: You analyse data files with your tools.
//	    model: google/gemini-2.5-flash   # empty: KEEL_MODEL, else the first provider with a key
//	    tools: [run_command, read_file, list_files]
//	    sandbox:
//	      resolution: per-resource       # per-thread, shared
//	      allowUnisolated: false         # run commands without bubblewrap if it cannot run
//	      uid: 2100000000                # who runs commands when keel runs as root
//	      gid: 2100000000
//	      limits: {processes: 256, memory: 1GiB, fileSize: 1GiB, disk: 2GiB, cpuTime: 10m}
//	    errorProcessorDefaults: true     # false turns the default error processors off
//	    streamRetry: {maxRetries: 2, delay: 3s}
//	    maxSteps: 5
//	    maxProcessorRetries: 3
//
// Without a file, keel runs [Default]: one agent, "assistant", with the
// three sandbox tools.
//
// # Building
//
// [File.Build] resolves each agent's model through the caller's resolver,
// gives it a workspace of sandboxes under one root directory (one per
// resource by default, isolated by bubblewrap), and sets its processors.
// An agent without a usable model gets an [UnavailableModel], which
// answers every call with an error saying which variable to set, so that a
// server still starts; [Built].Warnings says so, for the operator. Without
// bubblewrap keel starts too: the sandboxes keep their files, their
// commands are off, and one warning says how to install it. Otherwise
// [Built].Info has the line that says how commands are isolated and how
// each limit is enforced.
package config
