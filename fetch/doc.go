// Package fetch downloads the files that messages give by link, by rules
// that keep a link from reaching what it should not.
//
// A file part whose data is an http(s) URL reaches a model as a link only
// when the model's provider fetches links of that type itself (see
// keel.LinkFetcher). Otherwise keel downloads it with a [Client] before
// the call, and the model gets the bytes as if the user had sent them, so
// that every rule for files applies to them: refused types, converters,
// uploads to the sandbox.
//
// # Rules
//
// A [Client] downloads a link only when all of these hold, and says which
// failed with an [*Error] whose [Code] names it:
//
//   - The link is http or https, with a host and no user name or
//     password, no spaces or control characters (no CR or LF), no
//     backslash; its host is a DNS name of ASCII letters, digits and
//     hyphens, an IPv4 address in four decimal numbers, or a bracketed
//     IPv6 address without a zone. Forms that different readers read as
//     different addresses (2130706433, 0177.0.0.1, 0x7f.1, 127.1) are
//     refused.
//   - The host is on the allow-list ([Options].AllowHosts): a name, an IP
//     address, "*.example.com" for subdomains, "*" for all. The list is
//     empty unless given, and then nothing is downloaded.
//   - The address connected to is public ([Public]) unless the host is on
//     the list by its own name or address: no loopback, private,
//     link-local, cloud-metadata (169.254.169.254, fd00:ec2::254,
//     100.100.100.200), multicast or reserved address. The check is made
//     by the dialer on the address being connected to, after resolution,
//     so a name that resolves to another address by the time of the
//     connection (DNS rebinding) gains nothing.
//   - Every redirect meets the same rules (at most 5, never from https to
//     http, never to another scheme such as file:).
//   - The answer is 2xx (206 aside); 403, 404 and 410 say the link is
//     gone ([Error.Gone]), as an expired signed link answers.
//   - Its Content-Type matches the part's media type ([MediaTypeMatches]):
//     an HTML login page in place of a PDF is refused.
//   - It is at most 10 MiB ([DefaultMaxSize]), counted while reading: one
//     byte more is refused, whatever Content-Length said.
//   - It arrives within 30 s ([DefaultTimeout]), redirects included.
//
// No proxy is used, no cookie or credential is sent. Errors and logs show
// a link without its query string, where signed links keep their secret.
package fetch
