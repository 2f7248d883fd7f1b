package providertest

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/keel-go/keel"
)

// Refusal is a real error answer of a provider or an OpenAI-compatible
// server, byte for byte as the server sends it, and what an adapter must
// read from it. Tests of the adapters and of the runtime share these, so
// that a wording keel reads is written down once.
type Refusal struct {
	// Name says which server and what was sent.
	Name string
	// Reply is the answer.
	Reply Reply
	// Fault, MediaType, MediaClass and Limit are the fields of the
	// keel.APICallError the answer must become.
	Fault      keel.Fault
	MediaType  string
	MediaClass string
	Limit      int64
	// Sent is the media type of the file the request carries, at
	// messages[0].content[1] (after a text part); "" means image/png.
	Sent string
}

// The bodies of the servers OpenAI's adapter talks to.
var (
	// VLLMFilePart: vLLM, a PDF sent as a file part.
	VLLMFilePart = Refusal{Name: "vllm, a PDF", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"object":"error","message":"Unknown part type: file","type":"BadRequestError","param":null,"code":400}`},
		Fault: keel.FaultFileType, MediaType: "application/pdf", Sent: "application/pdf"}
	// LlamaCppImage: llama.cpp's server, an image to a model without
	// vision.
	LlamaCppImage = Refusal{Name: "llama.cpp, a PNG", Reply: Reply{Status: http.StatusInternalServerError,
		Body: `{"error":{"code":500,"message":"Failed to parse messages: Unsupported content part type: \"image_url\"","type":"server_error"}}`},
		Fault: keel.FaultFileType, MediaClass: "image/*"}
	// OllamaImage: Ollama, an image to a text-only model.
	OllamaImage = Refusal{Name: "ollama, a PNG", Reply: Reply{Status: http.StatusInternalServerError,
		Body: `{"error":{"message":"Failed to create new sequence: failed to process inputs: this model is missing data required for image input","type":"api_error","param":null,"code":null}}`},
		Fault: keel.FaultFileType, MediaClass: "image/*"}
	// OpenRouterImage: OpenRouter, an image to a model no endpoint serves
	// with vision.
	OpenRouterImage = Refusal{Name: "openrouter, a PNG", Reply: Reply{Status: http.StatusNotFound,
		Body: `{"error":{"message":"No endpoints found that support image input","code":404}}`},
		Fault: keel.FaultFileType, MediaClass: "image/*"}
	// MistralDocument: Mistral, a PNG sent as a document.
	MistralDocument = Refusal{Name: "mistral, a PNG as document", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"object":"error","message":"Invalid document type. image/png is not supported.","type":"invalid_request_error","param":null,"code":null}`},
		Fault: keel.FaultFileType, MediaType: "image/png"}
	// GroqListContent: Groq, content given as a list to a text-only
	// model.
	GroqListContent = Refusal{Name: "groq, list content", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"message":"'messages.1' : for 'role:user' the following must be satisfied[('messages.1.content' : value must be a string)]","type":"invalid_request_error"}}`},
		Fault: keel.FaultFileType, MediaClass: "*/*"}
	// OpenAIImageFormat: OpenAI, an image in a format it does not read.
	OpenAIImageFormat = Refusal{Name: "openai, invalid image format", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"message":"Invalid MIME type. Only image types are supported.","type":"invalid_request_error","param":null,"code":"invalid_image_format"}}`},
		Fault: keel.FaultFileType, MediaClass: "image/*"}
	// OpenAIUnsupportedMIME: OpenAI, an xlsx in a file part.
	OpenAIUnsupportedMIME = Refusal{Name: "openai, an xlsx", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"message":"Invalid file data: 'messages[1].content[0].file.file_data'. Expected a base64-encoded data URL with an application/pdf MIME type, but got unsupported MIME type 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'.","type":"invalid_request_error","param":"messages[1].content[0].file.file_data","code":"invalid_value"}}`},
		Fault: keel.FaultFileType, MediaType: XLSX}
	// OpenAIBadKey: OpenAI, a bad key.
	OpenAIBadKey = Refusal{Name: "openai, a bad key", Reply: Reply{Status: http.StatusUnauthorized,
		Body: `{"error":{"message":"Incorrect API key provided: sk-keel. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		Fault: keel.FaultNotFile}
	// OpenAIQuota: OpenAI, a quota used up.
	OpenAIQuota = Refusal{Name: "openai, quota", Reply: Reply{Status: http.StatusTooManyRequests,
		Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`},
		Fault: keel.FaultNotFile}
	// OllamaModelMissing: Ollama, a model that was never pulled (a 404).
	OllamaModelMissing = Refusal{Name: "ollama, unknown model", Reply: Reply{Status: http.StatusNotFound,
		Body: `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`},
		Fault: keel.FaultNotFile}
	// OpenAIFileGone: OpenAI, a file ID its Files API no longer keeps.
	OpenAIFileGone = Refusal{Name: "openai, a deleted file", Reply: Reply{Status: http.StatusNotFound,
		Body: OpenAIFileGoneBody("file-abc123")}, Fault: keel.FaultFileGone, Sent: "application/pdf"}
	// OpenAIServerError: OpenAI's 500, which says nothing of files.
	OpenAIServerError = Refusal{Name: "openai, server error", Reply: Reply{Status: http.StatusInternalServerError,
		Body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`}}
)

// The bodies of Anthropic's Messages API.
var (
	// AnthropicPages: a PDF of 120 pages.
	AnthropicPages = Refusal{Name: "anthropic, a 120-page PDF", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.pdf.source.base64.data: A maximum of 100 PDF pages may be provided."},"request_id":"req_011CPages"}`},
		Fault: keel.FaultFilePages, MediaType: "application/pdf", Limit: 100, Sent: "application/pdf"}
	// AnthropicImageType: an image of a type the API does not take; the
	// type is the one the block at the path was sent with.
	AnthropicImageType = Refusal{Name: "anthropic, image media type", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},"request_id":"req_011CImage"}`},
		Fault: keel.FaultFileType, MediaType: "image/png"}
	// AnthropicImageSize: an image over 5 MB.
	AnthropicImageSize = Refusal{Name: "anthropic, image over 5 MB", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes"},"request_id":"req_011CSize"}`},
		Fault: keel.FaultFileSize, MediaType: "image/png", Limit: 5242880}
	// AnthropicFileGone: a file ID the Files API does not keep (its
	// documented 404 not_found_error).
	AnthropicFileGone = Refusal{Name: "anthropic, a deleted file", Reply: Reply{Status: http.StatusNotFound,
		Body: AnthropicFileGoneBody("file_011CNha8iCJcU1wXNR6q4V8w")}, Fault: keel.FaultFileGone, Sent: "application/pdf"}
	// AnthropicOverloaded: 529, which says nothing of files.
	AnthropicOverloaded = Refusal{Name: "anthropic, overloaded", Reply: Reply{Status: 529,
		Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011COver"}`},
		Fault: keel.FaultNotFile}
)

// The bodies of the Gemini API.
var (
	// GeminiPayload: a request over the 20 MB inline limit.
	GeminiPayload = Refusal{Name: "gemini, a 25 MB PDF", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"code":400,"message":"Request payload size exceeds the limit: 20971520 bytes.","status":"INVALID_ARGUMENT"}}`},
		Fault: keel.FaultFileSize, Limit: 20971520, Sent: "application/pdf"}
	// GeminiBadKey: a bad key, answered 400.
	GeminiBadKey = Refusal{Name: "gemini, a bad key", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}}`},
		Fault: keel.FaultNotFile}
	// GeminiUnsupportedMIME: a docx.
	GeminiUnsupportedMIME = Refusal{Name: "gemini, a docx", Reply: Reply{Status: http.StatusBadRequest,
		Body: `{"error":{"code":400,"message":"Unsupported MIME type: application/vnd.openxmlformats-officedocument.wordprocessingml.document","status":"INVALID_ARGUMENT"}}`},
		Fault: keel.FaultFileType, MediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
	// GeminiFileGone: a file of the Files API the request named that
	// Gemini no longer keeps (48 hours after its upload).
	GeminiFileGone = Refusal{Name: "gemini, an expired file", Reply: Reply{Status: http.StatusForbidden,
		Body: `{"error":{"code":403,"message":"You do not have permission to access the File f1 or it may not exist.","status":"PERMISSION_DENIED"}}`},
		Fault: keel.FaultFileGone}
	// GeminiInternal: Gemini's 500, which says nothing of the file that
	// often causes it.
	GeminiInternal = Refusal{Name: "gemini, internal", Reply: Reply{Status: http.StatusInternalServerError,
		Body: `{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`}}
)

// OpenAICompatibleRefusals are the answers the OpenAI adapter reads, of
// OpenAI and of the compatible servers.
var OpenAICompatibleRefusals = []Refusal{VLLMFilePart, LlamaCppImage, OllamaImage, OpenRouterImage, MistralDocument,
	GroqListContent, OpenAIImageFormat, OpenAIUnsupportedMIME, OpenAIBadKey, OpenAIQuota, OllamaModelMissing, OpenAIServerError,
	OpenAIFileGone}

// AnthropicRefusals are the answers the Anthropic adapter reads.
var AnthropicRefusals = []Refusal{AnthropicPages, AnthropicImageType, AnthropicImageSize, AnthropicOverloaded, AnthropicFileGone}

// GeminiRefusals are the answers the Gemini adapter reads.
var GeminiRefusals = []Refusal{GeminiPayload, GeminiBadKey, GeminiUnsupportedMIME, GeminiInternal, GeminiFileGone}

// CheckRefusals answers each of refusals to a generate and a stream call
// of the model newModel makes for a server's URL, with a request holding
// a text and a file (of the refusal's Sent type), and checks the
// keel.APICallError each becomes: the fault, media type, class and limit
// the answer says, and that a refused file type is never retryable.
func CheckRefusals(t *testing.T, newModel func(t *testing.T, url string) keel.Model, refusals []Refusal) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			sent := r.Sent
			sent = cmp.Or(sent, "image/png")
			data := []byte("\x89PNG\r\n\x1a\n")
			if sent == "application/pdf" {
				data = []byte("%PDF-1.4\n")
			}
			req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
				keel.TextPart{Text: "What is this?"}, keel.FilePart{Data: data, MediaType: sent, Filename: "f"}}}}}
			s := NewServer(t, r.Reply)
			m := newModel(t, s.URL())
			_, gerr := m.Generate(context.Background(), req)
			serr := Collect(t, m.Stream(context.Background(), req)).Err
			for name, err := range map[string]error{"generate": gerr, "stream": serr} {
				var ae *keel.APICallError
				if !errors.As(err, &ae) {
					t.Fatalf("Got(%s error) = %T %v; want *keel.APICallError", name, err, err)
				}
				if ae.Fault != r.Fault || ae.MediaType != r.MediaType || ae.MediaClass != r.MediaClass || ae.Limit != r.Limit {
					t.Errorf("Got(%s fault) = %q type %q class %q limit %d; want %q %q %q %d", name,
						ae.Fault, ae.MediaType, ae.MediaClass, ae.Limit, r.Fault, r.MediaType, r.MediaClass, r.Limit)
				}
				if ae.Body != r.Reply.Body || ae.StatusCode != r.Reply.Status {
					t.Errorf("Got(%s status, body) = %d %q; want %d and the body byte for byte", name, ae.StatusCode, ae.Body, r.Reply.Status)
				}
				if r.Fault == keel.FaultFileType && ae.Retryable {
					t.Errorf("Got(%s Retryable) = true; want false: a refused file type is refused again", name)
				}
			}
		})
	}
}
