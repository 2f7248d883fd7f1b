package fetch

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"
)

// Code names why a download did not happen or failed. Codes are stable:
// they are stored with messages and sent to clients.
type Code string

// The codes of an [Error].
const (
	// CodeBadURL: the link is not one keel downloads: not http(s), a user
	// name or password in it, control characters or spaces, a host that is
	// not a plain name or IP address (such as 2130706433 or 0177.0.0.1).
	// Nothing was sent.
	CodeBadURL Code = "BAD_URL"
	// CodeHostNotAllowed: the link's host (or a redirect's) is not on the
	// allow-list; Host names it. Nothing was sent to that host.
	CodeHostNotAllowed Code = "HOST_NOT_ALLOWED"
	// CodePrivateAddress: the host resolved to a loopback, private,
	// link-local, cloud-metadata or otherwise non-public address that the
	// allow-list does not name exactly; Host and Address say which. No
	// connection was made to it.
	CodePrivateAddress Code = "PRIVATE_ADDRESS"
	// CodeBadRedirect: the link redirected too many times, to a link that
	// is not one keel downloads, or from https to http.
	CodeBadRedirect Code = "BAD_REDIRECT"
	// CodeTooLarge: the file is over the size cap (Limit), by the count of
	// bytes read or by a Content-Length over it.
	CodeTooLarge Code = "TOO_LARGE"
	// CodeStatus: the server answered with a status other than 2xx
	// (Status). 403, 404 and 410 say the link is gone ([Error.Gone]).
	CodeStatus Code = "HTTP_STATUS"
	// CodeMediaType: the server sent a file of another type (MediaType)
	// than the link's part says (Want); see [MediaTypeMatches].
	CodeMediaType Code = "MEDIA_TYPE_MISMATCH"
	// CodeTimeout: the download did not finish within the timeout.
	CodeTimeout Code = "TIMEOUT"
	// CodeFailed: the connection failed or broke (no such host, refused,
	// reset, a bad TLS certificate).
	CodeFailed Code = "DOWNLOAD_FAILED"
)

// Error is why a link was not downloaded. Its fields are what is known
// for its Code; the others are zero.
type Error struct {
	Code Code
	// URL is the link (the redirect's target, for a refused redirect),
	// without its query string and fragment: a signed link's secret never
	// reaches logs or error messages.
	URL string
	// Host is the host concerned, lower-case.
	Host string
	// Address is the refused address, for [CodePrivateAddress].
	Address string
	// Status is the server's HTTP status, for [CodeStatus].
	Status int
	// Limit is the size cap in bytes, for [CodeTooLarge].
	Limit int64
	// MediaType is the type the server sent and Want the one the part
	// gave, for [CodeMediaType] (normalised).
	MediaType, Want string
	// Detail says more, in a few words, such as "it holds a user name or
	// password".
	Detail string
	// Err is the underlying error, if any.
	Err error
}

// Error returns "fetch: URL: what went wrong".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("fetch: ")
	if e.URL != "" {
		b.WriteString(e.URL + ": ")
	}
	switch e.Code {
	case CodeBadURL:
		b.WriteString("not a link keel downloads")
	case CodeHostNotAllowed:
		fmt.Fprintf(&b, "host %q is not allowed", e.Host)
	case CodePrivateAddress:
		fmt.Fprintf(&b, "host %q is at %s, a non-public address", e.Host, e.Address)
	case CodeBadRedirect:
		b.WriteString("refused redirect")
	case CodeTooLarge:
		fmt.Fprintf(&b, "over the %d byte limit", e.Limit)
	case CodeStatus:
		fmt.Fprintf(&b, "answered %d %s", e.Status, http.StatusText(e.Status))
	case CodeMediaType:
		fmt.Fprintf(&b, "sent %s, not %s", cmp.Or(e.MediaType, "no media type"), e.Want)
	case CodeTimeout:
		b.WriteString("timed out")
	default:
		b.WriteString("download failed")
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Reason says in a sentence, for people and models, why the file was not
// downloaded, without the link (a signed link's secret stays out of
// prompts too).
func (e *Error) Reason() string {
	var s string
	switch e.Code {
	case CodeBadURL:
		s = "The link is not one that is downloaded"
	case CodeHostNotAllowed:
		s = fmt.Sprintf("The host %q is not on the list of hosts files may be downloaded from", e.Host)
		if e.Detail != "" {
			s += " (" + e.Detail + ")"
		}
		return s + "."
	case CodePrivateAddress:
		s = fmt.Sprintf("The host %q is at a non-public address (%s)", e.Host, e.Address)
	case CodeBadRedirect:
		s = "The link redirected where downloads may not go"
	case CodeTooLarge:
		return fmt.Sprintf("The file is over the %d byte limit.", e.Limit)
	case CodeStatus:
		s = fmt.Sprintf("The server answered %d %s", e.Status, http.StatusText(e.Status))
		if e.Gone() {
			s += "; the link has probably expired"
		}
		return s + "."
	case CodeMediaType:
		return fmt.Sprintf("The server sent %s, not %s.", cmp.Or(e.MediaType, "no media type"), e.Want)
	case CodeTimeout:
		s = "The download timed out"
	default:
		s = "The download failed"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s + "."
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Refused reports a link refused by the rules alone, before anything was
// sent ([CodeBadURL], [CodeHostNotAllowed]): the same link meets the same
// answer until the configuration changes, at no cost, so there is nothing
// to remember about it.
func (e *Error) Refused() bool { return e.Code == CodeBadURL || e.Code == CodeHostNotAllowed }

// Gone reports an answer that says the link no longer gives the file:
// 403, 404 or 410, as an expired signed link answers.
func (e *Error) Gone() bool {
	return e.Code == CodeStatus && (e.Status == 403 || e.Status == 404 || e.Status == 410)
}
