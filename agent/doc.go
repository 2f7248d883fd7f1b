// Package agent runs a model with tools, memory, a workspace and
// processors: the loop at the heart of keel.
//
// # The path of a run
//
// [Agent.Generate] and [Agent.Stream] are two front ends of one loop:
//
//  1. The thread's history window is loaded from memory (stored messages
//     keep their files): its last Config.LastMessages messages (10 by
//     default, [WithLastMessages] for one run), read alone from the store
//     whatever the thread's length, and reaching back to a tool call whose
//     result would otherwise begin it. The window is all a run sees of the
//     thread: the prompt, and the processors (the unsupported-file
//     handler, remembered refusals) act on it. That one read also checks
//     the thread is the run's resource's; a thread it does not find is
//     made at step 3. A caller that has just found the thread missing
//     says so with [WithNewThread], and the run skips the read.
//  2. Input processors check the turn's new messages; one may stop the
//     turn with a typed error, and then nothing is stored.
//  3. The turn's messages are stored, so nothing the user sent is lost even
//     if the model then fails, before the model is called: a failed save
//     is the run's error and the model is not called. A new thread is made
//     with its first messages, in one commit when the store can.
//  4. Steps: the prompt (instructions, history, turn, earlier steps) is
//     cloned, LLM-request processors rewrite it (the first downloads the
//     files given by link that the model's provider does not fetch), the
//     model is called; on an error the API-error processors
//     decide whether the same step is tried again (after a delay that a
//     cancelled context ends at once), else the next model of the list
//     takes over, else the error surfaces unchanged; tool calls are run
//     and their results start the next step. The tools are Config.Tools
//     and those of Config.ToolSets as they were when the run began; the
//     files a tool returns ([tool.Result]) follow its result in the tool
//     message.
//  5. The reply (assistant and tool messages) is stored and returned.
//
// # Thread titles
//
// A thread a run makes is titled by its first user text ([DefaultTitle]:
// one line, at most [MaxTitleLength] characters, cut at a word); one made
// before through the API without a title gets that title at its first
// turn. With Config.GenerateTitle, the model is asked for a short title
// once the first turn's result is delivered (a Stream's finish event
// first), unless the caller gave the thread a title; a failure is logged
// and the thread keeps its title, and the turn never fails for it.
//
// The prompt sent to the model and the stored messages are different
// values: processors change the first, never the second.
//
// # Default error processors
//
// Unless Config.DisableDefaultErrorProcessors is set, every agent has, in
// this order, the prefill error handler, the unsupported-file handler and
// the stream-error retry processor (see package processor). A processor
// given in Config.ErrorProcessors with the ID of a default takes its place.
//
// # A list of models
//
// With Config.Models, a call whose error the error processors gave up on
// goes to the next model: a refused file or a passing 503 is repaired on
// the model that failed first, within its entry's MaxRetries. The next
// model starts from the prompt as the user sent it: the processors'
// state, retries and added messages belong to the model that failed, and
// what a processor took out of the prompt (a refused file) is back.
// Remembered refusals are of one model, so the next model gets a file
// the first refused. A caller's fault ([CallerFault]) and the context's
// end surface instead. The model that answered is [Result].Model and
// [Step].Model, is in [EventStepFinish] and [EventFallback], and is in
// the stored reply's metadata ([MetadataModel]).
//
// # Files given by link
//
// A file part whose data is an http(s) URL goes to the model as the link
// only when its provider fetches such a link ([keel.LinkFetcher]).
// Otherwise the agent's first processor, [processor.LinkDownload],
// downloads it before the call with Config.Links, by the rules of
// package fetch, and the model gets the bytes, which every later
// processor treats as any file. A link that cannot be downloaded (or any
// link, without Config.Links) becomes a "[File not downloaded]" note with
// the reason; the turn goes on. A failure that was tried, such as an
// expired link's 403, 404 or 410, is kept on the stored message
// ([processor.MetadataLinkFailures]) so that later turns do not try again. The
// stored message keeps the link unless Config.KeepLinkCopies.
//
// # Streams
//
// [Agent.Stream] yields [Event]s as they happen. An error that arrives
// before any output of a call is retried invisibly; after some output, only
// processors that allow it retry, and an [EventRetry] with Discard set
// tells the consumer that the failed attempt's output is void. Stopping the
// iteration cancels the run.
//
// # Concurrency
//
// An [Agent] is safe for concurrent use. Each run has its own processor
// state; two runs never see each other's.
package agent
