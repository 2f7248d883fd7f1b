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
//     handler, remembered refusals) act on it.
//  2. Input processors check the turn's new messages; one may stop the
//     turn with a typed error, and then nothing is stored.
//  3. The turn's messages are stored, so nothing the user sent is lost even
//     if the model then fails, before the model is called: a failed save
//     is the run's error and the model is not called. A new thread is made
//     with its first messages, in one commit when the store can.
//  4. Steps: the prompt (instructions, history, turn, earlier steps) is
//     cloned, LLM-request processors rewrite the clone, the model is
//     called; on an error the API-error processors decide whether the same
//     step is tried again (after a delay that a cancelled context ends at
//     once) or the error surfaces unchanged; tool calls are run and their
//     results start the next step.
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
