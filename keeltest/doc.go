// Package keeltest provides test doubles for code built on keel: a scripted
// [Model] that records every prompt it receives, and an in-memory
// [Sandbox] that records every write and can be made to fail.
//
// # Scripted model
//
// A [Model] answers each call with the next [Reply] of its script: text,
// tool calls or an error (after some streamed text, in a stream). Its
// [Model.Prompts] are what tests assert on, for example that the second
// prompt of a run no longer holds a file the first call was refused for.
//
// The scripted model is for testing agent loops and processors. Provider
// adapters are tested against servers speaking the providers' wire
// formats instead (see provider/providertest).
package keeltest
