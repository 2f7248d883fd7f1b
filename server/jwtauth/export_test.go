package jwtauth

import "time"

// SetClock makes v read the time from now, for tests of expiry and of
// the key set's refetch rules.
func SetClock(v *Verifier, now func() time.Time) { v.now = now }
