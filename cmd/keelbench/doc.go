// Command keelbench measures keel's HTTP server the way the Mastra client
// uses it: text generates with memory on (SQLite, a new thread per call)
// and a generate with a 1 MiB PDF, against a zero-latency local model
// server speaking Gemini's wire protocol.
//
// # Usage
//
//	go run ./cmd/keelbench                       # starts the server in a child process
//	go run ./cmd/keelbench -inprocess            # server in this process
//	go run ./cmd/keelbench -url http://127.0.0.1:4111 -pid 1234 -model-url http://127.0.0.1:8080
//
// By default keelbench starts its model server, then re-runs itself as a
// child that serves keel (the equivalent of keel serve: one agent
// "assistant" with the Gemini adapter, SQLite memory in a temporary file,
// no request logs unless -logs), so that the child's resident memory is
// the server's alone. With -url it drives a server already running
// (loopback only); -pid names its process for the memory figures, and
// -model-url its model server for the PDF comparison.
//
// # Figures
//
//   - p50/p90/p99 latency of a text generate at 1 client (-latency-calls);
//   - requests per second at 32 clients (-clients), over two rounds of
//     -round-calls calls each, with the server's VmRSS after each round;
//   - for a 1 MiB PDF (-pdf-calls at 1 client): the p50 through keel, the
//     p50 of the same request sent straight to the model server, their
//     ratio, and the size of keel's response; then, as the floor under
//     that ratio, the p50 of the same request through a server that only
//     reads the body and forwards it (no decoding, no storage) — any
//     server between a client and the model moves the file twice.
//
// -cpuprofile FILE writes the CPU profile of the server keelbench starts.
//
// -store inmemory serves with in-memory storage instead of SQLite, to
// tell the server's own cost from the store's.
//
// # Realistic models
//
// A zero-latency model shows keel's own cost, but a piece of machinery
// that saves 0.1 ms of it may not matter beside a model call that takes
// 20 ms or seconds. -model says which model server to start:
//
//   - instant (the default): answers at once;
//   - delay: answers each call after -model-delay (20 ms);
//   - stream: streams a twenty-word answer at -tokens-per-second (50), and
//     a generateContent call takes as long as that stream.
//
// With delay and stream, keelbench also sends the text call straight to
// the model server and prints what keel adds to it; with stream it
// measures keel's stream route too (time to the first text and to the
// end, beside the same stream straight from the model). Call counts
// default to what the model's speed allows in seconds (flags override).
//
// # Load at given client counts
//
// -load 8,64 replaces the figures above with, for each client count, a
// phase of text generates (-load-calls) and one of generates carrying the
// -pdf-bytes file (-load-file-calls), printing for each the requests per
// second, the p50 and p99 of every call, and the server's CPU time per
// call and resident memory (VmRSS, and its peak VmHWM). That is how a
// piece of machinery is judged against a model that takes time to answer.
//
// -server-exe runs another build's keelbench as the server child, so that
// one driver measures two builds of the server in turn (its child must
// take -serve-child, -model-url and -store, as keelbench's always has).
//
// Every loop is bounded by its call count; everything stays on loopback.
package main
