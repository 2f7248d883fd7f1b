package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ByteSize is a number of bytes, written in keel.yaml as a plain number
// of bytes or with a unit: "1GiB", "512 MiB", "1.5GB". Binary units (KiB,
// MiB, GiB, TiB) count in 1024s, decimal ones (kB, MB, GB, TB) in 1000s;
// "B" is bytes.
type ByteSize int64

var byteUnits = map[string]float64{
	"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseByteSize reads a size such as "1GiB", "1.5 GB" or "1048576".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, "b"
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	mult, okUnit := byteUnits[unit]
	n, err := strconv.ParseFloat(num, 64)
	if !okUnit || err != nil || num == "" || n*mult >= math.MaxInt64 { // float64(MaxInt64) is 2^63, one past it
		return 0, fmt.Errorf("%q is not a size: write bytes such as 1GiB, 512MiB, 1.5GB or 1048576", s)
	}
	return ByteSize(math.Round(n * mult)), nil
}

// UnmarshalYAML reads a size; a mistake is reported with its line.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: write a size such as 1GiB here", n.Line)}}
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*b = v
	return nil
}
