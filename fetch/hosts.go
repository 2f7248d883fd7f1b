package fetch

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// allowList is the hosts links may be downloaded from.
type allowList struct {
	all      bool            // "*": every host
	exact    map[string]bool // host names and IP addresses, canonical
	suffixes []string        // ".example.com" for "*.example.com"
}

// newAllowList parses entries: host names, IP addresses, "*.domain" for
// the domain's subdomains and "*" for every host.
func newAllowList(entries []string) (allowList, error) {
	al := allowList{exact: make(map[string]bool)}
	for _, raw := range entries {
		e := strings.TrimSpace(raw)
		switch {
		case e == "*":
			al.all = true
			continue
		case strings.HasPrefix(e, "*."):
			h, ok := canonicalHost(e[2:])
			if !ok || numericLastLabel(h) {
				return allowList{}, entryError(raw)
			}
			al.suffixes = append(al.suffixes, "."+h)
			continue
		}
		if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")); err == nil && ip.Zone() == "" {
			al.exact[ip.Unmap().String()] = true
			continue
		}
		h, ok := canonicalHost(e)
		if !ok || numericLastLabel(h) {
			return allowList{}, entryError(raw)
		}
		al.exact[h] = true
	}
	return al, nil
}

func entryError(entry string) error {
	return fmt.Errorf("%w: allowed host %q: write a host name (files.example.com), *.example.com for its subdomains, "+
		"an IP address, or * for every host; no scheme, port or path", ErrInvalidOptions, entry)
}

// allows reports whether host (canonical, as [parseLink] gives it) may be
// downloaded from.
func (al allowList) allows(host string) bool {
	return al.all || al.exact[host] ||
		slices.ContainsFunc(al.suffixes, func(s string) bool { return strings.HasSuffix(host, s) })
}

// exactly reports whether host is named by an entry of its own, not by a
// wildcard: only such a host may be at a non-public address.
func (al allowList) exactly(host string) bool { return al.exact[host] }

// empty reports a list that allows nothing.
func (al allowList) empty() bool { return !al.all && len(al.exact) == 0 && len(al.suffixes) == 0 }
