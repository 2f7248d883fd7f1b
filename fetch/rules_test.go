package fetch_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/keel-go/keel/fetch"
)

func mustClient(t *testing.T, opts fetch.Options) *fetch.Client {
	t.Helper()
	c, err := fetch.New(opts)
	if err != nil {
		t.Fatalf("Got(fetch.New(%+v)) = %v; want a client", opts, err)
	}
	return c
}

// code returns the Code of err, "" when it is no *fetch.Error.
func code(err error) fetch.Code {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}

func TestCheckHostileURLs(t *testing.T) {
	c := mustClient(t, fetch.Options{AllowHosts: []string{"*"}})
	tests := []struct{ name, url, detail string }{
		{"ftp", "ftp://files.example.com/a.pdf", "only http and https"},
		{"file", "file:///etc/passwd", "only http and https"},
		{"gopher", "gopher://files.example.com/", "only http and https"},
		{"javascript", "javascript:alert(1)", "only http and https"},
		{"data URL", "data:text/plain,hello", "only http and https"},
		{"no scheme", "//files.example.com/a", "only http and https"},
		{"user and password", "https://user:secret@files.example.com/a.pdf", "user name or password"},
		{"user only", "https://files.example.com@evil.example/a.pdf", "user name or password"},
		{"CRLF", "https://files.example.com/a.pdf\r\nHost: evil.example", "control characters"},
		{"encoded CRLF in host", "https://files.example.com%0d%0a/a", "does not parse"},
		{"NUL", "https://files.example.com/a\x00.pdf", "control characters"},
		{"space", "https://files.example.com/a b.pdf", "spaces"},
		{"tab", "https://files.example.com/\ta.pdf", "spaces"},
		{"backslash", "https://files.example.com\\@evil.example/", "backslash"},
		{"decimal IPv4", "http://2130706433/", "four decimal numbers"},
		{"octal IPv4", "http://0177.0.0.1/", "four decimal numbers"},
		{"hex IPv4", "http://0x7f.0.0.1/", "four decimal numbers"},
		{"hex whole IPv4", "http://0x7f000001/", "four decimal numbers"},
		{"short IPv4", "http://127.1/", "four decimal numbers"},
		{"leading zero IPv4", "http://127.000.000.001/", "four decimal numbers"},
		{"IPv6 zone", "http://[fe80::1%25eth0]/", "zone"},
		{"IPv4 in brackets", "http://[127.0.0.1]/", "does not parse"},
		{"no host", "http:///etc/passwd", "no host"},
		{"non-ASCII host", "https://bücher.example/a.pdf", "xn--"},
		{"percent in host", "https://files%2eexample.com/", "does not parse"},
		{"empty label", "https://files..example.com/", "DNS name"},
		{"port too large", "https://files.example.com:99999/", "port"},
		{"port not a number", "https://files.example.com:ab/", "parse"},
		{"empty port", "https://files.example.com:/a", "port is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Check(tt.url)
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Code != fetch.CodeBadURL {
				t.Fatalf("Got(Check(%q)) = %v; want a %s error", tt.url, err, fetch.CodeBadURL)
			}
			if !strings.Contains(fe.Error(), tt.detail) {
				t.Errorf("Got(error) = %q; want it to say %q", fe.Error(), tt.detail)
			}
			if !fe.Refused() || fe.Gone() {
				t.Errorf("Got(Refused, Gone) = %v, %v; want true, false", fe.Refused(), fe.Gone())
			}
			if strings.ContainsAny(fe.Error(), "\r\n\x00") {
				t.Errorf("Got(error) = %q; want no control characters in it", fe.Error())
			}
		})
	}
}

func TestCheckAllowList(t *testing.T) {
	c := mustClient(t, fetch.Options{AllowHosts: []string{"Files.Example.com", "*.cdn.example", "127.0.0.1", "[::1]"}})
	tests := []struct {
		url  string
		want fetch.Code
	}{
		{"https://files.example.com/a.pdf", ""},
		{"HTTPS://FILES.EXAMPLE.COM./a.pdf", ""},
		{"https://files.example.com:8443/a.pdf", ""}, // ports do not count
		{"https://eu.cdn.example/a.pdf", ""},
		{"https://a.b.cdn.example/a.pdf", ""},
		{"https://cdn.example/a.pdf", fetch.CodeHostNotAllowed}, // the wildcard is for subdomains only
		{"https://evilcdn.example/a.pdf", fetch.CodeHostNotAllowed},
		{"https://files.example.com.evil.example/a.pdf", fetch.CodeHostNotAllowed},
		{"https://other.example.com/a.pdf", fetch.CodeHostNotAllowed},
		{"http://127.0.0.1:8080/a.pdf", ""},
		{"http://[::1]:8080/a.pdf", ""},
		{"http://[::ffff:127.0.0.1]/a.pdf", ""}, // the same address, written as IPv6
		{"http://127.0.0.2/a.pdf", fetch.CodeHostNotAllowed},
		{"http://localhost/a.pdf", fetch.CodeHostNotAllowed},
	}
	for _, tt := range tests {
		if got := code(c.Check(tt.url)); got != tt.want {
			t.Errorf("Got(Check(%q)) = %q; want %q", tt.url, got, tt.want)
		}
	}
	none := mustClient(t, fetch.Options{})
	err := none.Check("https://files.example.com/a.pdf")
	if code(err) != fetch.CodeHostNotAllowed || !strings.Contains(err.Error(), "no host is allowed") {
		t.Errorf("Got(Check with no allowed host) = %v; want %s saying no host is allowed", err, fetch.CodeHostNotAllowed)
	}
}

func TestNewRefusesBadEntries(t *testing.T) {
	for _, entry := range []string{"https://files.example.com", "files.example.com:443", "files.example.com/a",
		"*.", "**", "*example.com", "127.1", "", "fe80::1%eth0", "bücher.example"} {
		if _, err := fetch.New(fetch.Options{AllowHosts: []string{entry}}); !errors.Is(err, fetch.ErrInvalidOptions) {
			t.Errorf("Got(New(AllowHosts: %q)) = %v; want an error wrapping ErrInvalidOptions", entry, err)
		}
	}
	if _, err := fetch.New(fetch.Options{MaxSize: -1}); !errors.Is(err, fetch.ErrInvalidOptions) {
		t.Errorf("Got(New(MaxSize: -1)) = %v; want ErrInvalidOptions", err)
	}
}

func TestPublic(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // AWS, GCP, Azure metadata
		{"169.254.170.2", false},   // ECS task metadata
		{"100.100.100.200", false}, // Alibaba Cloud metadata
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"255.255.255.255", false},
		{"224.0.0.1", false},
		{"192.0.0.192", false},
		{"198.18.0.1", false},
		{"240.0.0.1", false},
		{"::1", false},
		{"::", false},
		{"fe80::1", false},
		{"fd00:ec2::254", false}, // AWS IPv6 metadata
		{"fc00::1", false},
		{"fec0::1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"64:ff9b::7f00:1", false},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"2002:7f00:1::1", false},     // 6to4 of 127.0.0.1
		{"2001:db8::1", false},
		{"2001::1", false},                  // Teredo
		{"::169.254.169.254", false},        // IPv4-compatible
		{"::a9fe:a9fe", false},              // the same, in hex
		{"::127.0.0.1", false},              // IPv4-compatible loopback
		{"::10.0.0.1", false},               // IPv4-compatible private
		{"::8.8.8.8", true},                 // IPv4-compatible public: judged as 8.8.8.8
		{"::ffff:0:169.254.169.254", false}, // IPv4-translated
		{"::ffff:0:a00:1", false},           // IPv4-translated 10.0.0.1
		{"64:ff9b::10.0.0.1", false},        // NAT64 of a private address
		{"64:ff9b::192.168.0.1", false},
		{"2002:a9fe:a9fe::1", false}, // 6to4 of 169.254.169.254
		{"2002:c0a8:1::1", false},    // 6to4 of 192.168.0.1
		{"2002:808:808::1", true},    // 6to4 of 8.8.8.8
	}
	for _, tt := range tests {
		if got := fetch.Public(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("Got(Public(%s)) = %v; want %v", tt.ip, got, tt.want)
		}
	}
}

func TestMediaTypeMatches(t *testing.T) {
	tests := []struct {
		want, got string
		match     bool
	}{
		{"", "text/html", true},
		{"application/pdf", "application/pdf", true},
		{"Application/PDF", "application/pdf; qs=0.9", true},
		{"text/csv; charset=utf-8", "text/csv", true},
		{"image/jpeg", "image/jpg", true},
		{"audio/mp3", "audio/mpeg", true},
		{"application/pdf", "application/x-pdf", true},
		{"image/*", "image/png", true},
		{"application/pdf", "", true},
		{"application/pdf", "application/octet-stream", true},
		{"image/png", "binary/octet-stream", true},
		{"text/csv", "text/plain; charset=utf-8", true},
		{"text/markdown", "text/plain", true},
		{"application/pdf", "text/html", false},
		{"image/png", "text/html; charset=utf-8", false},
		{"image/*", "text/html", false},
		{"application/json", "text/plain", false},
		{"text/csv", "text/html", false},
		{"image/png", "image/jpeg", false},
	}
	for _, tt := range tests {
		if got := fetch.MediaTypeMatches(tt.want, tt.got); got != tt.match {
			t.Errorf("Got(MediaTypeMatches(%q, %q)) = %v; want %v", tt.want, tt.got, got, tt.match)
		}
	}
}

func TestErrorRedactsQuery(t *testing.T) {
	c := mustClient(t, fetch.Options{AllowHosts: []string{"files.example.com"}})
	err := c.Check("https://evil.example/a.pdf?X-Amz-Signature=secret#frag")
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "https://evil.example/a.pdf") {
		t.Errorf("Got(error) = %v; want the link without its query", err)
	}
}
