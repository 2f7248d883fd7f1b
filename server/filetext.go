package server

import (
	"errors"
	"net/http"

	"github.com/keel-go/keel/convert"
)

// wireFileText is a stored file as text, as an agent's converters make it
// for a model that refused the file.
type wireFileText struct {
	Kind         string `json:"kind"`
	As           string `json:"as"`
	Description  string `json:"description,omitempty"`
	Text         string `json:"text"`
	OmittedChars int    `json:"omittedChars,omitempty"`
	OmittedUnits int    `json:"omittedUnits,omitempty"`
	Unit         string `json:"unit,omitempty"`
	// OmittedAtLeast: the counts are lower bounds ([convert.Omission]).
	OmittedAtLeast bool `json:"omittedAtLeast,omitempty"`
}

// fileText answers GET
// /api/memory/threads/{tid}/messages/{mid}/files/{n}/text?agentId=A: the
// stored file converted to text by agent A's converters, the text a model
// got in the file's place when A converted it (the same converters on the
// same bytes give the same text), so that a person can read what the
// model read.
func (s *Server) fileText(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("agentId")
	if id == "" {
		writeRequestError(w, badRequest("agentId is required: the text is the one that agent's converters make",
			Issue{Field: "agentId", Message: "is required"}))
		return
	}
	f, data, ok := s.storedFile(w, r) // checks agentId too
	if !ok {
		return
	}
	conv := s.agents[id].Config().Files.Converters
	if conv == nil {
		writeError(w, http.StatusNotFound, "agent "+id+" converts no files: its model gets the file's note or placeholder instead")
		return
	}
	res, err := conv.Convert(r.Context(), convert.Input{Name: f.Filename, MediaType: f.MediaType, Data: data})
	var ferr *convert.FormatError
	switch {
	case err == nil && res != nil:
	case err == nil, errors.Is(err, convert.ErrUnsupported):
		writeError(w, http.StatusUnprocessableEntity, "no converter of agent "+id+" reads this file: its model gets the file's note or placeholder")
		return
	case errors.As(err, &ferr), errors.Is(err, convert.ErrLimit):
		writeError(w, http.StatusUnprocessableEntity, "the file cannot be converted: "+err.Error())
		return
	default:
		s.writeRunError(w, r, err)
		return
	}
	writeJSONFor(w, r, http.StatusOK, wireFileText{Kind: res.Kind, As: res.As, Description: res.Description, Text: res.Text,
		OmittedChars: res.Omitted.Chars, OmittedUnits: res.Omitted.Units, Unit: res.Omitted.Unit, OmittedAtLeast: res.Omitted.AtLeast})
}
