// Package limit holds what package convert and package imageconv share
// about their limits and options.
package limit

// Default sets *v to d when it is zero or negative: a limit or option
// left unset.
func Default[T ~int | ~int64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
