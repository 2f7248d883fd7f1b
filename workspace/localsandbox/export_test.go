package localsandbox

// SetMountPoint makes keel mount the sandboxes the dedicated user cannot
// reach at p, so that a test can make that mount fail; restore puts the
// default back. Probes are cached per user: give the sandboxes of such a
// test a user of their own.
func SetMountPoint(p string) (restore func()) {
	old := mountPoint
	mountPoint = p
	return func() { mountPoint = old }
}

// WalkWithoutOpenat2 makes OpenFile walk the path with O_NOFOLLOW
// openat calls, as on kernels before 5.6; restore goes back to openat2.
func WalkWithoutOpenat2() (restore func()) {
	old := noOpenat2.Load()
	noOpenat2.Store(true)
	return func() { noOpenat2.Store(old) }
}
