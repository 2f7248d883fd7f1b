package server

// CanonicalBase64 exposes the data: URL decoder to the tests.
var CanonicalBase64 = canonicalBase64
