package fetch

import (
	"net/netip"
	"slices"
)

// nonPublic are the ranges, beyond what netip's IsGlobalUnicast and
// IsPrivate leave out, that no download goes to unless its host is
// allowed by name: shared, reserved, documentation and benchmarking
// space, and IPv6 forms that carry such an address or reach one.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, and Alibaba Cloud's metadata at 100.100.100.200
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, Teredo among them
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local, deprecated but routed by some
}

// Prefixes whose addresses embed an IPv4 address that is judged instead.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	// IPv4-compatible (deprecated, ::a.b.c.d) and IPv4-translated
	// (::ffff:0:a.b.c.d) addresses: some stacks still route them to the
	// IPv4 address.
	compatible = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// Public reports whether a download may connect to ip without its host
// being allowed by name: a global unicast address that is not private
// (10/8, 172.16/12, 192.168/16, fc00::/7 — where fd00:ec2::254, AWS's
// IPv6 metadata, is), loopback, link-local (169.254/16, where most
// clouds' metadata service is, and fe80::/10), multicast, unspecified,
// nor in the shared, reserved, documentation or benchmarking ranges. An
// IPv4 address written as IPv6 (::ffff:127.0.0.1, NAT64's
// 64:ff9b::7f00:1, 6to4's 2002:7f00:1::, IPv4-compatible
// ::169.254.169.254, IPv4-translated ::ffff:0:a9fe:a9fe) is judged as the
// IPv4 address it carries.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() && ip.Zone() != "" {
		return false
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip), compatible.Contains(ip), translated.Contains(ip):
			return Public(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(ip):
			return Public(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return false
	}
	return !slices.ContainsFunc(nonPublic, func(p netip.Prefix) bool { return p.Contains(ip) })
}
