// Package provider turns model strings such as "openai/gpt-4o-mini" into
// [keel.Model] values, picking the adapter in provider/openai,
// provider/anthropic or provider/google.
//
// # Model strings
//
// A model string is "provider/model":
//
//	openai/gpt-4o-mini            OpenAI Chat Completions
//	openai/responses/gpt-5        OpenAI Responses API
//	anthropic/claude-sonnet-4-5   Anthropic Messages
//	google/gemini-2.5-flash       Google Gemini API
//	openai-compatible/llama3.2    any OpenAI-compatible server (Ollama, vLLM, OpenRouter, LM Studio)
//
// [Resolve] builds the model; [FromEnv] picks a model string from the
// environment for programs that were not given one.
//
// # Configuration
//
// Keys and base URLs come from [Options] or else the environment:
// OPENAI_API_KEY and OPENAI_BASE_URL; ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL; GOOGLE_GENERATIVE_AI_API_KEY (or GOOGLE_API_KEY,
// GEMINI_API_KEY) and GOOGLE_GEMINI_BASE_URL; OPENAI_COMPATIBLE_BASE_URL
// (required) and OPENAI_COMPATIBLE_API_KEY (optional) for compatible
// servers. KEEL_MODEL names the model [FromEnv] returns.
//
// # Timeouts
//
// [Options.IdleTimeout] (60 s by default) bounds each wait for the provider
// once an answer has started, and [Options.FirstByteTimeout] (10 minutes)
// the wait for an answer's first byte, since a model may think for
// minutes first. Passing either ends the call with a retryable
// [keel.APICallError] whose cause is [keel.ErrIdleTimeout]; keel's
// stream-error retry then sends the call again.
//
// # Errors
//
// An unknown provider, a missing key or a compatible server without a base
// URL is a [*ConfigError] whose message names the variable to set, found
// before anything is sent.
package provider
