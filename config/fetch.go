package config

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/keel-go/keel/fetch"
)

// Fetch says whether and how keel downloads the files messages give by
// http(s) link when the model's provider does not fetch them itself (see
// package fetch for every rule). Without it no host is allowed: such a
// link is left out of the prompt with a note saying why.
type Fetch struct {
	// AllowHosts are the hosts links are downloaded from: names,
	// addresses, "*.example.com" for subdomains, "*" for any. A host
	// allowed by a wildcard only is downloaded from only at a public
	// address; a loopback, private or link-local one must be named
	// exactly.
	AllowHosts []string `yaml:"allowHosts"`
	// MaxSize caps a download, such as 5MiB; 0 means 10MiB.
	MaxSize ByteSize `yaml:"maxSize"`
	// Timeout bounds a download, such as 10s; 0 means 30s.
	Timeout time.Duration `yaml:"timeout"`
	// KeepCopy stores a downloaded file in its message instead of the
	// link, so later turns do not download it again; off by default.
	KeepCopy bool `yaml:"keepCopy"`
	// Resolve gives fixed addresses to host names, used instead of DNS
	// for them as /etc/hosts would be (files.internal: 10.0.0.7). The
	// address rules apply to them as to any answer of DNS.
	Resolve map[string]string `yaml:"resolve"`
}

// fetchOf returns the download settings of agent a: its files.fetch,
// else the file's.
func (f *File) fetchOf(a Agent) *Fetch {
	return cmp.Or(a.Files.Fetch, f.Files.Fetch)
}

// client returns the downloader of fc; nil fc downloads nothing.
func (fc *Fetch) client() (*fetch.Client, error) {
	if fc == nil {
		return nil, nil
	}
	opts := fetch.Options{AllowHosts: fc.AllowHosts, MaxSize: int64(fc.MaxSize), Timeout: fc.Timeout}
	if len(fc.Resolve) > 0 {
		fixed := make(map[string]netip.Addr, len(fc.Resolve))
		for name, addr := range fc.Resolve {
			ip, err := netip.ParseAddr(addr)
			if err != nil {
				return nil, fmt.Errorf("resolve: %q: %w", name, err)
			}
			fixed[strings.TrimSuffix(strings.ToLower(name), ".")] = ip
		}
		opts.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
			if ip, ok := fixed[strings.TrimSuffix(strings.ToLower(host), ".")]; ok {
				return []netip.Addr{ip}, nil
			}
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return fetch.New(opts)
}

// validate checks fc; add reports a mistake at a key below fetch.
func (fc *Fetch) validate(add func(key, format string, args ...any)) {
	if fc.MaxSize < 0 {
		add("maxSize", "%d: use a positive size such as 5MiB, or leave it out for 10MiB", fc.MaxSize)
	}
	if fc.Timeout < 0 {
		add("timeout", "%s: use a positive duration such as 10s, or leave it out for 30s", fc.Timeout)
	}
	for _, h := range fc.AllowHosts {
		if _, err := fetch.New(fetch.Options{AllowHosts: []string{h}}); err != nil {
			add("allowHosts", "%q: write a host name, an IP address, *.example.com or *", h)
		}
	}
	for name, addr := range fc.Resolve {
		if _, err := netip.ParseAddr(addr); err != nil {
			add("resolve", "%s: %q is not an IP address", name, addr)
		}
	}
}
