package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// vmRSS reads VmRSS, in bytes, from a /proc/<pid>/status file.
func vmRSS(statusPath string) (int64, error) { return statusKB(statusPath, "VmRSS:") }

// statusKB reads a field counted in kB, such as "VmHWM:", in bytes, from
// a /proc/<pid>/status file.
func statusKB(statusPath, field string) (int64, error) {
	f, err := os.Open(statusPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("%s: %s line %q", statusPath, field, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", statusPath, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no %s line", statusPath, field)
}
